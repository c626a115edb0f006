// A16W8 convolutions (conv_s16.h): the output stages, the portable loops, and the dispatch to the
// Highway sums (conv_s16_hwy.cpp) and to threads.
//
// The portable loops sum runs of at most kPortableRun products in int32 (each product is at
// most 32768·255, so 256 stay below 2^31) and add the runs into int64: the int32 adds vectorise.
#include "compute/conv_s16.h"

#include <algorithm>
#include <cstdlib>

#include "arith/fixed_point.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"

namespace vkrt::compute {
namespace {

constexpr int32_t kPortableRun = 256;

// Σ x[i]·(w[i] − zp), i < n, exactly.
int64_t dot_portable(const int16_t* x, const int8_t* w, int32_t n, int32_t zp) {
  int64_t total = 0;
  for (int32_t i0 = 0; i0 < n; i0 += kPortableRun) {
    const int32_t i1 = std::min(n, i0 + kPortableRun);
    int32_t run = 0;
    for (int32_t i = i0; i < i1; ++i) run += int32_t(x[i]) * (int32_t(w[i]) - zp);
    total += run;
  }
  return total;
}

// Output channels [first, first + count) of one pixel from their sums (sums[0] is channel
// first's), out_index the pixel's first output element: the output stage, scalar.
void finish_pixel_scalar(const S16Output& o, int64_t out_index, int32_t first, const int64_t* sums, int32_t count) {
  auto bias_of = [&](int32_t j) { return o.bias_per_channel ? first + j : 0; };
  auto scale_of = [&](int32_t j) { return o.scale_per_channel ? first + j : 0; };
  out_index += first;
  auto store16 = [&](int32_t j, int32_t v) {
    o.out16[out_index + j] = int16_t(arith::clamp_activation(v, o.activation_min, o.activation_max));
  };
  switch (o.stage) {
    case S16OutputStage::kRequantize64:
      for (int32_t j = 0; j < count; ++j) {
        const int64_t bias = o.bias64 ? o.bias64[bias_of(j)] : o.bias32 ? o.bias32[bias_of(j)] : 0;
        store16(j, arith::requantize_s64(arith::wrap_add64(sums[j], bias),
                                         arith::reduce_multiplier(o.multiplier[scale_of(j)]), o.shift[scale_of(j)]));
      }
      return;
    case S16OutputStage::kRequantize32:
      for (int32_t j = 0; j < count; ++j) {
        const int32_t acc = arith::wrap_add(int32_t(uint32_t(uint64_t(sums[j]))), o.bias32 ? o.bias32[bias_of(j)] : 0);
        store16(j, arith::requantize(acc, o.multiplier[scale_of(j)], o.shift[scale_of(j)]));
      }
      return;
    case S16OutputStage::kInt48:
      for (int32_t j = 0; j < count; ++j) {
        const int64_t bias = o.bias64 ? o.bias64[bias_of(j)] : 0;
        o.out64[out_index + j] = arith::clamp_int48(arith::clamp_int48(sums[j]) + arith::clamp_int48(bias));
      }
      return;
    case S16OutputStage::kRescale16:
      for (int32_t j = 0; j < count; ++j) {
        const int64_t bias = o.bias64 ? o.bias64[bias_of(j)] : 0;
        const int64_t acc = arith::clamp_int48(arith::clamp_int48(sums[j]) + arith::clamp_int48(bias));
        const int64_t r = int64_t(arith::apply_scale_16(acc, int16_t(o.multiplier[scale_of(j)]),
                                                        o.rescale_shift[scale_of(j)])) + o.output_zp;
        o.out16[out_index + j] = int16_t(std::clamp<int64_t>(r, o.activation_min, o.activation_max));
      }
      return;
  }
}

void finish_pixel(const S16Output& o, int64_t out_index, int32_t first, const int64_t* sums, int32_t count,
                  const detail::S16StageFacts& facts) {
  detail::finish_s16_rows(o, out_index, 0, first, sums, 0, 1, count, facts);
}

detail::S16StageFacts conv_facts(const ConvS16& c) {
  const ConvS16Shape& s = c.shape;
  return detail::s16_stage_facts(c.out, double(s.kernel_h) * s.kernel_w * (s.in_ch / std::max(s.groups, 1)), s.out_ch);
}
detail::S16StageFacts depthwise_facts(const ConvS16& c) {
  return detail::s16_stage_facts(c.out, double(c.shape.kernel_h) * c.shape.kernel_w, c.shape.out_ch);
}

// A pixel's window taps inside the input along one axis: k in [*begin, *end) has
// 0 <= o·stride − pad + k·dilation < size.
void taps_inside(int64_t o, int32_t stride, int32_t pad, int32_t kernel, int32_t dilation, int32_t size,
                 int32_t* begin, int32_t* end) {
  const int64_t start = o * stride - pad;
  int64_t b = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  int64_t e = start >= size ? 0 : (int64_t(size) - 1 - start) / dilation + 1;
  b = std::min<int64_t>(b, kernel);
  e = std::clamp<int64_t>(e, b, kernel);
  *begin = int32_t(b);
  *end = int32_t(e);
}

struct Pixel {
  int64_t b, oy, ox;
};
Pixel pixel_of(const ConvS16Shape& s, int64_t p) {
  const int64_t per_image = int64_t(s.out_h) * s.out_w;
  return Pixel{p / per_image, p % per_image / s.out_w, p % s.out_w};
}

const int16_t* input_at(const ConvS16& c, const Pixel& px, int64_t iy, int64_t ix) {
  const ConvS16Shape& s = c.shape;
  return c.input + ((px.b * s.in_h + iy) * s.in_w + ix) * s.in_ch;
}

// Output pixel p's window: its taps inside the input, [ky0, ky1) × [kx0, kx1).
struct Window {
  Pixel px;
  int32_t ky0, ky1, kx0, kx1;
  bool empty() const { return ky0 == ky1 || kx0 == kx1; }
};
Window window_of(const ConvS16Shape& s, int64_t p) {
  Window w;
  w.px = pixel_of(s, p);
  taps_inside(w.px.oy, s.stride_h, s.pad_top, s.kernel_h, s.dilation_h, s.in_h, &w.ky0, &w.ky1);
  taps_inside(w.px.ox, s.stride_w, s.pad_left, s.kernel_w, s.dilation_w, s.in_w, &w.kx0, &w.kx1);
  return w;
}
// The input at tap (ky, kx) of the window (inside the input), channel 0.
const int16_t* tap_input(const ConvS16& c, const Window& w, int32_t ky, int32_t kx) {
  const ConvS16Shape& s = c.shape;
  return input_at(c, w.px, w.px.oy * s.stride_h - s.pad_top + int64_t(ky) * s.dilation_h,
                  w.px.ox * s.stride_w - s.pad_left + int64_t(kx) * s.dilation_w);
}

// The rows of pixels share out: all on one worker below ~256k multiply-adds a worker (a hand-off
// costs a few microseconds), else chunks of `grain` rows claimed in turn.
template <typename Rows>
void run_pixels(const ConvS16Shape& s, double macs, int64_t grain, const Exec& exec, const Rows& rows) {
  const int64_t pixels = int64_t(s.batches) * s.out_h * s.out_w;
  if (pixels <= 0) return;
  const int64_t tiles = (pixels + grain - 1) / grain;
  const int workers = int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(macs / 262144.0) + 1, tiles})));
  if (workers == 1) return rows(0, int64_t(0), pixels);
  exec.parallel_chunks(workers, tiles, [&](int worker, int64_t t0, int64_t t1) {
    rows(worker, t0 * grain, std::min(pixels, t1 * grain));
  });
}

