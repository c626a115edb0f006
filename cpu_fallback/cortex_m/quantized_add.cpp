// cortex_m::quantized_add.out. ExecuTorch stores raw zero points; the kernel passes −zp as CMSIS
// offsets with left_shift 20 (int8). int16 (A16W8) uses CMSIS's s16 form: offsets ignored, left_shift 15.
#include "cortex_m/quantized_add.h"

#include "arith/fixed_point.h"
#include "cortex_m/binary_args.h"

namespace vkrt::cortex_m {

using arith::requantize;
using arith::wrap_add;

void add_s8(const AddParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out) {
  for (int64_t i = 0; i < shape.size; ++i) {
    const int32_t a = requantize(arith::wrap_shl(int32_t(in1[shape.index1(i)]) + p.input1_offset, p.left_shift),
                                 p.input1_multiplier, p.input1_shift);
    const int32_t b = requantize(arith::wrap_shl(int32_t(in2[shape.index2(i)]) + p.input2_offset, p.left_shift),
                                 p.input2_multiplier, p.input2_shift);
    const int32_t sum = requantize(wrap_add(a, b), p.output_multiplier, p.output_shift);
    out[i] = int8_t(arith::clamp_activation(wrap_add(sum, p.output_offset), p.activation_min, p.activation_max));
  }
}

void add_s16(const AddParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out) {
  for (int64_t i = 0; i < shape.size; ++i) {
    const int32_t a = requantize(arith::wrap_shl(in1[shape.index1(i)], p.left_shift), p.input1_multiplier, p.input1_shift);
    const int32_t b = requantize(arith::wrap_shl(in2[shape.index2(i)], p.left_shift), p.input2_multiplier, p.input2_shift);
    const int32_t sum = requantize(wrap_add(a, b), p.output_multiplier, p.output_shift);
    out[i] = int16_t(arith::clamp_activation(sum, p.activation_min, p.activation_max));
  }
}

namespace {

// quantized_add(self, self_zero_point, self_multiplier, self_shift, other, other_zero_point,
//   other_multiplier, other_shift, output_zero_point, output_multiplier, output_shift,
//   activation_min, activation_max, out) + return: 15 arguments. Parsed at load (prepare_call).
constexpr char kAddOp[] = "cortex_m::quantized_add.out";
using AddCall = BinaryCall<AddParams>;

Result<AddCall> parse_add_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(15, 15));
  AddCall c;
  VKRT_RETURN_IF_ERROR(binary_tensors(args, 0, 4, 13, &c.self, &c.other, &c.out));
  const bool s16 = c.s16();
  AddParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(int32_t zp1, int_arg(args, 1, "self_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.input1_multiplier, int_arg(args, 2, "self_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.input1_shift, int_arg(args, 3, "self_shift", -31, 30));
  VKRT_ASSIGN_OR_RETURN(int32_t zp2, int_arg(args, 5, "other_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.input2_multiplier, int_arg(args, 6, "other_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.input2_shift, int_arg(args, 7, "other_shift", -31, 30));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 8, "output_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_multiplier, int_arg(args, 9, "output_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.output_shift, int_arg(args, 10, "output_shift", -31, 30));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 11, "activation_min", s16 ? -32768 : -128, s16 ? 32767 : 127));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 12, "activation_max", p.activation_min, s16 ? 32767 : 127));
  p.input1_offset = -zp1;
  p.input2_offset = -zp2;
  p.left_shift = s16 ? 15 : 20;
  VKRT_ASSIGN_OR_RETURN(c.shape, channel_broadcast(args, 0, *c.self, 4, *c.other, 13, *c.out));
  return c;
}

Status quantized_add_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kAddOp, argv);
  VKRT_ASSIGN_OR_RETURN(AddCall c, prepared_or_parse(ctx, args, parse_add_call));
  VKRT_RETURN_IF_ERROR(binary_data(args, 0, 4, 13, *c.self, *c.other, *c.out));
  if (c.s16())
    add_s16(c.p, c.shape, c.self->data_as<int16_t>(), c.other->data_as<int16_t>(), c.out->data_as<int16_t>());
  else
    add_s8(c.p, c.shape, c.self->data_as<int8_t>(), c.other->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kAddOp, quantized_add_out, (prepare_parsed<kAddOp, parse_add_call>));

}  // namespace vkrt::cortex_m
