// quantized_decomposed::choose_qparams.Tensor_out and choose_qparams_per_token_asymmetric.out
// (ExecuTorch kernels/quantized/cpu/op_choose_qparams.cpp): asymmetric (scale, zero_point)
// from the min and max of the whole input or of each token (row of the input flattened to 2-D).
//
// Schemas (+ the two outs + the trailing return slot):
//   choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
//       ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)   -> 8 args
//   choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *,
//       Tensor(a!) scale_out, Tensor(b!) zero_point_out)                       -> 5 args
// input float32; scale_out float64, zero_point_out int64. choose_qparams: one element each
// (eps and dtype are unused upstream; dtype must still be a ScalarType code);
// per-token: shape input.shape[:-1] + [1], range [-128, 127]. Min and max follow
// std::min_element / std::max_element (a NaN first element stays). Upstream reads an empty
// input (undefined); here an empty input (or token) is an error. A NaN zero point (non-finite
// inputs) converts to 0 instead of upstream's undefined cast.
#include <algorithm>
#include <cmath>

#include "quant_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

constexpr float kSmallScale = 6.1e-5f;

// Upstream calculate_scale_and_zero_point, step by step.
void scale_and_zero_point(float min, float max, int32_t qmin, int32_t qmax, double& scale, int64_t& zero_point) {
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  // The range in int64: qmax - qmin may overflow int32 (undefined upstream).
  const int64_t span = int64_t(qmax) - qmin;
  scale = (static_cast<double>(max) - min) / double(span);
  if (float(scale) == 0.0f || std::isinf(1.0f / float(scale))) scale = 0.1;
  if (scale < kSmallScale) {
    const float org_scale = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * float(span);
    } else if (max == 0.0f) {
      min = -kSmallScale * float(span);
    } else {
      const float amplifier = kSmallScale / org_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double from_min = qmin - min / scale;
  const double from_max = qmax - max / scale;
  // |qmin| in double: std::abs(INT32_MIN) overflows.
  const double from_min_error = std::abs(double(qmin)) - std::abs(min / scale);
  const double from_max_error = std::abs(double(qmax)) - std::abs(max / scale);
  const double initial = from_min_error < from_max_error ? from_min : from_max;
  if (initial < qmin) {
    zero_point = qmin;
  } else if (initial > qmax) {
    zero_point = qmax;
  } else {
    zero_point = convert<int32_t>(std::nearbyint(static_cast<float>(initial)));
  }
}

// Min and max of `count` elements of `in` from logical index `first`, as std::min_element /
// std::max_element pick them.
void min_max(const Tensor& in, int64_t first, int64_t count, float& min, float& max) {
  min = max = load_flat<float>(in, first);
  for (int64_t k = 1; k < count; ++k) {
    const float v = load_flat<float>(in, first + k);
    if (v < min) min = v;
    if (max < v) max = v;
  }
}

Status check_outs(const KernelArgs& a, size_t scale_index, const Tensor& scale, const Tensor& zp) {
  VKRT_RETURN_IF_ERROR(expect_dtype(a, scale_index, "scale_out", scale, ScalarType::Double));
  return expect_dtype(a, scale_index + 1, "zero_point_out", zp, ScalarType::Long);
}

Status choose_qparams_tensor_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("quantized_decomposed::choose_qparams.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(int64_t qmin, a.int_value(1, "quant_min"));
  VKRT_ASSIGN_OR_RETURN(int64_t qmax, a.int_value(2, "quant_max"));
  VKRT_ASSIGN_OR_RETURN(double eps, a.double_value(3, "eps"));
  (void)eps;
  VKRT_ASSIGN_OR_RETURN(int64_t dtype, a.int_value(4, "dtype"));
  (void)dtype;
  VKRT_ASSIGN_OR_RETURN(Tensor * scale_out, tensor_arg(a, 5, "scale_out"));
  VKRT_ASSIGN_OR_RETURN(Tensor * zp_out, tensor_arg(a, 6, "zero_point_out"));
  if (!(qmin < qmax) || qmin < INT32_MIN || qmax > INT32_MAX) {
    return a.error(1, "quant_min", "expected quant_min < quant_max within int32, got [" + std::to_string(qmin) +
                                       ", " + std::to_string(qmax) + "]");
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 0, "input", *input, ScalarType::Float));
  VKRT_RETURN_IF_ERROR(check_outs(a, 5, *scale_out, *zp_out));
  if (scale_out->numel() != 1) return a.error(5, "scale_out", "expected one element, got " + std::to_string(scale_out->numel()));
  if (zp_out->numel() != 1) return a.error(6, "zero_point_out", "expected one element, got " + std::to_string(zp_out->numel()));
  if (input->numel() == 0) return a.error(0, "input", "min and max of an empty tensor");
  float min = 0, max = 0;
  min_max(*input, 0, input->numel(), min, max);
  double scale = 0;
  int64_t zp = 0;
  scale_and_zero_point(min, max, int32_t(qmin), int32_t(qmax), scale, zp);
  store_elem<double>(scale_out->data(), scale_out->dtype(), 0, scale);
  store_elem<int64_t>(zp_out->data(), zp_out->dtype(), 0, zp);
  return Status::ok();
}

Status choose_qparams_per_token_asymmetric_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("quantized_decomposed::choose_qparams_per_token_asymmetric.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(int64_t dtype, a.int_value(1, "dtype"));
  (void)dtype;
  VKRT_ASSIGN_OR_RETURN(Tensor * scale_out, tensor_arg(a, 2, "scale_out"));
  VKRT_ASSIGN_OR_RETURN(Tensor * zp_out, tensor_arg(a, 3, "zero_point_out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 0, "input", *input, ScalarType::Float));
  VKRT_RETURN_IF_ERROR(check_outs(a, 2, *scale_out, *zp_out));
  if (input->rank() == 0) return a.error(0, "input", "expected at least one dim");
  Shape shape = Shape::of(input->sizes());
  const int64_t token_size = shape.dims[shape.rank - 1];
  shape.dims[shape.rank - 1] = 1;
  const int64_t tokens = shape.numel();
  if (token_size == 0 && tokens > 0) return a.error(0, "input", "min and max of empty tokens");
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "scale_out", *scale_out, shape.view()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "zero_point_out", *zp_out, shape.view()));
  for (int64_t t = 0; t < tokens; ++t) {
    float min = 0, max = 0;
    min_max(*input, t * token_size, token_size, min, max);
    double scale = 0;
    int64_t zp = 0;
    scale_and_zero_point(min, max, -128, 127, scale, zp);
    store_elem<double>(scale_out->data(), scale_out->dtype(), flat_offset(*scale_out, t), scale);
    store_elem<int64_t>(zp_out->data(), zp_out->dtype(), flat_offset(*zp_out, t), zp);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("quantized_decomposed::choose_qparams.Tensor_out", choose_qparams_tensor_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::choose_qparams_per_token_asymmetric.out",
                     choose_qparams_per_token_asymmetric_out);

}  // namespace vkrt::portable