double conv_macs(const ConvS16Shape& s) {
  return double(s.batches) * s.out_h * s.out_w * s.out_ch * s.kernel_h * s.kernel_w * (s.in_ch / std::max(s.groups, 1));
}

void conv_pixels_portable(const ConvS16& c, const detail::S16StageFacts& facts, int64_t p0, int64_t p1) {
  const ConvS16Shape& s = c.shape;
  const int32_t kc = s.in_ch / s.groups, per_group = s.out_ch / s.groups;
  int64_t sums[kPortableRun];
  for (int64_t p = p0; p < p1; ++p) {
    const Window win = window_of(s, p);
    for (int32_t j0 = 0; j0 < s.out_ch; j0 += kPortableRun) {
      const int32_t count = std::min(kPortableRun, s.out_ch - j0);
      for (int32_t j = 0; j < count; ++j) {
        const int32_t oc = j0 + j, g = oc / per_group;
        int64_t sum = 0;
        for (int32_t ky = win.ky0; ky < win.ky1; ++ky)
          for (int32_t kx = win.kx0; kx < win.kx1; ++kx) {
            const int16_t* x = tap_input(c, win, ky, kx) + int64_t(g) * kc;
            const int8_t* w = c.weight + ((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * kc;
            sum += dot_portable(x, w, kc, c.weight_zero_point);
          }
        sums[j] = sum;
      }
      finish_pixel(c.out, p * s.out_ch, j0, sums, count, facts);
    }
  }
}

template <bool kOneToOne>  // ch_mult == 1: input channel = output channel
void depthwise_pixels_portable(const ConvS16& c, const detail::S16StageFacts& facts, int64_t p0, int64_t p1) {
  const ConvS16Shape& s = c.shape;
  const int32_t zp = c.weight_zero_point, mult = kOneToOne ? 1 : s.ch_mult;
  int64_t sums[kPortableRun];
  int32_t runs[kPortableRun];
  for (int64_t p = p0; p < p1; ++p) {
    const Window win = window_of(s, p);
    for (int32_t j0 = 0; j0 < s.out_ch; j0 += kPortableRun) {
      const int32_t count = std::min(kPortableRun, s.out_ch - j0);
      std::fill_n(sums, count, 0);
      std::fill_n(runs, count, 0);
      int32_t taps_in_run = 0;
      for (int32_t ky = win.ky0; ky < win.ky1; ++ky)
        for (int32_t kx = win.kx0; kx < win.kx1; ++kx) {
          const int16_t* x = tap_input(c, win, ky, kx);
          const int8_t* w = c.weight + (int64_t(ky) * s.kernel_w + kx) * s.out_ch + j0;
          for (int32_t j = 0; j < count; ++j) runs[j] += int32_t(x[(j0 + j) / mult]) * (int32_t(w[j]) - zp);
          if (++taps_in_run == kPortableRun) {
            for (int32_t j = 0; j < count; ++j) sums[j] += runs[j], runs[j] = 0;
            taps_in_run = 0;
          }
        }
      for (int32_t j = 0; j < count; ++j) sums[j] += runs[j];
      finish_pixel(c.out, p * s.out_ch, j0, sums, count, facts);
    }
  }
}

// Σ_{i<k} a[r][i]·(b[j·b_stride + i] − zp) for rows r < rows and columns j < n: the dot form's
// kernel where no vector one exists (aarch64, the portable level), the runs in int32 so that the
// compiler vectorises them (NEON's SMLAL on aarch64).
void conv_dot_sums_portable(const int16_t* const* a, int rows, const int8_t* b, int64_t b_stride, int32_t n, int32_t k,
                            int32_t zp, int64_t* sums, int64_t sums_stride) {
  for (int r = 0; r < rows; ++r)
    for (int32_t j = 0; j < n; ++j) sums[r * sums_stride + j] = dot_portable(a[r], b + j * b_stride, k, zp);
}

#if defined(__x86_64__)
using DepthwiseSumsFn = decltype(&N_AVX2::depthwise_s16_sums);

DepthwiseSumsFn depthwise_sums_fn() {
  if (!has(Isa::Avx2)) return nullptr;
  return has(Isa::Avx512bw) ? N_AVX3::depthwise_s16_sums : N_AVX2::depthwise_s16_sums;
}
#endif

// The two forms of the GEMM-shaped path's sums (conv_s16_hwy.cpp), one target's:
//   dot:   each weight row dotted with each row of A along the depth (whole vectors, the depth
//          padded to kConvS16DepthAlign), the lanes summed at the end. The weights are read in
//          place (padded copies where the depth is not aligned): the form for few rows, where
//          packing would cost as much as the products (a fully connected layer's one row).
//   panel: the weights packed into panels of 16 columns once a call, each depth pair of a row
//          broadcast against them, one output channel per lane: no sums across lanes, which for
//          small depths cost more than the products (1x1 56x56 24→144: 8.6 → 16 GMAC/s at avx2).
// Below avx2 and on aarch64 the dot form alone, on conv_dot_sums_portable.
struct ConvKernels {
  void (*dot)(const int16_t* const* a, int rows, const int8_t* b, int64_t b_stride, int32_t n, int32_t k, int32_t zp,
              int64_t* sums, int64_t sums_stride);
  void (*panel)(const int16_t* const* a, int rows, const int16_t* panels, int32_t panel_count, int32_t kp,
                int64_t* sums, int64_t sums_stride);  // null: no panel form
  int32_t depth_align;                                // the dot form's (kConvS16DepthAlign for vectors)
};
const ConvKernels& conv_kernels() {
  static constexpr ConvKernels kPortable{conv_dot_sums_portable, nullptr, 1};
#if defined(__x86_64__)
  static constexpr ConvKernels kAvx2{N_AVX2::conv_s16_sums, N_AVX2::conv_s16_panel_sums, detail::kConvS16DepthAlign};
  static constexpr ConvKernels kAvx3{N_AVX3::conv_s16_sums, N_AVX3::conv_s16_panel_sums, detail::kConvS16DepthAlign};
  if (has(Isa::Avx2)) return has(Isa::Avx512bw) ? kAvx3 : kAvx2;
#endif
  return kPortable;
}

// Calls with at least this many rows of A (output pixels) take the panel form.
constexpr int64_t kPanelMinRows = 16;
constexpr int32_t kPanel = 16;  // columns of a panel

// The bytes of `groups` groups' weights in panels.
size_t panels_bytes(int32_t groups, int32_t panels_per_group, int32_t kp) {
  return align_up(size_t(groups) * size_t(panels_per_group) * kPanel * size_t(kp) * 2);
}

// Writes group-by-group panels of c's weights (depth k padded to kp) into `panels`.
void pack_panels(const ConvS16& c, int32_t k, int32_t kp, int32_t panels_per_group, int16_t* panels) {
  const ConvS16Shape& s = c.shape;
  const int32_t per_group = s.out_ch / s.groups;
  std::fill_n(panels, size_t(s.groups) * panels_per_group * kPanel * size_t(kp), int16_t(0));
  for (int32_t g = 0; g < s.groups; ++g)
    for (int32_t j = 0; j < per_group; ++j) {
      const int8_t* w = c.weight + (int64_t(g) * per_group + j) * k;
      int16_t* panel = panels + (int64_t(g) * panels_per_group + j / kPanel) * kPanel * kp;
      for (int32_t i = 0; i < k; ++i)
        panel[int64_t(i / 2) * 2 * kPanel + (j % kPanel) * 2 + i % 2] = int16_t(w[i] - c.weight_zero_point);
    }
}

// Whether c.packed was built from c's weights.
bool packed_matches(const ConvS16& c) {
  const ConvS16PackedWeights* p = c.packed;
  const ConvS16Shape& s = c.shape;
  return p != nullptr && s.groups > 0 && p->weight == c.weight && p->k == s.kernel_h * s.kernel_w * (s.in_ch / s.groups) &&
         p->out_ch == s.out_ch && p->groups == s.groups && p->weight_zero_point == c.weight_zero_point;
}

// The GEMM-shaped path's form and scratch: the weights as the form reads them where they cannot be read
// in place (shared, packed once a call), then each worker's kConvS16Rows rows of A and their sums.
struct ConvScratch {
  bool panel;
  int32_t k, kp;  // a pixel's depth (per group), and padded: to kConvS16DepthAlign (dot), to even (panel)
  int32_t panels_per_group;
  int64_t sums_stride;  // out_ch, and room for the last panel's padding columns
  size_t weights_bytes, rows_bytes, sums_bytes;
  bool packed_ahead;  // the panel form reads weights packed ahead: none in the scratch
  ConvScratch(const ConvS16Shape& s, const ConvKernels& kernels, bool weights_packed_ahead = false) {
    panel = kernels.panel != nullptr && int64_t(s.batches) * s.out_h * s.out_w >= kPanelMinRows;
    packed_ahead = panel && weights_packed_ahead;
    k = s.kernel_h * s.kernel_w * (s.in_ch / s.groups);
    const int32_t align = panel ? 2 : kernels.depth_align;
    kp = (k + align - 1) / align * align;
    const int32_t per_group = s.out_ch / s.groups;
    panels_per_group = (per_group + kPanel - 1) / kPanel;
    sums_stride = s.out_ch + (panel ? kPanel : 0);
    if (panel)
      weights_bytes = packed_ahead ? 0 : panels_bytes(s.groups, panels_per_group, kp);
    else
      weights_bytes = k == kp ? 0 : align_up(size_t(s.out_ch) * size_t(kp));
    rows_bytes = align_up(size_t(detail::kConvS16Rows) * size_t(kp) * 2);
    sums_bytes = align_up(size_t(detail::kConvS16Rows) * size_t(sums_stride) * 8);
  }
  size_t per_worker() const { return rows_bytes + sums_bytes; }
  size_t total(int workers) const { return weights_bytes + per_worker() * size_t(std::max(workers, 1)) + 64; }
};

// Group g's part of pixel p as a row of kp elements (kernel_h·kernel_w·kc, then zeros): the input
// itself where the kernel is 1x1, the pixel lies inside the input and kc needs no padding, else
// gathered into `tmp` with zeros for the taps in the padding (int16 activations have no zero
// point).
const int16_t* a_row(const ConvS16& c, const ConvScratch& layout, int64_t p, int32_t g, int16_t* tmp) {
  const ConvS16Shape& s = c.shape;
  const int32_t kc = s.in_ch / s.groups;
  const Pixel px = pixel_of(s, p);
  const int64_t y0 = px.oy * s.stride_h - s.pad_top, x0 = px.ox * s.stride_w - s.pad_left;
  if (s.kernel_h == 1 && s.kernel_w == 1 && y0 >= 0 && y0 < s.in_h && x0 >= 0 && x0 < s.in_w &&
      layout.k == layout.kp)
    return input_at(c, px, y0, x0) + int64_t(g) * kc;
  int16_t* to = tmp;
  for (int32_t ky = 0; ky < s.kernel_h; ++ky) {
    const int64_t iy = y0 + int64_t(ky) * s.dilation_h;
    for (int32_t kx = 0; kx < s.kernel_w; ++kx, to += kc) {
      const int64_t ix = x0 + int64_t(kx) * s.dilation_w;
      if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w)
        std::fill_n(to, kc, int16_t(0));
      else
        std::copy_n(input_at(c, px, iy, ix) + int64_t(g) * kc, kc, to);
    }
  }
  std::fill(to, tmp + layout.kp, int16_t(0));
  return tmp;
}

// The weights, [out_ch][k], as the form reads them. dot: in place where k is aligned, else copied
// into rows of kp with zeros after k (which meet A's zeros). panel: group g's columns in panels
// of 16, [kp/2][16][2], as w − zero point in int16, zeros past the group's columns and past k.
struct ConvWeights {
  const int8_t* rows;  // dot
  int64_t stride;
  const int16_t* panels;  // panel
};
ConvWeights pack_weights(const ConvS16& c, const ConvScratch& layout, uint8_t* memory) {
  const ConvS16Shape& s = c.shape;
  if (layout.packed_ahead) return ConvWeights{nullptr, 0, c.packed->panels};
  if (layout.panel) {
    auto* panels = reinterpret_cast<int16_t*>(memory);
    pack_panels(c, layout.k, layout.kp, layout.panels_per_group, panels);
    return ConvWeights{nullptr, 0, panels};
  }
  if (layout.k == layout.kp) return ConvWeights{c.weight, layout.k, nullptr};
  auto* rows = reinterpret_cast<int8_t*>(memory);
  for (int32_t j = 0; j < s.out_ch; ++j) {
    int8_t* to = rows + int64_t(j) * layout.kp;
    std::copy_n(c.weight + int64_t(j) * layout.k, layout.k, to);
    std::fill(to + layout.k, to + layout.kp, int8_t(0));
  }
  return ConvWeights{rows, layout.kp, nullptr};
}

// Pixels [p0, p1), output channels [col0, col1) of an ungrouped convolution in the dot form (all
// of them otherwise).
void conv_pixels_gemm(const ConvKernels& kernels, const ConvS16& c, const detail::S16StageFacts& facts,
                      const ConvScratch& layout, const ConvWeights& weights, uint8_t* scratch, int64_t p0, int64_t p1,
                      int32_t col0, int32_t col1) {
  const ConvS16Shape& s = c.shape;
  constexpr int R = detail::kConvS16Rows;
  const int32_t per_group = s.out_ch / s.groups;
  auto* rows = reinterpret_cast<int16_t*>(scratch);
  auto* sums = reinterpret_cast<int64_t*>(scratch + layout.rows_bytes);
  for (int64_t p = p0; p < p1; p += R) {
    const int n = int(std::min<int64_t>(R, p1 - p));
    // Groups in order: a panel's padding columns run into the next group's, written after them.
    for (int32_t g = 0; g < s.groups; ++g) {
      const int16_t* a[R];
      for (int r = 0; r < n; ++r) a[r] = a_row(c, layout, p + r, g, rows + size_t(r) * layout.kp);
      int64_t* group_sums = sums + int64_t(g) * per_group;
      if (layout.panel)
        kernels.panel(a, n, weights.panels + int64_t(g) * layout.panels_per_group * kPanel * layout.kp,
                      layout.panels_per_group, layout.kp, group_sums, layout.sums_stride);
      else if (s.groups == 1)
        kernels.dot(a, n, weights.rows + col0 * weights.stride, weights.stride, col1 - col0, layout.kp,
                    c.weight_zero_point, sums + col0, layout.sums_stride);
      else
        kernels.dot(a, n, weights.rows + int64_t(g) * per_group * weights.stride, weights.stride, per_group, layout.kp,
                    c.weight_zero_point, group_sums, layout.sums_stride);
    }
    const bool all = layout.panel || s.groups > 1;
    detail::finish_s16_rows(c.out, p * s.out_ch, s.out_ch, all ? 0 : col0, sums + (all ? 0 : col0), layout.sums_stride, n,
                all ? s.out_ch : col1 - col0, facts);
  }
}

#if defined(__x86_64__)
// The depthwise kernels with two taps a VPMADDWD, the level's (conv_s16_hwy.cpp).
struct DepthwisePairKernels {
  decltype(&N_AVX2::depthwise_s16_pair_block) block;
  decltype(&N_AVX2::depthwise_s16_pack_pairs) pack;
  decltype(&N_AVX2::depthwise_s16_pair_sums) sums;
};
const DepthwisePairKernels* depthwise_pair_kernels() {
  static constexpr DepthwisePairKernels kAvx2{N_AVX2::depthwise_s16_pair_block, N_AVX2::depthwise_s16_pack_pairs,
                                              N_AVX2::depthwise_s16_pair_sums};
  static constexpr DepthwisePairKernels kAvx3{N_AVX3::depthwise_s16_pair_block, N_AVX3::depthwise_s16_pack_pairs,
                                              N_AVX3::depthwise_s16_pair_sums};
  if (!has(Isa::Avx2)) return nullptr;
  return has(Isa::Avx512bw) ? &kAvx3 : &kAvx2;
}

// Kernels of at most this many taps take the paired kernel: 256 channels' weights, packed once
// a call on the stack, are then at most 32 KiB. Larger ones (DS-CNN-L's pool read as a 25x25
// window) take one tap at a time.
constexpr int32_t kPairedMaxTaps = 64;
// What a tap in the padding reads (int16 activations have no zero point).
alignas(64) constexpr int16_t kZeroRow[kPortableRun] = {};

void depthwise_pixels_vector(DepthwiseSumsFn sums_fn, const ConvS16& c, const detail::S16StageFacts& facts,
                             int64_t p0, int64_t p1) {
  const ConvS16Shape& s = c.shape;
  // kConvS16Rows pixels at a time, so that the output stage derives each vector's channel
  // constants once for all of them (one pixel at a time, that was half its time at avx2).
  constexpr int R = detail::kConvS16Rows;
  int64_t sums[R][kPortableRun];
  const int32_t taps = s.kernel_h * s.kernel_w;
  const DepthwisePairKernels* paired_kernels = taps <= kPairedMaxTaps ? depthwise_pair_kernels() : nullptr;
  const int32_t block = paired_kernels ? paired_kernels->block() : kPortableRun + 1;
  alignas(64) int16_t packed[kPairedMaxTaps * kPortableRun];
  // Channels in blocks of 256, the block's weights packed for the paired kernel once.
  for (int32_t j0 = 0; j0 < s.out_ch; j0 += kPortableRun) {
    const int32_t count = std::min(kPortableRun, s.out_ch - j0), paired = count / block * block;
    if (paired > 0) paired_kernels->pack(c.weight + j0, s.out_ch, taps, paired, c.weight_zero_point, packed);
    for (int64_t p = p0; p < p1; p += R) {
      const int n = int(std::min<int64_t>(R, p1 - p));
      for (int r = 0; r < n; ++r) {
        const Window w = window_of(s, p + r);
        if (paired > 0) {  // every tap, those in the padding reading zeros
          const int16_t* tap_inputs[kPairedMaxTaps];
          for (int32_t ky = 0; ky < s.kernel_h; ++ky)
            for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
              const bool inside = ky >= w.ky0 && ky < w.ky1 && kx >= w.kx0 && kx < w.kx1;
              tap_inputs[ky * s.kernel_w + kx] = inside ? tap_input(c, w, ky, kx) + j0 : kZeroRow;
            }
          paired_kernels->sums(tap_inputs, taps, packed, paired, sums[r]);
        }
        if (paired == count) continue;
        // The channels past the last whole block: the taps inside the input, one at a time.
        const bool empty = w.empty();  // all in the padding: no tap is read
        const int32_t from = j0 + paired;
        const int16_t* first = empty ? c.input : tap_input(c, w, w.ky0, w.kx0);
        const detail::DepthwiseS16Window win{first + from,
                                             c.weight + (empty ? 0 : (int64_t(w.ky0) * s.kernel_w + w.kx0) * s.out_ch) + from,
                                             empty ? 0 : w.ky1 - w.ky0,
                                             empty ? 0 : w.kx1 - w.kx0,
                                             int64_t(s.dilation_h) * s.in_w * s.in_ch,
                                             int64_t(s.dilation_w) * s.in_ch,
                                             int64_t(s.kernel_w) * s.out_ch,
                                             s.out_ch};
        sums_fn(win, count - paired, c.weight_zero_point, sums[r] + paired);
      }
      detail::finish_s16_rows(c.out, p * s.out_ch, s.out_ch, j0, &sums[0][0], kPortableRun, n, count, facts);
    }
  }
}
#endif  // __x86_64__

}  // namespace

