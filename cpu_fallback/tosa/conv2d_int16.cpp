// int16 CONV2D and DEPTHWISE_CONV2D (tosa.md §6) on the compute core's A16W8 convolutions
// (cpu_fallback/compute/conv_s16.h): int16 activations (zero point 0), int8 weights less their
// zero point, each output's products summed exactly in int64, then TOSA's int48 accumulator:
//   out = clamp48(clamp48(Σ x·(w − weight_zp)) + clamp48(bias))
// as ConvPolicy<int16_t> defines it for the reference loops. The VGF CPU executor's fused chain
// CONV2D → RESCALE (scale16, to int16) → CLAMP takes the RESCALE and CLAMP as the core's output
// stage (kRescale16), so the int48 tensor is never written. The reference loops' int64 sum
// wraps where it would overflow; the exact sum of any shape these kernels take stays far inside
// int64 (|x·(w − zp)| < 2^23 per product, fewer than 2^40 products), so both are the same.
#include <cstdint>
#include <span>

#include "compute/conv_s16.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "vkrt/kernel.h"

namespace vkrt::tosa::detail {
namespace {

// The compute core takes int32 sizes, a window's products (kh·kw·channels) included; false where
// one does not fit (the reference loops then run). TOSA tensors may hold up to 2^40 elements.
bool shape_of(const TensorRef& input, const TensorRef& output, int64_t kh, int64_t kw, const ConvAttr& a,
              compute::ConvS16Shape* s) {
  for (int i = 0; i < 4; ++i)
    if (input.dim(i) > INT32_MAX || output.dim(i) > INT32_MAX) return false;
  if (kh > INT32_MAX || kw > INT32_MAX || double(kh) * double(kw) * double(input.dim(3)) > double(INT32_MAX))
    return false;
  s->batches = int32_t(input.dim(0)), s->in_h = int32_t(input.dim(1)), s->in_w = int32_t(input.dim(2));
  s->in_ch = int32_t(input.dim(3));
  s->out_h = int32_t(output.dim(1)), s->out_w = int32_t(output.dim(2)), s->out_ch = int32_t(output.dim(3));
  s->kernel_h = int32_t(kh), s->kernel_w = int32_t(kw);
  s->stride_h = a.stride[0], s->stride_w = a.stride[1];
  s->pad_top = a.pad[0], s->pad_left = a.pad[2];
  s->dilation_h = a.dilation[0], s->dilation_w = a.dilation[1];
  return true;
}

// The convolution with TOSA's int48 sums out (`output`), or, given `rescale`, with the RESCALE (and
// CLAMP) after it as the output stage instead (`output` the chain's int16 result).
compute::ConvS16 int48_conv(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                            const TensorRef& output, const compute::ConvS16Shape& s,
                            const RescaleAttr* rescale = nullptr, int32_t lo = 0, int32_t hi = 0) {
  compute::ConvS16 c;
  c.shape = s;
  c.input = input.as<const int16_t>();
  c.weight = weight.as<const int8_t>();
  c.weight_zero_point = a.weight_zp;
  c.out.bias64 = bias.as<const int64_t>();
  c.out.bias_per_channel = bias.dim(0) == s.out_ch;
  if (rescale == nullptr) {
    c.out.stage = compute::S16OutputStage::kInt48;
    c.out.out64 = output.as<int64_t>();
    return c;
  }
  c.out.stage = compute::S16OutputStage::kRescale16;
  c.out.multiplier = rescale->multiplier.data();
  c.out.rescale_shift = rescale->shift.data();
  c.out.scale_per_channel = rescale->per_channel;
  c.out.output_zp = rescale->output_zp;
  c.out.activation_min = lo, c.out.activation_max = hi;
  c.out.out16 = output.as<int16_t>();
  return c;
}

// The bounds of a RESCALE (scale16, int48 → signed int16) and CLAMP as one clamp of the rescaled
// value: false where the chain is not that, or the CLAMP's bounds are not within int16.
bool rescale16_bounds(const TensorRef& input, const RescaleAttr& r, const ClampAttr* clamp, const TensorRef& output,
                      int32_t* lo, int32_t* hi) {
  if (input.dtype != DType::Int16 || output.dtype != DType::Int16 || r.scale32 || r.input_unsigned ||
      r.output_unsigned || r.input_zp != 0)
    return false;
  int64_t low = INT16_MIN, high = INT16_MAX;
  if (clamp) {
    if (clamp->min_int < INT16_MIN || clamp->max_int > INT16_MAX || clamp->min_int > clamp->max_int) return false;
    low = clamp->min_int, high = clamp->max_int;  // clamp(saturate16(v)) with bounds inside int16
  }
  *lo = int32_t(low), *hi = int32_t(high);
  return true;
}

bool conv2d_shape(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs, const TensorRef& output,
                  compute::ConvS16Shape* s) {
  return input.dtype == DType::Int16 && shape_of(input, output, weight.dim(1), weight.dim(2), attrs, s);
}

// The shape conv_s16_pack_weights reads from the weights alone: kernel, channels (one group).
bool weights_shape(const TensorRef& weight, compute::ConvS16Shape* s) {
  if (weight.dtype != DType::Int8 || weight.rank() != 4) return false;
  for (int i = 0; i < 4; ++i)
    if (weight.dim(i) > INT32_MAX) return false;
  s->out_ch = int32_t(weight.dim(0)), s->kernel_h = int32_t(weight.dim(1)), s->kernel_w = int32_t(weight.dim(2));
  s->in_ch = int32_t(weight.dim(3));
  return true;
}

const compute::ConvS16PackedWeights* packed_of(const void* packed_weights) {
  return static_cast<const compute::ConvS16PackedWeights*>(packed_weights);
}

}  // namespace

size_t conv2d_int16_packed_weights_bytes(const TensorRef& weight) {
  compute::ConvS16Shape s;
  return weights_shape(weight, &s) ? compute::conv_s16_packed_weights_bytes(s) : 0;
}

const void* conv2d_int16_pack_weights(const TensorRef& weight, const ConvAttr& attrs, std::span<uint8_t> memory) {
  compute::ConvS16 c;
  if (!weights_shape(weight, &c.shape)) return nullptr;
  c.weight = weight.as<const int8_t>();
  c.weight_zero_point = attrs.weight_zp;
  return compute::conv_s16_pack_weights(c, memory);
}

size_t conv2d_int16_scratch_bytes(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs,
                                  const TensorRef& output, int threads, const void* packed_weights) {
  compute::ConvS16Shape s;
  return conv2d_shape(input, weight, attrs, output, &s)
             ? compute::conv_s16_scratch_bytes(s, threads, packed_of(packed_weights))
             : 0;
}

bool conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                  const TensorRef& output, ParallelRunner* runner, const ConvResources& resources) {
  compute::ConvS16Shape s;
  if (!conv2d_shape(input, weight, attrs, output, &s)) return false;
  compute::ConvS16 c = int48_conv(input, weight, bias, attrs, output, s);
  c.packed = packed_of(resources.packed_weights);
  compute::conv_s16(c, compute::Exec{resources.scratch, runner});
  return true;
}

