// RESCALE (tosa.md §5): requantize integers with a per-tensor or per-channel multiplier/shift.
#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "arith/fixed_point.h"
#include "cpu_fallback/tosa/kernel_util.h"
#include "compute/simd_avx512.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/rescale_rows.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "RESCALE";

int bits_of(DType t) { return t == DType::Int48 ? 48 : int(dtype_size(t)) * 8; }

// Zero-point rule (tosa.md §5): 0 unless the type is int8 (signed, in range), uint8 (0..255),
// or uint16 with zp 0 or 32768. `zp` is taken as stored in a tensor of that type, so a uint8 zp
// may arrive sign-extended (-128..-1) or as 128..255; both name the same byte.
Status check_rescale_zp(const char* what, DType t, bool is_unsigned, int64_t zp) {
  if (t == DType::Int8 && !is_unsigned) {
    if (zp < INT8_MIN || zp > INT8_MAX)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " ", zp, " outside the int8 range");
  } else if (t == DType::Int8 && is_unsigned) {
    if (zp < INT8_MIN || zp > UINT8_MAX)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " ", zp, " outside the uint8 range");
  } else if (t == DType::Int16 && is_unsigned) {
    if (zp != 0 && zp != 32768 && zp != -32768)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " must be 0 or 32768 for uint16, got ", zp);
  } else if (zp != 0) {
    return make_error(Error::InvalidArgument, kOp, ": ", what, " must be 0 for ",
                      is_unsigned ? "unsigned " : "", dtype_name(t), ", got ", zp);
  }
  return Status::ok();
}

// The zero point's value as TOSA reads it: zero- or sign-extended from the type's width.
int64_t extend_zp(DType t, bool is_unsigned, int64_t zp) {
  if (!is_unsigned) return zp;
  const int bits = bits_of(t);
  return int64_t(uint64_t(zp) & ((uint64_t(1) << bits) - 1));
}

template <typename TIn>
int64_t load(const TIn* p, int64_t i, bool is_unsigned) {
  if (is_unsigned) return int64_t(std::make_unsigned_t<TIn>(p[i]));
  return int64_t(p[i]);
}

}  // namespace

RescaleRange detail::rescale_range(DType in, DType out, const RescaleAttr& a) {
  const int out_bits = bits_of(out);
  RescaleRange r;
  r.in_zp = extend_zp(in, a.input_unsigned, a.input_zp);
  r.out_zp = extend_zp(out, a.output_unsigned, a.output_zp);
  r.lo = a.output_unsigned ? 0 : -(int64_t(1) << (out_bits - 1));
  r.hi = a.output_unsigned ? (int64_t(1) << out_bits) - 1 : (int64_t(1) << (out_bits - 1)) - 1;
  return r;
}

void detail::fill_scales(const RescaleAttr& a, int64_t c0, int64_t count, ChannelScales& s) {
  const bool double_round = a.rounding_mode == RoundingMode::DoubleRound;
  s.wide = true;
  s.eo_block = compute::has(compute::Isa::Avx512bw) ? 16 : 8;
  for (int64_t i = 0; i < count; ++i) {
    const size_t c = size_t(c0 + i);
    const int shift = std::clamp(int(a.shift[c]), 1, 62);
    s.multiplier[i] = a.multiplier[c];
    s.shift[i] = shift;
    s.shift_past_32[i] = shift - 32;
    s.round[i] = int64_t(1) << (shift - 1);
    s.round_extra[i] = double_round && shift > 31 ? int64_t(1) << 30 : 0;
    s.wide = s.wide && shift >= 32;
  }
  // (block is a power of two: masks, not divisions; this runs once per call and channel chunk)
  const int64_t block = s.eo_block, padded = (count + block - 1) & ~(block - 1);
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t in_block = i & (block - 1);
    const int64_t slot = (i - in_block) + (in_block >> 1) + ((in_block & 1) ? block / 2 : 0);
    s.round_nonnegative_eo[slot] = i < count ? s.round[i] + s.round_extra[i] : 0;
    s.round_negative_eo[slot] = i < count ? s.round[i] - s.round_extra[i] : 0;
  }
  for (int64_t i = count; i < padded; ++i) {  // lanes the vector loops compute and drop
    s.multiplier[i] = 0;
    s.shift_past_32[i] = 0;
  }
  s.multiplier[padded] = 0;  // read (and dropped) by the odd lanes' load of the last block
}

