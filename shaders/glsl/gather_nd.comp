// Output-driven N-d gather for PAD and TILE (rank <= 6, tosa.md §10). For each output
// coordinate c: input coordinate q[d] = c[d] - pad_before[d] (PAD; outside [0, in_dim) gives
// pad_value) or c[d] mod in_dim[d] (TILE). Variants by element size (ELEM_T as copy_nd.comp;
// pad_value holds the raw bits of one element, low 32 bits; 64-bit elements pad with
// (pad_value, pad_value_hi)).
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { ELEM_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { ELEM_T data_out[]; };

layout(push_constant) uniform Params { GATHER_ND_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int rem = int(idx);
  int i = 0, stride = 1;
  bool inside = true;
  for (int d = 5; d >= 0; --d) {
    int c = rem % p.out_shape[d];
    rem /= p.out_shape[d];
    int q = p.tile != 0 ? c % p.in_dim[d] : c - p.pad_before[d];
    if (q < 0 || q >= p.in_dim[d]) inside = false;
    i += q * stride;
    stride *= p.in_dim[d];
  }
  if (inside) {
    data_out[idx] = data_in[i];
  } else {
#ifdef ELEM_IS_UVEC2
    data_out[idx] = uvec2(uint(p.pad_value), uint(p.pad_value_hi));
#else
    data_out[idx] = ELEM_T(uint(p.pad_value));
#endif
  }
}
