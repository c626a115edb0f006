// CONV2D and DEPTHWISE_CONV2D (tosa.md §6): checks, and the reference loops (int8 CONV2D runs
// on the compute core's GEMM, conv2d_int8.cpp, given scratch; int8 DEPTHWISE_CONV2D on its
// depthwise engine, depthwise_int8.cpp; fp32 on conv2d_fp32.cpp's paths; int16 on the compute
// core's A16W8 convolutions, conv2d_int16.cpp). The loops here are the oracle the tests compare
// those paths with.
#include <algorithm>

#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace detail {

Status check_zero_point(const char* op, const char* what, DType type, int64_t zp) {
  if (type == DType::Int8) {
    if (zp < INT8_MIN || zp > INT8_MAX)
      return make_error(Error::InvalidArgument, op, ": ", what, " ", zp, " is outside the int8 range");
  } else if (zp != 0) {
    return make_error(Error::InvalidArgument, op, ": ", what, " must be 0 for ", dtype_name(type),
                      ", got ", zp);
  }
  return Status::ok();
}

Status check_conv_operands(const char* op, const TensorRef& input, const TensorRef& weight,
                           const TensorRef& bias, const TensorRef& output, AccType acc_type,
                           int64_t input_zp, int64_t weight_zp, int64_t out_channels, int rank) {
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "weight", weight));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "bias", bias));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "input", input, rank));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "weight", weight, rank));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "bias", bias, 1));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "output", output, rank));
  // Supported combinations (input, weight, output/bias, acc_type).
  DType want_weight, want_out, want_acc;
  switch (input.dtype) {
    case DType::Int8: want_weight = DType::Int8; want_out = DType::Int32; want_acc = DType::Int32; break;
    case DType::Int16: want_weight = DType::Int8; want_out = DType::Int48; want_acc = DType::Int48; break;
    case DType::Fp32: want_weight = DType::Fp32; want_out = DType::Fp32; want_acc = DType::Fp32; break;
    default:
      return make_error(Error::NotSupported, op, ": input dtype ", dtype_name(input.dtype),
                        " not supported (int8, int16, fp32)");
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "weight", weight, want_weight));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "bias", bias, want_out));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, want_out));
  if (acc_dtype(acc_type) != want_acc)
    return make_error(Error::InvalidArgument, op, ": acc_type ", dtype_name(acc_dtype(acc_type)), " with ",
                      dtype_name(input.dtype), " input (expected ", dtype_name(want_acc), ")");
  VKRT_RETURN_IF_ERROR(check_zero_point(op, "input_zp", input.dtype, input_zp));
  VKRT_RETURN_IF_ERROR(check_zero_point(op, "weight_zp", weight.dtype, weight_zp));
  if (bias.dim(0) != out_channels && bias.dim(0) != 1)
    return make_error(Error::InvalidArgument, op, ": bias has ", bias.dim(0), " elements, expected ",
                      out_channels, " or 1");
  return Status::ok();
}

