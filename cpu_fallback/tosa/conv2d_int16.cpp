// int16 CONV2D and DEPTHWISE_CONV2D (tosa.md §6) on the compute core's A16W8 convolutions
// (cpu_fallback/compute/conv_s16.h): int16 activations (zero point 0), int8 weights less their
// zero point, each output's products summed exactly in int64, then TOSA's int48 accumulator:
//   out = clamp48(clamp48(Σ x·(w − weight_zp)) + clamp48(bias))
// as ConvPolicy<int16_t> defines it for the reference loops. The reference loops' int64 sum
// wraps where it would overflow; the exact sum of any shape these kernels take stays far inside
// int64 (|x·(w − zp)| < 2^23 per product, fewer than 2^40 products), so both are the same.
#include <cstdint>

#include "compute/conv_s16.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "vkrt/kernel.h"

namespace vkrt::tosa::detail {
namespace {

// The compute core takes int32 sizes; false where a dimension does not fit (the reference loops
// then run).
bool shape_of(const TensorRef& input, const TensorRef& output, int64_t kh, int64_t kw, const ConvAttr& a,
              compute::ConvS16Shape* s) {
  for (int i = 0; i < 4; ++i)
    if (input.dim(i) > INT32_MAX || output.dim(i) > INT32_MAX) return false;
  if (kh > INT32_MAX || kw > INT32_MAX) return false;
  s->batches = int32_t(input.dim(0)), s->in_h = int32_t(input.dim(1)), s->in_w = int32_t(input.dim(2));
  s->in_ch = int32_t(input.dim(3));
  s->out_h = int32_t(output.dim(1)), s->out_w = int32_t(output.dim(2)), s->out_ch = int32_t(output.dim(3));
  s->kernel_h = int32_t(kh), s->kernel_w = int32_t(kw);
  s->stride_h = a.stride[0], s->stride_w = a.stride[1];
  s->pad_top = a.pad[0], s->pad_left = a.pad[2];
  s->dilation_h = a.dilation[0], s->dilation_w = a.dilation[1];
  return true;
}

compute::ConvS16 int48_conv(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                            const TensorRef& output, const compute::ConvS16Shape& s) {
  compute::ConvS16 c;
  c.shape = s;
  c.input = input.as<const int16_t>();
  c.weight = weight.as<const int8_t>();
  c.weight_zero_point = a.weight_zp;
  c.out.stage = compute::S16OutputStage::kInt48;
  c.out.bias64 = bias.as<const int64_t>();
  c.out.bias_per_channel = bias.dim(0) == s.out_ch;
  c.out.out64 = output.as<int64_t>();
  return c;
}

bool conv2d_shape(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs, const TensorRef& output,
                  compute::ConvS16Shape* s) {
  return input.dtype == DType::Int16 && shape_of(input, output, weight.dim(1), weight.dim(2), attrs, s);
}

}  // namespace

size_t conv2d_int16_scratch_bytes(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs,
                                  const TensorRef& output, int threads) {
  compute::ConvS16Shape s;
  return conv2d_shape(input, weight, attrs, output, &s) ? compute::conv_s16_scratch_bytes(s, threads) : 0;
}

bool conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                  const TensorRef& output, ParallelRunner* runner, std::span<uint8_t> scratch) {
  compute::ConvS16Shape s;
  if (!conv2d_shape(input, weight, attrs, output, &s)) return false;
  compute::conv_s16(int48_conv(input, weight, bias, attrs, output, s), compute::Exec{scratch, runner});
  return true;
}

bool depthwise_conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner) {
  compute::ConvS16Shape s;
  // Weights [KH, KW, C, M]: output channel c·M + m, as the core's depthwise layout.
  if (input.dtype != DType::Int16 || weight.dim(3) > INT32_MAX ||
      !shape_of(input, output, weight.dim(0), weight.dim(1), attrs, &s))
    return false;
  s.ch_mult = int32_t(weight.dim(3));
  compute::depthwise_s16(int48_conv(input, weight, bias, attrs, output, s), compute::Exec{{}, runner});
  return true;
}

}  // namespace vkrt::tosa::detail
