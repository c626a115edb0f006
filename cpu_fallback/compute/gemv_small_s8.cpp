// Direct small GEMV: for each row of A (≤ 4) and each group of 16 columns, one VPDPBUSD
// accumulator per column over the depth, a transposing reduction of the 16 accumulators into
// one vector of 16 column sums, then the vectorized output stage. Same offset folding as
// gemm_s8.cpp (A fed unsigned as a ^ 0x80):
//   acc[j] = Σ a_u·b + bias[j] + (a_offset − 128)·Σb[j] + k·a_offset·b_offset + b_offset·Σa
// all modulo 2^32, so the bytes equal the portable loop's.
#include "compute/gemv_small_s8.h"

#include <algorithm>

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "compute/simd_avx512.h"

namespace vkrt::compute {

bool gemv_small_usable(const GemmS8& g) {
  return has(Isa::Avx512vnni) && g.c32 == nullptr && g.a_row == nullptr && g.m >= 1 && g.m <= 4 && g.k >= 1 && g.n >= 1 &&
         g.n <= kGemvSmallMaxMacs && g.k <= kGemvSmallMaxMacs && g.m * int64_t(g.n) * g.k <= kGemvSmallMaxMacs;
}

#if defined(__x86_64__)
namespace {

// Sums each of 16 vectors horizontally: lane j of the result = Σ lanes of v[j].
VKRT_TARGET_AVX512 inline __m512i reduce16(const __m512i* v) {
  __m512i t[8], u[4];
  for (int i = 0; i < 8; ++i)
    t[i] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_epi32(v[2 * i], v[2 * i + 1]));
  // Each 128-bit lane of u[i] now holds partial sums of v[4i .. 4i+3], in order.
  for (int i = 0; i < 4; ++i)
    u[i] = _mm512_add_epi32(_mm512_unpacklo_epi64(t[2 * i], t[2 * i + 1]), _mm512_unpackhi_epi64(t[2 * i], t[2 * i + 1]));
  // Sum the four 128-bit lanes of each u[i] and place u[i]'s total in lane i.
  const __m512i s01 = _mm512_add_epi32(_mm512_shuffle_i32x4(u[0], u[1], 0x44), _mm512_shuffle_i32x4(u[0], u[1], 0xEE));
  const __m512i s23 = _mm512_add_epi32(_mm512_shuffle_i32x4(u[2], u[3], 0x44), _mm512_shuffle_i32x4(u[2], u[3], 0xEE));
  return _mm512_add_epi32(_mm512_shuffle_i32x4(s01, s23, 0x88), _mm512_shuffle_i32x4(s01, s23, 0xDD));
}

inline __mmask64 depth_mask(int32_t left) { return left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1; }

// Lane c: Σ_i a_u[i]·B[j0 + c][i] for c < cols (WeightSums: Σ_i B[j0 + c][i] instead).
// Always 16 columns (straight-line code); columns past `cols` re-read the last column and are
// ignored by the caller.
template <bool WeightSums>
VKRT_TARGET_AVX512VNNI __attribute__((always_inline)) inline __m512i column_dots(const GemmS8& g, const int8_t* a, int32_t j0, int cols) {
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80)), ones = _mm512_set1_epi8(1);
  __m512i acc[16];
  if (g.k == 64) {  // one full vector of depth (e.g. DS-CNN): plain loads, straight-line code
    const __m512i au = WeightSums ? ones : _mm512_xor_si512(_mm512_loadu_si512(a), flip);
    for (int c = 0; c < 16; ++c) {
      const int8_t* b = g.b + int64_t(j0 + std::min(c, cols - 1)) * g.b_stride;
      acc[c] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), au, _mm512_loadu_si512(b));
    }
    return reduce16(acc);
  }
  if (g.k < 64) {  // one partial vector of depth
    const __mmask64 m = depth_mask(g.k);
    // Bytes past k: a_u is anything, b is zero, so they add nothing.
    const __m512i au = WeightSums ? ones : _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a), flip);
    for (int c = 0; c < 16; ++c) {
      const int8_t* b = g.b + int64_t(j0 + std::min(c, cols - 1)) * g.b_stride;
      acc[c] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), au, _mm512_maskz_loadu_epi8(m, b));
    }
    return reduce16(acc);
  }
  for (int c = 0; c < 16; ++c) {
    const int8_t* b = g.b + int64_t(j0 + std::min(c, cols - 1)) * g.b_stride;
    __m512i sum = _mm512_setzero_si512();
    for (int32_t i = 0; i < g.k; i += 64) {
      const __mmask64 m = depth_mask(g.k - i);
      const __m512i au = WeightSums ? ones : _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + i), flip);
      sum = _mm512_dpbusd_epi32(sum, au, _mm512_maskz_loadu_epi8(m, b + i));
    }
    acc[c] = sum;
  }
  return reduce16(acc);
}

