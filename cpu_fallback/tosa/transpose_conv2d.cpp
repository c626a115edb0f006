// TRANSPOSE_CONV2D (tosa.md §6). int8, int16 and fp32 run on the compute core's transposed
// convolution (compute/transpose_conv.h: the GEMM, or for int16 the A16W8 convolution, and a
// scatter) given transpose_conv2d_scratch_bytes of scratch; otherwise the reference loops: a gather
// over output pixels, each output (oy, ox) summing the kernel taps whose source pixel lands on the
// input stride grid.
#include "compute/transpose_conv.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "TRANSPOSE_CONV2D";

template <typename TIn>
void transpose_conv_impl(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                         const TransposeConvAttr& a, const TensorRef& output) {
  using P = ConvPolicy<TIn>;
  const TIn* in = input.as<const TIn>();
  const typename P::Weight* w = weight.as<const typename P::Weight>();
  const typename P::Out* b = bias.as<const typename P::Out>();
  typename P::Out* out = output.as<typename P::Out>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), IC = input.dim(3);
  const int64_t OC = weight.dim(0), KH = weight.dim(1), KW = weight.dim(2);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const int64_t sy = a.stride[0], sx = a.stride[1];
  const bool bias_per_channel = bias.dim(0) == OC;
  const typename P::Acc in_zp = typename P::Acc(a.input_zp), w_zp = typename P::Acc(a.weight_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t oc = 0; oc < OC; ++oc) {
          typename P::Acc acc = 0;
          for (int64_t ky = 0; ky < KH; ++ky) {
            const int64_t Y = oy - a.out_pad[0] - ky;
            if (Y < 0 || Y >= IH * sy || Y % sy != 0) continue;
            const int64_t iy = Y / sy;
            for (int64_t kx = 0; kx < KW; ++kx) {
              const int64_t X = ox - a.out_pad[2] - kx;
              if (X < 0 || X >= IW * sx || X % sx != 0) continue;
              const int64_t ix = X / sx;
              const TIn* in_px = in + ((n * IH + iy) * IW + ix) * IC;
              const auto* w_px = w + ((oc * KH + ky) * KW + kx) * IC;
              for (int64_t ic = 0; ic < IC; ++ic)
                acc = P::add(acc, (typename P::Acc(in_px[ic]) - in_zp) * (typename P::Acc(w_px[ic]) - w_zp));
            }
          }
          out[((n * OH + oy) * OW + ox) * OC + oc] = P::finish(acc, b[bias_per_channel ? oc : 0]);
        }
}

// The operator as the compute core takes it (data pointers null where not bound).
template <typename In, typename Sum, typename Weight = In>
compute::TransposeConv<In, Sum, Weight> core_of(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                                const TransposeConvAttr& a, const TensorRef& output) {
  compute::TransposeConv<In, Sum, Weight> c;
  compute::TransposeConvShape& s = c.shape;
  s.batches = int32_t(input.dim(0)), s.in_h = int32_t(input.dim(1)), s.in_w = int32_t(input.dim(2));
  s.in_ch = int32_t(input.dim(3));
  s.out_h = int32_t(output.dim(1)), s.out_w = int32_t(output.dim(2)), s.out_ch = int32_t(weight.dim(0));
  s.kernel_h = int32_t(weight.dim(1)), s.kernel_w = int32_t(weight.dim(2));
  s.stride_h = int32_t(a.stride[0]), s.stride_w = int32_t(a.stride[1]);
  s.offset_h = int32_t(a.out_pad[0]), s.offset_w = int32_t(a.out_pad[2]);
  c.input_offset = -int32_t(a.input_zp), c.weight_offset = -int32_t(a.weight_zp);
  c.input = input.as<const In>(), c.weight = weight.as<const Weight>();
  c.bias = bias.as<const Sum>(), c.bias_per_channel = bias.dim(0) == weight.dim(0);
  c.sums = output.as<Sum>();
  return c;
}

// Whether the compute core takes these operands: sizes within int32.
bool core_applies(const TensorRef& input, const TensorRef& weight, const TensorRef& output) {
  for (const TensorRef* t : {&input, &weight, &output})
    for (int64_t d : t->shape)
      if (d > INT32_MAX) return false;
  return true;
}

}  // namespace

