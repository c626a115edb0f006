// cortex_m::quantized_depthwise_conv2d.out
//   acc[b,oy,ox,oc] = bias[oc] + Σ_{valid ky,kx} (in[b,iy,ix,oc / ch_mult] + in_off)·w[0,ky,kx,oc]
//   out = clamp(requantize(acc, mult[oc], shift[oc]) + out_off, act_min, act_max)        (§4.4)
// Paths, fastest first: AVX-512 VNNI for channel multiplier 1 (depthwise_vnni.cpp); AVX-512BW
// rows (32 channels per step, int16 products) and AVX2 rows (16 channels); the portable loop, where one output pixel is a
// vector over channels (target_clones) and the output stage is requantize_row_s8; and a
// scratch-free loop. All give the same bytes. Work is split over output rows.
#include "cortex_m/depthwise_conv2d.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "arith/fixed_point.h"
#include "cortex_m/cpu_features.h"
#include "cortex_m/depthwise_vnni.h"
#include "cortex_m/kernel_util.h"
#include "cortex_m/compute_core.h"
#include "compute/simd_avx2.h"
#include "compute/simd_avx512.h"
#include "compute/simd_neon.h"

namespace vkrt::cortex_m {

using arith::wrap_add;
using arith::wrap_mul;

Status check_depthwise_conv2d(const DepthwiseConv2dParams& p, bool int16_activations) {
  auto bad = [](const std::string& what) { return Status(Error::InvalidArgument, what); };
  if (p.batches < 0 || p.in_h < 0 || p.in_w < 0 || p.in_ch < 0 || p.out_h < 0 || p.out_w < 0)
    return bad("negative size");
  if (p.ch_mult < 1) return bad("depth_multiplier must be >= 1");
  if (int64_t(p.in_ch) * p.ch_mult > INT32_MAX) return bad("too many output channels");
  if (p.kernel_h < 1 || p.kernel_w < 1) return bad("kernel size must be >= 1");
  if (p.stride_h < 1 || p.stride_w < 1) return bad("stride must be >= 1");
  if (p.dilation_h < 1 || p.dilation_w < 1) return bad("dilation must be >= 1");
  if (p.pad_h < 0 || p.pad_w < 0) return bad("padding must be >= 0");
  const int32_t lo = int16_activations ? -32768 : -128, hi = int16_activations ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return bad("activation range [" + std::to_string(p.activation_min) + ", " + std::to_string(p.activation_max) +
               "] invalid");
  return Status::ok();
}

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
[[maybe_unused]] bool int16_products_exact(const DepthwiseConv2dParams& p) {
  return p.ch_mult == 1 && p.input_offset >= -127 && p.input_offset <= 128;
}

// The window's valid kernel rows [*ky0, *ky1) for output row oy and columns [*kx0, *kx1) for ox.
[[maybe_unused]] inline void valid_rows(const DepthwiseConv2dParams& p, int32_t oy, int32_t* ky0, int32_t* ky1) {
  const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
  for (*ky0 = 0; *ky0 < p.kernel_h && iy0 + int64_t(*ky0) * p.dilation_h < 0; ++*ky0) {}
  for (*ky1 = p.kernel_h; *ky1 > *ky0 && iy0 + int64_t(*ky1 - 1) * p.dilation_h >= p.in_h; --*ky1) {}
}
[[maybe_unused]] inline void valid_columns(const DepthwiseConv2dParams& p, int32_t ox, int32_t* kx0, int32_t* kx1) {
  const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
  for (*kx0 = 0; *kx0 < p.kernel_w && ix0 + int64_t(*kx0) * p.dilation_w < 0; ++*kx0) {}
  for (*kx1 = p.kernel_w; *kx1 > *kx0 && ix0 + int64_t(*kx1 - 1) * p.dilation_w >= p.in_w; --*kx1) {}
}

#if defined(__x86_64__)
// AVX-512BW: 32 channels multiplied with one VPMULLW, widened into two int32 accumulators.
VKRT_TARGET_AVX512 void output_row_avx512(const DepthwiseConv2dParams& p, int64_t b, int32_t oy,
                                          const int8_t* input, const int8_t* weight, const int32_t* bias,
                                          const int32_t* multiplier, const int32_t* shift, int8_t* output) {
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
    int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * channels;
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
      const __m512i mult_lo = _mm512_maskz_loadu_epi32(m_lo, multiplier + c);
      const __m512i mult_hi = _mm512_maskz_loadu_epi32(m_hi, multiplier + c + 16);
      const simd::Shifts16 s_lo = simd::split_shift(_mm512_maskz_loadu_epi32(m_lo, shift + c));
      const simd::Shifts16 s_hi = simd::split_shift(_mm512_maskz_loadu_epi32(m_hi, shift + c + 16));
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

// The AVX-512BW row above on AVX2: 16 channels per step, VPMULLW products widened into two
// int32 accumulators per pixel.
VKRT_TARGET_AVX2 void output_row_avx2(const DepthwiseConv2dParams& p, int64_t b, int32_t oy, const int8_t* input,
                                      const int8_t* weight, const int32_t* bias, const int32_t* multiplier,
                                      const int32_t* shift, int8_t* output) {
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
    int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * channels;
    for (int32_t c = 0; c < channels; c += 16) {
      const int n = channels - c < 16 ? channels - c : 16;
      __m256i acc_lo = bias ? load_s32x8(bias + c, n) : _mm256_setzero_si256();
      __m256i acc_hi = bias ? load_s32x8(bias + c + 8, n - 8) : _mm256_setzero_si256();
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels + c;
        const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels + c;
        for (int32_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          const __m256i x = _mm256_add_epi16(_mm256_cvtepi8_epi16(load_s8(in_row + ix * channels, n)), offset16);
          const __m256i w = _mm256_cvtepi8_epi16(load_s8(w_row + int64_t(kx) * channels, n));
          const __m256i prod = _mm256_mullo_epi16(x, w);
          acc_lo = _mm256_add_epi32(acc_lo, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(prod)));
          acc_hi = _mm256_add_epi32(acc_hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(prod, 1)));
        }
      }
      acc_lo = simd::requantize_x8(acc_lo, load_s32x8(multiplier + c, n), load_s32x8(shift + c, n));
      acc_hi = simd::requantize_x8(acc_hi, load_s32x8(multiplier + c + 8, n - 8), load_s32x8(shift + c + 8, n - 8));
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

void output_row_neon(const DepthwiseConv2dParams& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                     const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
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
    int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * channels;
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
      for (int q = 0; q < 4; ++q)
        acc[q] = simd::requantize_x4(acc[q], load_s32x4(multiplier + c + 4 * q, n - 4 * q),
                                     load_s32x4(shift + c + 4 * q, n - 4 * q));
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

void output_row(const DepthwiseConv2dParams& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                const int32_t* bias, const RequantizeRow& spec, int32_t* acc, int8_t* output) {
  const int32_t oc_count = p.out_ch();
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    for (int32_t oc = 0; oc < oc_count; ++oc) acc[oc] = bias ? bias[oc] : 0;
    for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
      const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
      if (iy < 0 || iy >= p.in_h) continue;
      for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
        const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
        if (ix < 0 || ix >= p.in_w) continue;
        const int8_t* in = input + ((b * p.in_h + iy) * p.in_w + ix) * p.in_ch;
        const int8_t* w = weight + (int64_t(ky) * p.kernel_w + kx) * oc_count;
        if (p.ch_mult == 1) {
          accumulate_tap(acc, in, w, p.input_offset, oc_count);
        } else {
          for (int32_t ic = 0; ic < p.in_ch; ++ic) {
            const int32_t x = int32_t(in[ic]) + p.input_offset;
            for (int32_t m = 0; m < p.ch_mult; ++m) {
              const int32_t oc = ic * p.ch_mult + m;
              acc[oc] = wrap_add(acc[oc], wrap_mul(x, w[oc]));
            }
          }
        }
      }
    }
    requantize_row_s8(spec, acc, 0, oc_count, output + ((b * p.out_h + oy) * p.out_w + ox) * oc_count);
  }
}

}  // namespace

