// cortex_m::quantized_avg_pool2d.out
//   sum = Σ in[taps]; cnt = |taps|; avg = sum > 0 ? (sum + cnt/2)/cnt : (sum − cnt/2)/cnt  (C division)
//   out = clamp(avg, act_min, act_max)
// on the compute core's pools (compute/pool.h, PoolAverage::kCmsisNn).
#include "cortex_m/avg_pool2d.h"

#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

template <typename T>
Status avg_pool(const PoolParams& p, const T* input, T* output, const Exec& exec) {
  VKRT_RETURN_IF_ERROR(check_pool_windows(p, /*average=*/true));
  compute::PoolOutput out;
  out.average = compute::PoolAverage::kCmsisNn;
  out.lo = p.activation_min, out.hi = p.activation_max;
  compute::avg_pool(pool_windows(p), out, input, output, exec);
  return Status::ok();
}

}  // namespace

size_t avg_pool2d_scratch_bytes(const PoolParams&, int) { return 0; }

Status avg_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output, const Exec& exec) {
  return avg_pool(p, input, output, exec);
}
Status avg_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output, const Exec& exec) {
  return avg_pool(p, input, output, exec);
}

namespace {

// quantized_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier,
//   shift, [scratch], out) + return: 11 arguments (10 without scratch). zero_point, multiplier
// and shift are ignored (input and output share qparams, §2); ceil_mode only changes the
// output size, which `out` must have (checked as upstream does).
constexpr char kAvgPoolOp[] = "cortex_m::quantized_avg_pool2d.out";

Result<PoolCall> parse_avg_pool_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(10, 11));
  const size_t out_index = args.size() - 2;
  PoolCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* input = c.input;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *out));
  int32_t kernel[2], stride[2], padding[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 1, "kernel_size", kernel, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 2, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "padding", padding, 0, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(bool ceil_mode, args.bool_value(4, "ceil_mode"));
  VKRT_RETURN_IF_ERROR(args.int_value(5, "zero_point").status());
  VKRT_RETURN_IF_ERROR(args.int_value(6, "multiplier").status());
  VKRT_RETURN_IF_ERROR(args.int_value(7, "shift").status());
  if (o.n != in.n || o.c != in.c) return args.error(out_index, "out", "batch/channels do not match input");
  // The output size the pooling parameters give (upstream's pooling_output_size), which the
  // out tensor must have.
  auto pooled = [ceil_mode](int64_t input, int64_t k, int64_t s, int64_t pad) {
    const int64_t numerator = input + 2 * pad - k;
    int64_t size = numerator / s + 1;
    if (ceil_mode && numerator % s != 0) ++size;
    if (ceil_mode && (size - 1) * s >= input + pad) --size;
    return size;
  };
  const int64_t want_h = pooled(in.h, kernel[0], stride[0], padding[0]);
  const int64_t want_w = pooled(in.w, kernel[1], stride[1], padding[1]);
  if (o.h != want_h || o.w != want_w)
    return args.error(out_index, "out", "spatial size " + std::to_string(o.h) + "x" + std::to_string(o.w) +
                                            " does not match the pooling parameters' " + std::to_string(want_h) + "x" +
                                            std::to_string(want_w));
  const bool s16 = input->dtype() == ScalarType::Short;
  PoolParams& p = c.p;
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.channels = in.c, p.out_h = o.h, p.out_w = o.w;
  p.kernel_h = kernel[0], p.kernel_w = kernel[1], p.stride_h = stride[0], p.stride_w = stride[1];
  p.pad_h = padding[0], p.pad_w = padding[1];
  p.activation_min = s16 ? -32768 : -128, p.activation_max = s16 ? 32767 : 127;
  if (Status s = check_pool(p, s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  return c;
}

Status quantized_avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kAvgPoolOp, argv);
  VKRT_ASSIGN_OR_RETURN(PoolCall c, prepared_or_parse(ctx, args, parse_avg_pool_call));
  VKRT_RETURN_IF_ERROR(pool_data(args, c));
  const PoolParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  const bool s16 = input->dtype() == ScalarType::Short;
  ContextRunner runner(ctx);
  const Exec exec = make_exec(ctx, runner, avg_pool2d_scratch_bytes(p, runner.num_threads()));
  Status s = s16 ? avg_pool2d_s16(p, input->data_as<int16_t>(), out->data_as<int16_t>(), exec)
                 : avg_pool2d_s8(p, input->data_as<int8_t>(), out->data_as<int8_t>(), exec);
  if (!s.is_ok()) return args.op_error(s.code(), s.message());
  return s;
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kAvgPoolOp, quantized_avg_pool2d_out, (prepare_parsed<kAvgPoolOp, parse_avg_pool_call>));

}  // namespace vkrt::cortex_m