namespace {

RescaleRange range_of(const TensorRef& input, const RescaleAttr& a, const TensorRef& output) {
  return rescale_range(input.dtype, output.dtype, a);
}

// Elements [0, count) of a run: element j uses parameter set j (kPerChannel), else set 0 (a
// compile-time choice, so the parameters are contiguous vector loads or loop constants).
//
// The wide-shift form, for signed inputs of at most 32 bits where every shift is at least 32:
// floor(p / 2^s) = floor(floor(p / 2^32) / 2^(s-32)), and floor(p / 2^32) of a product of two
// int32 values plus a rounding term below 2^62 is an int32: the high word of p. So a
// 32x32->64-bit multiply, a 64-bit add and a 32-bit shift per element, all of which vectorise
// (AVX2: vpmuldq, vpaddq, vpsravd), where the general form needs a 64-bit variable shift.
template <bool kPerChannel, typename TIn, typename TOut>
VKRT_VECTOR_CLONES_TEMPLATE void rescale_run_wide(const TIn* __restrict in, TOut* __restrict out, int64_t count,
                                                  const ChannelScales& s, const RescaleRange& range) {
  const int32_t in_zp = int32_t(range.in_zp), out_zp = int32_t(range.out_zp);
  const int32_t low = int32_t(range.lo - range.out_zp), high = int32_t(range.hi - range.out_zp);
  for (int64_t j = 0; j < count; ++j) {
    const int64_t c = kPerChannel ? j : 0;
    // The value is an int32 (wrapped, as in rescale_run_general).
    const int32_t v = int32_t(uint32_t(int32_t(in[j])) - uint32_t(in_zp));
    // Both rounding terms loaded whatever the sign, so the select is arithmetic, not a branch.
    const int64_t extra = s.round_extra[c];
    const int64_t p = int64_t(v) * s.multiplier[c] + s.round[c] + (v >= 0 ? extra : -extra);
    const int32_t r = int32_t(uint64_t(p) >> 32) >> s.shift_past_32[c];
    out[j] = TOut((r < low ? low : (r > high ? high : r)) + out_zp);
  }
}

template <bool kPerChannel, typename TIn, typename TOut>
void rescale_run_general(const TIn* in, TOut* out, int64_t count, const ChannelScales& s, const RescaleRange& range,
                         bool input_unsigned) {
  const int64_t low = range.lo - range.out_zp, high = range.hi - range.out_zp;
  for (int64_t j = 0; j < count; ++j) {
    const int64_t c = kPerChannel ? j : 0;
    // apply_scale_32 takes an i32 value; TOSA REQUIREs that it fits (true for 8/16-bit inputs
    // and zero-point-free i32). A value outside is wrapped, as 32-bit device arithmetic would.
    const int64_t v = wrap32(load(in, j, input_unsigned) - range.in_zp);
    const int64_t extra = s.round_extra[c];
    const int64_t r = (v * s.multiplier[c] + s.round[c] + (v >= 0 ? extra : -extra)) >> s.shift[c];
    out[j] = TOut((r < low ? low : (r > high ? high : r)) + range.out_zp);
  }
}

#if defined(__x86_64__)
// rescale_run_wide for int32 inputs (every convolution's requantization) in AVX2 intrinsics, 8
// values per step, which GCC's vectorisation of the loop above does 3x slower (int64 lanes, 4 at
// a time, repacked). vpmuldq forms the 64-bit products of the even lanes and, after a 32-bit
// shift, of the odd ones (the odd multipliers are the constants loaded one element on); the high
// words are blended back into 8 lanes and shifted by s - 32 each (vpsravd). A last partial step
// runs on a copy padded to 8 values. Two facts save work per step:
//  - an int32 input's zero point is 0 (check_rescale), so the value is the input;
//  - the rounding term is chosen by the product's sign, not the value's: they agree for a
//    multiplier > 0 (check_rescale allows none below 0), and for a multiplier of 0 both terms
//    give 0, as 0 <= 2^(s-1) -/+ 2^30 < 2^s for s >= 32.
template <typename TOut>
__attribute__((target("avx2"))) void store_narrowed(TOut* out, __m256i r) {
  const __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
  if constexpr (sizeof(TOut) == 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), r);
  } else if constexpr (sizeof(TOut) == 2) {  // values already clamped to TOut: packs is exact
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packs_epi32(lo, hi));
  } else {
    const __m128i words = _mm_packs_epi32(lo, hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packs_epi16(words, words));
  }
}

