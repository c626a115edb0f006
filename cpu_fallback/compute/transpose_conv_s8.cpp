// Transposed int8 convolutions on the int8 GEMM (transpose_conv_s8.h).
#include "compute/transpose_conv_s8.h"

#include <algorithm>
#include <cstring>

#include "compute/gemm_s8.h"

namespace vkrt::compute {
namespace {

// The products of a band take at most about this many bytes (int32), so that the scatter reads
// them from cache: a band is at least one input row.
constexpr size_t kBandBytes = size_t(1) << 20;

struct Layout {
  int64_t taps, columns;  // kernel_h·kernel_w, and the GEMM's columns: taps·out_ch
  int64_t band_rows;      // input rows a band
  size_t weights_bytes, products_bytes;
  explicit Layout(const TransposeConvS8& c)
      : taps(int64_t(c.kernel_h) * c.kernel_w),
        columns(taps * c.out_ch),
        band_rows(std::max<int64_t>(1, int64_t(kBandBytes / std::max<size_t>(1, size_t(columns) * c.in_w * 4)))),
        weights_bytes(align_up(size_t(columns) * size_t(c.in_ch))),
        products_bytes(align_up(size_t(std::min<int64_t>(band_rows, c.in_h)) * c.in_w * size_t(columns) * 4)) {}
  bool applies(const TransposeConvS8& c) const {
    return c.in_ch > 0 && columns > 0 && columns <= INT32_MAX && c.in_h > 0 && c.in_w > 0;
  }
};

// The GEMM for input rows [iy0, iy0 + rows) of batch b: row (pixel) p, column (ky, kx, oc).
GemmS8 band_gemm(const TransposeConvS8& c, const Layout& l, const int8_t* weights, int64_t b, int64_t iy0,
                 int64_t rows, int32_t* products) {
  GemmS8 g;
  g.m = rows * c.in_w, g.n = int32_t(l.columns), g.k = c.in_ch;
  g.a = c.input ? c.input + ((b * c.in_h + iy0) * c.in_w) * int64_t(c.in_ch) : nullptr, g.a_stride = c.in_ch;
  g.b = weights, g.b_stride = c.in_ch;
  g.a_offset = c.input_offset, g.b_offset = c.weight_offset;
  g.c32 = products, g.c_stride = l.columns;
  return g;
}

}  // namespace

size_t transpose_conv_s8_scratch_bytes(const TransposeConvS8& c, int threads) {
  const Layout l(c);
  if (!l.applies(c)) return 0;
  const GemmS8 g = band_gemm(c, l, nullptr, 0, 0, std::min<int64_t>(l.band_rows, c.in_h), nullptr);
  return l.weights_bytes + l.products_bytes + gemm_s8_scratch_bytes(g, threads) + 64;
}

bool transpose_conv_s8_sums(const TransposeConvS8& c, const Exec& exec) {
  const Layout l(c);
  const size_t need = transpose_conv_s8_scratch_bytes(c, exec.num_threads());
  if (need == 0 || exec.scratch.size() < need) return false;
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  // The weights tap-major: column (ky·kernel_w + kx)·out_ch + oc, so that a tap's products lie
  // side by side as the output pixel's channels do.
  auto* weights = reinterpret_cast<int8_t*>(base);
  for (int64_t oc = 0; oc < c.out_ch; ++oc)
    for (int64_t t = 0; t < l.taps; ++t)
      std::memcpy(weights + (t * c.out_ch + oc) * c.in_ch, c.weight + (oc * l.taps + t) * c.in_ch, size_t(c.in_ch));
  auto* products = reinterpret_cast<int32_t*>(base + l.weights_bytes);
  const Exec gemm_exec{exec.scratch.subspan(size_t(base - exec.scratch.data()) + l.weights_bytes + l.products_bytes),
                       exec.runner};
  const int64_t pixel_sums = int64_t(c.out_h) * c.out_w * c.out_ch;
  for (int64_t b = 0; b < c.batches; ++b) {
    uint32_t* sums = reinterpret_cast<uint32_t*>(c.sums + b * pixel_sums);
    for (int64_t i = 0; i < pixel_sums; ++i)
      sums[i] = c.bias ? uint32_t(c.bias[c.bias_per_channel ? i % c.out_ch : 0]) : 0u;
    for (int64_t iy0 = 0; iy0 < c.in_h; iy0 += l.band_rows) {
      const int64_t rows = std::min<int64_t>(l.band_rows, c.in_h - iy0);
      gemm_s8(band_gemm(c, l, weights, b, iy0, rows, products), gemm_exec);
      // Each product into the output pixel its tap reaches.
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t ix = 0; ix < c.in_w; ++ix) {
          const int32_t* pixel = products + (r * c.in_w + ix) * l.columns;
          for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
            const int64_t oy = (iy0 + r) * c.stride_h + ky + c.offset_h;
            if (oy < 0 || oy >= c.out_h) continue;
            for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
              const int64_t ox = ix * c.stride_w + kx + c.offset_w;
              if (ox < 0 || ox >= c.out_w) continue;
              uint32_t* to = sums + (oy * c.out_w + ox) * c.out_ch;
              const int32_t* from = pixel + (ky * c.kernel_w + kx) * c.out_ch;
              for (int64_t oc = 0; oc < c.out_ch; ++oc) to[oc] += uint32_t(from[oc]);
            }
          }
        }
    }
  }
  return true;
}

}  // namespace vkrt::compute
