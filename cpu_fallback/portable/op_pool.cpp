// 2-D pooling: aten::_adaptive_avg_pool2d.out, aten::avg_pool2d.out,
// aten::max_pool2d_with_indices.out, aten::max_pool2d_with_indices_backward.grad_input.
//
// Schemas (args incl. outs and the return slot):
//   _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)        -> 4
//   avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//     Tensor(a!) out)                                                                     -> 9
//   max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices)                                                                 -> 9
//   max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self,
//     int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode,
//     Tensor indices, *, Tensor(a!) grad_input)                                           -> 10
// Inputs are [C, H, W] or [N, C, H, W] (C, H, W > 0; N may be 0), read through their strides.
// Dtypes as ExecuTorch's portable kernels: adaptive/avg pool float16, bfloat16, float32,
// float64 and int64; max pool every real dtype; the backward floating only. Floating sums
// accumulate in double; int64 average pooling sums in int64 (wrapping) and divides with
// truncation (upstream's integer division); adaptive pooling of int64 truncates the mean.
// Max pooling keeps the first maximum and, as upstream (not PyTorch), does not propagate NaN:
// a NaN only wins when it is the first element of its window.
#include "norm_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {
using namespace norm;

using Pair = std::array<int64_t, 2>;

// Input check shared by the pooling ops: 3-D or 4-D, C, H, W > 0.
Status check_pool_input(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t) {
  const bool ok = (t.rank() == 3 && t.size(0) > 0 && t.size(1) > 0 && t.size(2) > 0) ||
                  (t.rank() == 4 && t.size(1) > 0 && t.size(2) > 0 && t.size(3) > 0);
  if (ok) return Status::ok();
  return a.error(i, name, "expected a 3-D [C, H, W] or 4-D [N, C, H, W] tensor with C, H, W > 0, got " +
                              shape_string(t.sizes()));
}

Status expect_pool_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t) {
  if (is_float_dtype(t.dtype()) || t.dtype() == ScalarType::Long) return Status::ok();
  return a.error(i, name, std::string("expected float16, bfloat16, float32, float64 or int64, got ") +
                              scalar_type_name(t.dtype()));
}

struct PoolParams {
  Pair kernel{1, 1}, stride{1, 1}, padding{0, 0}, dilation{1, 1};
  bool ceil_mode = false;
};

// Reads kernel_size (i), stride (i+1, empty = kernel), padding (i+2, at most half the kernel)
// and, when `dilation_index` is set, dilation.
Status read_pool_params(const KernelArgs& a, size_t i, std::optional<size_t> dilation_index, PoolParams& p) {
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, i, "kernel_size", 2, false, {1, 1}, 1, p.kernel));
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, i + 1, "stride", 2, true, p.kernel, 1, p.stride));
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, i + 2, "padding", 2, false, {0, 0}, 0, p.padding));
  for (int d = 0; d < 2; ++d) {
    if (p.padding[d] > p.kernel[d] / 2) {
      return a.error(i + 2, "padding", "padding " + std::to_string(p.padding[d]) + " exceeds half the kernel size " +
                                           std::to_string(p.kernel[d]));
    }
  }
  if (dilation_index) {
    VKRT_RETURN_IF_ERROR(spatial_param<2>(a, *dilation_index, "dilation", 2, false, {1, 1}, 1, p.dilation));
  }
  return Status::ok();
}

