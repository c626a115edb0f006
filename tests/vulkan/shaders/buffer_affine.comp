// COMPUTE-segment test (compute_segment_test.cpp): out[i] = in[i] * 3 + 1 + bias over int32
// storage buffers. `bias` is a push constant: the VGF carries no values, so the runner pushes
// zeros and the test expects in * 3 + 1.
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer In { int v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { int v[]; } dst;
layout(push_constant) uniform Push { int bias; int unused; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(src.v.length())) dst.v[i] = src.v[i] * 3 + 1 + pc.bias;
}
