// cortex_m::quantized_div.out. Non-finite products (huge output_scale) are clamped like any
// other out-of-range value; NaN cannot arise (0/0 is defined as 0 above, and 0·inf is avoided
// by clamping the scale to the float range at argument time).
#include "cortex_m/quantized_div.h"

#include <cmath>
#include <limits>

#include "cortex_m/binary_args.h"

namespace vkrt::cortex_m {

namespace {
template <typename T>
void div(const DivParams& p, const ChannelBroadcast& shape, const T* in1, const T* in2, T* out) {
  constexpr float lo = float(std::numeric_limits<T>::min()), hi = float(std::numeric_limits<T>::max());
  for (int64_t i = 0; i < shape.size; ++i) {
    const int32_t num = int32_t(in1[shape.index1(i)]) - p.input1_zero_point;
    const int32_t den = int32_t(in2[shape.index2(i)]) - p.input2_zero_point;
    const float quotient = den != 0 ? float(num) / float(den) : 0.0f;
    float r = std::roundf(quotient * p.output_scale) + float(p.output_zero_point);
    if (std::isnan(r)) r = float(p.output_zero_point);
    r = r < lo ? lo : (r > hi ? hi : r);
    out[i] = T(r);
  }
}
}  // namespace

void div_s8(const DivParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out) {
  div(p, shape, in1, in2, out);
}
void div_s16(const DivParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out) {
  div(p, shape, in1, in2, out);
}

namespace {

// quantized_div(self, self_zero_point, other, other_zero_point, output_zero_point,
//   output_scale (Double), out) + return: 8 arguments.
constexpr char kDivOp[] = "cortex_m::quantized_div.out";
using DivCall = BinaryCall<DivParams>;

Result<DivCall> parse_div_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(8, 8));
  DivCall c;
  VKRT_RETURN_IF_ERROR(binary_tensors(args, 0, 2, 6, &c.self, &c.other, &c.out));
  DivParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(p.input1_zero_point, int_arg(args, 1, "self_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.input2_zero_point, int_arg(args, 3, "other_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_zero_point, int_arg(args, 4, "output_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(double scale, args.double_value(5, "output_scale"));
  if (!std::isfinite(scale) || std::fabs(scale) > double(std::numeric_limits<float>::max()))
    return args.error(5, "output_scale", "must be a finite float32 value");
  p.output_scale = float(scale);
  VKRT_ASSIGN_OR_RETURN(c.shape, channel_broadcast(args, 0, *c.self, 2, *c.other, 6, *c.out));
  return c;
}

Status quantized_div_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kDivOp, argv);
  VKRT_ASSIGN_OR_RETURN(DivCall c, prepared_or_parse(ctx, args, parse_div_call));
  VKRT_RETURN_IF_ERROR(binary_data(args, 0, 2, 6, *c.self, *c.other, *c.out));
  if (c.s16())
    div_s16(c.p, c.shape, c.self->data_as<int16_t>(), c.other->data_as<int16_t>(), c.out->data_as<int16_t>());
  else
    div_s8(c.p, c.shape, c.self->data_as<int8_t>(), c.other->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kDivOp, quantized_div_out, (prepare_parsed<kDivOp, parse_div_call>));

}  // namespace vkrt::cortex_m