VKRT_TARGET_AVX512VNNI void gemv_row(const GemmS8& g, int64_t r) {
  const int8_t* a = g.a + r * g.a_stride;
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80));
  // Σa (only needed with a weight offset): Σ a_u − 128·k, with VPSADBW against zero.
  int32_t sum_a = 0;
  if (g.b_offset != 0) {
    __m512i sad = _mm512_setzero_si512();
    for (int32_t i = 0; i < g.k; i += 64) {
      const __m512i au = _mm512_xor_si512(_mm512_maskz_loadu_epi8(depth_mask(g.k - i), a + i), flip);
      // Masked-off bytes became 0x80: subtract their 128 below along with the rest.
      sad = _mm512_add_epi64(sad, _mm512_sad_epu8(au, _mm512_setzero_si512()));
    }
    const int64_t padded = int64_t((g.k + 63) / 64) * 64;
    sum_a = int32_t(uint32_t(uint64_t(_mm512_reduce_add_epi64(sad) - 128 * padded)));
  }
  const bool need_bsum = g.a_offset != 128;
  const int32_t k_term = arith::wrap_add(arith::wrap_mul(arith::wrap_mul(g.k, g.a_offset), g.b_offset),
                                         arith::wrap_mul(g.b_offset, sum_a));
  const __m512i out_offset = _mm512_set1_epi32(g.out.output_offset);
  const __m512i lo = _mm512_set1_epi32(g.out.activation_min), hi = _mm512_set1_epi32(g.out.activation_max);
  const __m512i bsum_factor = _mm512_set1_epi32(arith::wrap_add(g.a_offset, -128));
  for (int32_t j0 = 0; j0 < g.n; j0 += 16) {
    const int cols = g.n - j0 < 16 ? g.n - j0 : 16;
    const __mmask16 valid = cols == 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1u);
    __m512i v = _mm512_add_epi32(column_dots<false>(g, a, j0, cols), _mm512_set1_epi32(k_term));
    if (g.bias) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(valid, g.bias + j0));
    if (need_bsum) v = _mm512_add_epi32(v, _mm512_mullo_epi32(bsum_factor, column_dots<true>(g, a, j0, cols)));
    const __m512i mult = g.out.per_channel ? _mm512_maskz_loadu_epi32(valid, g.out.multiplier + j0)
                                           : _mm512_set1_epi32(g.out.multiplier[0]);
    const __m512i shift = g.out.per_channel ? _mm512_maskz_loadu_epi32(valid, g.out.shift + j0)
                                            : _mm512_set1_epi32(g.out.shift[0]);
    v = simd::requantize_x16(v, mult, simd::split_shift(shift, g.out.single_round));
    simd::store_s8x16(g.c + r * g.c_stride + j0, v, out_offset, lo, hi, cols);
  }
}

}  // namespace

void gemv_small(const GemmS8& g) {
  for (int64_t r = 0; r < g.m; ++r) gemv_row(g, r);
}

#else
void gemv_small(const GemmS8&) {}
#endif

}  // namespace vkrt::compute