template <bool kPerChannel, typename TOut>
__attribute__((target("avx2"))) void rescale_run_wide_avx2(const int32_t* in, TOut* out, int64_t count,
                                                            const ChannelScales& s, const RescaleRange& range) {
  const __m256i out_zp = _mm256_set1_epi32(int32_t(range.out_zp));
  const __m256i low = _mm256_set1_epi32(int32_t(range.lo - range.out_zp));
  const __m256i high = _mm256_set1_epi32(int32_t(range.hi - range.out_zp));
  auto step = [&](const int32_t* in8, int64_t c, TOut* out8) __attribute__((target("avx2"))) {
    __m256i m, m_odd, shift, rp_even, rp_odd, rn_even, rn_odd;
    if constexpr (kPerChannel) {
      m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&s.multiplier[c]));
      m_odd = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&s.multiplier[c + 1]));
      shift = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&s.shift_past_32[c]));
      rp_even = _mm256_load_si256(reinterpret_cast<const __m256i*>(&s.round_nonnegative_eo[c]));
      rp_odd = _mm256_load_si256(reinterpret_cast<const __m256i*>(&s.round_nonnegative_eo[c + 4]));
      rn_even = _mm256_load_si256(reinterpret_cast<const __m256i*>(&s.round_negative_eo[c]));
      rn_odd = _mm256_load_si256(reinterpret_cast<const __m256i*>(&s.round_negative_eo[c + 4]));
    } else {
      m = m_odd = _mm256_set1_epi32(s.multiplier[0]);
      shift = _mm256_set1_epi32(s.shift_past_32[0]);
      rp_even = rp_odd = _mm256_set1_epi64x(s.round[0] + s.round_extra[0]);
      rn_even = rn_odd = _mm256_set1_epi64x(s.round[0] - s.round_extra[0]);
    }
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in8));
    const __m256i p_even = _mm256_mul_epi32(v, m);
    const __m256i p_odd = _mm256_mul_epi32(_mm256_srli_epi64(v, 32), m_odd);
    const __m256i r_even = _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(rp_even), _mm256_castsi256_pd(rn_even), _mm256_castsi256_pd(p_even)));
    const __m256i r_odd = _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(rp_odd), _mm256_castsi256_pd(rn_odd), _mm256_castsi256_pd(p_odd)));
    const __m256i sum_even = _mm256_add_epi64(p_even, r_even), sum_odd = _mm256_add_epi64(p_odd, r_odd);
    const __m256i high_words = _mm256_blend_epi32(_mm256_srli_epi64(sum_even, 32), sum_odd, 0xAA);
    const __m256i r = _mm256_srav_epi32(high_words, shift);
    store_narrowed(out8, _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(r, low), high), out_zp));
  };
  int64_t j = 0;
  for (; j + 8 <= count; j += 8) step(in + j, j, out + j);
  if (j < count) {
    int32_t in8[8] = {};
    TOut out8[8];
    std::memcpy(in8, in + j, size_t(count - j) * sizeof(int32_t));
    step(in8, j, out8);
    std::memcpy(out + j, out8, size_t(count - j) * sizeof(TOut));
  }
}

// rescale_run_wide_avx2 on 16 lanes, over `rows` rows of `count` values `stride` apart (one
// row per pixel, per channel): the same steps, the sign picked by mask, the row's last partial
// step by masked loads and stores. Reads the constants in blocks of 16 (eo_block 16).
template <typename TOut>
VKRT_TARGET_AVX512 void store_narrowed_x16(TOut* out, __mmask16 k, __m512i r) {
  if constexpr (sizeof(TOut) == 4) {
    _mm512_mask_storeu_epi32(out, k, r);
  } else if constexpr (sizeof(TOut) == 2) {  // values already clamped to TOut: saturation is exact
    _mm512_mask_cvtsepi32_storeu_epi16(out, k, r);
  } else {
    _mm512_mask_cvtsepi32_storeu_epi8(out, k, r);
  }
}

