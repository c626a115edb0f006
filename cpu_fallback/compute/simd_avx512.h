// AVX-512 building blocks shared by the optimized paths (internal header; include only from
// .cpp files, and call only where compute::has(Isa::Avx512bw)).
//
// requantize_x16 is requantize_value (requantize_row.h) on 16 int32 lanes, bit for bit: CMSIS's
// (cortex-m-ops.md §3) RDBPOT(SRDHM_no_sat(v << left, m), right) with left = clamp(shift, 0, 31),
// right = clamp(-shift, 0, 31), or TOSA's single rounding.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

#define VKRT_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define VKRT_TARGET_AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

namespace vkrt::compute::simd {

// SRDHM without saturation: (i64(a)·b + round) >> 31, low 32 bits, round = 2^30 (0 for the
// single rounding). b_odd = b >> 32 per 64-bit lane (the odd elements moved down), precomputed by
// callers with a constant b.
VKRT_TARGET_AVX512 inline __m512i rounding_doubling_high_mul_split(__m512i a, __m512i b, __m512i b_odd,
                                                                   __m512i round) {
  __m512i even = _mm512_mul_epi32(a, b);
  __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), b_odd);
  even = _mm512_srai_epi64(_mm512_add_epi64(even, round), 31);
  odd = _mm512_srai_epi64(_mm512_add_epi64(odd, round), 31);
  return _mm512_mask_blend_epi32(__mmask16(0xAAAA), even, _mm512_slli_epi64(odd, 32));
}

// Rounding divide by 2^right (right in [0, 31] per lane), ties away from zero; ties up where
// `negative` is zero (the single rounding).
VKRT_TARGET_AVX512 inline __m512i rounding_divide_by_pot(__m512i x, __m512i right,
                                                         __m512i negative) {
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
  const __m512i remainder = _mm512_and_si512(x, mask);
  const __m512i quotient = _mm512_srav_epi32(x, right);
  // threshold = (mask >> 1) + (quotient < 0): subtracting (quotient >> 31) adds 1 when negative.
  const __m512i threshold =
      _mm512_sub_epi32(_mm512_srli_epi32(mask, 1), _mm512_and_si512(_mm512_srai_epi32(quotient, 31), negative));
  const __mmask16 bump = _mm512_cmpgt_epi32_mask(remainder, threshold);
  return _mm512_mask_add_epi32(quotient, bump, quotient, one);
}

// Per-lane shifts from CMSIS shifts, and the rounding (RequantizeRow::single_round).
struct Shifts16 {
  __m512i left, right;
  __m512i round, negative;  // 2^30 and all ones (double rounding), or zeros (single)
  // The one-divide form: the terms added to the even and the odd lanes' 64-bit products
  // (2^(30+right); the double rounding's 2^30 more, less 2^31 where the product is negative), and
  // 31 + right, their shifts.
  __m512i round_even, round_odd, shift_even, shift_odd;
  bool single_round;
  bool one_divide;  // the single rounding, or the double one where split_shift_folded folds it
};
VKRT_TARGET_AVX512 inline Shifts16 split_shift(__m512i shift, bool single_round) {
  const __m512i zero = _mm512_setzero_si512(), max_shift = _mm512_set1_epi32(31);
  Shifts16 s{_mm512_min_epi32(_mm512_max_epi32(shift, zero), max_shift),
             _mm512_min_epi32(_mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero), max_shift),
             single_round ? zero : _mm512_set1_epi64(int64_t(1) << 30),
             single_round ? zero : _mm512_set1_epi32(-1),
             zero, zero, zero, zero, single_round, single_round};
  if (single_round) {
    // Shifts −31..−1 (RequantizeRow::single_round): right >= 1; the max keeps other shifts
    // harmless (their results are not defined).
    const __m512i total = _mm512_add_epi32(_mm512_max_epi32(s.right, _mm512_set1_epi32(1)), _mm512_set1_epi32(31));
    s.shift_even = _mm512_and_si512(total, _mm512_set1_epi64(0xFFFFFFFF));
    s.shift_odd = _mm512_srli_epi64(total, 32);
    const __m512i one = _mm512_set1_epi64(1);
    s.round_even = _mm512_sllv_epi64(one, _mm512_sub_epi64(s.shift_even, one));
    s.round_odd = _mm512_sllv_epi64(one, _mm512_sub_epi64(s.shift_odd, one));
  }
  return s;
}