// PyTorch's pooling output size (pooling_output_shape), ceil mode included.
int64_t pool_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The output shape of pooling `in` (sizes of `in` with H, W replaced); error when empty.
Status pool_output_shape(const KernelArgs& a, const Tensor& in, const PoolParams& p, Shape& out) {
  out = Shape::of(in.sizes());
  for (int d = 0; d < 2; ++d) {
    const int dim = in.rank() - 2 + d;
    const int64_t size = pool_output_size(in.size(dim), p.kernel[d], p.padding[d], p.stride[d], p.dilation[d],
                                          p.ceil_mode);
    if (size <= 0 || size > INT32_MAX) {
      return a.error(1, "kernel_size", "input " + shape_string(in.sizes()) + " gives an empty output (size " +
                                           std::to_string(size) + ")");
    }
    out.dims[dim] = int32_t(size);
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
Status adaptive_avg_pool2d_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_adaptive_avg_pool2d.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_pool_dtype(a, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(check_pool_input(a, 0, "self", *self));
  std::array<int64_t, kMaxRank> size{};
  VKRT_ASSIGN_OR_RETURN(size_t n, a.int_list(1, "output_size", size));
  if (n != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > INT32_MAX || size[1] > INT32_MAX) {
    return a.error(1, "output_size", "expected 2 positive entries");
  }
  Shape shape = Shape::of(self->sizes());
  shape.dims[shape.rank - 2] = int32_t(size[0]);
  shape.dims[shape.rank - 1] = int32_t(size[1]);
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));

  const Image in = Image::of(*self), o = Image::of(*out);
  const ScalarType t = self->dtype();
  for (int64_t b = 0; b < in.n; ++b) {
    for (int64_t c = 0; c < in.c; ++c) {
      for (int64_t oy = 0; oy < o.h; ++oy) {
        const int64_t y0 = oy * in.h / o.h, y1 = ((oy + 1) * in.h + o.h - 1) / o.h;
        for (int64_t ox = 0; ox < o.w; ++ox) {
          const int64_t x0 = ox * in.w / o.w, x1 = ((ox + 1) * in.w + o.w - 1) / o.w;
          double sum = 0.0;
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) sum += load_elem<double>(self->data(), t, in.at(b, c, y, x));
          }
          store_elem<double>(out->data(), t, o.at(b, c, oy, ox), sum / double((y1 - y0) * (x1 - x0)));
        }
      }
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
// One average window: sum (Acc) of the in-bounds elements and PyTorch's divisor.
template <typename Acc>
void avg_pool(const Tensor& self, Tensor& out, const PoolParams& p, bool include_pad, std::optional<int64_t> divisor) {
  const Image in = Image::of(self), o = Image::of(out);
  const ScalarType t = self.dtype();
  for (int64_t b = 0; b < in.n; ++b) {
    for (int64_t c = 0; c < in.c; ++c) {
      for (int64_t oy = 0; oy < o.h; ++oy) {
        for (int64_t ox = 0; ox < o.w; ++ox) {
          int64_t y0 = oy * p.stride[0] - p.padding[0], x0 = ox * p.stride[1] - p.padding[1];
          int64_t y1 = std::min(y0 + p.kernel[0], in.h + p.padding[0]);
          int64_t x1 = std::min(x0 + p.kernel[1], in.w + p.padding[1]);
          const int64_t pool_size = (y1 - y0) * (x1 - x0);
          y0 = std::max<int64_t>(y0, 0);
          x0 = std::max<int64_t>(x0, 0);
          y1 = std::min(y1, in.h);
          x1 = std::min(x1, in.w);
          if (y0 >= y1 || x0 >= x1) {  // unreachable with padding <= kernel / 2
            store_elem<Acc>(out.data(), out.dtype(), o.at(b, c, oy, ox), Acc(0));
            continue;
          }
          Acc sum = 0;
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) sum = wrapping_add(sum, load_elem<Acc>(self.data(), t, in.at(b, c, y, x)));
          }
          const int64_t d = divisor ? *divisor : include_pad ? pool_size : (y1 - y0) * (x1 - x0);
          Acc result;
          if constexpr (std::is_integral_v<Acc>) {
            result = d == -1 ? wrapping_sub(Acc(0), sum) : Acc(sum / d);  // INT64_MIN / -1 wraps
          } else {
            result = sum / Acc(d);
          }
          store_elem<Acc>(out.data(), out.dtype(), o.at(b, c, oy, ox), result);
        }
      }
    }
  }
}

Status avg_pool2d_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::avg_pool2d.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 9));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  PoolParams p;
  VKRT_RETURN_IF_ERROR(read_pool_params(a, 1, std::nullopt, p));
  VKRT_ASSIGN_OR_RETURN(p.ceil_mode, a.bool_value(4, "ceil_mode"));
  VKRT_ASSIGN_OR_RETURN(bool include_pad, a.bool_value(5, "count_include_pad"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> divisor, optional_int_arg(a, 6, "divisor_override"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 7, "out"));
  VKRT_RETURN_IF_ERROR(expect_pool_dtype(a, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 7, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(check_pool_input(a, 0, "self", *self));
  if (divisor && *divisor == 0) return a.error(6, "divisor_override", "must be non-zero");
  Shape shape;
  VKRT_RETURN_IF_ERROR(pool_output_shape(a, *self, p, shape));
  VKRT_RETURN_IF_ERROR(resize_output(a, 7, "out", *out, shape.view()));
  if (self->dtype() == ScalarType::Long) {
    avg_pool<int64_t>(*self, *out, p, include_pad, divisor);
  } else {
    avg_pool<double>(*self, *out, p, include_pad, divisor);
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
Status max_pool2d_with_indices_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::max_pool2d_with_indices.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 9));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  PoolParams p;
  VKRT_RETURN_IF_ERROR(read_pool_params(a, 1, size_t{4}, p));
  VKRT_ASSIGN_OR_RETURN(p.ceil_mode, a.bool_value(5, "ceil_mode"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 6, "out"));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 7, "indices"));
  VKRT_RETURN_IF_ERROR(expect_real_dtype(a, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 6, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 7, "indices", *indices, ScalarType::Long));
  VKRT_RETURN_IF_ERROR(check_pool_input(a, 0, "self", *self));
  Shape shape;
  VKRT_RETURN_IF_ERROR(pool_output_shape(a, *self, p, shape));
  VKRT_RETURN_IF_ERROR(resize_output(a, 6, "out", *out, shape.view()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 7, "indices", *indices, shape.view()));

  const Image in = Image::of(*self), o = Image::of(*out), io = Image::of(*indices);
  auto* index_data = static_cast<int64_t*>(indices->data());
  return with_compute_type(self->dtype(), [&]<typename C>() {
    for (int64_t b = 0; b < in.n; ++b) {
      for (int64_t c = 0; c < in.c; ++c) {
        for (int64_t oy = 0; oy < o.h; ++oy) {
          for (int64_t ox = 0; ox < o.w; ++ox) {
            bool found = false;
            C best = C(0);
            int64_t best_index = 0;
            for (int64_t ky = 0; ky < p.kernel[0]; ++ky) {
              const int64_t y = oy * p.stride[0] - p.padding[0] + ky * p.dilation[0];
              if (y < 0 || y >= in.h) continue;
              for (int64_t kx = 0; kx < p.kernel[1]; ++kx) {
                const int64_t x = ox * p.stride[1] - p.padding[1] + kx * p.dilation[1];
                if (x < 0 || x >= in.w) continue;
                const C v = load_elem<C>(self->data(), self->dtype(), in.at(b, c, y, x));
                if (!found || v > best) {
                  best = v;
                  best_index = y * in.w + x;
                  found = true;
                }
              }
            }
            store_elem<C>(out->data(), out->dtype(), o.at(b, c, oy, ox), best);
            index_data[io.at(b, c, oy, ox)] = best_index;
          }
        }
      }
    }
    return Status::ok();
  });
}