size_t depthwise_conv2d_s8_scratch_bytes(const DepthwiseConv2dParams& p, int threads) {
  const size_t rows = size_t(std::max(threads, 1)) * align_up(size_t(p.out_ch()) * 4) + 64;
  return depthwise_vnni_usable(p) ? std::max(rows, depthwise_vnni_scratch_bytes(p, threads)) : rows;
}

void depthwise_conv2d_s8(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                         int8_t* output, const Exec& exec) {
  RequantizeRow spec;
  spec.multiplier = multiplier;
  spec.shift = shift;
  spec.per_channel = true;
  spec.output_offset = p.output_offset;
  spec.activation_min = p.activation_min;
  spec.activation_max = p.activation_max;
  const int64_t rows = int64_t(p.batches) * p.out_h;
  const double macs = double(rows) * p.out_w * p.out_ch() * p.kernel_h * p.kernel_w;
  if (rows <= 0 || p.out_w <= 0 || p.out_ch() <= 0) return;
  if (depthwise_vnni_usable(p)) {
    // 10-15 GMAC/s per thread: from about 512k MACs (~40 us) a second worker pays for its wake-up.
    const int vnni_threads =
        int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(macs / 524288.0) + 1, rows})));
    if (exec.scratch.size() >= depthwise_vnni_scratch_bytes(p, vnni_threads) &&
        depthwise_vnni(p, input, weight, bias, multiplier, shift, output, exec, vnni_threads))
      return;
  }
  // Threads only pay off on layers of a few hundred thousand MACs or more.
  const int threads = std::max(1, std::min(exec.num_threads(), int(macs / 262144.0) + 1));
  const size_t per_task = align_up(size_t(p.out_ch()) * 4);
  if (exec.scratch.size() < depthwise_conv2d_s8_scratch_bytes(p, threads)) {
    // No workspace: one accumulator at a time (same arithmetic, no vector accumulation).
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t b = r / p.out_h;
      const int32_t oy = int32_t(r % p.out_h);
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        for (int32_t oc = 0; oc < p.out_ch(); ++oc) {
          int32_t acc = bias ? bias[oc] : 0;
          for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
              const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
              if (ix < 0 || ix >= p.in_w) continue;
              const int32_t x = input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + oc / p.ch_mult];
              acc = wrap_add(acc, wrap_mul(x + p.input_offset, weight[(int64_t(ky) * p.kernel_w + kx) * p.out_ch() + oc]));
            }
          }
          requantize_row_s8(spec, &acc, oc, 1, output + ((b * p.out_h + oy) * p.out_w + ox) * p.out_ch() + oc);
        }
      }
    }
    return;
  }
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  exec.parallel_for(threads, [&](int t) {
    int32_t* acc = reinterpret_cast<int32_t*>(base + size_t(t) * per_task);
    int64_t r0, r1;
    split_range(rows, threads, t, &r0, &r1);
#if defined(__x86_64__)
    if (int16_products_exact(p) && (cpu_features().avx512bw || cpu_features().avx2)) {
      const auto row_fn = cpu_features().avx512bw ? output_row_avx512 : output_row_avx2;
      for (int64_t r = r0; r < r1; ++r)
        row_fn(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, multiplier, shift, output);
      return;
    }
#elif defined(__aarch64__)
    if (int16_products_exact(p) && compute::has(compute::Isa::Neon)) {
      for (int64_t r = r0; r < r1; ++r)
        output_row_neon(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, multiplier, shift, output);
      return;
    }
#endif
    for (int64_t r = r0; r < r1; ++r)
      output_row(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, spec, acc, output);
  });
}