template <bool kPerChannel, typename TOut>
VKRT_TARGET_AVX512 void rescale_rows_wide_avx512(const int32_t* in, TOut* out, int64_t rows, int64_t count,
                                                 int64_t stride, const ChannelScales& s, const RescaleRange& range) {
  const __m512i out_zp = _mm512_set1_epi32(int32_t(range.out_zp));
  const __m512i low = _mm512_set1_epi32(int32_t(range.lo - range.out_zp));
  const __m512i high = _mm512_set1_epi32(int32_t(range.hi - range.out_zp));
  const __m512i zero = _mm512_setzero_si512();
  const int64_t full = count / 16 * 16;
  const __mmask16 tail = __mmask16((1u << (count - full)) - 1);
  auto step = [&](const int32_t* in16, int64_t c, TOut* out16, __mmask16 k) VKRT_TARGET_AVX512 {
    __m512i m, m_odd, shift, rp_even, rp_odd, rn_even, rn_odd;
    if constexpr (kPerChannel) {
      m = _mm512_loadu_si512(&s.multiplier[c]);
      m_odd = _mm512_loadu_si512(&s.multiplier[c + 1]);
      shift = _mm512_loadu_si512(&s.shift_past_32[c]);
      rp_even = _mm512_load_si512(&s.round_nonnegative_eo[c]);
      rp_odd = _mm512_load_si512(&s.round_nonnegative_eo[c + 8]);
      rn_even = _mm512_load_si512(&s.round_negative_eo[c]);
      rn_odd = _mm512_load_si512(&s.round_negative_eo[c + 8]);
    } else {
      m = m_odd = _mm512_set1_epi32(s.multiplier[0]);
      shift = _mm512_set1_epi32(s.shift_past_32[0]);
      rp_even = rp_odd = _mm512_set1_epi64(s.round[0] + s.round_extra[0]);
      rn_even = rn_odd = _mm512_set1_epi64(s.round[0] - s.round_extra[0]);
    }
    const __m512i v = _mm512_maskz_loadu_epi32(k, in16);
    const __m512i p_even = _mm512_mul_epi32(v, m);
    const __m512i p_odd = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), m_odd);
    const __m512i sum_even =
        _mm512_add_epi64(p_even, _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(p_even, zero), rp_even, rn_even));
    const __m512i sum_odd =
        _mm512_add_epi64(p_odd, _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(p_odd, zero), rp_odd, rn_odd));
    const __m512i high_words = _mm512_mask_blend_epi32(__mmask16(0xAAAA), _mm512_srli_epi64(sum_even, 32), sum_odd);
    const __m512i r = _mm512_srav_epi32(high_words, shift);
    store_narrowed_x16(out16, k, _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(r, low), high), out_zp));
  };
  for (int64_t row = 0; row < rows; ++row) {
    const int32_t* in_row = in + row * stride;
    TOut* out_row = out + row * stride;
    for (int64_t j = 0; j < full; j += 16) step(in_row + j, j, out_row + j, __mmask16(0xFFFF));
    if (tail) step(in_row + full, full, out_row + full, tail);
  }
}
#endif

// Rows [0, rows) of `count` values `stride` apart: value j of a row uses parameter set j
// (kPerChannel), else set 0.
template <bool kPerChannel, typename TIn, typename TOut>
void rescale_rows(const TIn* in, TOut* out, int64_t rows, int64_t count, int64_t stride, const ChannelScales& s,
                  const RescaleRange& range, bool input_unsigned) {
  if constexpr (sizeof(TIn) <= 4) {
    if (s.wide && !input_unsigned) {
#if defined(__x86_64__)
      if constexpr (std::is_same_v<TIn, int32_t>) {
        if (s.eo_block == 16) return rescale_rows_wide_avx512<kPerChannel>(in, out, rows, count, stride, s, range);
        if (compute::has(compute::Isa::Avx2)) {
          for (int64_t row = 0; row < rows; ++row)
            rescale_run_wide_avx2<kPerChannel>(in + row * stride, out + row * stride, count, s, range);
          return;
        }
      }
#endif
      for (int64_t row = 0; row < rows; ++row)
        rescale_run_wide<kPerChannel>(in + row * stride, out + row * stride, count, s, range);
      return;
    }
  }
  for (int64_t row = 0; row < rows; ++row)
    rescale_run_general<kPerChannel>(in + row * stride, out + row * stride, count, s, range, input_unsigned);
}


