// cortex_m::quantized_depthwise_conv2d.out
//   acc[b,oy,ox,oc] = bias[oc] + Σ_{valid ky,kx} (in[b,iy,ix,oc / ch_mult] + in_off)·w[0,ky,kx,oc]
//   out = clamp(requantize(acc, mult[oc], shift[oc]) + out_off, act_min, act_max)        (§4.4)
// The s8 kernel runs on the compute core's depthwise engine (compute/depthwise_s8.h: VNNI,
// AVX-512BW, AVX2, NEON and portable paths, all giving the same bytes); the s16 one on its A16W8
// depthwise (compute/conv_s16.h).
#include "cortex_m/depthwise_conv2d.h"

#include <algorithm>
#include <string>

#include "arith/fixed_point.h"
#include "cortex_m/kernel_util.h"
#include "cortex_m/compute_core.h"

namespace vkrt::cortex_m {

Status check_depthwise_conv2d(const DepthwiseConv2dParams& p, bool int16_activations) {
  auto bad = [](const std::string& what) { return Status(Error::InvalidArgument, what); };
  if (p.batches < 0 || p.in_h < 0 || p.in_w < 0 || p.in_ch < 0 || p.out_h < 0 || p.out_w < 0)
    return bad("negative size");
  if (p.ch_mult < 1) return bad("depth_multiplier must be >= 1");
  if (int64_t(p.in_ch) * p.ch_mult > INT32_MAX) return bad("too many output channels");
  if (p.kernel_h < 1 || p.kernel_w < 1) return bad("kernel size must be >= 1");
  if (p.stride_h < 1 || p.stride_w < 1) return bad("stride must be >= 1");
  if (p.dilation_h < 1 || p.dilation_w < 1) return bad("dilation must be >= 1");
  if (p.pad_h < 0 || p.pad_w < 0) return bad("padding must be >= 0");
  const int32_t lo = int16_activations ? -32768 : -128, hi = int16_activations ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return bad("activation range [" + std::to_string(p.activation_min) + ", " + std::to_string(p.activation_max) +
               "] invalid");
  return Status::ok();
}

void depthwise_conv2d_s16(const DepthwiseConv2dParams& p, const int16_t* input, const int8_t* weight,
                          const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                          const int32_t* shift, int16_t* output, const Exec& exec) {
  compute::ConvS16 c;
  compute::ConvS16Shape& s = c.shape;
  s.batches = p.batches, s.in_h = p.in_h, s.in_w = p.in_w, s.in_ch = p.in_ch;
  s.out_h = p.out_h, s.out_w = p.out_w, s.out_ch = p.out_ch(), s.ch_mult = p.ch_mult;
  s.kernel_h = p.kernel_h, s.kernel_w = p.kernel_w, s.stride_h = p.stride_h, s.stride_w = p.stride_w;
  s.pad_top = p.pad_h, s.pad_left = p.pad_w, s.dilation_h = p.dilation_h, s.dilation_w = p.dilation_w;
  c.input = input, c.weight = weight;
  c.out = s16_output(bias32, bias64, multiplier, shift, p.activation_min, p.activation_max, output);
  compute::depthwise_s16(c, exec);
}

namespace {

constexpr char kDepthwiseOp[] = "cortex_m::quantized_depthwise_conv2d.out";

// A depthwise call with every argument checked.
struct DepthwiseCall {
  DepthwiseConv2dParams p;
  Tensor* input = nullptr;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  Tensor* out = nullptr;
  const int32_t* mult = nullptr;
  const int32_t* shift = nullptr;
  bool s16 = false;
};

// quantized_depthwise_conv2d(input, weight, bias?, stride, padding, dilation, depth_multiplier,
//   input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//   activation_max, [scratch], out) + return: 16 arguments (15 without scratch).
// Every check that does not need the activations' data (shared by prepare and execute).
Result<DepthwiseCall> parse_depthwise_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(15, 16));
  const size_t out_index = args.size() - 2;
  DepthwiseCall c;
  DepthwiseConv2dParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.weight, args.tensor(1, "weight"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *c.input, {ScalarType::Char, ScalarType::Short}));
  c.s16 = c.input->dtype() == ScalarType::Short;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "weight", *c.weight, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *c.out, {c.input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *c.input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *c.out));
  if (c.weight->rank() != 4) return args.error(1, "weight", "expected 4-D [1, KH, KW, C_out] weights");
  const auto wd = physical_dims4(*c.weight);
  int32_t stride[2], padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 5, "dilation", dilation, 1, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(p.ch_mult, int_arg(args, 6, "depth_multiplier", 1, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(p.input_offset, int_arg(args, 7, "input_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 8, "output_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 11, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 12, "activation_max"));
  if (in.n != 1) return args.error(0, "input", "batch must be 1 (CMSIS-NN depthwise)");
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.in_ch = in.c;
  p.kernel_h = wd[1], p.kernel_w = wd[2];
  p.stride_h = stride[0], p.stride_w = stride[1], p.pad_h = padding[0], p.pad_w = padding[1];
  p.dilation_h = dilation[0], p.dilation_w = dilation[1];
  p.out_h = o.h, p.out_w = o.w;
  if (wd[0] != 1 || int64_t(wd[3]) != int64_t(in.c) * p.ch_mult)
    return args.error(1, "weight", "expected [1, KH, KW, " + std::to_string(int64_t(in.c) * p.ch_mult) + "]");
  if (o.n != in.n || int64_t(o.c) != int64_t(in.c) * p.ch_mult)
    return args.error(out_index, "out", "channels do not match input channels x depth_multiplier");
  if (Status s = check_depthwise_conv2d(p, c.s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  VKRT_ASSIGN_OR_RETURN(c.bias, optional_bias(args, 2, "bias", p.out_ch(), c.s16));
  VKRT_ASSIGN_OR_RETURN(c.mult, channel_params(args, 9, "requantize_multipliers", p.out_ch()));
  VKRT_ASSIGN_OR_RETURN(c.shift, channel_params(args, 10, "requantize_shifts", p.out_ch()));
  for (int32_t ch = 0; ch < p.out_ch(); ++ch)
    VKRT_RETURN_IF_ERROR(expect_range(args, 10, "requantize_shifts", c.shift[ch], -31, 30));
  return c;
}

Status quantized_depthwise_conv2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kDepthwiseOp, argv);
  VKRT_ASSIGN_OR_RETURN(DepthwiseCall c, prepared_or_parse(ctx, args, parse_depthwise_call));
  const DepthwiseConv2dParams& p = c.p;
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "weight", *c.weight));
  VKRT_RETURN_IF_ERROR(expect_data(args, args.size() - 2, "out", *c.out));
  ContextRunner runner(ctx);
  if (c.s16) {
    const bool b64 = c.bias && c.bias->dtype() == ScalarType::Long;
    depthwise_conv2d_s16(p, c.input->data_as<int16_t>(), c.weight->data_as<int8_t>(),
                         (c.bias && !b64) ? c.bias->data_as<int32_t>() : nullptr,
                         b64 ? c.bias->data_as<int64_t>() : nullptr, c.mult, c.shift, c.out->data_as<int16_t>(),
                         Exec{{}, &runner});
    return Status::ok();
  }
  const Exec exec = make_exec(ctx, runner, depthwise_conv2d_s8_scratch_bytes(p, runner.num_threads()));
  depthwise_conv2d_s8(p, c.input->data_as<int8_t>(), c.weight->data_as<int8_t>(),
                      c.bias ? c.bias->data_as<int32_t>() : nullptr, c.mult, c.shift, c.out->data_as<int8_t>(), exec);
  return Status::ok();
}

}  // namespace

// Load time: the call is parsed once (prepare_call).
VKRT_REGISTER_KERNEL_WITH_PREPARE(kDepthwiseOp, quantized_depthwise_conv2d_out,
                                  (prepare_parsed<kDepthwiseOp, parse_depthwise_call, 1, 2, 9, 10>));

}  // namespace vkrt::cortex_m
