// Resampling: aten::upsample_bilinear2d.vec_out, aten::_upsample_bilinear2d_aa.out,
// aten::upsample_nearest2d.vec_out, aten::grid_sampler_2d.out.
//
// Schemas (args incl. outs and the return slot):
//   upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//     float[]? scale_factors, *, Tensor(a!) out)                                          -> 6
//   _upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
//     float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)                      -> 7
//   upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors,
//     *, Tensor(a!) out)                                                                  -> 5
//   grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode,
//     int padding_mode, bool align_corners, *, Tensor(a!) out)                            -> 7
// Inputs are 4-D [N, C, H, W] of any real dtype (out and grid share it), read through their
// strides. Exactly one of output_size / scale_factors is given (2 positive entries); a scale
// gives floor(size * scale). Interpolation weights are computed as PyTorch's UpSample.h does,
// in float for float16/bfloat16/float32 and in double for float64 and the integral dtypes;
// integral results truncate toward zero (upstream's cast). _upsample_bilinear2d_aa follows
// ExecuTorch's kernel: float weights, one 2-D weighted sum accumulated in the input dtype
// (so integral dtypes truncate after every term). grid_sampler_2d: interpolation 0 bilinear,
// 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection; integral dtypes compute
// coordinates in int64 arithmetic as upstream's kernel does in the input type.
#include <cmath>

#include "norm_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {
using namespace norm;

Status check_image_io(const KernelArgs& a, size_t in_index, const Tensor& in, size_t out_index, const Tensor& out) {
  VKRT_RETURN_IF_ERROR(expect_real_dtype(a, in_index, "input", in));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, out_index, "out", out, in.dtype()));
  if (in.rank() != 4) return a.error(in_index, "input", "expected a 4-D tensor, got " + shape_string(in.sizes()));
  return Status::ok();
}

// Output H, W and the source scales (input / output, or 1 / scale_factor) of the .vec ops.
struct Resize {
  int32_t size[2] = {0, 0};
  std::optional<double> scale[2];  // the given scale factor, if any
};
Status read_resize(const KernelArgs& a, size_t i, size_t fi, const Tensor& in, Resize& r) {
  VKRT_ASSIGN_OR_RETURN(auto factors, optional_double_list_arg(a, fi, "scale_factors"));
  const bool has_size = !a.is_none(i);
  if (has_size == factors.has_value()) {
    return a.error(i, "output_size", "exactly one of output_size and scale_factors must be given");
  }
  if (has_size) {
    std::array<int64_t, kMaxRank> items{};
    VKRT_ASSIGN_OR_RETURN(size_t n, a.int_list(i, "output_size", items));
    if (n != 2 || items[0] <= 0 || items[1] <= 0 || items[0] > INT32_MAX || items[1] > INT32_MAX) {
      return a.error(i, "output_size", "expected 2 positive entries");
    }
    r.size[0] = int32_t(items[0]);
    r.size[1] = int32_t(items[1]);
    return Status::ok();
  }
  if (factors->size() != 2) return a.error(fi, "scale_factors", "expected 2 entries");
  for (int d = 0; d < 2; ++d) {
    const double s = (*factors)[d];
    const double size = double(in.size(2 + d)) * s;
    if (!(s > 0) || !(size < double(INT32_MAX))) {
      return a.error(fi, "scale_factors", "entry " + std::to_string(s) + " is not a usable positive scale");
    }
    if (int32_t(size) <= 0) return a.error(fi, "scale_factors", "the upsampled size is empty");
    r.size[d] = int32_t(size);
    r.scale[d] = s;
  }
  return Status::ok();
}

// area_pixel_compute_scale (UpSample.h).
template <typename F>
F area_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? F(in - 1) / F(out - 1) : F(0);
  return scale ? F(1.0 / *scale) : F(in) / F(out);
}

// compute_source_index_and_lambda (UpSample.h): the two source indices and their weights.
template <typename F>
void source_index(F ratio, int64_t dst, int64_t in, int64_t out, bool align_corners, int64_t& i0, int64_t& i1, F& l0,
                  F& l1) {
  if (in == out) {
    i0 = i1 = dst;
    l0 = F(1);
    l1 = F(0);
    return;
  }
  F real = align_corners ? ratio * F(dst) : ratio * (F(dst) + F(0.5)) - F(0.5);
  if (!align_corners && real < F(0)) real = F(0);
  i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
  l1 = std::min(std::max(real - F(i0), F(0)), F(1));
  i1 = i0 + (i0 < in - 1 ? 1 : 0);
  l0 = F(1) - l1;
}