// scale32 (every int8 and int32 network), the hot case: apply_scale_32 with its per-channel
// constants computed once, and one clamp per element. Bit-identical to arith::apply_scale_32
// followed by the output zero point and clamp:
//  - the rounding term 2^(s-1) (+/- 2^30 with double_round and s > 31, by the value's sign) is
//    looked up, not rebuilt;
//  - saturating to int32, adding out_zp and clamping to [lo, hi] equals clamping to
//    [lo - out_zp, hi - out_zp] and adding out_zp, that range lying inside int32 (out_zp is 0
//    for int32 outputs, check_rescale_zp).
// Work items: the pixels (rows of `channels` elements) per-channel, else slices of the tensor.
template <typename TIn, typename TOut>
void rescale32_impl(const TensorRef& input, const RescaleAttr& a, const TensorRef& output, ParallelRunner* runner) {
  const RescaleRange range = range_of(input, a, output);
  const TIn* in = input.as<const TIn>();
  TOut* out = output.as<TOut>();
  const int64_t total = input.num_elements();
  if (total == 0) return;
  if (!a.per_channel) {
    split_elements(runner, total, [&](int64_t first, int64_t last) {
      ChannelScales s;
      fill_scales(a, 0, 1, s);
      rescale_rows<false>(in + first, out + first, 1, last - first, 0, s, range, a.input_unsigned);
    });
    return;
  }
  const int64_t channels = int64_t(a.multiplier.size()), pixels = total / channels;
  split_over_threads(runner, pixels, double(total), kElementwiseParallelMin, [&](int64_t begin, int64_t end) {
    ChannelScales s;
    for (int64_t c0 = 0; c0 < channels; c0 += kChannelChunk) {
      const int64_t count = std::min(kChannelChunk, channels - c0), first = begin * channels + c0;
      fill_scales(a, c0, count, s);
      rescale_rows<true>(in + first, out + first, end - begin, count, channels, s, range, a.input_unsigned);
    }
  });
}

// The per-element formula, every case: the oracle (rescale_reference) and the definition the
// loops below follow.
template <typename TIn, typename TOut>
void rescale_reference_impl(const TensorRef& input, const RescaleAttr& a, const TensorRef& output) {
  const TIn* in = input.as<const TIn>();
  TOut* out = output.as<TOut>();
  const int64_t total = input.num_elements();
  const int64_t channels = a.per_channel ? input.dim(input.rank() - 1) : 1;
  const RescaleRange range = range_of(input, a, output);
  // Arm's emulation layer computes INEXACT_ROUND as SINGLE_ROUND (tosa.md §5); so do we.
  const bool double_round = a.rounding_mode == RoundingMode::DoubleRound;
  for (int64_t i = 0; i < total; ++i) {
    const size_t c = size_t(channels == 1 ? 0 : i % channels);
    const int64_t v = load(in, i, a.input_unsigned) - range.in_zp;
    int64_t scaled;
    if (a.scale32) {
      // apply_scale_32 takes an i32 value; TOSA REQUIREs that v fits (true for 8/16-bit inputs
      // and zero-point-free i32). A value outside is wrapped, as 32-bit device arithmetic would.
      scaled = arith::apply_scale_32(wrap32(v), a.multiplier[c], int(a.shift[c]), double_round);
    } else {
      // The value is clamped to int48 first (apply_scale_16's input type).
      scaled = arith::apply_scale_16(v, int16_t(a.multiplier[c]), int(a.shift[c]));
    }
    const int64_t r = scaled + range.out_zp;
    out[i] = TOut(r < range.lo ? range.lo : (r > range.hi ? range.hi : r));
  }
}

