// int8 DEPTHWISE_CONV2D (tosa.md §6) reordered for speed: the same sums as the reference loops
// in conv2d.cpp. Zero points come off as int16, products sum in int32, exact within
// kMaxExactTaps (conv_common.h); nothing is allocated; work is split by output rows.
#include <algorithm>

#include "cpu_fallback/tosa/conv_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vkrt::tosa::detail {
namespace {

// Output rows [row_begin, row_end) of (n, oy) pairs; the channel loop is innermost, contiguous
// in NHWC, and sums accumulate in the output.
VKRT_VECTOR_CLONES void depthwise_int8_rows(const ConvJob& job, int64_t row_begin, int64_t row_end) {
  const TensorRef& input = *job.input;
  const ConvAttr& a = *job.attrs;
  const int64_t IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t KH = job.weight->dim(0), KW = job.weight->dim(1);
  const int64_t OH = job.output->dim(1), OW = job.output->dim(2);
  const int8_t* in = input.as<const int8_t>();
  const int8_t* w = job.weight->as<const int8_t>();
  const int32_t* b = job.bias->as<const int32_t>();
  int32_t* out = job.output->as<int32_t>();
  const bool bias_per_channel = job.bias->dim(0) == C;
  const int16_t in_zp = int16_t(a.input_zp), w_zp = int16_t(a.weight_zp);

  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t n = row / OH, oy = row % OH;
    for (int64_t ox = 0; ox < OW; ++ox) {
      int32_t* __restrict acc = out + (row * OW + ox) * C;
      std::fill(acc, acc + C, 0);
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
        if (y < 0 || y >= IH) continue;  // padding taps contribute nothing
        for (int64_t kx = 0; kx < KW; ++kx) {
          const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
          if (x < 0 || x >= IW) continue;
          const int8_t* __restrict px = in + ((n * IH + y) * IW + x) * C;
          const int8_t* __restrict tap = w + (ky * KW + kx) * C;  // weight [KH,KW,C,1]
          for (int64_t c = 0; c < C; ++c)
            acc[c] += int32_t(int16_t(px[c] - in_zp)) * int32_t(int16_t(tap[c] - w_zp));
        }
      }
      for (int64_t c = 0; c < C; ++c) acc[c] = ConvPolicy<int8_t>::finish(acc[c], b[bias_per_channel ? c : 0]);
    }
  }
}

#if defined(__x86_64__)
// 16 channels a step, two taps at a time: the two taps' inputs and weights (zero points off,
// int16) are interleaved per channel so that one vpmaddwd multiplies and adds both taps for 8
// channels. The interleave (unpacklo/hi within 128-bit lanes) leaves the sums in channel order
// 0-3, 8-11 | 4-7, 12-15; a permute restores it at the end. An odd last tap pairs with zeros.
// Channels past the last multiple of 16 take the portable loop above. Up to kDepthwiseTaps taps
// (a 8x8 window) take this kernel; the valid taps of a pixel are listed on the stack.
constexpr int64_t kDepthwiseTaps = 64;

__attribute__((target("avx2"))) __m256i int16_minus(const int8_t* p, __m256i zp) {
  return _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), zp);
}