// ---------------------------------------------------------------------------------------
Status upsample_bilinear2d_vec_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::upsample_bilinear2d.vec_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(bool align_corners, a.bool_value(2, "align_corners"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(check_image_io(a, 0, *in, 4, *out));
  Resize r;
  VKRT_RETURN_IF_ERROR(read_resize(a, 1, 3, *in, r));
  const int32_t shape[4] = {in->size(0), in->size(1), r.size[0], r.size[1]};
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, shape));
  auto run = [&]<typename F>() {
    const Image src = Image::of(*in), dst = Image::of(*out);
    const F sh = area_scale<F>(src.h, dst.h, align_corners, r.scale[0]);
    const F sw = area_scale<F>(src.w, dst.w, align_corners, r.scale[1]);
    const ScalarType t = in->dtype();
    for (int64_t y = 0; y < dst.h; ++y) {
      int64_t y0, y1;
      F h0, h1;
      source_index<F>(sh, y, src.h, dst.h, align_corners, y0, y1, h0, h1);
      for (int64_t x = 0; x < dst.w; ++x) {
        int64_t x0, x1;
        F w0, w1;
        source_index<F>(sw, x, src.w, dst.w, align_corners, x0, x1, w0, w1);
        for (int64_t n = 0; n < src.n; ++n) {
          for (int64_t c = 0; c < src.c; ++c) {
            auto v = [&](int64_t yy, int64_t xx) { return load_elem<F>(in->data(), t, src.at(n, c, yy, xx)); };
            const F value = h0 * (w0 * v(y0, x0) + w1 * v(y0, x1)) + h1 * (w0 * v(y1, x0) + w1 * v(y1, x1));
            store_elem<F>(out->data(), t, dst.at(n, c, y, x), value);
          }
        }
      }
    }
    return Status::ok();
  };
  const ScalarType t = in->dtype();
  return (t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float) ? run.operator()<float>()
                                                                                        : run.operator()<double>();
}