detail::S16StageFacts detail::s16_stage_facts(const S16Output& o, double products, int32_t channels,
                                              double product_max) {
  S16StageFacts facts;
  const double sums_max = products * product_max;
  facts.sums_in_int48 = sums_max < double(int64_t(1) << 47);
  if (o.stage != S16OutputStage::kRescale16 || !facts.sums_in_int48) return facts;
  int64_t bias_max = 0;
  const int32_t biases = o.bias64 == nullptr ? 0 : o.bias_per_channel ? channels : 1;
  for (int32_t c = 0; c < biases; ++c) bias_max = std::max(bias_max, std::abs(arith::clamp_int48(o.bias64[c])));
  const int64_t acc_max = int64_t(sums_max) + bias_max;  // below 2^48
  if (acc_max > arith::kInt48Max) return facts;
  // |(acc·m + 2^(shift−1)) >> shift| is at most (|acc|·|m| + 2^(shift−1)) >> shift, plus 1 for a
  // negative acc; |acc|·|m| <= 2^62.
  const int32_t scales = o.scale_per_channel ? channels : 1;
  for (int32_t c = 0; c < scales; ++c) {
    const uint64_t m = uint64_t(std::abs(int32_t(int16_t(o.multiplier[c]))));
    const int shift = std::clamp<int>(o.rescale_shift[c], 1, 62);
    const uint64_t result_max = ((uint64_t(acc_max) * m + (uint64_t(1) << (shift - 1))) >> shift) + 1;
    if (result_max + uint64_t(std::abs(int64_t(o.output_zp))) > uint64_t(INT32_MAX)) return facts;
  }
  facts.rescaled_in_int32 = true;
  return facts;
}

