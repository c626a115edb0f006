// cortex_m::quantized_max_pool2d.out: clamp(max over the in-bounds taps, act_min, act_max), on the
// compute core's pools (compute/pool.h).
#include "cortex_m/max_pool2d.h"

#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

template <typename T>
Status max_pool(const PoolParams& p, const T* input, T* output, const Exec& exec) {
  VKRT_RETURN_IF_ERROR(check_pool_windows(p, /*average=*/false));
  compute::PoolOutput out;
  out.lo = p.activation_min, out.hi = p.activation_max;
  compute::max_pool(pool_windows(p), out, input, output, exec);
  return Status::ok();
}

}  // namespace

Status max_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output, const Exec& exec) {
  return max_pool(p, input, output, exec);
}
Status max_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output, const Exec& exec) {
  return max_pool(p, input, output, exec);
}

namespace {

// quantized_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point,
//   output_zero_point, activation_min, activation_max, out) + return: 12 arguments.
// The AOT pass only emits it with dilation 1 and equal zero points (§2); anything else is rejected.
constexpr char kMaxPoolOp[] = "cortex_m::quantized_max_pool2d.out";

Result<PoolCall> parse_max_pool_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(12, 12));
  const size_t out_index = 10;
  PoolCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* input = c.input;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *out));
  int32_t kernel[2], stride[2], padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 1, "kernel_size", kernel, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 2, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "dilation", dilation, 1, 1));
  VKRT_RETURN_IF_ERROR(args.bool_value(5, "ceil_mode").status());
  VKRT_ASSIGN_OR_RETURN(int64_t in_zp, args.int_value(6, "input_zero_point"));
  VKRT_ASSIGN_OR_RETURN(int64_t out_zp, args.int_value(7, "output_zero_point"));
  if (in_zp != out_zp) return args.error(7, "output_zero_point", "must equal input_zero_point");
  const bool s16 = input->dtype() == ScalarType::Short;
  PoolParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 8, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 9, "activation_max"));
  if (o.n != in.n || o.c != in.c) return args.error(out_index, "out", "batch/channels do not match input");
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.channels = in.c, p.out_h = o.h, p.out_w = o.w;
  p.kernel_h = kernel[0], p.kernel_w = kernel[1], p.stride_h = stride[0], p.stride_w = stride[1];
  p.pad_h = padding[0], p.pad_w = padding[1];
  if (Status s = check_pool(p, s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  return c;
}

Status quantized_max_pool2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kMaxPoolOp, argv);
  VKRT_ASSIGN_OR_RETURN(PoolCall c, prepared_or_parse(ctx, args, parse_max_pool_call));
  VKRT_RETURN_IF_ERROR(pool_data(args, c));
  const PoolParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  const bool s16 = input->dtype() == ScalarType::Short;
  ContextRunner runner(ctx);
  const Exec exec = make_exec(ctx, runner, 0);
  Status s = s16 ? max_pool2d_s16(p, input->data_as<int16_t>(), out->data_as<int16_t>(), exec)
                 : max_pool2d_s8(p, input->data_as<int8_t>(), out->data_as<int8_t>(), exec);
  if (!s.is_ok()) return args.op_error(s.code(), s.message());
  return s;
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kMaxPoolOp, quantized_max_pool2d_out, (prepare_parsed<kMaxPoolOp, parse_max_pool_call>));

}  // namespace vkrt::cortex_m