void depthwise_conv2d_s16(const DepthwiseConv2dParams& p, const int16_t* input, const int8_t* weight,
                          const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                          const int32_t* shift, int16_t* output) {
  const int32_t oc_count = p.out_ch();
  for (int64_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.out_h; ++oy)
      for (int32_t ox = 0; ox < p.out_w; ++ox)
        for (int32_t oc = 0; oc < oc_count; ++oc) {
          int64_t acc = 0;
          for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
              const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
              if (ix < 0 || ix >= p.in_w) continue;
              acc += int32_t(input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + oc / p.ch_mult]) *
                     weight[(int64_t(ky) * p.kernel_w + kx) * oc_count + oc];
            }
          }
          int32_t v;
          if (bias64) {
            v = arith::requantize_s64(arith::wrap_add64(acc, bias64[oc]), arith::reduce_multiplier(multiplier[oc]),
                                      shift[oc]);
          } else {
            const int32_t acc32 = wrap_add(int32_t(uint32_t(uint64_t(acc))), bias32 ? bias32[oc] : 0);
            v = arith::requantize(acc32, multiplier[oc], shift[oc]);
          }
          output[((b * p.out_h + oy) * p.out_w + ox) * oc_count + oc] =
              int16_t(arith::clamp_activation(v, p.activation_min, p.activation_max));
        }
}

