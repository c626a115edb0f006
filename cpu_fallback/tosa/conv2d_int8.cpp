// int8 CONV2D and DEPTHWISE_CONV2D (tosa.md §6) reordered for speed: the same sums as the
// reference loops in conv2d.cpp, in loops the compiler vectorises.
//
// Both subtract the zero points once, into int16 copies (|value - zp| <= 255), so the inner
// loops are int16 x int16 products summed in int32 (SSE2's pmaddwd, AVX2's vpmaddwd).
// Exactness: each product is at most 255 * 255 = 65025 in magnitude, so a sum of T products
// stays inside int32 while T * 65025 < 2^31, i.e. T <= 33025 taps. Within that bound plain int32
// sums equal the reference's modulo-2^32 ones; beyond it the callers run the reference loops.
// The bias is added as the reference does (wrapping, ConvPolicy<int8_t>::finish).
#include <algorithm>
#include <vector>

#include "cpu_fallback/tosa/conv_common.h"

namespace vkrt::tosa::detail {
namespace {

constexpr int64_t kMaxExactTaps = 33025;  // floor(2^31 / 65025)

// Output pixels computed together: each weight loaded once serves this many dot products.
constexpr int64_t kPixelBlock = 4;

// Eight dot products of length k: four patches against two weight rows, each load serving
// several products (8 accumulators, 4 patch and 2 weight vectors fit 16 vector registers).
inline void dot4x2(const int16_t* __restrict patches, int64_t k, const int16_t* __restrict w0,
                   const int16_t* __restrict w1, int32_t sums0[4], int32_t sums1[4]) {
  const int16_t* __restrict p0 = patches;
  const int16_t* __restrict p1 = patches + k;
  const int16_t* __restrict p2 = patches + 2 * k;
  const int16_t* __restrict p3 = patches + 3 * k;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (int64_t i = 0; i < k; ++i) {
    const int32_t x0 = p0[i], x1 = p1[i], x2 = p2[i], x3 = p3[i], u = w0[i], v = w1[i];
    a0 += x0 * u, a1 += x1 * u, a2 += x2 * u, a3 += x3 * u;
    b0 += x0 * v, b1 += x1 * v, b2 += x2 * v, b3 += x3 * v;
  }
  sums0[0] = a0, sums0[1] = a1, sums0[2] = a2, sums0[3] = a3;
  sums1[0] = b0, sums1[1] = b1, sums1[2] = b2, sums1[3] = b3;
}

}  // namespace

VKRT_VECTOR_CLONES bool conv2d_int8_fast(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                      const Conv2dAttrs& a, const TensorRef& output) {
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), IC = input.dim(3);
  const int64_t OC = weight.dim(0), KH = weight.dim(1), KW = weight.dim(2);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const int64_t taps = KH * KW * IC;  // one output's products, padding taps included
  if (input.dtype != DType::Int8 || taps > kMaxExactTaps) return false;
  const int8_t* in = input.as<const int8_t>();
  const int8_t* w = weight.as<const int8_t>();
  const int32_t* b = bias.as<const int32_t>();
  int32_t* out = output.as<int32_t>();
  const bool bias_per_channel = bias.dim(0) == OC;
  const int32_t in_zp = int32_t(a.input_zp), w_zp = int32_t(a.weight_zp);

