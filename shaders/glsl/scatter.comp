// SCATTER (tosa.md §10): values_in [N,K,C], indices int32 [N,W], input [N,W,C] -> output
// [N,K,C] = values_in with row k of batch n replaced by input row w where indices[n,w] = k.
// One invocation per output element searches its batch's indices for the LAST w naming its row,
// so the result is deterministic (no write races) and matches cpu_fallback/tosa/gather.cpp,
// whose later rows win when a (REQUIRE-violating) index repeats. Indices outside [0, K) are
// never matched (the CPU kernel rejects them). Cost O(W) per element; W is small in practice.
// Variants by element size (ELEM_T). Bindings: 0 values_in, 1 indices, 2 input, 3 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer V { ELEM_T data_values[]; };
layout(set = 0, binding = 1) readonly buffer I { int data_i[]; };
layout(set = 0, binding = 2) readonly buffer In { ELEM_T data_in[]; };
layout(set = 0, binding = 3) writeonly buffer Out { ELEM_T data_out[]; };

layout(push_constant) uniform Params { GATHER_SCATTER_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.N * p.K) * uint(p.C)) return;
  int c = int(idx % uint(p.C));
  int k = int((idx / uint(p.C)) % uint(p.K));
  int n = int(idx / uint(p.C * p.K));
  int source = -1;
  for (int w = p.W - 1; w >= 0; --w) {
    if (data_i[n * p.W + w] == k) { source = w; break; }
  }
  data_out[idx] = source < 0 ? data_values[idx] : data_in[(n * p.W + source) * p.C + c];
}
