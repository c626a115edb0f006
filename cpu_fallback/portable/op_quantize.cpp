// Per-tensor affine (de)quantization: quantized_decomposed::quantize_per_tensor and
// dequantize_per_tensor, with scale/zero_point as scalars (.out) or one-element tensors
// (.tensor_out).
//
// Schemas (ExecuTorch kernels/quantized/quantized.yaml):
//   quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//       int quant_max, ScalarType dtype, *, Tensor(a!) out)                              -> 8 args
//   dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//       int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)  -> 9 args
//   (.tensor_out: scale is a Tensor (float64, one element), zero_point a Tensor (int64))
// Older programs have no out_dtype (8 args); both forms are accepted.
// Arithmetic (cortex-m-ops.md §2, ExecuTorch quantize_val / dequantize):
//   quantize:   inv = 1.0f / (float)scale; q = zp + nearbyint((float)(inv * x)), rounding half to
//               even, then clamped to [quant_min, quant_max]. NaN gives quant_min (what the
//               upstream cast of NaN yields on x86 after its clamp).
//   dequantize: out = (float)(q - zp) * (float)scale (in double for a float64 out).
#include <cmath>

#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

struct QuantParams {
  double scale = 1.0;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
};

bool is_quantized_storage(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short || t == ScalarType::Int;
}

void storage_range(ScalarType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case ScalarType::Byte: lo = 0; hi = 255; break;
    case ScalarType::Char: lo = -128; hi = 127; break;
    case ScalarType::Short: lo = -32768; hi = 32767; break;
    default: lo = INT32_MIN; hi = INT32_MAX; break;
  }
}

// Reads scale and zero_point (arguments 1 and 2, scalars or one-element tensors), quant_min,
// quant_max and dtype (3..5) and checks them against the quantized tensor's dtype `qtype`
// (argument qindex, named qname).
Result<QuantParams> read_params(const KernelArgs& a, bool tensor_params, size_t qindex,
                                std::string_view qname, ScalarType qtype) {
  QuantParams p;
  if (tensor_params) {
    VKRT_ASSIGN_OR_RETURN(Tensor * scale, tensor_arg(a, 1, "scale"));
    VKRT_ASSIGN_OR_RETURN(Tensor * zp, tensor_arg(a, 2, "zero_point"));
    if (scale->numel() != 1) return a.error(1, "scale", "expected one element, got " + std::to_string(scale->numel()));
    VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "scale", *scale));
    if (zp->numel() != 1) return a.error(2, "zero_point", "expected one element, got " + std::to_string(zp->numel()));
    if (!is_int_dtype(zp->dtype())) {
      return a.error(2, "zero_point", std::string("expected an integer dtype, got ") + scalar_type_name(zp->dtype()));
    }
    p.scale = load_elem<double>(scale->data(), scale->dtype(), 0);
    p.zero_point = load_elem<int64_t>(zp->data(), zp->dtype(), 0);
  } else {
    VKRT_ASSIGN_OR_RETURN(p.scale, a.double_value(1, "scale"));
    VKRT_ASSIGN_OR_RETURN(p.zero_point, a.int_value(2, "zero_point"));
  }
  VKRT_ASSIGN_OR_RETURN(p.quant_min, a.int_value(3, "quant_min"));
  VKRT_ASSIGN_OR_RETURN(p.quant_max, a.int_value(4, "quant_max"));
  VKRT_ASSIGN_OR_RETURN(int64_t dtype, a.int_value(5, "dtype"));

  if (!(std::isfinite(p.scale) && p.scale > 0.0)) {
    return a.error(1, "scale", "must be a positive finite number, got " + std::to_string(p.scale));
  }
  if (p.zero_point < INT32_MIN || p.zero_point > INT32_MAX) {
    return a.error(2, "zero_point", "out of int32 range: " + std::to_string(p.zero_point));
  }
  if (!is_quantized_storage(qtype)) {
    return a.error(qindex, qname, std::string("expected dtype uint8, int8, int16 or int32, got ") +
                                      scalar_type_name(qtype));
  }
  if (dtype != int64_t(qtype)) {
    return a.error(5, "dtype", "dtype " + std::to_string(dtype) + " differs from the dtype of " +
                                   std::string(qname) + " (" + scalar_type_name(qtype) + ")");
  }
  int64_t lo = 0, hi = 0;
  storage_range(qtype, lo, hi);
  if (p.quant_min < lo || p.quant_max > hi || p.quant_min > p.quant_max) {
    return a.error(3, "quant_min", "range [" + std::to_string(p.quant_min) + ", " + std::to_string(p.quant_max) +
                                       "] is empty or outside " + scalar_type_name(qtype));
  }
  return p;
}

