// MAX_POOL2D and AVG_POOL2D over NHWC (tosa.md §7): padding taps are excluded (max never picks
// them; avg excludes them from sum and count); integer average = apply_scale_32 with the
// reciprocal_scale of the count, no double rounding, + output zero point, clamped.
// Variants: IN_T, FLOAT_PATH. Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "op_codes.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { IN_T data_out[]; };

layout(push_constant) uniform Params { POOL_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW * p.C)) return;
  int c = int(idx % uint(p.C));
  uint pix = idx / uint(p.C);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));
#ifdef FLOAT_PATH
  float best = -1.0 / 0.0;
  float sum = 0.0;
  bool saw_nan = false;
#else
  int best = p.type_min;
  int sum = 0;
#endif
  int count = 0;
  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx;
      if (x < 0 || x >= p.IW) continue;
#ifdef FLOAT_PATH
      float v = float(data_in[((n * p.IH + y) * p.IW + x) * p.C + c]);
      if (isnan(v)) { saw_nan = true; continue; }
      best = max(best, v);
      sum += v;
#else
      int v = int(data_in[((n * p.IH + y) * p.IW + x) * p.C + c]);
      best = max(best, v);
      sum += v - p.in_zp;
#endif
      count += 1;
    }
  }
#ifdef FLOAT_PATH
  float r;
  if (p.mode == POOL_MAX) {
    r = (saw_nan && (p.nan_mode == NAN_PROPAGATE || count == 0)) ? (0.0 / 0.0) : best;
  } else {
    r = saw_nan ? (0.0 / 0.0) : sum / float(count);
  }
  data_out[idx] = IN_T(r);
#else
  int r = best;
  if (p.mode == POOL_AVG) {
    // reciprocal_scale(count) (tosa.md §4): k = 32 - clz(count - 1); multiplier =
    // ((1 << 30) + 1) << k / count, shift = 30 + k. count >= 1 (TOSA forbids pad >= kernel).
    int k = count <= 1 ? 0 : 32 - (31 - findMSB(uint(count - 1)));
    // numerator = ((1<<30)+1) << k fits in 64 bits; the quotient fits in 31 bits. Long
    // division in 32-bit halves: q = (hi * 2^32 + lo) / count.
    uint num_hi = k == 0 ? 0u : (uint((1 << 30) + 1) >> uint(32 - k));
    uint num_lo = uint((1 << 30) + 1) << uint(k);
    // num_hi < count always (quotient < 2^31), so a bitwise long division over 32 steps works.
    uint rem = num_hi, q = 0u;
    for (int b = 31; b >= 0; --b) {
      uint top = rem >> 31;
      rem = (rem << 1) | ((num_lo >> uint(b)) & 1u);
      q <<= 1;
      if (top != 0u || rem >= uint(count)) { rem -= uint(count); q |= 1u; }
    }
    r = apply_scale_32(sum, int(q), 30 + k, false) + p.out_zp;
    r = clamp(r, p.type_min, p.type_max);
  }
  data_out[idx] = IN_T(r);
#endif
}