// ---------------------------------------------------------------------------------------
Status max_pool2d_with_indices_backward_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::max_pool2d_with_indices_backward.grad_input", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 10));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_output, tensor_arg(a, 0, "grad_output"));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 1, "self"));
  PoolParams p;
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, 2, "kernel_size", 2, false, {1, 1}, 1, p.kernel));
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, 3, "stride", 2, true, p.kernel, 1, p.stride));
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, 4, "padding", 2, false, {0, 0}, 0, p.padding));
  for (int d = 0; d < 2; ++d) {
    if (p.padding[d] > p.kernel[d] / 2) return a.error(4, "padding", "exceeds half the kernel size");
  }
  VKRT_RETURN_IF_ERROR(spatial_param<2>(a, 5, "dilation", 2, false, {1, 1}, 1, p.dilation));
  VKRT_ASSIGN_OR_RETURN(p.ceil_mode, a.bool_value(6, "ceil_mode"));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 7, "indices"));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_input, tensor_arg(a, 8, "grad_input"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 0, "grad_output", *grad_output, self->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 7, "indices", *indices, ScalarType::Long));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 8, "grad_input", *grad_input, self->dtype()));
  VKRT_RETURN_IF_ERROR(check_pool_input(a, 1, "self", *self));
  Shape shape;
  VKRT_RETURN_IF_ERROR(pool_output_shape(a, *self, p, shape));
  VKRT_RETURN_IF_ERROR(expect_shape(a, 0, "grad_output", *grad_output, shape.view()));
  VKRT_RETURN_IF_ERROR(expect_shape(a, 7, "indices", *indices, shape.view()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 8, "grad_input", *grad_input, self->sizes()));

  const Image in = Image::of(*grad_input), go = Image::of(*grad_output), ix = Image::of(*indices);
  const auto* index_data = static_cast<const int64_t*>(indices->data());
  const int64_t plane = in.h * in.w;
  // Check every index before writing: -1 (no maximum) is skipped, anything else must be in
  // the input plane.
  for (int64_t b = 0; b < go.n; ++b)
    for (int64_t c = 0; c < go.c; ++c)
      for (int64_t y = 0; y < go.h; ++y)
        for (int64_t x = 0; x < go.w; ++x) {
          const int64_t k = index_data[ix.at(b, c, y, x)];
          if (k != -1 && (k < 0 || k >= plane)) {
            return a.error(7, "indices", "index " + std::to_string(k) + " is outside the input plane of " +
                                             std::to_string(plane) + " elements");
          }
        }
  const ScalarType t = self->dtype();
  return with_compute_type(t, [&]<typename C>() {
    for (int64_t b = 0; b < in.n; ++b)
      for (int64_t c = 0; c < in.c; ++c)
        for (int64_t y = 0; y < in.h; ++y)
          for (int64_t x = 0; x < in.w; ++x) store_elem<C>(grad_input->data(), t, in.at(b, c, y, x), C(0));
    for (int64_t b = 0; b < go.n; ++b)
      for (int64_t c = 0; c < go.c; ++c)
        for (int64_t y = 0; y < go.h; ++y)
          for (int64_t x = 0; x < go.w; ++x) {
            const int64_t k = index_data[ix.at(b, c, y, x)];
            if (k == -1) continue;
            const int64_t dst = in.at(b, c, k / in.w, k % in.w);
            const C g = load_elem<C>(grad_output->data(), t, go.at(b, c, y, x));
            store_elem<C>(grad_input->data(), t, dst, load_elem<C>(grad_input->data(), t, dst) + g);
          }
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out);
VKRT_REGISTER_KERNEL("aten::avg_pool2d.out", avg_pool2d_out);
VKRT_REGISTER_KERNEL("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out);
VKRT_REGISTER_KERNEL("aten::max_pool2d_with_indices_backward.grad_input", max_pool2d_with_indices_backward_out);

}  // namespace vkrt::portable