// scale16 (the int16 and int48 networks' RESCALEs: an A16W8 convolution's int48 sums to int16):
// the per-element formula above by rows of channels, so that no element takes a division for its
// channel, split over threads. MobileNetV2 A16W8's RESCALEs took 42% of its time on the formula's
// loop (Intel Xeon, one thread).
template <typename TIn, typename TOut>
void rescale16_impl(const TensorRef& input, const RescaleAttr& a, const TensorRef& output, ParallelRunner* runner) {
  const TIn* in = input.as<const TIn>();
  TOut* out = output.as<TOut>();
  const int64_t total = input.num_elements();
  const int64_t channels = a.per_channel ? input.dim(input.rank() - 1) : 1;
  const RescaleRange range = range_of(input, a, output);
  auto one = [&](int64_t i, size_t c) {
    const int64_t v = load(in, i, a.input_unsigned) - range.in_zp;
    const int64_t r = int64_t(arith::apply_scale_16(v, int16_t(a.multiplier[c]), int(a.shift[c]))) + range.out_zp;
    out[i] = TOut(r < range.lo ? range.lo : (r > range.hi ? range.hi : r));
  };
  split_elements(runner, total, [&](int64_t first, int64_t last) {
    if (channels == 1) {
      for (int64_t i = first; i < last; ++i) one(i, 0);
      return;
    }
    int64_t i = first;
    for (size_t c = size_t(first % channels); i < last; ++i) {  // one division a slice
      one(i, c);
      if (++c == size_t(channels)) c = 0;
    }
  });
}

// The reference formula where asked (reference), else the scale32 and scale16 loops.
// `runner` may be null.
struct RescaleCall {
  const TensorRef& input;
  const RescaleAttr& attrs;
  const TensorRef& output;
  ParallelRunner* runner;
  bool reference;
};

template <typename TIn, typename TOut>
void rescale_impl(const RescaleCall& call);

// An 8-bit input with one parameter set takes one of 256 values: its outputs are computed once,
// by the loops below on the 256 bytes, and looked up (the inputs of every quantized ADD, SUB
// and MUL in a TOSA int8 graph, whose left shift by ~20 the general loop does at ~1 ns a value).
constexpr int64_t kTableMinElements = 1024;

template <typename TOut>
void rescale_by_table(const RescaleCall& call) {
  alignas(64) int8_t bytes[256];
  alignas(64) TOut table[256];
  for (int k = 0; k < 256; ++k) bytes[k] = int8_t(uint8_t(k));
  const int64_t shape[1] = {256};
  const TensorRef byte_ref{call.input.dtype, shape, bytes}, table_ref{call.output.dtype, shape, table};
  rescale_impl<int8_t, TOut>(RescaleCall{byte_ref, call.attrs, table_ref, nullptr, call.reference});
  const uint8_t* in = call.input.as<const uint8_t>();
  TOut* out = call.output.as<TOut>();
  split_elements(call.runner, call.input.num_elements(), [&](int64_t first, int64_t last) {
    for (int64_t j = first; j < last; ++j) out[j] = table[in[j]];
  });
}

template <typename TIn, typename TOut>
void rescale_impl(const RescaleCall& call) {
  if constexpr (std::is_same_v<TIn, int8_t>) {
    if (!call.attrs.per_channel && !call.reference && call.input.num_elements() >= kTableMinElements)
      return rescale_by_table<TOut>(call);
  }
  if (call.attrs.scale32 && !call.reference)
    return rescale32_impl<TIn, TOut>(call.input, call.attrs, call.output, call.runner);
  if (!call.reference) return rescale16_impl<TIn, TOut>(call.input, call.attrs, call.output, call.runner);
  rescale_reference_impl<TIn, TOut>(call.input, call.attrs, call.output);
}

template <typename TIn>
void rescale_dispatch_out(const RescaleCall& call) {
  switch (call.output.dtype) {
    case DType::Int8: rescale_impl<TIn, int8_t>(call); break;
    case DType::Int16: rescale_impl<TIn, int16_t>(call); break;
    default: rescale_impl<TIn, int32_t>(call); break;
  }
}

void rescale_dispatch(const RescaleCall& call) {
  switch (call.input.dtype) {
    case DType::Int8: rescale_dispatch_out<int8_t>(call); break;
    case DType::Int16: rescale_dispatch_out<int16_t>(call); break;
    case DType::Int32: rescale_dispatch_out<int32_t>(call); break;
    default: rescale_dispatch_out<int64_t>(call); break;
  }
}

}  // namespace

