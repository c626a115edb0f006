// RESCALE of an int48 input (held in int64; tosa.md §5). TOSA forbids scale32 with an int48
// input (ERROR_IF), so this is apply_scale_16 only, exactly as cpu_fallback/arith/fixed_point.h
// computes it: clamp the value to int48, (value * multiplier + 2^(shift-1)) >> shift on 64 bits
// (|value| < 2^47 and multiplier < 2^15, so the product fits), saturate to int32; then add the
// output zero point and clamp to the output range. Needs shaderInt64 (checked by the lowering).
// Variants: OUT_T. Bindings and push constants: those of rescale.comp.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "int48.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { int64_t data_in[]; };
layout(set = 0, binding = 1) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 2) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 3) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { RESCALE_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int c = (p.flags & EPI_PER_CHANNEL) != 0 ? int(idx % uint(p.channels)) : 0;
  int shift = clamp(data_shift[c], 1, 62);
  int64_t v = clamp_int48(data_in[idx] - int64_t(p.in_zp));
  int64_t scaled = (v * int64_t(data_mult[c]) + (int64_t(1) << (shift - 1))) >> shift;
  scaled = clamp(scaled, int64_t(-2147483648), int64_t(2147483647));
  int64_t r = scaled + int64_t(p.out_zp);
  data_out[idx] = OUT_T(int(clamp(r, int64_t(p.out_min), int64_t(p.out_max))));
}