// ---------------------------------------------------------------------------------------
Status upsample_nearest2d_vec_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::upsample_nearest2d.vec_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(check_image_io(a, 0, *in, 3, *out));
  Resize r;
  VKRT_RETURN_IF_ERROR(read_resize(a, 1, 2, *in, r));
  const int32_t shape[4] = {in->size(0), in->size(1), r.size[0], r.size[1]};
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape));
  const Image src = Image::of(*in), dst = Image::of(*out);
  const float sh = area_scale<float>(src.h, dst.h, false, r.scale[0]);
  const float sw = area_scale<float>(src.w, dst.w, false, r.scale[1]);
  auto nearest = [](float scale, int64_t i, int64_t size) {
    return std::min(static_cast<int64_t>(std::floor(float(i) * scale)), size - 1);
  };
  const size_t bytes = in->element_size();
  const auto* src_data = static_cast<const uint8_t*>(in->data());
  auto* dst_data = static_cast<uint8_t*>(out->data());
  for (int64_t y = 0; y < dst.h; ++y) {
    const int64_t yy = nearest(sh, y, src.h);
    for (int64_t x = 0; x < dst.w; ++x) {
      const int64_t xx = nearest(sw, x, src.w);
      for (int64_t n = 0; n < src.n; ++n) {
        for (int64_t c = 0; c < src.c; ++c) {
          const uint8_t* from = src_data + src.at(n, c, yy, xx) * int64_t(bytes);
          uint8_t* to = dst_data + dst.at(n, c, y, x) * int64_t(bytes);
          for (size_t k = 0; k < bytes; ++k) to[k] = from[k];
        }
      }
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
// Upstream's anti-aliased bilinear filter parameters for one output index (float).
struct AAParams {
  int64_t lo = 0, hi = 0, fallback = -1;
  float center = 0, invscale = 1, total = 1;

  float weight(int64_t i) const {
    if (fallback >= 0) return i == fallback ? 1.0f : 0.0f;
    return filter((float(i) - center + 0.5f) * invscale) / total;
  }
  static float filter(float x) {
    x = std::fabs(x);
    return x < 1.0f ? 1.0f - x : 0.0f;
  }
  static AAParams of(int64_t o, float scale, int64_t size) {
    AAParams p;
    p.center = scale * (float(o) + 0.5f);
    const float support = scale >= 1.0f ? scale : 1.0f;
    p.lo = std::max(static_cast<int64_t>(p.center - support + 0.5f), int64_t(0));
    p.hi = std::min(static_cast<int64_t>(p.center + support + 0.5f), size);
    p.invscale = scale >= 1.0f ? 1.0f / scale : 1.0f;
    float total = 0.0f;
    for (int64_t x = p.lo; x < p.hi; ++x) total += filter((float(x) - p.center + 0.5f) * p.invscale);
    if (p.hi <= p.lo || total <= 0.0f) {
      p.fallback = std::max(int64_t(0), std::min(static_cast<int64_t>(p.center), size - 1));
      p.lo = p.fallback;
      p.hi = p.fallback + 1;
      total = 1.0f;
    }
    p.total = total;
    return p;
  }
};

Status upsample_bilinear2d_aa_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_upsample_bilinear2d_aa.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "self"));
  std::array<int64_t, kMaxRank> size{};
  VKRT_ASSIGN_OR_RETURN(size_t n, a.int_list(1, "output_size", size));
  VKRT_ASSIGN_OR_RETURN(bool align_corners, a.bool_value(2, "align_corners"));
  VKRT_ASSIGN_OR_RETURN(std::optional<double> scale_h, optional_double_arg(a, 3, "scales_h"));
  VKRT_ASSIGN_OR_RETURN(std::optional<double> scale_w, optional_double_arg(a, 4, "scales_w"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 5, "out"));
  VKRT_RETURN_IF_ERROR(check_image_io(a, 0, *in, 5, *out));
  if (n != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > INT32_MAX || size[1] > INT32_MAX) {
    return a.error(1, "output_size", "expected 2 positive entries");
  }
  const int32_t shape[4] = {in->size(0), in->size(1), int32_t(size[0]), int32_t(size[1])};
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, shape));
  // Upstream uses the given scales only when both are present.
  const bool scales = scale_h.has_value() && scale_w.has_value();
  const Image src = Image::of(*in), dst = Image::of(*out);
  const float sh = area_scale<float>(src.h, dst.h, align_corners, scales ? scale_h : std::nullopt);
  const float sw = area_scale<float>(src.w, dst.w, align_corners, scales ? scale_w : std::nullopt);
  // The filter centres (scale * (index + 0.5)) are cast to int64: keep them in range.
  if (!(std::fabs(sh) < 1e9f) || !(std::fabs(sw) < 1e9f)) {
    return a.error(std::fabs(sh) < 1e9f ? 4 : 3, std::fabs(sh) < 1e9f ? "scales_w" : "scales_h",
                   "gives an unusable sampling scale");
  }
  const ScalarType t = in->dtype();
  return with_compute_type(t, [&]<typename C>() {
    for (int64_t y = 0; y < dst.h; ++y) {
      const AAParams hp = AAParams::of(y, sh, src.h);
      for (int64_t x = 0; x < dst.w; ++x) {
        const AAParams wp = AAParams::of(x, sw, src.w);
        for (int64_t b = 0; b < src.n; ++b) {
          for (int64_t c = 0; c < src.c; ++c) {
            C value = C(0);
            for (int64_t iy = hp.lo; iy < hp.hi; ++iy) {
              const float hw = hp.weight(iy);
              for (int64_t ix = wp.lo; ix < wp.hi; ++ix) {
                const float term = load_elem<float>(in->data(), t, src.at(b, c, iy, ix)) * hw * wp.weight(ix);
                if constexpr (std::is_same_v<C, double>) {
                  value += double(term);
                } else {
                  value = convert<C>(float(value) + term);
                }
              }
            }
            store_elem<C>(out->data(), t, dst.at(b, c, y, x), value);
          }
        }
      }
    }
    return Status::ok();
  });
}