namespace {

Status check_window_attrs(const char* op, const ConvAttr& a) {
  for (int i = 0; i < 4; ++i)
    if (a.pad[i] < 0 || a.pad[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, op, ": pad[", i, "] = ", a.pad[i], " out of range");
  for (int i = 0; i < 2; ++i) {
    if (a.stride[i] < 1 || a.stride[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, op, ": stride[", i, "] = ", a.stride[i], " out of range");
    if (a.dilation[i] < 1 || a.dilation[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, op, ": dilation[", i, "] = ", a.dilation[i],
                        " out of range");
  }
  return Status::ok();
}

// Expected output [N, OH, OW, channels] of a CONV2D-style window over `input` with kernel kh x kw.
Status check_conv_output(const char* op, const TensorRef& input, int64_t kh, int64_t kw,
                         const ConvAttr& a, int64_t channels, const TensorRef& output) {
  if (kh > kMaxWindowParam || kw > kMaxWindowParam)
    return make_error(Error::InvalidArgument, op, ": kernel ", kh, "x", kw, " too large");
  const int64_t oh = window_output_size(input.dim(1), a.pad[0], a.pad[1], kh, a.dilation[0], a.stride[0]);
  const int64_t ow = window_output_size(input.dim(2), a.pad[2], a.pad[3], kw, a.dilation[1], a.stride[1]);
  if (oh < 1 || ow < 1)
    return make_error(Error::InvalidArgument, op, ": input ", shape_string(input.shape), " with kernel ",
                      kh, "x", kw, ", pad/stride/dilation gives no exact output size (",
                      "(in - 1 + pads - (k - 1) * dilation) must be >= 0 and divisible by stride)");
  const int64_t expected[4] = {input.dim(0), oh, ow, channels};
  return expect_shape(op, "output", output, expected);
}

template <typename TIn>
void conv2d_impl(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                 const ConvAttr& a, const TensorRef& output) {
  using P = ConvPolicy<TIn>;
  const TIn* in = input.as<const TIn>();
  const typename P::Weight* w = weight.as<const typename P::Weight>();
  const typename P::Out* b = bias.as<const typename P::Out>();
  typename P::Out* out = output.as<typename P::Out>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), IC = input.dim(3);
  const int64_t OC = weight.dim(0), KH = weight.dim(1), KW = weight.dim(2);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const bool bias_per_channel = bias.dim(0) == OC;
  const typename P::Acc in_zp = typename P::Acc(a.input_zp), w_zp = typename P::Acc(a.weight_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t oc = 0; oc < OC; ++oc) {
          typename P::Acc acc = 0;
          for (int64_t ky = 0; ky < KH; ++ky) {
            const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
            if (y < 0 || y >= IH) continue;  // padding taps contribute nothing
            for (int64_t kx = 0; kx < KW; ++kx) {
              const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
              if (x < 0 || x >= IW) continue;
              const TIn* in_px = in + ((n * IH + y) * IW + x) * IC;
              const auto* w_px = w + ((oc * KH + ky) * KW + kx) * IC;
              for (int64_t ic = 0; ic < IC; ++ic)
                acc = P::add(acc, (typename P::Acc(in_px[ic]) - in_zp) * (typename P::Acc(w_px[ic]) - w_zp));
            }
          }
          out[((n * OH + oy) * OW + ox) * OC + oc] = P::finish(acc, b[bias_per_channel ? oc : 0]);
        }
}

template <typename TIn>
void depthwise_impl(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                    const ConvAttr& a, const TensorRef& output) {
  using P = ConvPolicy<TIn>;
  const TIn* in = input.as<const TIn>();
  const typename P::Weight* w = weight.as<const typename P::Weight>();
  const typename P::Out* b = bias.as<const typename P::Out>();
  typename P::Out* out = output.as<typename P::Out>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t KH = weight.dim(0), KW = weight.dim(1), M = weight.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2), OC = C * M;
  const bool bias_per_channel = bias.dim(0) == OC;
  const typename P::Acc in_zp = typename P::Acc(a.input_zp), w_zp = typename P::Acc(a.weight_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t m = 0; m < M; ++m) {
            typename P::Acc acc = 0;
            for (int64_t ky = 0; ky < KH; ++ky) {
              const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
              if (y < 0 || y >= IH) continue;
              for (int64_t kx = 0; kx < KW; ++kx) {
                const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
                if (x < 0 || x >= IW) continue;
                const typename P::Acc v = typename P::Acc(in[((n * IH + y) * IW + x) * C + c]) - in_zp;
                const typename P::Acc k = typename P::Acc(w[((ky * KW + kx) * C + c) * M + m]) - w_zp;
                acc = P::add(acc, v * k);
              }
            }
            const int64_t oc = c * M + m;
            out[((n * OH + oy) * OW + ox) * OC + oc] = P::finish(acc, b[bias_per_channel ? oc : 0]);
          }
}

}  // namespace

void conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                      const ConvAttr& attrs, const TensorRef& output) {
  switch (input.dtype) {
    case DType::Int8: conv2d_impl<int8_t>(input, weight, bias, attrs, output); break;
    case DType::Int16: conv2d_impl<int16_t>(input, weight, bias, attrs, output); break;
    default: conv2d_impl<float>(input, weight, bias, attrs, output); break;
  }
}

void depthwise_conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& attrs, const TensorRef& output) {
  switch (input.dtype) {
    case DType::Int8: depthwise_impl<int8_t>(input, weight, bias, attrs, output); break;
    case DType::Int16: depthwise_impl<int16_t>(input, weight, bias, attrs, output); break;
    default: depthwise_impl<float>(input, weight, bias, attrs, output); break;
  }
}

}  // namespace detail

using namespace detail;

Status check_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                    const ConvAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "CONV2D";
  VKRT_RETURN_IF_ERROR(check_window_attrs(op, attrs));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "weight", weight));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "weight", weight, 4));
  VKRT_RETURN_IF_ERROR(check_conv_operands(op, input, weight, bias, output, attrs.acc_type,
                                           attrs.input_zp, attrs.weight_zp, weight.dim(0)));
  if (weight.dim(3) != input.dim(3))
    return make_error(Error::InvalidArgument, op, ": weight ", shape_string(weight.shape), " has ",
                      weight.dim(3), " input channels, input ", shape_string(input.shape), " has ",
                      input.dim(3));
  return check_conv_output(op, input, weight.dim(1), weight.dim(2), attrs, weight.dim(0), output);
}

Status conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
              const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
              const ConvResources& resources) {
  VKRT_RETURN_IF_ERROR(check_conv2d(input, weight, bias, attrs, output));
  if (!conv2d_int8_gemm(input, weight, bias, attrs, output, runner, resources) &&
      !conv2d_fp32_gemm(input, weight, bias, attrs, output, runner, resources) &&
      !conv2d_int16(input, weight, bias, attrs, output, runner, resources))
    conv2d_reference(input, weight, bias, attrs, output);
  return Status::ok();
}

