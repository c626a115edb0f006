// The depthwise engine of depthwise_s8.h: the vector rows (AVX-512BW, AVX2, NEON), the portable
// row and the scratch-free loop, and the choice among them and the VNNI path.
#include "compute/depthwise_s8.h"

#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "compute/depthwise_vnni.h"
#include "compute/isa.h"
#include "compute/requantize_row.h"
#include "compute/simd_avx2.h"
#include "compute/simd_avx512.h"
#include "compute/simd_neon.h"

namespace vkrt::compute {

using arith::wrap_add;
using arith::wrap_mul;

namespace {

// acc[c] += (in[c] + offset) · w[c] for one tap, channel multiplier 1.
VKRT_CLONES
void accumulate_tap(int32_t* acc, const int8_t* in, const int8_t* w, int32_t offset, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c)
    acc[c] = int32_t(uint32_t(acc[c]) + uint32_t((int32_t(in[c]) + offset) * int32_t(w[c])));
}

// The vector rows below (AVX-512BW: 32 channels per step, AVX2 and NEON: 16) need channel
// multiplier 1 and (x + in_off) in int16 range: then each product fits int16 exactly
// (|x + off| <= 255, |w| <= 128), and the accumulators stay in registers across all taps of a pixel.
[[maybe_unused]] bool int16_products_exact(const DepthwiseS8Params& p) {
  return p.ch_mult == 1 && p.input_offset >= -127 && p.input_offset <= 128;
}

// The window's valid kernel rows [*ky0, *ky1) for output row oy and columns [*kx0, *kx1) for ox.
[[maybe_unused]] inline void valid_rows(const DepthwiseS8Params& p, int32_t oy, int32_t* ky0, int32_t* ky1) {
  const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
  for (*ky0 = 0; *ky0 < p.kernel_h && iy0 + int64_t(*ky0) * p.dilation_h < 0; ++*ky0) {}
  for (*ky1 = p.kernel_h; *ky1 > *ky0 && iy0 + int64_t(*ky1 - 1) * p.dilation_h >= p.in_h; --*ky1) {}
}
[[maybe_unused]] inline void valid_columns(const DepthwiseS8Params& p, int32_t ox, int32_t* kx0, int32_t* kx1) {
  const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
  for (*kx0 = 0; *kx0 < p.kernel_w && ix0 + int64_t(*kx0) * p.dilation_w < 0; ++*kx0) {}
  for (*kx1 = p.kernel_w; *kx1 > *kx0 && ix0 + int64_t(*kx1 - 1) * p.dilation_w >= p.in_w; --*kx1) {}
}

#if defined(__x86_64__)
// AVX-512BW: 32 channels multiplied with one VPMULLW, widened into two int32 accumulators.
VKRT_TARGET_AVX512 void output_row_avx512(const DepthwiseS8Params& p, int64_t b, int32_t oy,
                                          const int8_t* input, const int8_t* weight, const int32_t* bias,
                                          const DepthwiseS8Output& to) {
  const int32_t channels = p.in_ch;
  const __m512i offset16 = _mm512_set1_epi16(int16_t(p.input_offset));
  const __m512i out_offset = _mm512_set1_epi32(p.output_offset);
  const __m512i lo = _mm512_set1_epi32(p.activation_min), hi = _mm512_set1_epi32(p.activation_max);
  int32_t ky0, ky1;
  valid_rows(p, oy, &ky0, &ky1);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    valid_columns(p, ox, &kx0, &kx1);
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
    for (int32_t c = 0; c < channels; c += 32) {
      const int n = channels - c < 32 ? channels - c : 32;
      const __mmask32 m = n == 32 ? ~__mmask32(0) : (__mmask32(1) << n) - 1;
      const __mmask16 m_lo = __mmask16(m & 0xFFFF), m_hi = __mmask16(m >> 16);
      __m512i acc_lo = bias ? _mm512_maskz_loadu_epi32(m_lo, bias + c) : _mm512_setzero_si512();
      __m512i acc_hi = bias ? _mm512_maskz_loadu_epi32(m_hi, bias + c + 16) : _mm512_setzero_si512();
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels + c;
        const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels + c;
        for (int32_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          const __m512i x = _mm512_add_epi16(_mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, in_row + ix * channels)), offset16);
          const __m512i w = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(m, w_row + int64_t(kx) * channels));
          const __m512i prod = _mm512_mullo_epi16(x, w);
          acc_lo = _mm512_add_epi32(acc_lo, _mm512_cvtepi16_epi32(_mm512_castsi512_si256(prod)));
          acc_hi = _mm512_add_epi32(acc_hi, _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(prod, 1)));
        }
      }
      if (to.s32) {
        _mm512_mask_storeu_epi32(to.s32 + pixel + c, m_lo, acc_lo);
        _mm512_mask_storeu_epi32(to.s32 + pixel + c + 16, m_hi, acc_hi);
        continue;
      }
      int8_t* out = to.s8 + pixel;
      const __m512i mult_lo = _mm512_maskz_loadu_epi32(m_lo, to.multiplier + c);
      const __m512i mult_hi = _mm512_maskz_loadu_epi32(m_hi, to.multiplier + c + 16);
      const simd::Shifts16 s_lo = simd::split_shift(_mm512_maskz_loadu_epi32(m_lo, to.shift + c));
      const simd::Shifts16 s_hi = simd::split_shift(_mm512_maskz_loadu_epi32(m_hi, to.shift + c + 16));
      simd::store_s8x16(out + c, simd::requantize_x16(acc_lo, mult_lo, s_lo), out_offset, lo, hi, n < 16 ? n : 16);
      if (n > 16) simd::store_s8x16(out + c + 16, simd::requantize_x16(acc_hi, mult_hi, s_hi), out_offset, lo, hi, n - 16);
    }
  }
}