// split_shift with the double rounding folded into one divide where every lane shifts right
// (right >= 1) and no multiplier is INT32_MIN: ⌊(P + 2^30 + 2^(30+right) − [P < 0]·2^31) /
// 2^(31+right)⌋ for P = v·m (output_stage_hwy-inl.h derives it). For scales used on several
// rows: deriving the terms costs about what one requantize_x16 saves.
VKRT_TARGET_AVX512 inline Shifts16 split_shift_folded(__m512i shift, __m512i multiplier, bool single_round) {
  Shifts16 s = split_shift(shift, single_round);
  if (single_round) return s;
  const __mmask16 two_steps = _mm512_cmpeq_epi32_mask(s.right, _mm512_setzero_si512()) |
                              _mm512_cmpeq_epi32_mask(multiplier, _mm512_set1_epi32(INT32_MIN));
  if (two_steps != 0) return s;
  const __m512i total = _mm512_add_epi32(s.right, _mm512_set1_epi32(31));
  s.shift_even = _mm512_and_si512(total, _mm512_set1_epi64(0xFFFFFFFF));
  s.shift_odd = _mm512_srli_epi64(total, 32);
  const __m512i base = _mm512_set1_epi64(int64_t(1) << 30);
  // 2^30 + 2^(30+right) = 2^30 + 2^(total − 1).
  s.round_even = _mm512_add_epi64(base, _mm512_sllv_epi64(base, _mm512_sub_epi64(s.shift_even, _mm512_set1_epi64(31))));
  s.round_odd = _mm512_add_epi64(base, _mm512_sllv_epi64(base, _mm512_sub_epi64(s.shift_odd, _mm512_set1_epi64(31))));
  s.one_divide = true;
  return s;
}

// requantize_value (requantize_row.h) on 16 lanes: in one divide on the 64-bit products (which
// cannot overflow: |v·m| <= 2^62) where the scales allow it, else in two steps.
VKRT_TARGET_AVX512 inline __m512i requantize_x16(__m512i v, __m512i multiplier, const Shifts16& s) {
  if (s.one_divide) {
    const __m512i even_product = _mm512_mul_epi32(v, multiplier);
    const __m512i odd_product = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), _mm512_srli_epi64(multiplier, 32));
    __m512i even = _mm512_add_epi64(even_product, s.round_even);
    __m512i odd = _mm512_add_epi64(odd_product, s.round_odd);
    if (!s.single_round) {
      const __m512i zero = _mm512_setzero_si512(), carry = _mm512_set1_epi64(int64_t(1) << 31);
      even = _mm512_mask_sub_epi64(even, _mm512_cmplt_epi64_mask(even_product, zero), even, carry);
      odd = _mm512_mask_sub_epi64(odd, _mm512_cmplt_epi64_mask(odd_product, zero), odd, carry);
    }
    even = _mm512_srav_epi64(even, s.shift_even);
    odd = _mm512_srav_epi64(odd, s.shift_odd);
    return _mm512_mask_blend_epi32(__mmask16(0xAAAA), even, _mm512_slli_epi64(odd, 32));
  }
  const __m512i x = rounding_doubling_high_mul_split(_mm512_sllv_epi32(v, s.left), multiplier,
                                                     _mm512_srli_epi64(multiplier, 32), s.round);
  return rounding_divide_by_pot(x, s.right, s.negative);
}

// clamp(v + offset, lo, hi) narrowed to int8 and stored to `count` (<= 16) bytes.
VKRT_TARGET_AVX512 inline void store_s8x16(int8_t* out, __m512i v, __m512i offset, __m512i lo,
                                           __m512i hi, int count) {
  v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, offset), lo), hi);
  const __mmask16 m = count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1u);
  _mm512_mask_cvtsepi32_storeu_epi8(out, m, v);
}

}  // namespace vkrt::compute::simd
#endif  // __x86_64__
