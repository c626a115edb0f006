// quantized_decomposed::mixed_mm.out and mixed_linear.out (ExecuTorch kernels/quantized/cpu/
// op_mixed_mm.cpp, op_mixed_linear.cpp, vec_ops.h): float activations times an int8 weight
// with per-row (or per-row-group) float scales. One matrix walk for both.
//
// Schemas (+ out + the trailing return slot):
//   mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//       *, Tensor(a!) out)                                                               -> 6 args
//   mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales,
//       Tensor? weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out)           -> 7 args
// mixed_mm: input [m, n] float32/float16, weight [n, p] int8, weight_scales [n] (input's
//   dtype), out [m, p] (input's dtype): out[i][j] = sum_k x[i][k] * w[k][j] * s[k].
// mixed_linear: input [m, n] float32/float16, weight [p, n] int8, weight_scales [p] or [p, G]
//   (input's dtype), out [m, p] float32/float64/float16 (= dtype when given, which must then be
//   float32 or float16): with g = n (1-D scales) or ceil(n / G), groups of g columns:
//   out[i][j] = sum_groups (sum_{k in group} x[i][k] * w[j][k]) * s_flat[j * ceil(n / g) + k / g]
//   (upstream's indexing of the flattened scales).
// Weight zero points are not supported upstream: given, they are checked (shape and dtype of
// the scales) and then refused. Float16 computes in float; a float64 out accumulates in double.
#include <algorithm>

#include "quant_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status expect_rank(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t, int rank) {
  if (t.rank() != rank) {
    return a.error(i, name, "expected " + std::to_string(rank) + " dims, got " + shape_string(t.sizes()));
  }
  return Status::ok();
}

Status same_size(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t, int dim, int64_t expected,
                 std::string_view what) {
  if (t.size(dim) != expected) {
    return a.error(i, name, "size " + std::to_string(t.size(dim)) + " at dim " + std::to_string(dim) +
                                " differs from " + std::string(what) + " (" + std::to_string(expected) + ")");
  }
  return Status::ok();
}

// Common checks of input (0), weight (1) and the zero points (3), which must be None.
Status check_common(const KernelArgs& a, const Tensor& in, const Tensor& weight, const Tensor& scales) {
  if (in.dtype() != ScalarType::Float && in.dtype() != ScalarType::Half) {
    return a.error(0, "input", "expected dtype float32 or float16, got " + dtype_str(in.dtype()));
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "weight", weight, ScalarType::Char));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "weight_scales", scales, in.dtype()));
  if (!a.is_none(3)) {
    VKRT_ASSIGN_OR_RETURN(Tensor * zps, tensor_arg(a, 3, "weight_zero_points"));
    if (!std::equal(zps->sizes().begin(), zps->sizes().end(), scales.sizes().begin(), scales.sizes().end())) {
      return a.error(3, "weight_zero_points", "shape differs from weight_scales");
    }
    VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "weight_zero_points", *zps, in.dtype()));
    return a.error(3, "weight_zero_points", "zero points are not supported");
  }
  return Status::ok();
}

// out[i][j] = sum over groups of g columns k of (sum x[i][k] * w(j, k)) * s_flat[j * groups + k / g],
// with w(j, k) = weight[j][k] (transposed, linear) or weight[k][j] (mm, g = 1 and s indexed by k).
template <typename Acc>
void mixed_matmul(const Tensor& in, const Tensor& weight, const Tensor& scales, Tensor& out, bool transposed,
                  int64_t g) {
  const int64_t m = in.size(0), n = in.size(1);
  const int64_t p = transposed ? weight.size(0) : weight.size(1);
  const int64_t groups = g > 0 ? (n + g - 1) / g : 0;
  const int64_t ws0 = weight.strides()[0], ws1 = weight.strides()[1];
  const int64_t xs0 = in.strides()[0], xs1 = in.strides()[1];
  const int8_t* w = static_cast<const int8_t*>(weight.data());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      Acc sum = 0;
      if (transposed) {
        for (int64_t k = 0; k < n; k += g) {
          Acc psum = 0;
          for (int64_t k2 = k; k2 < n && k2 < k + g; ++k2) {
            const float x = load_elem<float>(in.data(), in.dtype(), i * xs0 + k2 * xs1);
            psum += x * float(w[j * ws0 + k2 * ws1]);
          }
          sum += psum * load_flat<Acc>(scales, j * groups + k / g);
        }
      } else {
        for (int64_t k = 0; k < n; ++k) {
          const float x = load_elem<float>(in.data(), in.dtype(), i * xs0 + k * xs1);
          sum += Acc(x * float(w[k * ws0 + j * ws1]) * load_flat<float>(scales, k));
        }
      }
      store_elem<Acc>(out.data(), out.dtype(), i * out.strides()[0] + j * out.strides()[1], sum);
    }
  }
}

