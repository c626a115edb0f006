// cortex_m::quantized_transpose_conv2d.out: the int32 sums on the compute core's transposed
// convolution (compute/transpose_conv.h: the int8 GEMM, then each product added into the
// output pixel its tap reaches), then the CMSIS-NN output stage a pixel at a time. Without its
// scratch, the gather form of the definition in the header: each output pixel collects the taps
// (ky, kx) whose input position (oy + ph − ky)/sh is an integer inside the input.
#include "cortex_m/transpose_conv2d.h"

#include <string>

#include "arith/fixed_point.h"
#include "compute/requantize_row.h"
#include "compute/transpose_conv.h"
#include "cortex_m/compute_core.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

using arith::wrap_add;
using arith::wrap_mul;

Status check_transpose_conv2d(const TransposeConv2dParams& p) {
  auto bad = [](const std::string& what) { return Status(Error::InvalidArgument, what); };
  if (p.batches < 0 || p.in_h < 0 || p.in_w < 0 || p.in_ch < 0 || p.out_h < 0 || p.out_w < 0 || p.out_ch < 0)
    return bad("negative size");
  if (p.kernel_h < 1 || p.kernel_w < 1) return bad("kernel size must be >= 1");
  if (p.stride_h < 1 || p.stride_w < 1) return bad("stride must be >= 1");
  if (p.pad_h < 0 || p.pad_w < 0) return bad("padding must be >= 0");
  if (p.activation_min < -128 || p.activation_max > 127 || p.activation_min > p.activation_max)
    return bad("activation range invalid");
  return Status::ok();
}

namespace {
// Input index i with i·stride + k − pad == o, or -1.
inline int64_t source_index(int64_t o, int32_t k, int32_t stride, int32_t pad, int32_t size) {
  const int64_t t = o + pad - k;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t i = t / stride;
  return i < size ? i : -1;
}

// One batch's sums as the compute core takes them (output row oy = iy·stride + ky − pad).
compute::TransposeConvS8 core_of(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                                 const int32_t* bias, int32_t* sums) {
  compute::TransposeConvS8 c;
  compute::TransposeConvShape& s = c.shape;
  s.batches = 1, s.in_h = p.in_h, s.in_w = p.in_w, s.in_ch = p.in_ch;
  s.out_h = p.out_h, s.out_w = p.out_w, s.out_ch = p.out_ch;
  s.kernel_h = p.kernel_h, s.kernel_w = p.kernel_w, s.stride_h = p.stride_h, s.stride_w = p.stride_w;
  s.offset_h = -p.pad_h, s.offset_w = -p.pad_w;
  c.input_offset = p.input_offset;
  c.input = input, c.weight = weight, c.bias = bias, c.sums = sums;
  return c;
}

size_t plane_bytes(const TransposeConv2dParams& p) {
  return align_up(size_t(p.out_h) * size_t(p.out_w) * size_t(p.out_ch) * sizeof(int32_t));
}

void transpose_conv2d_loops(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                            const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  for (int64_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.out_h; ++oy)
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * p.out_ch;
        for (int32_t oc = 0; oc < p.out_ch; ++oc) {
          int32_t acc = bias ? bias[oc] : 0;
          for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t iy = source_index(oy, ky, p.stride_h, p.pad_h, p.in_h);
            if (iy < 0) continue;
            for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
              const int64_t ix = source_index(ox, kx, p.stride_w, p.pad_w, p.in_w);
              if (ix < 0) continue;
              const int8_t* in = input + ((b * p.in_h + iy) * p.in_w + ix) * p.in_ch;
              const int8_t* w = weight + ((int64_t(oc) * p.kernel_h + ky) * p.kernel_w + kx) * p.in_ch;
              for (int32_t c = 0; c < p.in_ch; ++c)
                acc = wrap_add(acc, wrap_mul(int32_t(in[c]) + p.input_offset, w[c]));
            }
          }
          const int32_t v = arith::requantize(acc, multiplier[oc], shift[oc]);
          out[oc] = int8_t(arith::clamp_activation(wrap_add(v, p.output_offset), p.activation_min, p.activation_max));
        }
      }
}

}  // namespace

size_t transpose_conv2d_s8_scratch_bytes(const TransposeConv2dParams& p, int threads) {
  const size_t core = compute::transpose_conv_scratch_bytes(core_of(p, nullptr, nullptr, nullptr, nullptr), threads);
  return core == 0 ? 0 : plane_bytes(p) + core + 64;
}