namespace {

constexpr char kDepthwiseOp[] = "cortex_m::quantized_depthwise_conv2d.out";

// A depthwise call with every argument checked.
struct DepthwiseCall {
  DepthwiseConv2dParams p;
  Tensor* input = nullptr;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  Tensor* out = nullptr;
  const int32_t* mult = nullptr;
  const int32_t* shift = nullptr;
  bool s16 = false;
};

// quantized_depthwise_conv2d(input, weight, bias?, stride, padding, dilation, depth_multiplier,
//   input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//   activation_max, [scratch], out) + return: 16 arguments (15 without scratch).
// Every check that does not need the activations' data (shared by prepare and execute).
Result<DepthwiseCall> parse_depthwise_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(15, 16));
  const size_t out_index = args.size() - 2;
  DepthwiseCall c;
  DepthwiseConv2dParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.weight, args.tensor(1, "weight"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *c.input, {ScalarType::Char, ScalarType::Short}));
  c.s16 = c.input->dtype() == ScalarType::Short;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "weight", *c.weight, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *c.out, {c.input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *c.input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *c.out));
  if (c.weight->rank() != 4) return args.error(1, "weight", "expected 4-D [1, KH, KW, C_out] weights");
  const auto wd = physical_dims4(*c.weight);
  int32_t stride[2], padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 5, "dilation", dilation, 1, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(p.ch_mult, int_arg(args, 6, "depth_multiplier", 1, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(p.input_offset, int_arg(args, 7, "input_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 8, "output_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 11, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 12, "activation_max"));
  if (in.n != 1) return args.error(0, "input", "batch must be 1 (CMSIS-NN depthwise)");
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.in_ch = in.c;
  p.kernel_h = wd[1], p.kernel_w = wd[2];
  p.stride_h = stride[0], p.stride_w = stride[1], p.pad_h = padding[0], p.pad_w = padding[1];
  p.dilation_h = dilation[0], p.dilation_w = dilation[1];
  p.out_h = o.h, p.out_w = o.w;
  if (wd[0] != 1 || int64_t(wd[3]) != int64_t(in.c) * p.ch_mult)
    return args.error(1, "weight", "expected [1, KH, KW, " + std::to_string(int64_t(in.c) * p.ch_mult) + "]");
  if (o.n != in.n || int64_t(o.c) != int64_t(in.c) * p.ch_mult)
    return args.error(out_index, "out", "channels do not match input channels x depth_multiplier");
  if (Status s = check_depthwise_conv2d(p, c.s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  VKRT_ASSIGN_OR_RETURN(c.bias, optional_bias(args, 2, "bias", p.out_ch(), c.s16));
  VKRT_ASSIGN_OR_RETURN(c.mult, channel_params(args, 9, "requantize_multipliers", p.out_ch()));
  VKRT_ASSIGN_OR_RETURN(c.shift, channel_params(args, 10, "requantize_shifts", p.out_ch()));
  for (int32_t ch = 0; ch < p.out_ch(); ++ch)
    VKRT_RETURN_IF_ERROR(expect_range(args, 10, "requantize_shifts", c.shift[ch], -31, 30));
  return c;
}

Status quantized_depthwise_conv2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kDepthwiseOp, argv);
  VKRT_ASSIGN_OR_RETURN(DepthwiseCall c, prepared_or_parse(ctx, args, parse_depthwise_call));
  const DepthwiseConv2dParams& p = c.p;
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "weight", *c.weight));
  VKRT_RETURN_IF_ERROR(expect_data(args, args.size() - 2, "out", *c.out));
  if (c.s16) {
    const bool b64 = c.bias && c.bias->dtype() == ScalarType::Long;
    depthwise_conv2d_s16(p, c.input->data_as<int16_t>(), c.weight->data_as<int8_t>(),
                         (c.bias && !b64) ? c.bias->data_as<int32_t>() : nullptr,
                         b64 ? c.bias->data_as<int64_t>() : nullptr, c.mult, c.shift, c.out->data_as<int16_t>());
    return Status::ok();
  }
  ContextRunner runner(ctx);
  const Exec exec = make_exec(ctx, runner, depthwise_conv2d_s8_scratch_bytes(p, runner.num_threads()));
  depthwise_conv2d_s8(p, c.input->data_as<int8_t>(), c.weight->data_as<int8_t>(),
                      c.bias ? c.bias->data_as<int32_t>() : nullptr, c.mult, c.shift, c.out->data_as<int8_t>(), exec);
  return Status::ok();
}

}  // namespace

// Load time: the call is parsed once (prepare_call).
VKRT_REGISTER_KERNEL_WITH_PREPARE(kDepthwiseOp, quantized_depthwise_conv2d_out,
                                  (prepare_parsed<kDepthwiseOp, parse_depthwise_call, 1, 2, 9, 10>));

}  // namespace vkrt::cortex_m