Status check_transpose_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                              const TransposeConvAttr& a, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "weight", weight));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "weight", weight, 4));
  VKRT_RETURN_IF_ERROR(check_conv_operands(kOp, input, weight, bias, output, a.acc_type, a.input_zp,
                                           a.weight_zp, weight.dim(0)));
  if (weight.dim(3) != input.dim(3))
    return make_error(Error::InvalidArgument, kOp, ": weight ", shape_string(weight.shape), " has ", weight.dim(3),
                      " input channels, input ", shape_string(input.shape), " has ", input.dim(3));
  const int64_t KH = weight.dim(1), KW = weight.dim(2);
  if (KH > kMaxWindowParam || KW > kMaxWindowParam)
    return make_error(Error::InvalidArgument, kOp, ": kernel ", KH, "x", KW, " too large");
  for (int i = 0; i < 2; ++i)
    if (a.stride[i] < 1 || a.stride[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": stride[", i, "] = ", a.stride[i], " out of range");
  for (int i = 0; i < 4; ++i) {
    const int64_t k = i < 2 ? KH : KW;
    if (a.out_pad[i] <= -k || a.out_pad[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": out_pad[", i, "] = ", a.out_pad[i], " must be in (-",
                        k, ", ", kMaxWindowParam, "]");
  }
  const int64_t oh = (input.dim(1) - 1) * a.stride[0] + a.out_pad[0] + a.out_pad[1] + KH;
  const int64_t ow = (input.dim(2) - 1) * a.stride[1] + a.out_pad[2] + a.out_pad[3] + KW;
  if (oh < 1 || ow < 1)
    return make_error(Error::InvalidArgument, kOp, ": output size ", oh, "x", ow, " is empty");
  const int64_t expected[4] = {input.dim(0), oh, ow, weight.dim(0)};
  return expect_shape(kOp, "output", output, expected);
}

size_t transpose_conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                      const TransposeConvAttr& attrs, const TensorRef& output, int threads) {
  if (!check_transpose_conv2d(input, weight, bias, attrs, output).is_ok() || !core_applies(input, weight, output))
    return 0;
  switch (input.dtype) {
    case DType::Fp32:
      return compute::transpose_conv_scratch_bytes(core_of<float, float>(input, weight, bias, attrs, output), threads);
    case DType::Int16:
      return compute::transpose_conv_scratch_bytes(core_of<int16_t, int64_t, int8_t>(input, weight, bias, attrs, output),
                                                   threads);
    default:
      return compute::transpose_conv_scratch_bytes(core_of<int8_t, int32_t>(input, weight, bias, attrs, output), threads);
  }
}

namespace {
// The compute core's transposed convolution for the operands' dtype; false where it did not run.
bool run_on_core(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const TransposeConvAttr& attrs,
                 const TensorRef& output, const compute::Exec& exec) {
  if (!core_applies(input, weight, output)) return false;
  switch (input.dtype) {
    case DType::Fp32: return compute::transpose_conv(core_of<float, float>(input, weight, bias, attrs, output), exec);
    case DType::Int16:
      return compute::transpose_conv(core_of<int16_t, int64_t, int8_t>(input, weight, bias, attrs, output), exec);
    default: return compute::transpose_conv(core_of<int8_t, int32_t>(input, weight, bias, attrs, output), exec);
  }
}
}  // namespace

Status transpose_conv2d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                        const TransposeConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
                        std::span<uint8_t> scratch) {
  VKRT_RETURN_IF_ERROR(check_transpose_conv2d(input, weight, bias, attrs, output));
  if (!run_on_core(input, weight, bias, attrs, output, compute::Exec{scratch, runner}))
    transpose_conv2d_reference(input, weight, bias, attrs, output);
  return Status::ok();
}

void detail::transpose_conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                        const TransposeConvAttr& attrs, const TensorRef& output) {
  switch (input.dtype) {
    case DType::Int8: transpose_conv_impl<int8_t>(input, weight, bias, attrs, output); break;
    case DType::Int16: transpose_conv_impl<int16_t>(input, weight, bias, attrs, output); break;
    default: transpose_conv_impl<float>(input, weight, bias, attrs, output); break;
  }
}

}  // namespace vkrt::tosa
