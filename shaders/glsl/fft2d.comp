// FFT2D and RFFT2D (TOSA 1.0 EXT-FFT; the CPU kernel cpu_fallback/tosa/fft.cpp is the oracle):
// the spec's direct, unnormalised DFT over [N,H,W], one invocation per output element
// (n, oy, ox) of [N, H, out_width], a 1-D grid of 64-wide workgroups (linear_index()).
// RFFT2D is the same sum with a zero imaginary input (FFT2D_REAL_INPUT) and out_width = W/2+1.
//
// Accuracy: the twiddles are not computed here (fp32 sin/cos of a large angle is poor) but read
// from a table the host computed in double and rounded once (tosa::fft2d_twiddles): entry k is
// (cos, sin) of 2*pi*k/L, L = max(H, W), and the angle of (iy, ix) is entry
// ((iy*oy mod H)*(L/H) + (ix*ox mod W)*(L/W)) mod L, as the spec reduces it. Each input row's W
// products are summed first and the H row sums then added, so the rounding error grows with
// H + W rather than H*W.
//
// Bindings: 0 input_real, 1 input_imag (not read with FFT2D_REAL_INPUT: bind any buffer),
// 2 twiddles (vec2[L]), 3 output_real, 4 output_imag. Push constants: FFT2D_PARAMS (push_constants.h).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(push_constant) uniform Params { FFT2D_PARAMS } p;

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer InRe { float in_re[]; };
layout(set = 0, binding = 1) readonly buffer InIm { float in_im[]; };
layout(set = 0, binding = 2) readonly buffer Twiddles { vec2 twiddle[]; };
layout(set = 0, binding = 3) writeonly buffer OutRe { float out_re[]; };
layout(set = 0, binding = 4) writeonly buffer OutIm { float out_im[]; };

void main() {
  const uint idx = linear_index();
  const uint H = uint(p.height), W = uint(p.width), out_width = uint(p.out_width), L = uint(p.table_size);
  if (idx >= uint(p.batches) * H * out_width) return;
  const uint ox = idx % out_width;
  const uint oy = (idx / out_width) % H;
  const uint n = idx / (out_width * H);
  const bool real_input = (p.flags & FFT2D_REAL_INPUT) != 0;
  // exp(-i*sign*a) = cos a - i*sign*sin a; sign = -1 for the inverse.
  const float sign = (p.flags & FFT2D_INVERSE) != 0 ? -1.0 : 1.0;
  const uint y_step = L / H, x_step = L / W, mask = L - 1u;

  vec2 sum = vec2(0.0);
  for (uint iy = 0u; iy < H; ++iy) {
    const uint ky = ((iy * oy) & (H - 1u)) * y_step;
    const uint base = (n * H + iy) * W;
    vec2 row = vec2(0.0);
    for (uint ix = 0u; ix < W; ++ix) {
      const vec2 t = twiddle[(ky + ((ix * ox) & (W - 1u)) * x_step) & mask];
      const float s = sign * t.y;
      const float re = in_re[base + ix];
      const float im = real_input ? 0.0 : in_im[base + ix];
      // (re + i*im) * (cos a - i*s), as the spec's sum_real / sum_imag.
      row.x += re * t.x + im * s;
      row.y += im * t.x - re * s;
    }
    sum += row;
  }
  // RFFT2D: every angle at (0 or H/2, 0 or W/2) is a multiple of pi; the spec skips those sin
  // terms, so the imaginary output there is exactly 0.
  if (real_input && (oy == 0u || 2u * oy == H) && (ox == 0u || 2u * ox == W)) sum.y = 0.0;
  out_re[idx] = sum.x;
  out_im[idx] = sum.y;
}