void transpose_conv2d_s8(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output,
                         const Exec& exec) {
  const size_t need = transpose_conv2d_s8_scratch_bytes(p, exec.num_threads());
  if (need == 0 || exec.scratch.size() < need)
    return transpose_conv2d_loops(p, input, weight, bias, multiplier, shift, output);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  auto* sums = reinterpret_cast<int32_t*>(base);
  const Exec core_exec{exec.scratch.subspan(size_t(base - exec.scratch.data()) + plane_bytes(p)), exec.runner};
  compute::RequantizeRow stage;
  stage.multiplier = multiplier, stage.shift = shift, stage.output_offset = p.output_offset;
  stage.activation_min = p.activation_min, stage.activation_max = p.activation_max;
  const int64_t in_plane = int64_t(p.in_h) * p.in_w * p.in_ch, pixels = int64_t(p.out_h) * p.out_w;
  for (int64_t b = 0; b < p.batches; ++b) {
    compute::transpose_conv(core_of(p, input + b * in_plane, weight, bias, sums), core_exec);
    int8_t* out = output + b * pixels * p.out_ch;
    for (int64_t px = 0; px < pixels; ++px)
      compute::requantize_row_s8(stage, sums + px * p.out_ch, 0, p.out_ch, out + px * p.out_ch);
  }
}

namespace {

// quantized_transpose_conv2d(input, weight, bias?, stride, padding, output_padding, dilation,
//   input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//   activation_max, [scratch, output_scratch], out) + return: 17 arguments (15 without scratch).
constexpr char kTransposeConvOp[] = "cortex_m::quantized_transpose_conv2d.out";

struct TransposeConvCall {
  TransposeConv2dParams p;
  Tensor* input = nullptr;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  Tensor* out = nullptr;
  const int32_t* mult = nullptr;
  const int32_t* shift = nullptr;
};

Result<TransposeConvCall> parse_transpose_conv_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(15, 17));
  if (args.size() == 16) return args.op_error(Error::InvalidArgument, "expected 15 or 17 arguments, got 16");
  const size_t out_index = args.size() - 2;
  TransposeConvCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.weight, args.tensor(1, "weight"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* input = c.input;
  const Tensor* weight = c.weight;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "weight", *weight, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {ScalarType::Char}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *out));
  if (weight->rank() != 4) return args.error(1, "weight", "expected 4-D OHWI weights");
  const auto wd = physical_dims4(*weight);
  int32_t stride[2], padding[2], output_padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 5, "output_padding", output_padding, 0, 0));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 6, "dilation", dilation, 1, 1));
  TransposeConv2dParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(p.input_offset, int_arg(args, 7, "input_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 8, "output_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 11, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 12, "activation_max"));
  if (wd[3] != in.c) return args.error(1, "weight", "input channels do not match (groups must be 1)");
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.in_ch = in.c;
  p.out_h = o.h, p.out_w = o.w, p.out_ch = wd[0];
  p.kernel_h = wd[1], p.kernel_w = wd[2];
  p.stride_h = stride[0], p.stride_w = stride[1], p.pad_h = padding[0], p.pad_w = padding[1];
  if (o.n != in.n || o.c != p.out_ch) return args.error(out_index, "out", "batch/channels do not match");
  if (Status s = check_transpose_conv2d(p); !s.is_ok()) return args.op_error(s.code(), s.message());
  VKRT_ASSIGN_OR_RETURN(c.bias, optional_bias(args, 2, "bias", p.out_ch, false));
  VKRT_ASSIGN_OR_RETURN(c.mult, channel_params(args, 9, "requantize_multipliers", p.out_ch));
  VKRT_ASSIGN_OR_RETURN(c.shift, channel_params(args, 10, "requantize_shifts", p.out_ch));
  for (int32_t ch = 0; ch < p.out_ch; ++ch)
    VKRT_RETURN_IF_ERROR(expect_range(args, 10, "requantize_shifts", c.shift[ch], -31, 30));
  return c;
}

Status quantized_transpose_conv2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kTransposeConvOp, argv);
  VKRT_ASSIGN_OR_RETURN(TransposeConvCall c, prepared_or_parse(ctx, args, parse_transpose_conv_call));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "weight", *c.weight));
  VKRT_RETURN_IF_ERROR(expect_data(args, args.size() - 2, "out", *c.out));
  ContextRunner runner(ctx);
  const Exec exec = make_exec(ctx, runner, transpose_conv2d_s8_scratch_bytes(c.p, runner.num_threads()));
  transpose_conv2d_s8(c.p, c.input->data_as<int8_t>(), c.weight->data_as<int8_t>(),
                      c.bias ? c.bias->data_as<int32_t>() : nullptr, c.mult, c.shift, c.out->data_as<int8_t>(), exec);
  return Status::ok();
}

}  // namespace

// Load time: the call is parsed once (its bias and requantization tables must be constants to keep it).
VKRT_REGISTER_KERNEL_WITH_PREPARE(kTransposeConvOp, quantized_transpose_conv2d_out,
                                  (prepare_parsed<kTransposeConvOp, parse_transpose_conv_call, 2, 9, 10>));

}  // namespace vkrt::cortex_m