// 16 bytes at p, or the first n of them (the rest zero) without reading past them.
VKRT_TARGET_AVX2 __attribute__((always_inline)) inline __m128i load_s8(const int8_t* p, int n) {
  if (n == 16) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  alignas(16) int8_t tmp[16] = {};
  std::memcpy(tmp, p, size_t(n));
  return _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
}
// 8 int32 at p, or the first n (the rest zero).
VKRT_TARGET_AVX2 __attribute__((always_inline)) inline __m256i load_s32x8(const int32_t* p, int n) {
  if (n >= 8) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  alignas(32) int32_t tmp[8] = {};
  if (n > 0) std::memcpy(tmp, p, size_t(n) * 4);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
}
// Stores the first n of 8 int32 lanes (none when n <= 0).
VKRT_TARGET_AVX2 __attribute__((always_inline)) inline void store_s32x8(int32_t* p, __m256i v, int n) {
  if (n >= 8) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  alignas(32) int32_t tmp[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), v);
  if (n > 0) std::memcpy(p, tmp, size_t(n) * 4);
}

// The AVX-512BW row above on AVX2: 16 channels per step, two taps per VPMADDWD. Kernels of at
// most kAvx2RowTaps taps (8x8); larger ones take the portable row.
constexpr int kAvx2RowTaps = 64;
inline bool output_row_avx2_usable(const DepthwiseS8Params& p) { return int64_t(p.kernel_h) * p.kernel_w <= kAvx2RowTaps; }

