// Elementwise unary ops (tosa.md §9, §12), CLAMP included. Variants: IN_T (= output type),
// FLOAT_PATH. Integer results are clamped to [type_min, type_max] where TOSA saturates (NEGATE).
// The functions with more than one line are elementwise_ops.glsl's, shared with fused chains.
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "elementwise_ops.glsl"
#include "op_codes.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { IN_T data_out[]; };

layout(push_constant) uniform Params { UNARY_PARAMS } p;  // push_constants.h

#ifdef FLOAT_PATH
float apply(float x) {
  switch (p.op) {
    case UN_ABS: return abs(x);
    case UN_NEGATE: return -x;
    case UN_CLAMP: return ew_fclamp(x, intBitsToFloat(p.p0), intBitsToFloat(p.p1), p.nan_mode == NAN_IGNORE);
    case UN_CEIL: return ceil(x);
    case UN_FLOOR: return floor(x);
    case UN_EXP: return exp(x);
    case UN_LOG: return log(x);
    case UN_SIN: return sin(x);
    case UN_COS: return cos(x);
    case UN_RECIPROCAL: return 1.0 / x;
    case UN_RSQRT: return inversesqrt(x);
    case UN_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case UN_TANH: return ew_tanh(x);
    case UN_ERF: return ew_erf(x);
    case UN_IDENTITY: return x;
  }
  return 0.0;
}
#else
int apply(int x) {
  switch (p.op) {
    case UN_ABS: return clamp(abs(x), p.type_min, p.type_max);  // abs(INT_MIN) REQUIREs
    case UN_BITWISE_NOT: return ~x;
    case UN_CLZ: return x == 0 ? 32 : 31 - findMSB(uint(x));
    case UN_NEGATE: {
      int v = -(x - p.p0) + p.p1;
      return clamp(v, p.type_min, p.type_max);
    }
    case UN_CLAMP: return min(max(x, p.p0), p.p1);
    case UN_LOGICAL_NOT: return x != 0 ? 0 : 1;
    case UN_IDENTITY: return x;
  }
  return 0;
}
#endif

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
#ifdef FLOAT_PATH
  data_out[idx] = IN_T(apply(float(data_in[idx])));
#else
  data_out[idx] = IN_T(apply(int(data_in[idx])));
#endif
}