// ---------------------------------------------------------------------------------------
// grid_sampler_2d in scalar type S (float, double or int64 for the integral dtypes).
template <typename S>
S unnormalize(S coord, int64_t size, bool align_corners) {
  // Integral coordinates wrap like the input type's arithmetic instead of overflowing.
  if (align_corners) return wrapping_mul<S>(wrapping_add<S>(coord, 1) / 2, S(size - 1));
  return wrapping_sub<S>(wrapping_mul<S>(wrapping_add<S>(coord, 1), S(size)), 1) / 2;
}
template <typename S>
S clip(S v, int64_t limit) {
  return std::min(S(limit - 1), std::max(v, S(0)));
}
template <typename S>
S reflect(S v, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return S(0);
  const S lo = S(twice_low) / 2, span = S(twice_high - twice_low) / 2;
  if constexpr (std::is_integral_v<S>) {
    if (span == 0) return S(0);
    v = v < lo ? wrapping_sub(lo, v) : wrapping_sub(v, lo);
    if (v < 0) return S(0);  // wrapped (only for coordinates near INT64_MIN)
    const S extra = v % span, flips = v / span;
    return flips % 2 == 0 ? extra + lo : span - extra + lo;
  } else {
    v = std::fabs(v - lo);
    const S extra = std::fmod(v, span);
    const double flips = std::floor(v / span);
    return std::fmod(flips, 2.0) == 0.0 ? extra + lo : span - extra + lo;
  }
}
template <typename S>
S source_coord(S coord, int64_t size, int64_t padding, bool align_corners) {
  coord = unnormalize(coord, size, align_corners);
  if (padding == 1) {
    coord = clip(coord, size);
  } else if (padding == 2) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    coord = clip(coord, size);
  }
  return coord;
}
// floor / round-half-even to int64, NaN -> 0 and clamped to +-2^40: any index that far out
// of a (< 2^31) image behaves the same, and the neighbour arithmetic (x0 - 1 .. x0 + 2)
// cannot overflow.
constexpr int64_t kIndexLimit = int64_t(1) << 40;
inline int64_t clamp_index(int64_t v) { return std::min(std::max(v, -kIndexLimit), kIndexLimit); }
template <typename S>
int64_t floor_index(S v) {
  if constexpr (std::is_integral_v<S>) return clamp_index(v);
  else return clamp_index(convert<int64_t>(std::floor(v)));
}
template <typename S>
int64_t nearest_index(S v) {
  if constexpr (std::is_integral_v<S>) return clamp_index(v);
  else return clamp_index(convert<int64_t>(std::nearbyint(v)));
}
template <typename S>
void cubic_coefficients(S c[4], S t) {
  const S A = S(-0.75);
  auto conv1 = [A](S x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto conv2 = [A](S x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  c[0] = conv2(t + S(1));
  c[1] = conv1(t);
  c[2] = conv1(S(1) - t);
  c[3] = conv2(S(1) - t + S(1));
}

template <typename S>
void grid_sample(const Tensor& in, const Tensor& grid, Tensor& out, int64_t mode, int64_t padding, bool align_corners) {
  const Image src = Image::of(in), dst = Image::of(out);
  const auto gs = grid.strides();
  const ScalarType t = in.dtype();
  auto within = [&](int64_t y, int64_t x) { return y >= 0 && y < src.h && x >= 0 && x < src.w; };
  for (int64_t n = 0; n < src.n; ++n) {
    for (int64_t h = 0; h < dst.h; ++h) {
      for (int64_t w = 0; w < dst.w; ++w) {
        const int64_t g = n * gs[0] + h * gs[1] + w * gs[2];
        const S gx = load_elem<S>(grid.data(), t, g), gy = load_elem<S>(grid.data(), t, g + gs[3]);
        for (int64_t c = 0; c < src.c; ++c) {
          auto value = [&](int64_t y, int64_t x) { return load_elem<S>(in.data(), t, src.at(n, c, y, x)); };
          S result = S(0);
          if (mode == 0 || mode == 1) {
            const S ix = source_coord(gx, src.w, padding, align_corners);
            const S iy = source_coord(gy, src.h, padding, align_corners);
            if (mode == 1) {
              int64_t x = nearest_index(ix), y = nearest_index(iy);
              if (padding != 0) {
                x = clip<int64_t>(x, src.w);
                y = clip<int64_t>(y, src.h);
              }
              if (within(y, x)) result = value(y, x);
            } else {
              const int64_t x0 = floor_index(ix), y0 = floor_index(iy);
              const int64_t x1 = wrapping_add<int64_t>(x0, 1), y1 = wrapping_add<int64_t>(y0, 1);
              // (x1 - ix) etc.; wrapping only matters for integral coordinates near the limits.
              const S ex = wrapping_sub(S(x1), ix), wx = wrapping_sub(ix, S(x0));
              const S ey = wrapping_sub(S(y1), iy), wy = wrapping_sub(iy, S(y0));
              const S wnw = wrapping_mul(ex, ey), wne = wrapping_mul(wx, ey);
              const S wsw = wrapping_mul(ex, wy), wse = wrapping_mul(wx, wy);
              const int64_t ys[4] = {y0, y0, y1, y1}, xs[4] = {x0, x1, x0, x1};
              const S ws[4] = {wnw, wne, wsw, wse};
              for (int k = 0; k < 4; ++k) {
                int64_t y = ys[k], x = xs[k];
                if (padding != 0) {
                  y = clip<int64_t>(y, src.h);
                  x = clip<int64_t>(x, src.w);
                } else if (!within(y, x)) {
                  continue;
                }
                result = wrapping_add(result, wrapping_mul(value(y, x), ws[k]));
              }
            }
          } else {  // bicubic
            const S ix = unnormalize(gx, src.w, align_corners), iy = unnormalize(gy, src.h, align_corners);
            const int64_t x0 = floor_index(ix), y0 = floor_index(iy);
            // Integral coordinates have no fraction (x0 only differs from ix where clamped).
            const S tx = std::is_integral_v<S> ? S(0) : ix - S(x0);
            const S ty = std::is_integral_v<S> ? S(0) : iy - S(y0);
            auto bounded = [&](int64_t y, int64_t x) -> S {
              if (padding == 0) return within(y, x) ? value(y, x) : S(0);
              if (padding == 1) return value(clip<int64_t>(y, src.h), clip<int64_t>(x, src.w));
              S ry = S(y), rx = S(x);
              ry = align_corners ? reflect(ry, 0, 2 * (src.h - 1)) : reflect(ry, -1, 2 * src.h - 1);
              rx = align_corners ? reflect(rx, 0, 2 * (src.w - 1)) : reflect(rx, -1, 2 * src.w - 1);
              return value(clip<int64_t>(floor_index(ry), src.h), clip<int64_t>(floor_index(rx), src.w));
            };
            S cx[4], cy[4], rows[4];
            cubic_coefficients(cx, tx);
            cubic_coefficients(cy, ty);
            for (int r = 0; r < 4; ++r) {
              rows[r] = S(0);
              for (int k = 0; k < 4; ++k) rows[r] = wrapping_add(rows[r], wrapping_mul(bounded(y0 - 1 + r, x0 - 1 + k), cx[k]));
            }
            for (int r = 0; r < 4; ++r) result = wrapping_add(result, wrapping_mul(rows[r], cy[r]));
          }
          store_elem<S>(out.data(), t, dst.at(n, c, h, w), result);
        }
      }
    }
  }
}

Status grid_sampler_2d_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::grid_sampler_2d.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * grid, tensor_arg(a, 1, "grid"));
  VKRT_ASSIGN_OR_RETURN(int64_t mode, a.int_value(2, "interpolation_mode"));
  VKRT_ASSIGN_OR_RETURN(int64_t padding, a.int_value(3, "padding_mode"));
  VKRT_ASSIGN_OR_RETURN(bool align_corners, a.bool_value(4, "align_corners"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 5, "out"));
  VKRT_RETURN_IF_ERROR(check_image_io(a, 0, *in, 5, *out));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "grid", *grid, in->dtype()));
  if (grid->rank() != 4 || grid->size(3) != 2 || grid->size(0) != in->size(0)) {
    return a.error(1, "grid", "expected shape [" + std::to_string(in->size(0)) + ", H, W, 2], got " +
                                  shape_string(grid->sizes()));
  }
  if (mode < 0 || mode > 2) return a.error(2, "interpolation_mode", "expected 0 (bilinear), 1 (nearest) or 2 (bicubic)");
  if (padding < 0 || padding > 2) return a.error(3, "padding_mode", "expected 0 (zeros), 1 (border) or 2 (reflection)");
  const int32_t shape[4] = {in->size(0), in->size(1), grid->size(1), grid->size(2)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, shape));
  if (in->size(2) == 0 || in->size(3) == 0) {  // nothing to sample from: zeros (border/reflection clip to nothing)
    if (out->numel() > 0) return a.error(0, "input", "cannot sample an empty image");
    return Status::ok();
  }
  switch (in->dtype()) {
    case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::Float:
      grid_sample<float>(*in, *grid, *out, mode, padding, align_corners);
      break;
    case ScalarType::Double: grid_sample<double>(*in, *grid, *out, mode, padding, align_corners); break;
    default: grid_sample<int64_t>(*in, *grid, *out, mode, padding, align_corners); break;
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out);
VKRT_REGISTER_KERNEL("aten::_upsample_bilinear2d_aa.out", upsample_bilinear2d_aa_out);
VKRT_REGISTER_KERNEL("aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out);
VKRT_REGISTER_KERNEL("aten::grid_sampler_2d.out", grid_sampler_2d_out);

}  // namespace vkrt::portable
