// cortex_m::pad.out (arm_pad_s8): pre_pad/post_pad are already in physical NHWC order (§2).
#include <cstring>

#include "cortex_m/data_movement.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

void pad_s8(const PadParams& p, const int8_t* input, int8_t* output) {
  std::array<int64_t, 4> od;
  for (int d = 0; d < 4; ++d) od[d] = int64_t(p.pre[d]) + p.in_dims[d] + p.post[d];
  const int64_t total = od[0] * od[1] * od[2] * od[3];
  std::memset(output, p.pad_value, size_t(total));
  const int64_t row = p.in_dims[3];
  for (int64_t n = 0; n < p.in_dims[0]; ++n)
    for (int64_t h = 0; h < p.in_dims[1]; ++h)
      for (int64_t w = 0; w < p.in_dims[2]; ++w) {
        const int64_t dst = (((n + p.pre[0]) * od[1] + h + p.pre[1]) * od[2] + w + p.pre[2]) * od[3] + p.pre[3];
        std::memcpy(output + dst, input + ((n * p.in_dims[1] + h) * p.in_dims[2] + w) * row, size_t(row));
      }
}

namespace {

// pad(input, pre_pad[4], post_pad[4], pad_value, out) + return: 6 arguments.
constexpr char kPadOp[] = "cortex_m::pad.out";

struct PadCall {
  PadParams p;
  Tensor* input = nullptr;
  Tensor* out = nullptr;
};

Result<PadCall> parse_pad_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(6, 6));
  PadCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(4, "out"));
  const Tensor* input = c.input;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 4, "out", *out, {ScalarType::Char}));
  if (input->rank() > 4) return args.error(0, "input", "rank above 4");
  PadParams& p = c.p;
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 1, "pre_pad", p.pre, 0, INT32_MAX / 4));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 2, "post_pad", p.post, 0, INT32_MAX / 4));
  VKRT_ASSIGN_OR_RETURN(int32_t value, int_arg(args, 3, "pad_value", -128, 127));
  p.pad_value = int8_t(value);
  p.in_dims = physical_dims4(*input);
  // Output physical dims must be the padded ones.
  if (out->rank() != input->rank() ||
      !std::equal(out->dim_order().begin(), out->dim_order().end(), input->dim_order().begin()))
    return args.error(4, "out", "expected the input's rank and memory order");
  const auto od = physical_dims4(*out);
  for (int d = 0; d < 4; ++d) {
    if (int64_t(od[d]) != int64_t(p.pre[d]) + p.in_dims[d] + p.post[d])
      return args.error(4, "out", "size in memory dim " + std::to_string(d) + " is " + std::to_string(od[d]) +
                                      ", expected pre + input + post = " +
                                      std::to_string(int64_t(p.pre[d]) + p.in_dims[d] + p.post[d]));
  }
  return c;
}

Status pad_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kPadOp, argv);
  VKRT_ASSIGN_OR_RETURN(PadCall c, prepared_or_parse(ctx, args, parse_pad_call));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 4, "out", *c.out));
  pad_s8(c.p, c.input->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kPadOp, pad_out, (prepare_parsed<kPadOp, parse_pad_call>));

}  // namespace vkrt::cortex_m