VKRT_TARGET_AVX2 void output_row_avx2(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input,
                                      const int8_t* weight, const int32_t* bias, const DepthwiseS8Output& to) {
  const int32_t channels = p.in_ch;
  const __m256i offset16 = _mm256_set1_epi16(int16_t(p.input_offset));
  const __m256i out_offset = _mm256_set1_epi32(p.output_offset);
  const __m256i lo = _mm256_set1_epi32(p.activation_min), hi = _mm256_set1_epi32(p.activation_max);
  int32_t ky0, ky1;
  valid_rows(p, oy, &ky0, &ky1);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    valid_columns(p, ox, &kx0, &kx1);
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
    // This pixel's valid taps (at most kAvx2RowTaps: output_row_avx2_usable): input pixel and
    // weight row, found once for all its channel blocks.
    const int8_t* tap_in[kAvx2RowTaps];
    const int8_t* tap_w[kAvx2RowTaps];
    int taps = 0;
    for (int32_t ky = ky0; ky < ky1; ++ky) {
      const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
      const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels;
      const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels;
      for (int32_t kx = kx0; kx < kx1; ++kx, ++taps) {
        tap_in[taps] = in_row + (ix0 + int64_t(kx) * p.dilation_w) * channels;
        tap_w[taps] = w_row + int64_t(kx) * channels;
      }
    }
    for (int32_t c = 0; c < channels; c += 16) {
      const int n = channels - c < 16 ? channels - c : 16;
      // Taps in pairs: the two taps' (x + offset) and w interleaved per channel, so that one
      // VPMADDWD multiplies and adds both (exact: int16 products, their sum far inside int32).
      // The in-lane unpacks leave channels 0-3, 8-11 in sums_a and 4-7, 12-15 in sums_b; an odd
      // last tap pairs with zeros.
      __m256i sums_a = _mm256_setzero_si256(), sums_b = _mm256_setzero_si256();
      for (int t = 0; t < taps; t += 2) {
        const __m256i x0 = _mm256_add_epi16(_mm256_cvtepi8_epi16(load_s8(tap_in[t] + c, n)), offset16);
        const __m256i w0 = _mm256_cvtepi8_epi16(load_s8(tap_w[t] + c, n));
        const bool pair = t + 1 < taps;
        const __m256i x1 = pair ? _mm256_add_epi16(_mm256_cvtepi8_epi16(load_s8(tap_in[t + 1] + c, n)), offset16)
                                : _mm256_setzero_si256();
        const __m256i w1 = pair ? _mm256_cvtepi8_epi16(load_s8(tap_w[t + 1] + c, n)) : _mm256_setzero_si256();
        sums_a = _mm256_add_epi32(sums_a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), _mm256_unpacklo_epi16(w0, w1)));
        sums_b = _mm256_add_epi32(sums_b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), _mm256_unpackhi_epi16(w0, w1)));
      }
      __m256i acc_lo = _mm256_permute2x128_si256(sums_a, sums_b, 0x20);  // channels 0-7
      __m256i acc_hi = _mm256_permute2x128_si256(sums_a, sums_b, 0x31);  // channels 8-15
      if (bias) {
        acc_lo = _mm256_add_epi32(acc_lo, load_s32x8(bias + c, n));
        acc_hi = _mm256_add_epi32(acc_hi, load_s32x8(bias + c + 8, n - 8));
      }
      if (to.s32) {
        store_s32x8(to.s32 + pixel + c, acc_lo, n);
        store_s32x8(to.s32 + pixel + c + 8, acc_hi, n - 8);
        continue;
      }
      int8_t* out = to.s8 + pixel;
      acc_lo = simd::requantize_x8(acc_lo, load_s32x8(to.multiplier + c, n), load_s32x8(to.shift + c, n));
      acc_hi = simd::requantize_x8(acc_hi, load_s32x8(to.multiplier + c + 8, n - 8), load_s32x8(to.shift + c + 8, n - 8));
      const __m128i bytes = simd::narrow_s8x16(acc_lo, acc_hi, out_offset, lo, hi);
      if (n == 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c), bytes);
      } else {
        alignas(16) int8_t tmp[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
        std::memcpy(out + c, tmp, size_t(n));
      }
    }
  }
}
#endif

#if defined(__aarch64__)
// The x86 rows' arithmetic on NEON: 16 channels per step, (x + in_off)·w multiplied and
// accumulated in int32 with SMLAL (exact: int16 operands).

