// cortex_m::quantized_batch_matmul.out
//   out[b][i][j] = clamp(requantize(Σ_k (lhs[b][i][k] + lhs_off)(rhsT[b][j][k] + rhs_off), m, s) + out_off, −128, 127)
// ExecuTorch passes the CMSIS offsets (negated zero points) under the names lhs_zero_point and
// rhs_zero_point, and +zp as output_zero_point (§2.1). One GEMM per batch (gemm_s8.h; int16:
// gemm_s16.h).
#include "cortex_m/batch_matmul.h"

#include <string>

#include "arith/fixed_point.h"
#include "compute/gemm_s16.h"
#include "cortex_m/compute_core.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

Status check_batch_matmul(const BatchMatmulParams& p, bool int16) {
  if (p.batches < 0 || p.rows < 0 || p.cols < 0 || p.depth < 0) return Status(Error::InvalidArgument, "negative size");
  if (p.shift < -31 || p.shift > 30) return Status(Error::InvalidArgument, "output_shift outside [-31, 30]");
  const int32_t lo = int16 ? -32768 : -128, hi = int16 ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return Status(Error::InvalidArgument, "activation range invalid");
  return Status::ok();
}

namespace {
GemmS8 batch_gemm(const BatchMatmulParams& p, const int8_t* lhs, const int8_t* rhs, const int32_t* mult,
                  const int32_t* shift, int8_t* out) {
  GemmS8 g;
  g.m = p.rows;
  g.n = p.cols;
  g.k = p.depth;
  g.a = lhs;
  g.a_stride = p.depth;
  g.b = rhs;
  g.b_stride = p.depth;
  g.a_offset = p.lhs_offset;
  g.b_offset = p.rhs_offset;
  g.out.multiplier = mult;
  g.out.shift = shift;
  g.out.per_channel = false;
  g.out.output_offset = p.output_offset;
  g.out.activation_min = p.activation_min;
  g.out.activation_max = p.activation_max;
  g.c = out;
  g.c_stride = p.cols;
  return g;
}
}  // namespace

size_t batch_matmul_s8_scratch_bytes(const BatchMatmulParams& p, int threads) {
  return gemm_s8_scratch_bytes(batch_gemm(p, nullptr, nullptr, nullptr, nullptr, nullptr), threads);
}

void batch_matmul_s8(const BatchMatmulParams& p, const int8_t* lhs, const int8_t* rhs_transposed, int8_t* output,
                     const Exec& exec) {
  for (int32_t b = 0; b < p.batches; ++b) {
    gemm_s8(batch_gemm(p, lhs + int64_t(b) * p.rows * p.depth, rhs_transposed + int64_t(b) * p.cols * p.depth,
                       &p.multiplier, &p.shift, output + int64_t(b) * p.rows * p.cols),
            exec);
  }
}

namespace {
// One batch of the int16 product as the compute core's int16 × int16 GEMM takes it: CMSIS-NN's
// s16 batch matmul has no offsets and requantizes in 64 bits (conv_s16.h's kRequantize64).
compute::GemmS16 batch_gemm_s16(const BatchMatmulParams& p, const int16_t* lhs, const int16_t* rhs, int16_t* out) {
  compute::GemmS16 g;
  g.m = p.rows, g.n = p.cols, g.k = p.depth;
  g.a = lhs, g.a_stride = p.depth;
  g.b = rhs, g.b_column_stride = p.depth, g.b_depth_stride = 1;
  compute::S16Output& o = g.out;
  o.stage = compute::S16OutputStage::kRequantize64;
  o.multiplier = &p.multiplier, o.shift = &p.shift, o.scale_per_channel = false;
  o.activation_min = p.activation_min, o.activation_max = p.activation_max;
  o.out16 = out;
  return g;
}
}  // namespace

size_t batch_matmul_s16_scratch_bytes(const BatchMatmulParams& p, int threads) {
  return compute::gemm_s16_scratch_bytes(batch_gemm_s16(p, nullptr, nullptr, nullptr), threads);
}

void batch_matmul_s16(const BatchMatmulParams& p, const int16_t* lhs, const int16_t* rhs_transposed,
                      int16_t* output, const Exec& exec) {
  for (int64_t b = 0; b < p.batches; ++b)
    compute::gemm_s16(batch_gemm_s16(p, lhs + b * p.rows * p.depth, rhs_transposed + b * p.cols * p.depth,
                                     output + b * p.rows * p.cols),
                      exec);
}

