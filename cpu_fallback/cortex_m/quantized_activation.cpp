// cortex_m::quantized_activation.out: out[i] = lut[in[i] + 128].
#include "cortex_m/data_movement.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

void activation_lut_s8(const int8_t* input, int64_t count, const int8_t* lut, int8_t* output) {
  for (int64_t i = 0; i < count; ++i) output[i] = lut[int32_t(input[i]) + 128];
}

namespace {

// quantized_activation(input, lut, out) + return: 4 arguments.
constexpr char kActivationOp[] = "cortex_m::quantized_activation.out";

struct ActivationCall {
  Tensor* input = nullptr;
  Tensor* lut = nullptr;
  Tensor* out = nullptr;
};

Result<ActivationCall> parse_activation_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(4, 4));
  ActivationCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.lut, args.tensor(1, "lut"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(2, "out"));
  const Tensor* input = c.input;
  Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "lut", *c.lut, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 2, "out", *out, {ScalarType::Char}));
  if (c.lut->numel() != 256) return args.error(1, "lut", "expected 256 entries, got " + std::to_string(c.lut->numel()));
  // As upstream: only the element counts must agree; element i of the input's memory maps to
  // element i of the output's memory (a DYNAMIC_BOUND out takes the input's sizes).
  if (out->dynamism() != ShapeDynamism::Static) VKRT_RETURN_IF_ERROR(output_sizes(args, 2, *out, input->sizes()));
  if (out->numel() != input->numel())
    return args.error(2, "out", "expected " + std::to_string(input->numel()) + " elements (the input's), got " +
                                    std::to_string(out->numel()));
  return c;
}

Status quantized_activation_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kActivationOp, argv);
  VKRT_ASSIGN_OR_RETURN(ActivationCall c, prepared_or_parse(ctx, args, parse_activation_call));
  VKRT_RETURN_IF_ERROR(output_memory(args, 2, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "lut", *c.lut));
  activation_lut_s8(c.input->data_as<int8_t>(), c.input->numel(), c.lut->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kActivationOp, quantized_activation_out,
                                  (prepare_parsed<kActivationOp, parse_activation_call>));

}  // namespace vkrt::cortex_m
