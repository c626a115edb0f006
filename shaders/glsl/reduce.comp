// REDUCE_* along one axis (tosa.md §12) and ARGMAX. The input is viewed as [outer, axis, inner];
// one invocation per output element loops over the axis.
// Variants: IN_T, FLOAT_PATH; ARGMAX_OUT writes the int32 index of the first maximum.
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "op_codes.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
#ifdef ARGMAX_OUT
layout(set = 0, binding = 1) writeonly buffer Out { int data_out[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Out { IN_T data_out[]; };
#endif

layout(push_constant) uniform Params { REDUCE_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.outer * p.inner)) return;
  int o = int(idx) / p.inner;
  int i = int(idx) % p.inner;
  int base = o * p.axis_len * p.inner + i;
#ifdef FLOAT_PATH
  float acc = float(data_in[base]);
  int best = 0;
  bool acc_nan = isnan(acc);
  for (int k = 1; k < p.axis_len; ++k) {
    float v = float(data_in[base + k * p.inner]);
    bool v_nan = isnan(v);
#ifdef ARGMAX_OUT
    // First maximum; PROPAGATE: the first NaN wins; IGNORE: NaNs are skipped.
    if (acc_nan && p.nan_mode == NAN_PROPAGATE) continue;
    if (v_nan) {
      if (p.nan_mode == NAN_PROPAGATE) { best = k; acc = v; acc_nan = true; }
      continue;
    }
    if (acc_nan || v > acc) { best = k; acc = v; acc_nan = false; }
#else
    if (p.op == RED_SUM) { acc += v; continue; }
    if (p.op == RED_PRODUCT) { acc *= v; continue; }
    if (acc_nan || v_nan) {
      if (p.nan_mode == NAN_PROPAGATE) { if (!acc_nan) { acc = v; acc_nan = true; } continue; }
      if (acc_nan && !v_nan) { acc = v; acc_nan = false; }
      continue;
    }
    acc = p.op == RED_MAX ? max(acc, v) : min(acc, v);
#endif
  }
#else
  int acc = int(data_in[base]);
  int best = 0;
  for (int k = 1; k < p.axis_len; ++k) {
    int v = int(data_in[base + k * p.inner]);
#ifdef ARGMAX_OUT
    if (v > acc) { acc = v; best = k; }
#else
    switch (p.op) {
      case RED_SUM: acc += v; break;                 // int32 wraps
      case RED_MAX: acc = max(acc, v); break;
      case RED_MIN: acc = min(acc, v); break;
      case RED_PRODUCT: acc *= v; break;
      case RED_ALL: acc = int(acc != 0 && v != 0); break;
      case RED_ANY: acc = int(acc != 0 || v != 0); break;
    }
#endif
  }
#if !defined(FLOAT_PATH)
  if (p.op == RED_ALL || p.op == RED_ANY) acc = int(acc != 0);
#endif
#endif
#ifdef ARGMAX_OUT
  data_out[idx] = best;
#else
  data_out[idx] = IN_T(acc);
#endif
}
