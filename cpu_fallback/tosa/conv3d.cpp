// CONV3D (tosa.md §6): CONV2D with a depth axis. Input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC].
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "CONV3D";

template <typename TIn>
void conv3d_impl(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                 const TensorRef& output) {
  using P = ConvPolicy<TIn>;
  using Acc = typename P::Acc;
  const TIn* in = input.as<const TIn>();
  const typename P::Weight* w = weight.as<const typename P::Weight>();
  const typename P::Out* b = bias.as<const typename P::Out>();
  typename P::Out* out = output.as<typename P::Out>();
  const int64_t N = input.dim(0), ID = input.dim(1), IH = input.dim(2), IW = input.dim(3), IC = input.dim(4);
  const int64_t OC = weight.dim(0), KD = weight.dim(1), KH = weight.dim(2), KW = weight.dim(3);
  const int64_t OD = output.dim(1), OH = output.dim(2), OW = output.dim(3);
  const bool bias_per_channel = bias.dim(0) == OC;
  const Acc in_zp = Acc(a.input_zp), w_zp = Acc(a.weight_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox)
          for (int64_t oc = 0; oc < OC; ++oc) {
            Acc acc = 0;
            for (int64_t kd = 0; kd < KD; ++kd) {
              const int64_t z = od * a.stride[0] - a.pad[0] + kd * a.dilation[0];
              if (z < 0 || z >= ID) continue;
              for (int64_t ky = 0; ky < KH; ++ky) {
                const int64_t y = oy * a.stride[1] - a.pad[2] + ky * a.dilation[1];
                if (y < 0 || y >= IH) continue;
                for (int64_t kx = 0; kx < KW; ++kx) {
                  const int64_t x = ox * a.stride[2] - a.pad[4] + kx * a.dilation[2];
                  if (x < 0 || x >= IW) continue;
                  const TIn* in_px = in + (((n * ID + z) * IH + y) * IW + x) * IC;
                  const auto* w_px = w + (((oc * KD + kd) * KH + ky) * KW + kx) * IC;
                  for (int64_t ic = 0; ic < IC; ++ic)
                    acc = P::add(acc, (Acc(in_px[ic]) - in_zp) * (Acc(w_px[ic]) - w_zp));
                }
              }
            }
            out[(((n * OD + od) * OH + oy) * OW + ox) * OC + oc] = P::finish(acc, b[bias_per_channel ? oc : 0]);
          }
}

}  // namespace

Status check_conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                    const TensorRef& output) {
  for (int i = 0; i < 6; ++i)
    if (a.pad[i] < 0 || a.pad[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": pad[", i, "] = ", a.pad[i], " out of range");
  for (int i = 0; i < 3; ++i) {
    if (a.stride[i] < 1 || a.stride[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": stride[", i, "] = ", a.stride[i], " out of range");
    if (a.dilation[i] < 1 || a.dilation[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": dilation[", i, "] = ", a.dilation[i], " out of range");
  }
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "weight", weight));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "weight", weight, 5));
  VKRT_RETURN_IF_ERROR(check_conv_operands(kOp, input, weight, bias, output, a.acc_type, a.input_zp, a.weight_zp,
                                           weight.dim(0), 5));
  if (weight.dim(4) != input.dim(4))
    return make_error(Error::InvalidArgument, kOp, ": weight ", shape_string(weight.shape), " has ", weight.dim(4),
                      " input channels, input ", shape_string(input.shape), " has ", input.dim(4));
  int64_t expected[5] = {input.dim(0), 0, 0, 0, weight.dim(0)};
  for (int i = 0; i < 3; ++i) {
    const int64_t k = weight.dim(1 + i);
    if (k > kMaxWindowParam) return make_error(Error::InvalidArgument, kOp, ": kernel dim ", i, " too large");
    expected[1 + i] = window_output_size(input.dim(1 + i), a.pad[2 * i], a.pad[2 * i + 1], k, a.dilation[i], a.stride[i]);
    if (expected[1 + i] < 1)
      return make_error(Error::InvalidArgument, kOp, ": input ", shape_string(input.shape), " with kernel ",
                        shape_string(weight.shape), " and the given pad/stride/dilation has no exact output size (axis ",
                        i, ")");
  }
  return expect_shape(kOp, "output", output, expected);
}

Status conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
              const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_conv3d(input, weight, bias, attrs, output));
  switch (input.dtype) {
    case DType::Int8: conv3d_impl<int8_t>(input, weight, bias, attrs, output); break;
    case DType::Int16: conv3d_impl<int16_t>(input, weight, bias, attrs, output); break;
    default: conv3d_impl<float>(input, weight, bias, attrs, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