Status check_rescale(const TensorRef& input, const RescaleAttr& a, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  VKRT_RETURN_IF_ERROR(expect_same_shape(kOp, "output", output, input));
  if (!is_int(input.dtype))
    return make_error(Error::NotSupported, kOp, ": input dtype ", dtype_name(input.dtype),
                      " not supported (int8, int16, int32, int48)");
  if (output.dtype != DType::Int8 && output.dtype != DType::Int16 && output.dtype != DType::Int32)
    return make_error(Error::NotSupported, kOp, ": output dtype ", dtype_name(output.dtype),
                      " not supported (int8, int16, int32)");
  if (a.rounding_mode != RoundingMode::SingleRound && a.rounding_mode != RoundingMode::InexactRound &&
      a.rounding_mode != RoundingMode::DoubleRound)
    return make_error(Error::InvalidArgument, kOp, ": invalid rounding_mode ", uint32_t(a.rounding_mode));
  // ERROR_IF rules of tosa.md §5.
  if (!a.scale32 && a.rounding_mode == RoundingMode::DoubleRound)
    return make_error(Error::InvalidArgument, kOp, ": DOUBLE_ROUND requires scale32");
  if (a.scale32 && input.dtype == DType::Int48)
    return make_error(Error::InvalidArgument, kOp, ": scale32 is not allowed with an int48 input");
  if (a.input_unsigned && a.output_unsigned)
    return make_error(Error::InvalidArgument, kOp, ": input_unsigned and output_unsigned both set");
  if (a.input_unsigned && (input.dtype == DType::Int32 || input.dtype == DType::Int48))
    return make_error(Error::InvalidArgument, kOp, ": input_unsigned with a ", dtype_name(input.dtype), " input");
  if (a.output_unsigned && output.dtype == DType::Int32)
    return make_error(Error::InvalidArgument, kOp, ": output_unsigned with an int32 output");
  VKRT_RETURN_IF_ERROR(check_rescale_zp("input_zp", input.dtype, a.input_unsigned, a.input_zp));
  VKRT_RETURN_IF_ERROR(check_rescale_zp("output_zp", output.dtype, a.output_unsigned, a.output_zp));
  int64_t channels = 1;
  if (a.per_channel) {
    if (input.rank() < 1)
      return make_error(Error::InvalidArgument, kOp, ": per_channel needs an input of rank >= 1");
    channels = input.dim(input.rank() - 1);
  }
  if (int64_t(a.multiplier.size()) != channels || int64_t(a.shift.size()) != channels)
    return make_error(Error::InvalidArgument, kOp, ": expected ", channels, " multiplier and shift values",
                      a.per_channel ? " (per_channel: size of the last dim)" : "", ", got ",
                      a.multiplier.size(), " and ", a.shift.size());
  for (size_t c = 0; c < a.multiplier.size(); ++c) {
    const int32_t m = a.multiplier[c];
    if (m < 0 || (!a.scale32 && m > INT16_MAX))
      return make_error(Error::InvalidArgument, kOp, ": multiplier[", c, "] = ", m, " out of range for ",
                        a.scale32 ? "scale32" : "scale16");
    if (a.shift[c] < 2 || a.shift[c] > 62)
      return make_error(Error::InvalidArgument, kOp, ": shift[", c, "] = ", int(a.shift[c]), " outside [2, 62]");
  }
  return Status::ok();
}

Status rescale(const TensorRef& input, const RescaleAttr& attrs, const TensorRef& output, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_rescale(input, attrs, output));
  rescale_dispatch(RescaleCall{input, attrs, output, runner, /*reference=*/false});
  return Status::ok();
}