void detail::finish_s16_rows(const S16Output& o, int64_t out_index, int64_t out_stride, int32_t first,
                             const int64_t* sums, int64_t sums_stride, int rows, int32_t count,
                             const S16StageFacts& facts) {
  int32_t done = 0;
#if defined(__x86_64__)
  if (has(Isa::Avx2))
    done = (has(Isa::Avx512bw) ? N_AVX3::finish_s16_vectors : N_AVX2::finish_s16_vectors)(
        o, out_index, out_stride, first, sums, sums_stride, rows, count, facts);
#else
  (void)facts;
#endif
  for (int r = 0; r < rows; ++r)
    finish_pixel_scalar(o, out_index + r * out_stride, first + done, sums + r * sums_stride + done, count - done);
}

size_t conv_s16_scratch_bytes(const ConvS16Shape& s, int threads, const ConvS16PackedWeights* packed) {
  return s.groups > 0 ? ConvScratch(s, conv_kernels(), packed != nullptr).total(threads) : 0;
}

size_t conv_s16_packed_weights_bytes(const ConvS16Shape& s) {
  if (conv_kernels().panel == nullptr || s.groups <= 0 || s.out_ch <= 0) return 0;
  const int32_t k = s.kernel_h * s.kernel_w * (s.in_ch / s.groups), kp = (k + 1) / 2 * 2;
  const int32_t panels_per_group = (s.out_ch / s.groups + kPanel - 1) / kPanel;
  return align_up(sizeof(ConvS16PackedWeights)) + panels_bytes(s.groups, panels_per_group, kp) + 64;
}