// One element: see the arithmetic in the header comment. X is float (float/half/bfloat16
// input) or double (float64 input), as upstream multiplies in the input's type.
template <typename X>
int64_t quantize_value(X x, float inv_scale, const QuantParams& p) {
  const float product = static_cast<float>(inv_scale * x);
  const float rounded = std::nearbyint(product);  // default FE_TONEAREST: ties to even
  if (std::isnan(rounded)) return p.quant_min;
  const float limit = 4.0e9f;  // beyond every quant range; keeps the int64 conversion defined
  const int64_t q = p.zero_point + static_cast<int64_t>(std::fmax(-limit, std::fmin(limit, rounded)));
  return q < p.quant_min ? p.quant_min : q > p.quant_max ? p.quant_max : q;
}

Status quantize_kernel(const char* name, bool tensor_params, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 6, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(QuantParams p, read_params(a, tensor_params, 6, "out", out->dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 6, "out", *out, input->sizes()));

  const float inv_scale = 1.0f / static_cast<float>(p.scale);
  StridedWalker<2> walk(input->sizes(), {strides_of(*out), strides_of(*input)});
  const bool is_double = input->dtype() == ScalarType::Double;
  for (int64_t n = 0; n < input->numel(); ++n, walk.next()) {
    const int64_t q = is_double
                          ? quantize_value(load_elem<double>(input->data(), input->dtype(), walk.offset(1)), inv_scale, p)
                          : quantize_value(load_elem<float>(input->data(), input->dtype(), walk.offset(1)), inv_scale, p);
    store_elem<int64_t>(out->data(), out->dtype(), walk.offset(0), q);
  }
  return Status::ok();
}

Status dequantize_kernel(const char* name, bool tensor_params, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(a.expect_count(8, 9));
  const bool has_out_dtype = a.size() == 9;
  const size_t out_index = has_out_dtype ? 7 : 6;
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  VKRT_ASSIGN_OR_RETURN(QuantParams p, read_params(a, tensor_params, 0, "input", input->dtype()));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, out_index, "out", *out));
  if (has_out_dtype) {
    VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> out_dtype, optional_int_arg(a, 6, "out_dtype"));
    if (out_dtype && *out_dtype != int64_t(out->dtype())) {
      return a.error(6, "out_dtype", "dtype " + std::to_string(*out_dtype) + " differs from out dtype " +
                                         scalar_type_name(out->dtype()));
    }
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", *out, input->sizes()));

  const int32_t zp = int32_t(p.zero_point);
  const float scale_f = static_cast<float>(p.scale);
  const bool is_double = out->dtype() == ScalarType::Double;
  StridedWalker<2> walk(input->sizes(), {strides_of(*out), strides_of(*input)});
  for (int64_t n = 0; n < input->numel(); ++n, walk.next()) {
    // int64 difference: int32 inputs minus a zero point may leave the int32 range.
    const int64_t centered = load_elem<int64_t>(input->data(), input->dtype(), walk.offset(1)) - zp;
    if (is_double) {
      store_elem<double>(out->data(), out->dtype(), walk.offset(0), double(centered) * p.scale);
    } else {
      store_elem<float>(out->data(), out->dtype(), walk.offset(0), float(centered) * scale_f);
    }
  }
  return Status::ok();
}

Status quantize_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_kernel("quantized_decomposed::quantize_per_tensor.out", false, args);
}
Status quantize_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_kernel("quantized_decomposed::quantize_per_tensor.tensor_out", true, args);
}
Status dequantize_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_kernel("quantized_decomposed::dequantize_per_tensor.out", false, args);
}
Status dequantize_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_kernel("quantized_decomposed::dequantize_per_tensor.tensor_out", true, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_tensor.out", quantize_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_tensor.tensor_out", quantize_tensor_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_tensor.out", dequantize_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_tensor.tensor_out", dequantize_tensor_out);

}  // namespace vkrt::portable