__attribute__((target("avx2"))) void depthwise_int8_rows_avx2(const ConvJob& job, int64_t row_begin,
                                                               int64_t row_end) {
  const TensorRef& input = *job.input;
  const ConvAttr& a = *job.attrs;
  const int64_t IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t KH = job.weight->dim(0), KW = job.weight->dim(1);
  const int64_t OH = job.output->dim(1), OW = job.output->dim(2);
  const int64_t C16 = C / 16 * 16;
  const int8_t* in = input.as<const int8_t>();
  const int8_t* w = job.weight->as<const int8_t>();
  const int32_t* b = job.bias->as<const int32_t>();
  int32_t* out = job.output->as<int32_t>();
  const bool bias_per_channel = job.bias->dim(0) == C;
  const __m256i in_zp = _mm256_set1_epi16(int16_t(a.input_zp)), w_zp = _mm256_set1_epi16(int16_t(a.weight_zp));
  const int8_t* tap_in[kDepthwiseTaps];  // this pixel's valid taps: input pixel, weight row
  const int8_t* tap_w[kDepthwiseTaps];

  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t n = row / OH, oy = row % OH;
    for (int64_t ox = 0; ox < OW; ++ox) {
      int taps = 0;
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
        if (y < 0 || y >= IH) continue;  // padding taps contribute nothing
        for (int64_t kx = 0; kx < KW; ++kx) {
          const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
          if (x < 0 || x >= IW) continue;
          tap_in[taps] = in + ((n * IH + y) * IW + x) * C;
          tap_w[taps] = w + (ky * KW + kx) * C;
          ++taps;
        }
      }
      int32_t* out_px = out + (row * OW + ox) * C;
      for (int64_t c = 0; c < C16; c += 16) {
        __m256i acc_a = _mm256_setzero_si256(), acc_b = _mm256_setzero_si256();
        for (int t = 0; t < taps; t += 2) {
          const __m256i x0 = int16_minus(tap_in[t] + c, in_zp), w0 = int16_minus(tap_w[t] + c, w_zp);
          const bool pair = t + 1 < taps;
          const __m256i x1 = pair ? int16_minus(tap_in[t + 1] + c, in_zp) : _mm256_setzero_si256();
          const __m256i w1 = pair ? int16_minus(tap_w[t + 1] + c, w_zp) : _mm256_setzero_si256();
          acc_a = _mm256_add_epi32(acc_a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), _mm256_unpacklo_epi16(w0, w1)));
          acc_b = _mm256_add_epi32(acc_b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), _mm256_unpackhi_epi16(w0, w1)));
        }
        // acc_a holds channels 0-3 | 8-11, acc_b 4-7 | 12-15.
        const __m256i first8 = _mm256_permute2x128_si256(acc_a, acc_b, 0x20);
        const __m256i last8 = _mm256_permute2x128_si256(acc_a, acc_b, 0x31);
        const __m256i bias_first = bias_per_channel ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + c))
                                                    : _mm256_set1_epi32(b[0]);
        const __m256i bias_last = bias_per_channel ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + c + 8))
                                                   : _mm256_set1_epi32(b[0]);
        // The bias added with wrapping, as ConvPolicy<int8_t>::finish: vpaddd.
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_px + c), _mm256_add_epi32(first8, bias_first));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_px + c + 8), _mm256_add_epi32(last8, bias_last));
      }
      for (int64_t c = C16; c < C; ++c) {
        int32_t sum = 0;
        for (int t = 0; t < taps; ++t)
          sum += int32_t(int16_t(tap_in[t][c] - a.input_zp)) * int32_t(int16_t(tap_w[t][c] - a.weight_zp));
        out_px[c] = ConvPolicy<int8_t>::finish(sum, b[bias_per_channel ? c : 0]);
      }
    }
  }
}
#endif

}  // namespace

bool depthwise_conv2d_int8_fast(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& a, const TensorRef& output, const Parallel* parallel) {
  const int64_t KH = weight.dim(0), KW = weight.dim(1), M = weight.dim(3);
  // Channel multipliers above 1 interleave output channels; they keep the reference loops.
  if (input.dtype != DType::Int8 || M != 1 || KH * KW > kMaxExactTaps) return false;
  ConvRows rows_fn = depthwise_int8_rows;
#if defined(__x86_64__)
  if (KH * KW <= kDepthwiseTaps && output.dim(3) >= 16 && compute::has(compute::Isa::Avx2))
    rows_fn = depthwise_int8_rows_avx2;
#endif
  run_conv_rows(ConvJob{&input, &weight, &bias, &a, &output}, KH * KW, parallel, rows_fn);
  return true;
}

}  // namespace vkrt::tosa::detail
