// NEON forms of the output stage, bit for bit requantize_value (requantize_row.h) on 4 int32
// lanes: CMSIS-NN's (cortex-m-ops.md §3) RDBPOT(SRDHM_no_sat(v << left, m), right), left = clamp(shift, 0, 31),
// right = clamp(-shift, 0, 31). SQRDMULH is not used: it saturates INT32_MIN·INT32_MIN, where
// CMSIS's no-saturation form wraps. Include only from .cpp files, on aarch64.
#pragma once

#if defined(__aarch64__)
#include <arm_neon.h>

#include <cstdint>

namespace vkrt::compute::simd {

// (i64(a)·b + round) >> 31, low 32 bits (SHRN keeps them): SRDHM with round = 2^30.
inline int32x4_t doubling_high_mul_x4(int32x4_t a, int32x4_t b, int64x2_t round) {
  const int64x2_t lo = vaddq_s64(vmull_s32(vget_low_s32(a), vget_low_s32(b)), round);
  const int64x2_t hi = vaddq_s64(vmull_high_s32(a, b), round);
  return vcombine_s32(vshrn_n_s64(lo, 31), vshrn_n_s64(hi, 31));
}

// Rounding divide by 2^right (right in [0, 31] per lane), ties away from zero where `negative`
// is all ones, up where it is zero.
inline int32x4_t rounding_divide_by_pot_x4(int32x4_t x, int32x4_t right, int32x4_t negative) {
  const int32x4_t one = vdupq_n_s32(1);
  const int32x4_t mask = vsubq_s32(vshlq_s32(one, right), one);
  const int32x4_t remainder = vandq_s32(x, mask);
  const int32x4_t quotient = vshlq_s32(x, vnegq_s32(right));  // SSHL by a negative count: arithmetic, truncating
  // threshold = (mask >> 1) + (quotient < 0): the sign bit shifted down is -1 where negative.
  const int32x4_t threshold = vsubq_s32(vshrq_n_s32(mask, 1), vandq_s32(vshrq_n_s32(quotient, 31), negative));
  return vsubq_s32(quotient, vreinterpretq_s32_u32(vcgtq_s32(remainder, threshold)));
}

// requantize_value (requantize_row.h): double rounding as above; single rounding (shifts
// -31..-1) takes ⌊v·m / 2^31⌋ and rounds once, ties up, in the divide (output_stage_hwy-inl.h).
inline int32x4_t requantize_x4(int32x4_t v, int32x4_t multiplier, int32x4_t shift, bool single_round) {
  const int32x4_t zero = vdupq_n_s32(0), max_shift = vdupq_n_s32(31);
  const int32x4_t left = vminq_s32(vmaxq_s32(shift, zero), max_shift);
  const int32x4_t right = vminq_s32(vmaxq_s32(vnegq_s32(shift), zero), max_shift);
  const int64x2_t round = vdupq_n_s64(single_round ? 0 : int64_t(1) << 30);
  // SSHL by a positive count is a plain (wrapping) left shift, as arith::wrap_shl.
  return rounding_divide_by_pot_x4(doubling_high_mul_x4(vshlq_s32(v, left), multiplier, round), right,
                                   vdupq_n_s32(single_round ? 0 : -1));
}

// clamp(v + offset, lo, hi) for 16 lanes (four vectors in lane order), narrowed to int8 with
// saturation.
inline int8x16_t narrow_s8x16(const int32x4_t v[4], int32x4_t offset, int32x4_t lo, int32x4_t hi) {
  int16x8_t half[2];
  for (int h = 0; h < 2; ++h) {
    const int32x4_t a = vminq_s32(vmaxq_s32(vaddq_s32(v[2 * h], offset), lo), hi);
    const int32x4_t b = vminq_s32(vmaxq_s32(vaddq_s32(v[2 * h + 1], offset), lo), hi);
    half[h] = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
  }
  return vcombine_s8(vqmovn_s16(half[0]), vqmovn_s16(half[1]));
}

}  // namespace vkrt::compute::simd
#endif  // __aarch64__