namespace {

// quantized_batch_matmul(lhs, lhs_zero_point, rhs_transposed, rhs_zero_point, output_zero_point,
//   output_multiplier, output_shift, [scratch], out) + return: 10 arguments (9 without scratch).
constexpr char kBatchMatmulOp[] = "cortex_m::quantized_batch_matmul.out";

struct BatchMatmulCall {
  BatchMatmulParams p;
  Tensor* lhs = nullptr;
  Tensor* rhs = nullptr;
  Tensor* out = nullptr;
};

Result<BatchMatmulCall> parse_batch_matmul_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(9, 10));
  const size_t out_index = args.size() - 2;
  BatchMatmulCall c;
  VKRT_ASSIGN_OR_RETURN(c.lhs, args.tensor(0, "lhs"));
  VKRT_ASSIGN_OR_RETURN(c.rhs, args.tensor(2, "rhs_transposed"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* lhs = c.lhs;
  const Tensor* rhs = c.rhs;
  Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "lhs", *lhs, {ScalarType::Char, ScalarType::Short}));
  const bool s16 = lhs->dtype() == ScalarType::Short;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 2, "rhs_transposed", *rhs, {lhs->dtype()}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {lhs->dtype()}));
  if (lhs->rank() != 3 || !lhs->is_default_dim_order()) return args.error(0, "lhs", "expected a contiguous 3-D tensor");
  if (rhs->rank() != 3 || !rhs->is_default_dim_order())
    return args.error(2, "rhs_transposed", "expected a contiguous 3-D tensor");
  BatchMatmulParams& p = c.p;
  p.batches = lhs->size(0), p.rows = lhs->size(1), p.depth = lhs->size(2), p.cols = rhs->size(1);
  if (rhs->size(0) != p.batches || rhs->size(2) != p.depth)
    return args.error(2, "rhs_transposed", "expected [" + std::to_string(p.batches) + ", N, " + std::to_string(p.depth) + "]");
  VKRT_ASSIGN_OR_RETURN(p.lhs_offset, int_arg(args, 1, "lhs_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.rhs_offset, int_arg(args, 3, "rhs_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 4, "output_zero_point", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.multiplier, int_arg(args, 5, "output_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.shift, int_arg(args, 6, "output_shift", -31, 30));
  if (s16) p.activation_min = -32768, p.activation_max = 32767;
  if (Status s = check_batch_matmul(p, s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  if (!out->is_default_dim_order()) return args.error(out_index, "out", "expected contiguous memory");
  const int32_t sizes[3] = {p.batches, p.rows, p.cols};
  VKRT_RETURN_IF_ERROR(output_sizes(args, out_index, *out, sizes));
  return c;
}

Status quantized_batch_matmul_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kBatchMatmulOp, argv);
  VKRT_ASSIGN_OR_RETURN(BatchMatmulCall c, prepared_or_parse(ctx, args, parse_batch_matmul_call));
  VKRT_RETURN_IF_ERROR(output_memory(args, args.size() - 2, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "lhs", *c.lhs));
  VKRT_RETURN_IF_ERROR(expect_data(args, 2, "rhs_transposed", *c.rhs));
  const BatchMatmulParams& p = c.p;
  const Tensor* lhs = c.lhs;
  const Tensor* rhs = c.rhs;
  Tensor* out = c.out;
  ContextRunner runner(ctx);
  if (lhs->dtype() == ScalarType::Short) {
    const Exec exec = make_exec(ctx, runner, batch_matmul_s16_scratch_bytes(p, runner.num_threads()));
    batch_matmul_s16(p, lhs->data_as<int16_t>(), rhs->data_as<int16_t>(), out->data_as<int16_t>(), exec);
    return Status::ok();
  }
  const Exec exec = make_exec(ctx, runner, batch_matmul_s8_scratch_bytes(p, runner.num_threads()));
  batch_matmul_s8(p, lhs->data_as<int8_t>(), rhs->data_as<int8_t>(), out->data_as<int8_t>(), exec);
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kBatchMatmulOp, quantized_batch_matmul_out,
                                  (prepare_parsed<kBatchMatmulOp, parse_batch_matmul_call>));

}  // namespace vkrt::cortex_m
