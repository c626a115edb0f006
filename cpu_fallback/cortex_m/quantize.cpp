// cortex_m::quantize_per_tensor.out and cortex_m::dequantize_per_tensor.out (the pair shares
// parameters and argument parsing).
#include "cortex_m/quantize.h"

#include <cmath>

#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

template <typename T>
void quantize(const QuantizeParams& p, const float* input, int64_t count, T* output) {
  const float inverse = 1.0f / p.scale;
  for (int64_t i = 0; i < count; ++i) {
    float v = std::nearbyint(inverse * input[i]);
    if (std::isnan(v)) v = 0.0f;
    v = v < -2147483648.0f ? -2147483648.0f : (v > 2147483520.0f ? 2147483520.0f : v);
    int64_t q = int64_t(p.zero_point) + int64_t(v);
    // max with quant_min, then min with quant_max, as upstream (so quant_min > quant_max gives
    // quant_max, as on the device).
    q = q < p.quant_min ? p.quant_min : q;
    q = q > p.quant_max ? p.quant_max : q;
    output[i] = T(q);
  }
}

template <typename T>
void dequantize(const QuantizeParams& p, const T* input, int64_t count, float* output) {
  for (int64_t i = 0; i < count; ++i) output[i] = float(int32_t(input[i]) - p.zero_point) * p.scale;
}

// (input, scale, zero_point, quant_min, quant_max, dtype, out) + return: 8 arguments.
constexpr char kQuantizeOp[] = "cortex_m::quantize_per_tensor.out";
constexpr char kDequantizeOp[] = "cortex_m::dequantize_per_tensor.out";

struct QuantizeCall {
  QuantizeParams p;
  Tensor* input = nullptr;
  Tensor* out = nullptr;
};

template <bool quantizing>
Result<QuantizeCall> parse_quantize_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(8, 8));
  QuantizeCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(6, "out"));
  VKRT_ASSIGN_OR_RETURN(double scale, args.double_value(1, "scale"));
  if (!(std::fabs(scale) <= 3.4e38) || float(scale) == 0.0f)
    return args.error(1, "scale", "must be a finite non-zero float32 value");
  c.p.scale = float(scale);
  VKRT_ASSIGN_OR_RETURN(int64_t dtype, args.int_value(5, "dtype"));
  if (dtype != int64_t(ScalarType::Char) && dtype != int64_t(ScalarType::Short))
    return args.error(5, "dtype", "expected int8 (1) or int16 (2)");
  const ScalarType q = ScalarType(dtype);
  const int32_t lo = q == ScalarType::Short ? -32768 : -128, hi = q == ScalarType::Short ? 32767 : 127;
  // Upstream's checks: quant_min and quant_max within the dtype; when dequantizing, also
  // quant_min <= zero_point <= quant_max. A quantize zero point is any int32 (the sum is
  // computed in 64 bits and clamped).
  VKRT_ASSIGN_OR_RETURN(c.p.quant_min, int_arg(args, 3, "quant_min", lo, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(c.p.quant_max, int_arg(args, 4, "quant_max", INT32_MIN, hi));
  if (quantizing) {
    VKRT_ASSIGN_OR_RETURN(c.p.zero_point, int_arg(args, 2, "zero_point", INT32_MIN, INT32_MAX));
  } else {
    VKRT_ASSIGN_OR_RETURN(c.p.zero_point, int_arg(args, 2, "zero_point", c.p.quant_min, c.p.quant_max));
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *c.input, {quantizing ? ScalarType::Float : q}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 6, "out", *c.out, {quantizing ? q : ScalarType::Float}));
  VKRT_RETURN_IF_ERROR(output_sizes(args, 6, *c.out, c.input->sizes()));
  // No dim-order check, as upstream (op_quantize_per_tensor.cpp, op_dequantize_per_tensor.cpp):
  // element i of the input's memory goes to element i of the output's memory. The Cortex-M
  // flow writes e.g. a contiguous [1,1,49,10] input quantized into dim_order [0,2,1,3], where
  // both hold the same bytes; for orders that do not, this computes what the device computes.
  return c;
}

// Execute's side of both kernels: the parsed call and its tensors' memory.
template <bool quantizing>
Result<QuantizeCall> quantize_call(const KernelContext& ctx, const KernelArgs& args) {
  VKRT_ASSIGN_OR_RETURN(QuantizeCall c, prepared_or_parse(ctx, args, parse_quantize_call<quantizing>));
  VKRT_RETURN_IF_ERROR(output_memory(args, 6, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  return c;
}

Status quantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kQuantizeOp, argv);
  VKRT_ASSIGN_OR_RETURN(QuantizeCall c, quantize_call<true>(ctx, args));
  const QuantizeParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  if (out->dtype() == ScalarType::Short)
    quantize_f32_s16(p, input->data_as<float>(), input->numel(), out->data_as<int16_t>());
  else
    quantize_f32_s8(p, input->data_as<float>(), input->numel(), out->data_as<int8_t>());
  return Status::ok();
}

Status dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kDequantizeOp, argv);
  VKRT_ASSIGN_OR_RETURN(QuantizeCall c, quantize_call<false>(ctx, args));
  const QuantizeParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  if (input->dtype() == ScalarType::Short)
    dequantize_s16_f32(p, input->data_as<int16_t>(), input->numel(), out->data_as<float>());
  else
    dequantize_s8_f32(p, input->data_as<int8_t>(), input->numel(), out->data_as<float>());
  return Status::ok();
}

}  // namespace

void quantize_f32_s8(const QuantizeParams& p, const float* input, int64_t count, int8_t* output) {
  quantize(p, input, count, output);
}
void quantize_f32_s16(const QuantizeParams& p, const float* input, int64_t count, int16_t* output) {
  quantize(p, input, count, output);
}
void dequantize_s8_f32(const QuantizeParams& p, const int8_t* input, int64_t count, float* output) {
  dequantize(p, input, count, output);
}
void dequantize_s16_f32(const QuantizeParams& p, const int16_t* input, int64_t count, float* output) {
  dequantize(p, input, count, output);
}

VKRT_REGISTER_KERNEL_WITH_PREPARE(kQuantizeOp, quantize_per_tensor_out,
                                  (prepare_parsed<kQuantizeOp, parse_quantize_call<true>>));
VKRT_REGISTER_KERNEL_WITH_PREPARE(kDequantizeOp, dequantize_per_tensor_out,
                                  (prepare_parsed<kDequantizeOp, parse_quantize_call<false>>));

}  // namespace vkrt::cortex_m
