// Model-sequence test (vgf_sequence_test.cpp): the COMPUTE segment between two GRAPH segments,
// dst[i] = src[i] * 3 + 1 over int32 storage buffers.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { int v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Out { int v[]; } dst;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(src.v.length())) dst.v[i] = src.v[i] * 3 + 1;
}
