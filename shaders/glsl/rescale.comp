// RESCALE (tosa.md §5) for int8/int16/int32 inputs and outputs (int48 input not supported).
// scale32: apply_scale_32 with optional double rounding; !scale32: apply_scale_16 (multiplier
// in int16 range, no double rounding) — both are (v * m + round) >> shift on 64 bits.
// INEXACT_ROUND is treated as SINGLE_ROUND (as Arm's emulation layer does).
// Variants: IN_T, OUT_T, IN_BITS (8/16/32) for the unsigned-input zero extension.
// Bindings: 0 input, 1 multiplier (int32 per channel), 2 shift (int32 per channel), 3 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 2) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 3) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { RESCALE_PARAMS } p;  // push_constants.h

#define IN_UNSIGNED 8

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int v = int(data_in[idx]);
#if IN_BITS < 32
  if ((p.flags & IN_UNSIGNED) != 0) v = v & ((1 << IN_BITS) - 1);
#endif
  v = v - p.in_zp;
  int c = (p.flags & EPI_PER_CHANNEL) != 0 ? int(idx % uint(p.channels)) : 0;
  int s = apply_scale_32(v, data_mult[c], data_shift[c], (p.flags & EPI_DOUBLE_ROUND) != 0);
  data_out[idx] = OUT_T(clamp(s + p.out_zp, p.out_min, p.out_max));
}
