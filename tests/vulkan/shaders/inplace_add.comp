// COMPUTE-segment test: one resource that is both the segment's input and its output, bound in
// descriptor set 2 at binding 5 (sets 0 and 1 are left out): data[i] += 10.
#version 450
layout(local_size_x = 8) in;
layout(set = 2, binding = 5) buffer Data { uint v[]; } data;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(data.v.length())) data.v[i] += 10u;
}
