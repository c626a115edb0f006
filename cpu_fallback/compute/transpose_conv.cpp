// Transposed convolutions on the int8 and fp32 GEMMs and the A16W8 convolution (transpose_conv.h).
#include "compute/transpose_conv.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <type_traits>

#include "arith/fixed_point.h"
#include "compute/conv_s16.h"
#include "compute/gemm_f32.h"
#include "compute/gemm_s8.h"

namespace vkrt::compute {
namespace {

// The products of a band take at most about this many bytes, so that the scatter reads them from
// cache: a band is at least one input row.
constexpr size_t kBandBytes = size_t(1) << 20;

struct Layout {
  int64_t taps, columns;  // kernel_h·kernel_w, and the GEMM's columns: taps·out_ch
  int64_t band_rows;      // input rows a band
  size_t weights_bytes, products_bytes;
  // `element`: a product's bytes (the sums' type); `weight`: a weight's.
  Layout(const TransposeConvShape& s, size_t element, size_t weight)
      : taps(int64_t(s.kernel_h) * s.kernel_w),
        columns(taps * s.out_ch),
        band_rows(std::max<int64_t>(1, int64_t(kBandBytes / std::max<size_t>(1, size_t(columns) * s.in_w * element)))),
        weights_bytes(align_up(size_t(columns) * size_t(s.in_ch) * weight)),
        products_bytes(align_up(size_t(std::min<int64_t>(band_rows, s.in_h)) * s.in_w * size_t(columns) * element)) {}
  bool applies(const TransposeConvShape& s) const {
    return s.in_ch > 0 && columns > 0 && columns <= INT32_MAX && s.in_h > 0 && s.in_w > 0;
  }
};

// Input row iy0 of batch b, where a band starts (null before the input is bound: sizing only).
template <typename In, typename Sum, typename Weight>
const In* band_input(const TransposeConv<In, Sum, Weight>& c, int64_t b, int64_t iy0) {
  const TransposeConvShape& s = c.shape;
  return c.input ? c.input + ((b * s.in_h + iy0) * s.in_w) * int64_t(s.in_ch) : nullptr;
}

// The int8 GEMM for input rows [iy0, iy0 + rows) of batch b: row (pixel) p, column (ky, kx, oc);
// B the weights as rows of in_ch, tap-major.
GemmS8 band_gemm(const TransposeConvS8& c, const Layout& l, const int8_t* weights, int64_t b, int64_t iy0,
                 int64_t rows, int32_t* products) {
  const TransposeConvShape& s = c.shape;
  GemmS8 g;
  g.m = rows * s.in_w, g.n = int32_t(l.columns), g.k = s.in_ch;
  g.a = band_input(c, b, iy0), g.a_stride = s.in_ch;
  g.b = weights, g.b_stride = s.in_ch;
  g.a_offset = c.input_offset, g.b_offset = c.weight_offset;
  g.c32 = products, g.c_stride = l.columns;
  return g;
}

// The fp32 GEMM for the same band; B the weights as [in_ch][columns].
GemmF32 band_gemm(const TransposeConvF32& c, const Layout& l, const float* weights, int64_t b, int64_t iy0,
                  int64_t rows, float* products) {
  const TransposeConvShape& s = c.shape;
  GemmF32 g;
  g.m = rows * s.in_w, g.n = l.columns, g.k = s.in_ch;
  g.a = band_input(c, b, iy0), g.lda = s.in_ch;
  g.b = weights, g.ldb = l.columns;
  g.c = products, g.ldc = l.columns;
  return g;
}

// int16: the A16W8 convolution as a 1x1 one over the band's pixels, one output channel per GEMM
// column, its int48 stage without bias. Each tap's partial sum of in_ch products (each below 2^23
// in magnitude) stays inside int48 for in_ch < 2^24 (applies() below), so that stage's clamps
// leave it as it is, and the partial sums add up to the definition's sum.
ConvS16 band_gemm(const TransposeConvS16& c, const Layout& l, const int8_t* weights, int64_t b, int64_t iy0,
                  int64_t rows, int64_t* products) {
  const TransposeConvShape& s = c.shape;
  ConvS16 g;
  g.shape.in_w = g.shape.out_w = int32_t(rows * s.in_w);
  g.shape.in_ch = s.in_ch, g.shape.out_ch = int32_t(l.columns);
  g.input = band_input(c, b, iy0);
  g.weight = weights;
  g.weight_zero_point = -c.weight_offset;
  g.out.stage = S16OutputStage::kInt48;
  g.out.out64 = products;
  return g;
}

// Column (ky·kernel_w + kx)·out_ch + oc of B: int8 weights as rows of in_ch (what gemm_s8 and
// conv_s16 read), fp32 as a row of columns per input channel (what gemm_f32 reads).
template <typename In, typename Sum>
void reorder_weights(const TransposeConv<In, Sum, int8_t>& c, const Layout& l, int8_t* to) {
  const TransposeConvShape& s = c.shape;
  for (int64_t oc = 0; oc < s.out_ch; ++oc)
    for (int64_t t = 0; t < l.taps; ++t)
      std::memcpy(to + (t * s.out_ch + oc) * s.in_ch, c.weight + (oc * l.taps + t) * s.in_ch, size_t(s.in_ch));
}
void reorder_weights(const TransposeConvF32& c, const Layout& l, float* to) {
  const TransposeConvShape& s = c.shape;
  for (int64_t oc = 0; oc < s.out_ch; ++oc)
    for (int64_t t = 0; t < l.taps; ++t)
      for (int64_t ic = 0; ic < s.in_ch; ++ic) to[ic * l.columns + t * s.out_ch + oc] = c.weight[(oc * l.taps + t) * s.in_ch + ic];
}

void run_gemm(const GemmS8& g, const Exec& exec) { gemm_s8(g, exec); }
void run_gemm(const ConvS16& g, const Exec& exec) { conv_s16(g, exec); }
void run_gemm(const GemmF32& g, const Exec& exec) { gemm_f32(g, exec); }
size_t gemm_scratch(const GemmS8& g, int threads) { return gemm_s8_scratch_bytes(g, threads); }
size_t gemm_scratch(const ConvS16& g, int threads) { return conv_s16_scratch_bytes(g.shape, threads); }
size_t gemm_scratch(const GemmF32&, int) { return 0; }  // gemm_f32 packs on its stack

// The A16W8 convolution's weights packed once for every band (its panel form would pack them
// again on each call): their bytes, and the packing into `memory`, which each band's call then
// names. The GEMMs read their B as it is.
size_t packed_weights_bytes(const ConvS16& g) { return align_up(conv_s16_packed_weights_bytes(g.shape)); }
size_t packed_weights_bytes(const GemmS8&) { return 0; }
size_t packed_weights_bytes(const GemmF32&) { return 0; }
const void* pack_weights(const ConvS16& g, uint8_t* memory) {
  const size_t bytes = packed_weights_bytes(g);
  return bytes > 0 ? conv_s16_pack_weights(g, std::span(memory, bytes)) : nullptr;
}
const void* pack_weights(const GemmS8&, uint8_t*) { return nullptr; }
const void* pack_weights(const GemmF32&, uint8_t*) { return nullptr; }
void use_packed(ConvS16& g, const void* packed) { g.packed = static_cast<const ConvS16PackedWeights*>(packed); }
void use_packed(GemmS8&, const void*) {}
void use_packed(GemmF32&, const void*) {}

// int32 and int64 sums add modulo 2^32 and 2^64, floats as floats.
inline void add_into(int32_t& to, int32_t v) { to = int32_t(uint32_t(to) + uint32_t(v)); }
inline void add_into(int64_t& to, int64_t v) { to = int64_t(uint64_t(to) + uint64_t(v)); }
inline void add_into(float& to, float v) { to += v; }

// int16's int48 accumulator takes the bias after the sum is whole; the others start from it.
template <typename In>
constexpr bool kBiasLast = std::is_same_v<In, int16_t>;

template <typename In, typename Sum, typename Weight>
bool applies(const TransposeConv<In, Sum, Weight>& c, const Layout& l) {
  if (!l.applies(c.shape)) return false;
  if constexpr (std::is_same_v<In, int16_t>) return c.input_offset == 0 && c.shape.in_ch < (int32_t(1) << 24);
  return true;
}

template <typename In, typename Sum, typename Weight>
size_t scratch_bytes(const TransposeConv<In, Sum, Weight>& c, int threads) {
  const Layout l(c.shape, sizeof(Sum), sizeof(Weight));
  if (!applies(c, l)) return 0;
  const auto g = band_gemm(c, l, nullptr, 0, 0, std::min<int64_t>(l.band_rows, c.shape.in_h), nullptr);
  return l.weights_bytes + packed_weights_bytes(g) + l.products_bytes + gemm_scratch(g, threads) + 64;
}

template <typename In, typename Sum, typename Weight>
bool run(const TransposeConv<In, Sum, Weight>& c, const Exec& exec) {
  const TransposeConvShape& s = c.shape;
  const Layout l(s, sizeof(Sum), sizeof(Weight));
  const size_t need = scratch_bytes(c, exec.num_threads());
  if (need == 0 || exec.scratch.size() < need) return false;
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  auto* weights = reinterpret_cast<Weight*>(base);
  reorder_weights(c, l, weights);
  const auto first_band = band_gemm(c, l, weights, 0, 0, std::min<int64_t>(l.band_rows, s.in_h), nullptr);
  const size_t packed_bytes = packed_weights_bytes(first_band);
  const void* packed = pack_weights(first_band, base + l.weights_bytes);
  auto* products = reinterpret_cast<Sum*>(base + l.weights_bytes + packed_bytes);
  const Exec gemm_exec{
      exec.scratch.subspan(size_t(base - exec.scratch.data()) + l.weights_bytes + packed_bytes + l.products_bytes),
      exec.runner};
  const int64_t plane = int64_t(s.out_h) * s.out_w * s.out_ch;
  auto bias_of = [&](int64_t i) { return c.bias ? c.bias[c.bias_per_channel ? i % s.out_ch : 0] : Sum(0); };
  for (int64_t b = 0; b < s.batches; ++b) {
    Sum* sums = c.sums + b * plane;
    for (int64_t i = 0; i < plane; ++i) sums[i] = kBiasLast<In> ? Sum(0) : bias_of(i);
    for (int64_t iy0 = 0; iy0 < s.in_h; iy0 += l.band_rows) {
      const int64_t rows = std::min<int64_t>(l.band_rows, s.in_h - iy0);
      auto g = band_gemm(c, l, weights, b, iy0, rows, products);
      use_packed(g, packed);
      run_gemm(g, gemm_exec);
      // Each product into the output pixel its tap reaches.
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t ix = 0; ix < s.in_w; ++ix) {
          const Sum* pixel = products + (r * s.in_w + ix) * l.columns;
          for (int64_t ky = 0; ky < s.kernel_h; ++ky) {
            const int64_t oy = (iy0 + r) * s.stride_h + ky + s.offset_h;
            if (oy < 0 || oy >= s.out_h) continue;
            for (int64_t kx = 0; kx < s.kernel_w; ++kx) {
              const int64_t ox = ix * s.stride_w + kx + s.offset_w;
              if (ox < 0 || ox >= s.out_w) continue;
              Sum* to = sums + (oy * s.out_w + ox) * s.out_ch;
              const Sum* from = pixel + (ky * s.kernel_w + kx) * s.out_ch;
              for (int64_t oc = 0; oc < s.out_ch; ++oc) add_into(to[oc], from[oc]);
            }
          }
        }
    }
    if constexpr (kBiasLast<In>)
      for (int64_t i = 0; i < plane; ++i)
        sums[i] = arith::clamp_int48(arith::clamp_int48(sums[i]) + arith::clamp_int48(bias_of(i)));
  }
  return true;
}

}  // namespace

size_t transpose_conv_scratch_bytes(const TransposeConvS8& c, int threads) { return scratch_bytes(c, threads); }
size_t transpose_conv_scratch_bytes(const TransposeConvS16& c, int threads) { return scratch_bytes(c, threads); }
size_t transpose_conv_scratch_bytes(const TransposeConvF32& c, int threads) { return scratch_bytes(c, threads); }
bool transpose_conv(const TransposeConvS8& c, const Exec& exec) { return run(c, exec); }
bool transpose_conv(const TransposeConvS16& c, const Exec& exec) { return run(c, exec); }
bool transpose_conv(const TransposeConvF32& c, const Exec& exec) { return run(c, exec); }

}  // namespace vkrt::compute