Status check_depthwise_conv2d(const TensorRef& input, const TensorRef& weight,
                              const TensorRef& bias, const ConvAttr& attrs,
                              const TensorRef& output) {
  constexpr const char* op = "DEPTHWISE_CONV2D";
  VKRT_RETURN_IF_ERROR(check_window_attrs(op, attrs));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "weight", weight));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "weight", weight, 4));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "input", input, 4));
  const int64_t out_channels = weight.dim(2) * weight.dim(3);  // C * M, both bounded by check_tensor
  VKRT_RETURN_IF_ERROR(check_conv_operands(op, input, weight, bias, output, attrs.acc_type,
                                           attrs.input_zp, attrs.weight_zp, out_channels));
  if (weight.dim(2) != input.dim(3))
    return make_error(Error::InvalidArgument, op, ": weight ", shape_string(weight.shape),
                      " (layout [KH,KW,C,M]) has ", weight.dim(2), " channels, input ",
                      shape_string(input.shape), " has ", input.dim(3));
  return check_conv_output(op, input, weight.dim(0), weight.dim(1), attrs, out_channels, output);
}

Status depthwise_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                        const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
                        std::span<uint8_t> scratch) {
  VKRT_RETURN_IF_ERROR(check_depthwise_conv2d(input, weight, bias, attrs, output));
  if (!depthwise_conv2d_int8_engine(input, weight, bias, attrs, output, runner, scratch) &&
      !depthwise_conv2d_fp32(input, weight, bias, attrs, output, runner) &&
      !depthwise_conv2d_int16(input, weight, bias, attrs, output, runner))
    depthwise_conv2d_reference(input, weight, bias, attrs, output);
  return Status::ok();
}

namespace {
// The fp32 chains' checks: each op as alone, `sums` stood in for where it has no bytes.
Status check_clamp_chain(const Status& conv_check, const TensorRef& checked_sums, const ClampAttr& clamp_attrs,
                         const TensorRef& clamped) {
  VKRT_RETURN_IF_ERROR(conv_check);
  return check_clamp(checked_sums, clamp_attrs, clamped);
}
}  // namespace

bool conv2d_clamp_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                        const TensorRef& sums, const ClampAttr& clamp_attrs, const TensorRef& clamped,
                        const ConvResources& resources) {
  const TensorRef checked = chain_intermediate_for_checks(sums);
  return check_clamp_chain(check_conv2d(input, weight, bias, attrs, checked), checked, clamp_attrs, clamped).is_ok() &&
         conv2d_fp32_gemm(input, weight, bias, attrs, clamped, nullptr, resources, &clamp_attrs, Try::Probe);
}

Status conv2d_clamp(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                    const TensorRef& sums, const ClampAttr& clamp_attrs, const TensorRef& clamped,
                    ParallelRunner* runner, const ConvResources& resources) {
  const TensorRef checked = chain_intermediate_for_checks(sums);
  VKRT_RETURN_IF_ERROR(check_clamp_chain(check_conv2d(input, weight, bias, attrs, checked), checked, clamp_attrs,
                                         clamped));
  if (conv2d_fp32_gemm(input, weight, bias, attrs, clamped, runner, resources, &clamp_attrs)) return Status::ok();
  VKRT_RETURN_IF_ERROR(chain_intermediate_has_bytes("CONV2D → CLAMP", "sums", sums));
  VKRT_RETURN_IF_ERROR(conv2d(input, weight, bias, attrs, sums, runner, resources));
  return clamp(sums, clamp_attrs, clamped);
}

bool depthwise_conv2d_clamp_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                  const ConvAttr& attrs, const TensorRef& sums, const ClampAttr& clamp_attrs,
                                  const TensorRef& clamped) {
  const TensorRef checked = chain_intermediate_for_checks(sums);
  return check_clamp_chain(check_depthwise_conv2d(input, weight, bias, attrs, checked), checked, clamp_attrs, clamped)
             .is_ok() &&
         depthwise_conv2d_fp32(input, weight, bias, attrs, clamped, nullptr, &clamp_attrs, Try::Probe);
}

Status depthwise_conv2d_clamp(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                              const ConvAttr& attrs, const TensorRef& sums, const ClampAttr& clamp_attrs,
                              const TensorRef& clamped, ParallelRunner* runner, std::span<uint8_t> scratch) {
  const TensorRef checked = chain_intermediate_for_checks(sums);
  VKRT_RETURN_IF_ERROR(check_clamp_chain(check_depthwise_conv2d(input, weight, bias, attrs, checked), checked,
                                         clamp_attrs, clamped));
  if (depthwise_conv2d_fp32(input, weight, bias, attrs, clamped, runner, &clamp_attrs)) return Status::ok();
  VKRT_RETURN_IF_ERROR(chain_intermediate_has_bytes("DEPTHWISE_CONV2D → CLAMP", "sums", sums));
  VKRT_RETURN_IF_ERROR(depthwise_conv2d(input, weight, bias, attrs, sums, runner, scratch));
  return clamp(sums, clamp_attrs, clamped);
}

}  // namespace vkrt::tosa
