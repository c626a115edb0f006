// int8 CONV2D (tosa.md §6) reordered for speed: the same sums as the reference loops in
// conv2d.cpp, in loops the compiler vectorises (and one AVX2 kernel). DEPTHWISE_CONV2D's are in
// depthwise_int8.cpp.
//
// The zero points come off as int16 (|value - zp| <= 255), so the inner loops are
// int16 x int16 products summed in int32 (SSE2's pmaddwd, AVX2's vpmaddwd).
// Exactness: each product is at most 255 * 255 = 65025 in magnitude, so a sum of T products
// stays inside int32 while T * 65025 < 2^31, i.e. T <= 33025 taps. Within that bound plain int32
// sums equal the reference's modulo-2^32 ones; beyond it the callers run the reference loops.
// The bias is added as the reference does (wrapping, ConvPolicy<int8_t>::finish).
//
// No heap memory (the kernels' contract, tosa_kernels.h): a block's input patches live on the
// stack, a chunk of taps at a time, and partial sums accumulate in the int32 output itself.
// Work is split by output rows (n, oy), each task with its own stack, for Parallel.
#include <algorithm>
#include <cstring>

#include "cpu_fallback/tosa/conv_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vkrt::tosa::detail {
namespace {

// Output pixels computed together: each weight loaded once serves this many dot products.
constexpr int64_t kPixelBlock = 4;
// Taps of a patch held at once: kPixelBlock x kTapChunk int16 = 8 KiB of stack. MobileNetV2's
// largest convolution has 960 taps (a 1x1 over 960 channels), so one chunk covers nearly all.
constexpr int64_t kTapChunk = 1024;

// Eight dot products of length k: four patches (rows kTapChunk apart) against two weight rows,
// each load serving several products (8 accumulators, 4 patch and 2 weight vectors fit 16
// vector registers). Weights are int8 in the tensor; their zero point comes off here.
inline void dot4x2(const int16_t* __restrict patches, int64_t k, const int8_t* __restrict w0,
                   const int8_t* __restrict w1, int16_t w_zp, int32_t sums0[4], int32_t sums1[4]) {
  const int16_t* __restrict p0 = patches;
  const int16_t* __restrict p1 = patches + kTapChunk;
  const int16_t* __restrict p2 = patches + 2 * kTapChunk;
  const int16_t* __restrict p3 = patches + 3 * kTapChunk;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (int64_t i = 0; i < k; ++i) {
    const int16_t u16 = int16_t(w0[i] - w_zp), v16 = int16_t(w1[i] - w_zp);
    const int32_t x0 = p0[i], x1 = p1[i], x2 = p2[i], x3 = p3[i], u = u16, v = v16;
    a0 += x0 * u, a1 += x1 * u, a2 += x2 * u, a3 += x3 * u;
    b0 += x0 * v, b1 += x1 * v, b2 += x2 * v, b3 += x3 * v;
  }
  sums0[0] = a0, sums0[1] = a1, sums0[2] = a2, sums0[3] = a3;
  sums1[0] = b0, sums1[1] = b1, sums1[2] = b2, sums1[3] = b3;
}


// Taps [t0, t0 + len) of output pixel (n, oy, ox)'s patch, tap t = (ky * KW + kx) * IC + c,
// minus the input zero point; 0 at padding taps (they contribute nothing, as in the
// reference loops) and for a pixel past the row's end (computed, never stored).
void fill_patch(const ConvJob& job, int64_t n, int64_t oy, int64_t ox, int64_t t0, int64_t len,
                int16_t* __restrict patch) {
  const TensorRef& input = *job.input;
  const ConvAttr& a = *job.attrs;
  const int64_t IH = input.dim(1), IW = input.dim(2), IC = input.dim(3), KW = job.weight->dim(2);
  const int8_t* in = input.as<const int8_t>();
  const int16_t in_zp = int16_t(a.input_zp);
  if (ox >= job.output->dim(2)) {
    std::fill(patch, patch + len, int16_t(0));
    return;
  }
  // Kernel position (ky, kx) and channel c0 of tap t0; then window by window, no division.
  int64_t ky = (t0 / IC) / KW, kx = (t0 / IC) % KW, c0 = t0 % IC;
  for (int64_t t = t0; t < t0 + len;) {
    const int64_t run = std::min(IC - c0, t0 + len - t);
    const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
    const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
    int16_t* dst = patch + (t - t0);
    if (y < 0 || y >= IH || x < 0 || x >= IW) {
      std::fill(dst, dst + run, int16_t(0));
    } else {
      const int8_t* src = in + ((n * IH + y) * IW + x) * IC + c0;
      for (int64_t c = 0; c < run; ++c) dst[c] = int16_t(src[c] - in_zp);
    }
    t += run;
    c0 = 0;
    if (++kx == KW) kx = 0, ++ky;
  }
}

// Output rows [row_begin, row_end) of (n, oy) pairs.
VKRT_VECTOR_CLONES void conv2d_int8_rows(const ConvJob& job, int64_t row_begin, int64_t row_end) {
  const int64_t OC = job.weight->dim(0), OH = job.output->dim(1), OW = job.output->dim(2);
  const int64_t taps = job.weight->dim(1) * job.weight->dim(2) * job.weight->dim(3);
  const int8_t* w = job.weight->as<const int8_t>();
  const int32_t* b = job.bias->as<const int32_t>();
  int32_t* out = job.output->as<int32_t>();
  const bool bias_per_channel = job.bias->dim(0) == OC;
  const int16_t w_zp = int16_t(job.attrs->weight_zp);
  alignas(64) int16_t patches[kPixelBlock * kTapChunk];

  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t n = row / OH, oy = row % OH;
    for (int64_t ox0 = 0; ox0 < OW; ox0 += kPixelBlock) {
      const int64_t pixels = std::min(kPixelBlock, OW - ox0);
      int32_t* out_px = out + (row * OW + ox0) * OC;
      for (int64_t t0 = 0; t0 < taps; t0 += kTapChunk) {
        const int64_t len = std::min(kTapChunk, taps - t0);
        const bool first = t0 == 0, last = t0 + len == taps;
        for (int64_t p = 0; p < kPixelBlock; ++p) fill_patch(job, n, oy, ox0 + p, t0, len, &patches[p * kTapChunk]);
        for (int64_t oc = 0; oc < OC; oc += 2) {
          // An odd last channel pairs with itself; only its first copy is stored.
          const int64_t oc1 = std::min(oc + 1, OC - 1);
          int32_t sums[2][kPixelBlock];
          dot4x2(patches, len, w + oc * taps + t0, w + oc1 * taps + t0, w_zp, sums[0], sums[1]);
          for (int64_t j = 0; j <= oc1 - oc; ++j) {
            for (int64_t p = 0; p < pixels; ++p) {
              int32_t& o = out_px[p * OC + oc + j];
              // Partial sums of several chunks add exactly: the whole sum is within int32.
              const int32_t sum = first ? sums[j][p] : o + sums[j][p];
              o = last ? ConvPolicy<int8_t>::finish(sum, b[bias_per_channel ? oc + j : 0]) : sum;
            }
          }
        }
      }
    }
  }
}

