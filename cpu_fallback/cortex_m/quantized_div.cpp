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
Status quantized_div_out(KernelContext&, std::span<EValue* const> argv) {
  const KernelArgs args("cortex_m::quantized_div.out", argv);
  VKRT_RETURN_IF_ERROR(args.expect_count(8, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, args.tensor(0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, args.tensor(2, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, args.tensor(6, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "self", *self, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 2, "other", *other, {self->dtype()}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 6, "out", *out, {self->dtype()}));
  DivParams p;
  VKRT_ASSIGN_OR_RETURN(p.input1_zero_point, int_arg(args, 1, "self_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.input2_zero_point, int_arg(args, 3, "other_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_zero_point, int_arg(args, 4, "output_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(double scale, args.double_value(5, "output_scale"));
  if (!std::isfinite(scale) || std::fabs(scale) > double(std::numeric_limits<float>::max()))
    return args.error(5, "output_scale", "must be a finite float32 value");
  p.output_scale = float(scale);
  VKRT_ASSIGN_OR_RETURN(ChannelBroadcast shape, channel_broadcast(args, 0, *self, 2, *other, 6, *out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_data(args, 2, "other", *other));
  if (self->dtype() == ScalarType::Short)
    div_s16(p, shape, self->data_as<int16_t>(), other->data_as<int16_t>(), out->data_as<int16_t>());
  else
    div_s8(p, shape, self->data_as<int8_t>(), other->data_as<int8_t>(), out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("cortex_m::quantized_div.out", quantized_div_out);

}  // namespace vkrt::cortex_m
