// CAST (tosa.md §12) between bool/int8/int16/int32/fp32: integer narrowing wraps (two's
// complement), widening sign-extends, int -> bool is x != 0, float -> int rounds to nearest even
// and saturates (NaN -> 0), int -> float rounds to nearest.
// Variants: IN_T, OUT_T, IN_FLOAT, OUT_FLOAT, OUT_BITS (8/16/32) for saturation.
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "elementwise_ops.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { CAST_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
#ifdef IN_FLOAT
  float x = float(data_in[idx]);
#ifdef OUT_FLOAT
  data_out[idx] = OUT_T(x);
#else
  if (p.out_bool != 0) { data_out[idx] = OUT_T(x != 0.0 ? 1 : 0); return; }
  data_out[idx] = OUT_T(ew_f2i(x, OUT_BITS));  // elementwise_ops.glsl, shared with fused chains
#endif
#else
  int x = int(data_in[idx]);
#ifdef OUT_FLOAT
  data_out[idx] = OUT_T(float(x));
#else
  if (p.out_bool != 0) { data_out[idx] = OUT_T(x != 0 ? 1 : 0); return; }
  data_out[idx] = OUT_T(x);  // conversion to a narrower integer keeps the low bits
#endif
#endif
}
