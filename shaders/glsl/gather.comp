// GATHER (tosa.md §10): values [N,K,C], indices int32 [N,W] -> [N,W,C]. An index outside [0, K)
// (a TOSA REQUIRE violation) yields zero. Variants by element size (ELEM_T).
// Bindings: 0 values, 1 indices, 2 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer V { ELEM_T data_v[]; };
layout(set = 0, binding = 1) readonly buffer I { int data_i[]; };
layout(set = 0, binding = 2) writeonly buffer Out { ELEM_T data_out[]; };

layout(push_constant) uniform Params { GATHER_SCATTER_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.N * p.W * p.C)) return;
  int c = int(idx) % p.C;
  int w = (int(idx) / p.C) % p.W;
  int n = int(idx) / (p.C * p.W);
  int k = data_i[n * p.W + w];
  if (k < 0 || k >= p.K) { data_out[idx] = ELEM_T(0); return; }
  data_out[idx] = data_v[(n * p.K + k) * p.C + c];
}
