#include "compute/requantize_row.h"

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "compute/simd_avx512.h"

namespace vkrt::compute {
namespace {

void requantize_row_portable(const RequantizeRow& spec, const int32_t* acc, int first_channel,
                             int count, int8_t* out) {
  for (int i = 0; i < count; ++i) {
    const int c = spec.per_channel ? first_channel + i : 0;
    const int32_t v = arith::requantize(acc[i], spec.multiplier[c], spec.shift[c]);
    out[i] = int8_t(arith::clamp_activation(arith::wrap_add(v, spec.output_offset),
                                            spec.activation_min, spec.activation_max));
  }
}

#if defined(__x86_64__)
VKRT_TARGET_AVX512 void requantize_row_avx512(const RequantizeRow& spec, const int32_t* acc,
                                              int first_channel, int count, int8_t* out) {
  const __m512i offset = _mm512_set1_epi32(spec.output_offset);
  const __m512i lo = _mm512_set1_epi32(spec.activation_min);
  const __m512i hi = _mm512_set1_epi32(spec.activation_max);
  __m512i mult = _mm512_set1_epi32(spec.multiplier[0]);
  simd::Shifts16 shifts = simd::split_shift(_mm512_set1_epi32(spec.shift[0]));
  for (int i = 0; i < count; i += 16) {
    const int n = count - i < 16 ? count - i : 16;
    const __mmask16 m = n == 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u);
    if (spec.per_channel) {
      mult = _mm512_maskz_loadu_epi32(m, spec.multiplier + first_channel + i);
      shifts = simd::split_shift(_mm512_maskz_loadu_epi32(m, spec.shift + first_channel + i));
    }
    const __m512i v = simd::requantize_x16(_mm512_maskz_loadu_epi32(m, acc + i), mult, shifts);
    simd::store_s8x16(out + i, v, offset, lo, hi, n);
  }
}
#endif

}  // namespace

void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out) {
#if defined(__x86_64__)
  if (has(Isa::Avx512bw) && spec.activation_min <= spec.activation_max) {
    requantize_row_avx512(spec, acc, first_channel, count, out);
    return;
  }
#endif
  requantize_row_portable(spec, acc, first_channel, count, out);
}

}  // namespace vkrt::compute