const ConvS16PackedWeights* conv_s16_pack_weights(const ConvS16& c, std::span<uint8_t> memory) {
  const ConvS16Shape& s = c.shape;
  const size_t need = conv_s16_packed_weights_bytes(s);
  if (need == 0 || memory.size() < need) return nullptr;
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(memory.data())));
  const int32_t k = s.kernel_h * s.kernel_w * (s.in_ch / s.groups), kp = (k + 1) / 2 * 2;
  const int32_t panels_per_group = (s.out_ch / s.groups + kPanel - 1) / kPanel;
  auto* panels = reinterpret_cast<int16_t*>(base + align_up(sizeof(ConvS16PackedWeights)));
  pack_panels(c, k, kp, panels_per_group, panels);
  auto* header = reinterpret_cast<ConvS16PackedWeights*>(base);
  *header = ConvS16PackedWeights{c.weight, k, s.out_ch, s.groups, c.weight_zero_point, kp, panels_per_group, panels};
  return header;
}

void conv_s16_portable(const ConvS16& c) {
  conv_pixels_portable(c, conv_facts(c), 0, int64_t(c.shape.batches) * c.shape.out_h * c.shape.out_w);
}

void depthwise_s16_portable(const ConvS16& c) {
  const int64_t pixels = int64_t(c.shape.batches) * c.shape.out_h * c.shape.out_w;
  if (c.shape.ch_mult == 1)
    depthwise_pixels_portable<true>(c, depthwise_facts(c), 0, pixels);
  else
    depthwise_pixels_portable<false>(c, depthwise_facts(c), 0, pixels);
}

