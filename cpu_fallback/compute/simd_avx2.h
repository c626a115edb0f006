// AVX2 forms of the output stage, bit for bit arith::requantize (cortex-m-ops.md §3) on 8 int32
// lanes: RDBPOT(SRDHM_no_sat(v << left, m), right), left = clamp(shift, 0, 31),
// right = clamp(-shift, 0, 31). Include only from .cpp files; call only where
// compute::has(Isa::Avx2).
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#define VKRT_TARGET_AVX2 __attribute__((target("avx2")))

namespace vkrt::compute::simd {

// SRDHM without saturation: (i64(a)·b + 2^30) >> 31, low 32 bits. AVX2 has no 64-bit
// arithmetic shift, but the low 32 bits of the shifted sum are bits 31..62 of the sum, which a
// logical shift brings down just as well.
VKRT_TARGET_AVX2 inline __m256i rounding_doubling_high_mul_x8(__m256i a, __m256i b) {
  const __m256i round = _mm256_set1_epi64x(int64_t(1) << 30);
  __m256i even = _mm256_mul_epi32(a, b);
  __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
  even = _mm256_srli_epi64(_mm256_add_epi64(even, round), 31);
  odd = _mm256_srli_epi64(_mm256_add_epi64(odd, round), 31);
  return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// Rounding divide by 2^right (right in [0, 31] per lane), ties away from zero.
VKRT_TARGET_AVX2 inline __m256i rounding_divide_by_pot_x8(__m256i x, __m256i right) {
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
  const __m256i remainder = _mm256_and_si256(x, mask);
  const __m256i quotient = _mm256_srav_epi32(x, right);
  // threshold = (mask >> 1) + (quotient < 0); a lane compares to -1 (all ones) where it rounds up.
  const __m256i threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_srai_epi32(quotient, 31));
  return _mm256_sub_epi32(quotient, _mm256_cmpgt_epi32(remainder, threshold));
}

// arith::requantize on 8 lanes with per-lane multipliers and CMSIS shifts.
VKRT_TARGET_AVX2 inline __m256i requantize_x8(__m256i v, __m256i multiplier, __m256i shift) {
  const __m256i zero = _mm256_setzero_si256(), max_shift = _mm256_set1_epi32(31);
  const __m256i left = _mm256_min_epi32(_mm256_max_epi32(shift, zero), max_shift);
  const __m256i right = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero), max_shift);
  return rounding_divide_by_pot_x8(rounding_doubling_high_mul_x8(_mm256_sllv_epi32(v, left), multiplier), right);
}

// clamp(v + offset, lo, hi) for 16 lanes (lanes 0-7 in `first`, 8-15 in `second`), narrowed to
// int8 with saturation, in lane order.
VKRT_TARGET_AVX2 inline __m128i narrow_s8x16(__m256i first, __m256i second, __m256i offset, __m256i lo, __m256i hi) {
  first = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(first, offset), lo), hi);
  second = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(second, offset), lo), hi);
  // packs works within 128-bit halves: words [f0-3 s0-3 | f4-7 s4-7], bytes [f0-3 s0-3 f0-3 s0-3 | f4-7 ...];
  // dwords 0, 4, 1, 5 are f0-3, f4-7, s0-3, s4-7.
  const __m256i words = _mm256_packs_epi32(first, second);
  const __m256i bytes = _mm256_packs_epi16(words, words);
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5)));
}

}  // namespace vkrt::compute::simd
#endif  // __x86_64__