#if defined(__x86_64__)
// Convolutions with few taps per output (MobileNetV2's stem: 27 taps; its 1x1 expansions over 16
// to 32 channels) spend most of dot4x2's time closing each dot product with a horizontal sum.
// This kernel vectorises over 16 output channels instead, so nothing is summed across lanes:
// vpmaddwd multiplies a broadcast pair of patch values (taps 2k, 2k+1) by 8 channels' weight
// pairs and adds the two products, 16 multiply-adds per instruction; 4 pixels x 16 channels
// accumulate in 8 registers. An odd tap count is padded with a zero tap. Same sums, so the
// same bits (the exactness bound of the file header holds for every partial sum).
constexpr int64_t kFewTaps = 128;    // at most this many taps take this kernel
constexpr int64_t kRowPixels = 32;   // pixels whose patches are held at once
constexpr int64_t kGroupBlocks = 8;  // 16-channel blocks whose weight pairs are held at once

__attribute__((target("avx2"))) void conv2d_int8_rows_few_taps(const ConvJob& job, int64_t row_begin,
                                                                int64_t row_end) {
  const int64_t OC = job.weight->dim(0), OH = job.output->dim(1), OW = job.output->dim(2);
  const int64_t taps = job.weight->dim(1) * job.weight->dim(2) * job.weight->dim(3);
  const int64_t pairs = (taps + 1) / 2;
  const int8_t* w = job.weight->as<const int8_t>();
  const int32_t* b = job.bias->as<const int32_t>();
  int32_t* out = job.output->as<int32_t>();
  const bool bias_per_channel = job.bias->dim(0) == OC;
  const int16_t w_zp = int16_t(job.attrs->weight_zp);
  constexpr int64_t kStride = kFewTaps + 2;  // int16 per patch row (even: pairs stay 4-byte aligned)
  alignas(32) int16_t patches[kRowPixels * kStride];                    // 8.3 KiB
  alignas(32) int16_t weight_pairs[kGroupBlocks][kFewTaps / 2][16][2];  // [block][pair][channel][tap 2k, 2k+1]: 32 KiB

  // Channel groups outermost: each group's weight pairs are built once per band of rows.
  for (int64_t g0 = 0; g0 < OC; g0 += 16 * kGroupBlocks) {
    const int64_t group_blocks = std::min(kGroupBlocks, (OC - g0 + 15) / 16);
    for (int64_t blk = 0; blk < group_blocks; ++blk)
      for (int64_t j = 0; j < 16; ++j) {
        const int64_t oc = g0 + 16 * blk + j;
        const int8_t* w_oc = w + oc * taps;
        for (int64_t k = 0; k < 2 * pairs; ++k)
          weight_pairs[blk][k / 2][j][k % 2] = oc < OC && k < taps ? int16_t(w_oc[k] - w_zp) : int16_t(0);
      }
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t n = row / OH, oy = row % OH;
      for (int64_t px0 = 0; px0 < OW; px0 += kRowPixels) {
        const int64_t pixels = std::min(kRowPixels, OW - px0);
        const int64_t padded_pixels = (pixels + 3) / 4 * 4;
        for (int64_t p = 0; p < padded_pixels; ++p) {  // pixels past the row's end get zero patches
          fill_patch(job, n, oy, p < pixels ? px0 + p : OW, 0, taps, &patches[p * kStride]);
          patches[p * kStride + taps] = 0;  // the zero tap after an odd count
        }
        for (int64_t blk = 0; blk < group_blocks; ++blk) {
          const int64_t oc0 = g0 + 16 * blk, channels = std::min<int64_t>(16, OC - oc0);
          alignas(32) int32_t bias16[16];
          for (int64_t j = 0; j < 16; ++j) bias16[j] = j < channels ? b[bias_per_channel ? oc0 + j : 0] : 0;
          const __m256i bias_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(&bias16[0]));
          const __m256i bias_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(&bias16[8]));
          for (int64_t p0 = 0; p0 < padded_pixels; p0 += 4) {
            __m256i acc[4][2];
            for (auto& a : acc) a[0] = a[1] = _mm256_setzero_si256();
            for (int64_t kp = 0; kp < pairs; ++kp) {
              const __m256i w_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(&weight_pairs[blk][kp][0][0]));
              const __m256i w_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(&weight_pairs[blk][kp][8][0]));
              for (int q = 0; q < 4; ++q) {
                int32_t pair;
                std::memcpy(&pair, &patches[(p0 + q) * kStride + 2 * kp], sizeof(pair));
                const __m256i x = _mm256_set1_epi32(pair);
                acc[q][0] = _mm256_add_epi32(acc[q][0], _mm256_madd_epi16(x, w_lo));
                acc[q][1] = _mm256_add_epi32(acc[q][1], _mm256_madd_epi16(x, w_hi));
              }
            }
            for (int64_t q = 0; q < 4 && p0 + q < pixels; ++q) {
              // The bias added with wrapping, as ConvPolicy<int8_t>::finish: vpaddd.
              const __m256i lo = _mm256_add_epi32(acc[q][0], bias_lo), hi = _mm256_add_epi32(acc[q][1], bias_hi);
              int32_t* out_px = out + (row * OW + px0 + p0 + q) * OC + oc0;
              if (channels == 16) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_px), lo);
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_px + 8), hi);
              } else {
                alignas(32) int32_t sums[16];
                _mm256_store_si256(reinterpret_cast<__m256i*>(&sums[0]), lo);
                _mm256_store_si256(reinterpret_cast<__m256i*>(&sums[8]), hi);
                std::memcpy(out_px, sums, size_t(channels) * sizeof(int32_t));
              }
            }
          }
        }
      }
    }
  }
}
#endif

}  // namespace

bool conv2d_int8_fast(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                      const ConvAttr& a, const TensorRef& output, const Parallel* parallel) {
  const int64_t taps = weight.dim(1) * weight.dim(2) * weight.dim(3);  // one output's products
  if (input.dtype != DType::Int8 || taps > kMaxExactTaps) return false;
  ConvRows rows_fn = conv2d_int8_rows;
#if defined(__x86_64__)
  if (taps <= kFewTaps && compute::has(compute::Isa::Avx2)) rows_fn = conv2d_int8_rows_few_taps;
#endif
  run_conv_rows(ConvJob{&input, &weight, &bias, &a, &output}, taps, parallel, rows_fn);
  return true;
}

}  // namespace vkrt::tosa::detail