  // Weights minus their zero point, [OC][KH*KW*IC] as the weight tensor already is.
  std::vector<int16_t> w16(size_t(OC * taps));
  for (size_t i = 0; i < w16.size(); ++i) w16[i] = int16_t(w[i] - w_zp);
  // The input patch of each pixel in a block, minus the input zero point, [kPixelBlock][taps].
  // Padding taps are 0: they contribute nothing, as in the reference loops.
  std::vector<int16_t> patches(size_t(kPixelBlock * taps));

  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox0 = 0; ox0 < OW; ox0 += kPixelBlock) {
        const int64_t pixels = std::min(kPixelBlock, OW - ox0);
        for (int64_t p = 0; p < kPixelBlock; ++p) {
          int16_t* patch = &patches[size_t(p * taps)];
          if (p >= pixels) {  // past the row's end: computed, never stored
            std::fill(patch, patch + taps, int16_t(0));
            continue;
          }
          for (int64_t ky = 0; ky < KH; ++ky) {
            const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
            for (int64_t kx = 0; kx < KW; ++kx) {
              const int64_t x = (ox0 + p) * a.stride[1] - a.pad[2] + kx * a.dilation[1];
              int16_t* dst = patch + (ky * KW + kx) * IC;
              if (y < 0 || y >= IH || x < 0 || x >= IW) {
                std::fill(dst, dst + IC, int16_t(0));
                continue;
              }
              const int8_t* src = in + ((n * IH + y) * IW + x) * IC;
              for (int64_t c = 0; c < IC; ++c) dst[c] = int16_t(src[c] - in_zp);
            }
          }
        }
        int32_t* out_px = out + ((n * OH + oy) * OW + ox0) * OC;
        for (int64_t oc = 0; oc < OC; oc += 2) {
          // An odd last channel pairs with itself; only its first copy is stored.
          const int64_t oc1 = std::min(oc + 1, OC - 1);
          int32_t sums[2][kPixelBlock];
          dot4x2(patches.data(), taps, &w16[size_t(oc * taps)], &w16[size_t(oc1 * taps)], sums[0], sums[1]);
          for (int64_t j = 0; j <= oc1 - oc; ++j) {
            const int32_t bias_value = b[bias_per_channel ? oc + j : 0];
            for (int64_t p = 0; p < pixels; ++p)
              out_px[p * OC + oc + j] = ConvPolicy<int8_t>::finish(sums[j][p], bias_value);
          }
        }
      }
  return true;
}

VKRT_VECTOR_CLONES bool depthwise_conv2d_int8_fast(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const Conv2dAttrs& a, const TensorRef& output) {
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t KH = weight.dim(0), KW = weight.dim(1), M = weight.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  // Channel multipliers above 1 interleave output channels; they keep the reference loops.
  if (input.dtype != DType::Int8 || M != 1 || KH * KW > kMaxExactTaps) return false;
  const int8_t* in = input.as<const int8_t>();
  const int8_t* w = weight.as<const int8_t>();
  const int32_t* b = bias.as<const int32_t>();
  int32_t* out = output.as<int32_t>();
  const bool bias_per_channel = bias.dim(0) == C;
  const int32_t in_zp = int32_t(a.input_zp), w_zp = int32_t(a.weight_zp);

  // Weights minus their zero point, [KH*KW][C] (the weight tensor's [KH,KW,C,1]).
  std::vector<int16_t> w16(size_t(KH * KW * C));
  for (size_t i = 0; i < w16.size(); ++i) w16[i] = int16_t(w[i] - w_zp);
  // One pixel's sums over every channel: the channel loop is contiguous in NHWC.
  std::vector<int32_t> sums(static_cast<size_t>(C));

  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        std::fill(sums.begin(), sums.end(), 0);
        int32_t* __restrict acc = sums.data();
        for (int64_t ky = 0; ky < KH; ++ky) {
          const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
          if (y < 0 || y >= IH) continue;  // padding taps contribute nothing
          for (int64_t kx = 0; kx < KW; ++kx) {
            const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
            if (x < 0 || x >= IW) continue;
            const int8_t* __restrict px = in + ((n * IH + y) * IW + x) * C;
            const int16_t* __restrict tap = &w16[size_t((ky * KW + kx) * C)];
            for (int64_t c = 0; c < C; ++c) acc[c] += (int32_t(px[c]) - in_zp) * int32_t(tap[c]);
          }
        }
        int32_t* out_px = out + ((n * OH + oy) * OW + ox) * C;
        for (int64_t c = 0; c < C; ++c)
          out_px[c] = ConvPolicy<int8_t>::finish(acc[c], b[bias_per_channel ? c : 0]);
      }
  return true;
}

}  // namespace vkrt::tosa::detail