bool conv2d_int16_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                          const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale,
                          const ClampAttr* clamp, const TensorRef& output, ParallelRunner* runner,
                          const ConvResources& resources, Try mode) {
  compute::ConvS16Shape s;
  int32_t lo, hi;
  if (!rescale16_bounds(input, rescale, clamp, output, &lo, &hi) || !conv2d_shape(input, weight, attrs, sums, &s))
    return false;
  if (mode == Try::Probe) return true;
  compute::ConvS16 c = int48_conv(input, weight, bias, attrs, output, s, &rescale, lo, hi);
  c.packed = packed_of(resources.packed_weights);
  compute::conv_s16(c, compute::Exec{resources.scratch, runner});
  return true;
}

namespace {
// DEPTHWISE_CONV2D's shape: weights [KH, KW, C, M], output channel c·M + m, the core's depthwise
// layout.
bool depthwise_shape(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs, const TensorRef& output,
                     compute::ConvS16Shape* s) {
  if (input.dtype != DType::Int16 || weight.dim(3) > INT32_MAX ||
      !shape_of(input, output, weight.dim(0), weight.dim(1), attrs, s))
    return false;
  s->ch_mult = int32_t(weight.dim(3));
  return true;
}
}  // namespace

bool depthwise_conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner) {
  compute::ConvS16Shape s;
  if (!depthwise_shape(input, weight, attrs, output, &s)) return false;
  compute::depthwise_s16(int48_conv(input, weight, bias, attrs, output, s), compute::Exec{{}, runner});
  return true;
}

bool depthwise_conv2d_int16_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                    const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale,
                                    const ClampAttr* clamp, const TensorRef& output, ParallelRunner* runner,
                                    Try mode) {
  compute::ConvS16Shape s;
  int32_t lo, hi;
  if (!rescale16_bounds(input, rescale, clamp, output, &lo, &hi) || !depthwise_shape(input, weight, attrs, sums, &s))
    return false;
  if (mode == Try::Probe) return true;
  compute::depthwise_s16(int48_conv(input, weight, bias, attrs, output, s, &rescale, lo, hi),
                         compute::Exec{{}, runner});
  return true;
}

}  // namespace vkrt::tosa::detail
