// cortex_m::quantized_mul.out. Raw zero points in the program (negated here); the activation
// range is fixed to the dtype's range.
#include "cortex_m/quantized_mul.h"

#include "arith/fixed_point.h"
#include "cortex_m/binary_args.h"

namespace vkrt::cortex_m {

namespace {
template <typename T>
void mul(const MulParams& p, const ChannelBroadcast& shape, const T* in1, const T* in2, T* out) {
  for (int64_t i = 0; i < shape.size; ++i) {
    const int32_t prod = arith::wrap_mul(int32_t(in1[shape.index1(i)]) + p.input1_offset,
                                         int32_t(in2[shape.index2(i)]) + p.input2_offset);
    const int32_t v = arith::requantize(prod, p.output_multiplier, p.output_shift);
    out[i] = T(arith::clamp_activation(arith::wrap_add(v, p.output_offset), p.activation_min, p.activation_max));
  }
}
}  // namespace

void mul_s8(const MulParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out) {
  mul(p, shape, in1, in2, out);
}
void mul_s16(const MulParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out) {
  mul(p, shape, in1, in2, out);
}

namespace {

// quantized_mul(self, self_zero_point, other, other_zero_point, output_zero_point,
//   output_multiplier, output_shift, out) + return: 9 arguments.
constexpr char kMulOp[] = "cortex_m::quantized_mul.out";
using MulCall = BinaryCall<MulParams>;

Result<MulCall> parse_mul_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(9, 9));
  MulCall c;
  VKRT_RETURN_IF_ERROR(binary_tensors(args, 0, 2, 7, &c.self, &c.other, &c.out));
  const bool s16 = c.s16();
  MulParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(int32_t zp1, int_arg(args, 1, "self_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(int32_t zp2, int_arg(args, 3, "other_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 4, "output_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_multiplier, int_arg(args, 5, "output_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.output_shift, int_arg(args, 6, "output_shift", -31, 30));
  p.input1_offset = -zp1;
  p.input2_offset = -zp2;
  p.activation_min = s16 ? -32768 : -128;
  p.activation_max = s16 ? 32767 : 127;
  VKRT_ASSIGN_OR_RETURN(c.shape, channel_broadcast(args, 0, *c.self, 2, *c.other, 7, *c.out));
  return c;
}

Status quantized_mul_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kMulOp, argv);
  VKRT_ASSIGN_OR_RETURN(MulCall c, prepared_or_parse(ctx, args, parse_mul_call));
  VKRT_RETURN_IF_ERROR(binary_data(args, 0, 2, 7, *c.self, *c.other, *c.out));
  if (c.s16())
    mul_s16(c.p, c.shape, c.self->data_as<int16_t>(), c.other->data_as<int16_t>(), c.out->data_as<int16_t>());
  else
    mul_s8(c.p, c.shape, c.self->data_as<int8_t>(), c.other->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kMulOp, quantized_mul_out, (prepare_parsed<kMulOp, parse_mul_call>));

}  // namespace vkrt::cortex_m