std::optional<ConvRequantize> conv_requantize(const RescaleAttr& a, const ClampAttr* clamp, DType output) {
  const bool single = a.rounding_mode == RoundingMode::SingleRound;
  if (output != DType::Int8 || !a.scale32 || (!single && a.rounding_mode != RoundingMode::DoubleRound) ||
      a.input_unsigned || a.output_unsigned || a.input_zp != 0 || a.multiplier.empty() ||
      a.multiplier.size() != a.shift.size())
    return std::nullopt;
  ConvRequantize r;
  r.single_round = single;
  r.rescale = &a;
  r.clamp = clamp;
  r.per_channel = a.per_channel;
  const RescaleRange range = rescale_range(DType::Int32, DType::Int8, a);
  r.output_offset = int32_t(range.out_zp);
  int64_t lo = range.lo, hi = range.hi;
  if (clamp != nullptr) lo = std::max(lo, clamp->min_int), hi = std::min(hi, clamp->max_int);
  if (lo > hi) return std::nullopt;  // a CLAMP disjoint from int8's range: not a narrowing
  r.act_min = int32_t(lo), r.act_max = int32_t(hi);
  // The proof above (tosa_kernels.h) needs m >= 0 and a right shift of 1 to 31 after SRDHM: a
  // TOSA shift of 32 to 62; so does the single rounding's stage (requantize_row.h). Shifts below
  // 32 round once, whatever the mode.
  for (size_t c = 0; c < a.multiplier.size(); ++c) {
    if (a.multiplier[c] < 0 || a.shift[c] < 32 || a.shift[c] > 62) return std::nullopt;
    r.multiplier.push_back(a.multiplier[c]);
    r.shift.push_back(31 - int32_t(a.shift[c]));
  }
  return r;
}

size_t detail::rescale_rows_bytes(int64_t channels) {
  const int64_t chunks = (std::max<int64_t>(channels, 1) + kChannelChunk - 1) / kChannelChunk;
  return size_t(chunks) * sizeof(ChannelScales) + alignof(ChannelScales);
}

RescaleRows::RescaleRows(const RescaleAttr& attrs, DType out_dtype, const ClampAttr* clamp, int64_t channels,
                         std::span<uint8_t> memory)
    : attrs_(attrs), clamp_(clamp), channels_(attrs.per_channel ? channels : 1) {
  if (!attrs.scale32 || memory.size() < rescale_rows_bytes(channels_)) return;
  range_ = rescale_range(DType::Int32, out_dtype, attrs);
  if (clamp != nullptr) {
    // clamp(clamp(x, lo, hi), a, b) = clamp(x, max(lo, a), min(hi, b)) where the two intersect. An
    // unsigned output's bytes are clamped as signed values: not a narrowing of its range.
    const int64_t lo = std::max(range_.lo, clamp->min_int), hi = std::min(range_.hi, clamp->max_int);
    if (attrs.output_unsigned || lo > hi) return;
    range_.lo = lo, range_.hi = hi;
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(memory.data());
  auto* chunks = reinterpret_cast<ChannelScales*>((at + alignof(ChannelScales) - 1) & ~(alignof(ChannelScales) - 1));
  for (int64_t c0 = 0, i = 0; c0 < channels_; c0 += kChannelChunk, ++i)
    fill_scales(attrs, c0, std::min(kChannelChunk, channels_ - c0), chunks[i]);
  chunks_ = chunks;
  fast_ = true;
}

Status RescaleRows::run(const TensorRef& sums, const TensorRef& out) const {
  if (!fast_) {
    VKRT_RETURN_IF_ERROR(rescale(sums, attrs_, out));
    return clamp_ != nullptr ? clamp(out, *clamp_, out) : Status::ok();
  }
  const int32_t* in = sums.as<const int32_t>();
  const int64_t total = sums.num_elements();
  if (total == 0) return Status::ok();
  auto run_as = [&](auto* to) {
    if (!attrs_.per_channel) return rescale_rows<false>(in, to, 1, total, 0, chunks_[0], range_, false);
    const int64_t rows = total / channels_;
    for (int64_t c0 = 0, i = 0; c0 < channels_; c0 += kChannelChunk, ++i)
      rescale_rows<true>(in + c0, to + c0, rows, std::min(kChannelChunk, channels_ - c0), channels_, chunks_[i],
                         range_, false);
  };
  switch (out.dtype) {
    case DType::Int8: run_as(out.as<int8_t>()); break;
    case DType::Int16: run_as(out.as<int16_t>()); break;
    default: run_as(out.as<int32_t>()); break;
  }
  return Status::ok();
}

void detail::rescale_reference(const TensorRef& input, const RescaleAttr& attrs, const TensorRef& output) {
  rescale_dispatch(RescaleCall{input, attrs, output, nullptr, /*reference=*/true});
}

}  // namespace vkrt::tosa