// 16 bytes at p, or the first n of them (the rest zero) without reading past them.
inline int8x16_t load_s8(const int8_t* p, int n) {
  if (n == 16) return vld1q_s8(p);
  int8_t tmp[16] = {};
  std::memcpy(tmp, p, size_t(n));
  return vld1q_s8(tmp);
}
// 4 int32 at p, or the first n (the rest zero).
inline int32x4_t load_s32x4(const int32_t* p, int n) {
  if (n >= 4) return vld1q_s32(p);
  int32_t tmp[4] = {};
  if (n > 0) std::memcpy(tmp, p, size_t(n) * 4);
  return vld1q_s32(tmp);
}
// Stores the first n of 4 int32 lanes (none when n <= 0).
inline void store_s32x4(int32_t* p, int32x4_t v, int n) {
  if (n >= 4) return vst1q_s32(p, v);
  int32_t tmp[4];
  vst1q_s32(tmp, v);
  if (n > 0) std::memcpy(p, tmp, size_t(n) * 4);
}

void output_row_neon(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                     const int32_t* bias, const DepthwiseS8Output& to) {
  const int32_t channels = p.in_ch;
  const int16x8_t offset16 = vdupq_n_s16(int16_t(p.input_offset));
  const int32x4_t out_offset = vdupq_n_s32(p.output_offset);
  const int32x4_t lo = vdupq_n_s32(p.activation_min), hi = vdupq_n_s32(p.activation_max);
  int32_t ky0, ky1;
  valid_rows(p, oy, &ky0, &ky1);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    valid_columns(p, ox, &kx0, &kx1);
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
    for (int32_t c = 0; c < channels; c += 16) {
      const int n = channels - c < 16 ? channels - c : 16;
      int32x4_t acc[4];
      for (int q = 0; q < 4; ++q) acc[q] = bias ? load_s32x4(bias + c + 4 * q, n - 4 * q) : vdupq_n_s32(0);
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels + c;
        const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels + c;
        for (int32_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          const int8x16_t x8 = load_s8(in_row + ix * channels, n), w8 = load_s8(w_row + int64_t(kx) * channels, n);
          const int16x8_t x_lo = vaddq_s16(vmovl_s8(vget_low_s8(x8)), offset16);
          const int16x8_t x_hi = vaddq_s16(vmovl_high_s8(x8), offset16);
          const int16x8_t w_lo = vmovl_s8(vget_low_s8(w8)), w_hi = vmovl_high_s8(w8);
          acc[0] = vmlal_s16(acc[0], vget_low_s16(x_lo), vget_low_s16(w_lo));
          acc[1] = vmlal_high_s16(acc[1], x_lo, w_lo);
          acc[2] = vmlal_s16(acc[2], vget_low_s16(x_hi), vget_low_s16(w_hi));
          acc[3] = vmlal_high_s16(acc[3], x_hi, w_hi);
        }
      }
      if (to.s32) {
        for (int q = 0; q < 4; ++q) store_s32x4(to.s32 + pixel + c + 4 * q, acc[q], n - 4 * q);
        continue;
      }
      int8_t* out = to.s8 + pixel;
      for (int q = 0; q < 4; ++q)
        acc[q] = simd::requantize_x4(acc[q], load_s32x4(to.multiplier + c + 4 * q, n - 4 * q),
                                     load_s32x4(to.shift + c + 4 * q, n - 4 * q));
      const int8x16_t bytes = simd::narrow_s8x16(acc, out_offset, lo, hi);
      if (n == 16) {
        vst1q_s8(out + c, bytes);
      } else {
        int8_t tmp[16];
        vst1q_s8(tmp, bytes);
        std::memcpy(out + c, tmp, size_t(n));
      }
    }
  }
}
#endif

// The portable row: output channels in blocks of kRowBlock, accumulated on the stack.
constexpr int32_t kRowBlock = 256;