Status mixed_mm_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("quantized_decomposed::mixed_mm.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 1, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(a, 2, "weight_scales"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 0, "input", *in, 2));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 1, "weight", *weight, 2));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 2, "weight_scales", *scales, 1));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 4, "out", *out, 2));
  VKRT_RETURN_IF_ERROR(same_size(a, 1, "weight", *weight, 0, in->size(1), "input.size(1)"));
  VKRT_RETURN_IF_ERROR(same_size(a, 2, "weight_scales", *scales, 0, weight->size(0), "weight.size(0)"));
  VKRT_RETURN_IF_ERROR(check_common(a, *in, *weight, *scales));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 4, "out", *out, in->dtype()));
  const int32_t sizes[2] = {in->size(0), weight->size(1)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, sizes));
  mixed_matmul<float>(*in, *weight, *scales, *out, false, 1);
  return Status::ok();
}

Status mixed_linear_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("quantized_decomposed::mixed_linear.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 1, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(a, 2, "weight_scales"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, 4, "dtype"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 5, "out"));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 0, "input", *in, 2));
  VKRT_RETURN_IF_ERROR(expect_rank(a, 1, "weight", *weight, 2));
  if (scales->rank() != 1 && scales->rank() != 2) {
    return a.error(2, "weight_scales", "expected 1 or 2 dims, got " + shape_string(scales->sizes()));
  }
  VKRT_RETURN_IF_ERROR(expect_rank(a, 5, "out", *out, 2));
  VKRT_RETURN_IF_ERROR(same_size(a, 1, "weight", *weight, 1, in->size(1), "input.size(1)"));
  VKRT_RETURN_IF_ERROR(same_size(a, 2, "weight_scales", *scales, 0, weight->size(0), "weight.size(0)"));
  if (dtype) {
    if (*dtype != int64_t(out->dtype())) {
      return a.error(4, "dtype", "dtype " + std::to_string(*dtype) + " differs from out dtype " + dtype_str(out->dtype()));
    }
    if (out->dtype() != ScalarType::Float && out->dtype() != ScalarType::Half) {
      return a.error(4, "dtype", "expected float32 or float16, got " + dtype_str(out->dtype()));
    }
  }
  VKRT_RETURN_IF_ERROR(check_common(a, *in, *weight, *scales));
  if (!is_floath_dtype(out->dtype())) {
    return a.error(5, "out", "expected dtype float32, float64 or float16, got " + dtype_str(out->dtype()));
  }
  const int64_t n = in->size(1);
  int64_t g = n;
  if (scales->rank() == 2) {
    if (scales->size(1) <= 0) return a.error(2, "weight_scales", "expected at least one group");
    g = (n + scales->size(1) - 1) / scales->size(1);
  }
  const int32_t sizes[2] = {in->size(0), weight->size(0)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, sizes));
  if (out->dtype() == ScalarType::Double) {
    mixed_matmul<double>(*in, *weight, *scales, *out, true, g);
  } else {
    mixed_matmul<float>(*in, *weight, *scales, *out, true, g);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("quantized_decomposed::mixed_mm.out", mixed_mm_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::mixed_linear.out", mixed_linear_out);

}  // namespace vkrt::portable