void conv_s16(const ConvS16& c, const Exec& exec) {
  const ConvS16Shape& s = c.shape;
  const ConvKernels& kernels = conv_kernels();
  const int workers = std::max(exec.num_threads(), 1);
  const ConvS16PackedWeights* packed = packed_matches(c) ? c.packed : nullptr;
  const detail::S16StageFacts facts = conv_facts(c);
  if (exec.scratch.size() >= conv_s16_scratch_bytes(s, workers, packed)) {
    uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
    const ConvScratch layout(s, kernels, packed != nullptr);
    const ConvWeights weights = pack_weights(c, layout, base);
    uint8_t* workers_base = base + layout.weights_bytes;
    auto rows_of = [&](int worker, int64_t p0, int64_t p1, int32_t col0, int32_t col1) {
      conv_pixels_gemm(kernels, c, facts, layout, weights, workers_base + size_t(worker) * layout.per_worker(), p0, p1,
                       col0, col1);
    };
    // A fully connected layer's few rows: the threads share out the output channels instead, each
    // taking every row (1x1280→1000: 1.0x → 1.95x at two threads).
    const int64_t pixels = int64_t(s.batches) * s.out_h * s.out_w;
    const int64_t column_blocks = (s.out_ch + kPanel - 1) / kPanel;
    const int column_workers = int(std::min<int64_t>({workers, int64_t(conv_macs(s) / 262144.0) + 1, column_blocks}));
    if (!layout.panel && s.groups == 1 && pixels <= detail::kConvS16Rows && column_workers > 1) {
      exec.parallel_chunks(column_workers, column_blocks, [&](int worker, int64_t b0, int64_t b1) {
        rows_of(worker, 0, pixels, int32_t(b0 * kPanel), int32_t(std::min<int64_t>(b1 * kPanel, s.out_ch)));
      });
      return;
    }
    return run_pixels(s, conv_macs(s), detail::kConvS16Rows, exec,
                      [&](int worker, int64_t p0, int64_t p1) { rows_of(worker, p0, p1, 0, s.out_ch); });
  }
  // Without scratch: one output at a time, no im2col.
  run_pixels(s, conv_macs(s), 1, exec, [&](int, int64_t p0, int64_t p1) { conv_pixels_portable(c, facts, p0, p1); });
}

void depthwise_s16(const ConvS16& c, const Exec& exec) {
  const ConvS16Shape& s = c.shape;
  const double macs = double(s.batches) * s.out_h * s.out_w * s.out_ch * s.kernel_h * s.kernel_w;
  const detail::S16StageFacts facts = depthwise_facts(c);
#if defined(__x86_64__)
  if (const DepthwiseSumsFn sums_fn = depthwise_sums_fn(); sums_fn && s.ch_mult == 1)
    return run_pixels(s, macs, 1, exec,
                      [&](int, int64_t p0, int64_t p1) { depthwise_pixels_vector(sums_fn, c, facts, p0, p1); });
#endif
  run_pixels(s, macs, 1, exec, [&](int, int64_t p0, int64_t p1) {
    if (s.ch_mult == 1)
      depthwise_pixels_portable<true>(c, facts, p0, p1);
    else
      depthwise_pixels_portable<false>(c, facts, p0, p1);
  });
}

}  // namespace vkrt::compute