void output_row(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                const int32_t* bias, const DepthwiseS8Output& to, const RequantizeRow& spec) {
  const int32_t oc_count = p.out_ch();
  int32_t acc[kRowBlock];
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * oc_count;
    for (int32_t oc0 = 0; oc0 < oc_count; oc0 += kRowBlock) {
      const int32_t n = std::min(kRowBlock, oc_count - oc0);
      for (int32_t i = 0; i < n; ++i) acc[i] = bias ? bias[oc0 + i] : 0;
      for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        if (iy < 0 || iy >= p.in_h) continue;
        for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
          const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
          if (ix < 0 || ix >= p.in_w) continue;
          const int8_t* in = input + ((b * p.in_h + iy) * p.in_w + ix) * p.in_ch;
          const int8_t* w = weight + (int64_t(ky) * p.kernel_w + kx) * oc_count + oc0;
          if (p.ch_mult == 1) {
            accumulate_tap(acc, in + oc0, w, p.input_offset, n);
          } else {
            for (int32_t i = 0; i < n; ++i)
              acc[i] = wrap_add(acc[i], wrap_mul(int32_t(in[(oc0 + i) / p.ch_mult]) + p.input_offset, w[i]));
          }
        }
      }
      if (to.s32)
        std::memcpy(to.s32 + pixel + oc0, acc, size_t(n) * 4);
      else
        requantize_row_s8(spec, acc, oc0, n, to.s8 + pixel + oc0);
    }
  }
}

}  // namespace

size_t depthwise_s8_scratch_bytes(const DepthwiseS8Params& p, bool int32_sums, int threads) {
  // Only the VNNI path needs scratch: the rows accumulate in registers or on the stack.
  return depthwise_vnni_usable(p, int32_sums) ? depthwise_vnni_scratch_bytes(p, threads) : 0;
}

void depthwise_s8(const DepthwiseS8Params& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                  const DepthwiseS8Output& to, const Exec& exec) {
  const int64_t rows = int64_t(p.batches) * p.out_h;
  const double macs = double(rows) * p.out_w * p.out_ch() * p.kernel_h * p.kernel_w;
  if (rows <= 0 || p.out_w <= 0 || p.out_ch() <= 0) return;
  if (depthwise_vnni_usable(p, to.s32 != nullptr)) {
    // 10-15 GMAC/s per thread: from about 512k MACs (~40 us) a second worker pays for its wake-up.
    const int vnni_threads =
        int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(macs / 524288.0) + 1, rows})));
    if (exec.scratch.size() >= depthwise_vnni_scratch_bytes(p, vnni_threads) &&
        depthwise_vnni(p, input, weight, bias, to, exec, vnni_threads))
      return;
  }
  RequantizeRow spec;
  spec.multiplier = to.multiplier;
  spec.shift = to.shift;
  spec.per_channel = true;
  spec.output_offset = p.output_offset;
  spec.activation_min = p.activation_min;
  spec.activation_max = p.activation_max;
  // Threads only pay off on layers of a few hundred thousand MACs or more.
  const int threads = std::max(1, std::min(exec.num_threads(), int(macs / 262144.0) + 1));
  exec.parallel_for(threads, [&](int t) {
    int64_t r0, r1;
    split_range(rows, threads, t, &r0, &r1);
#if defined(__x86_64__)
    if (int16_products_exact(p) && (has(Isa::Avx512bw) || (has(Isa::Avx2) && output_row_avx2_usable(p)))) {
      const auto row_fn = has(Isa::Avx512bw) ? output_row_avx512 : output_row_avx2;
      for (int64_t r = r0; r < r1; ++r) row_fn(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, to);
      return;
    }
#elif defined(__aarch64__)
    if (int16_products_exact(p) && has(Isa::Neon)) {
      for (int64_t r = r0; r < r1; ++r) output_row_neon(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, to);
      return;
    }
#endif
    for (int64_t r = r0; r < r1; ++r) output_row(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, to, spec);
  });
}

}  // namespace vkrt::compute
