// cortex_m::quantized_linear.out
//   acc[o] = bias[o] + Σ_i (x[i] + in_off)·(w[o][i] + w_off)           (bias form)
//   acc[o] = kernel_sum[o] + Σ_i x[i]·(w[o][i] + w_off)                (MVE kernel_sum form)
//   out = clamp(requantize(acc, m, s) + out_off, act_min, act_max)
// The batches are the rows of one GEMM (gemm_s8.h).
#include "cortex_m/linear.h"

#include <algorithm>
#include <string>

#include "arith/fixed_point.h"
#include "compute/gemv_small_s8.h"
#include "cortex_m/compute_core.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

Status check_linear(const LinearParams& p, bool int16_activations) {
  if (p.batches < 0 || p.in_features < 0 || p.out_features < 0)
    return Status(Error::InvalidArgument, "negative size");
  const int32_t lo = int16_activations ? -32768 : -128, hi = int16_activations ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return Status(Error::InvalidArgument, "activation range [" + std::to_string(p.activation_min) + ", " +
                                              std::to_string(p.activation_max) + "] invalid");
  if (p.shift < -31 || p.shift > 30) return Status(Error::InvalidArgument, "shift outside [-31, 30]");
  return Status::ok();
}

namespace {
GemmS8 linear_gemm(const LinearParams& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
                   const int32_t* kernel_sum, const int32_t* mult, const int32_t* shift, int8_t* output) {
  // Designated, not assigned field by field: zeroing the whole struct first was a `rep stosq`,
  // whose start-up cost showed in a classifier-sized call (DS-CNN's 64→12).
  // kernel_sum already holds in_off·Σ(w + w_off): the GEMM must not add the input offset again.
  return GemmS8{.m = p.batches,
                .n = p.out_features,
                .k = p.in_features,
                .a = input,
                .a_stride = p.in_features,
                .b = weights,
                .b_stride = p.in_features,
                .bias = kernel_sum ? kernel_sum : bias,
                .a_offset = kernel_sum ? 0 : p.input_offset,
                .b_offset = p.filter_offset,
                .out = {.multiplier = mult,
                        .shift = shift,
                        .per_channel = false,
                        .output_offset = p.output_offset,
                        .activation_min = p.activation_min,
                        .activation_max = p.activation_max},
                .c = output,
                .c_stride = p.out_features};
}
}  // namespace

size_t linear_s8_scratch_bytes(const LinearParams& p, int threads, const GemmS8PackedB* packed) {
  GemmS8 g = linear_gemm(p, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (packed) {  // sized as if it matches; gemm_s8 re-checks with the real pointers
    g.b = packed->b;
    g.bias = packed->bias;
    g.a_offset = packed->a_offset;
    g.out.multiplier = &p.multiplier;
    g.out.shift = &p.shift;
    g.packed_b = packed;
  }
  return gemm_s8_scratch_bytes(g, threads);
}

size_t linear_s8_packed_bytes(const LinearParams& p) {
  // Placeholder weights: only the sizes matter here.
  static const int8_t kAnyWeights = 0;
  return gemm_s8_packed_b_bytes(linear_gemm(p, nullptr, &kAnyWeights, nullptr, nullptr, &p.multiplier, &p.shift, nullptr));
}

const GemmS8PackedB* linear_s8_pack_weights(const LinearParams& p, const int8_t* weights, const int32_t* bias,
                                            const int32_t* kernel_sum, std::span<uint8_t> memory) {
  return gemm_s8_pack_b(linear_gemm(p, nullptr, weights, bias, kernel_sum, &p.multiplier, &p.shift, nullptr), memory);
}

void linear_s8(const LinearParams& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
               const int32_t* kernel_sum, int8_t* output, const Exec& exec, const GemmS8PackedB* packed) {
  GemmS8 g = linear_gemm(p, input, weights, bias, kernel_sum, &p.multiplier, &p.shift, output);
  g.packed_b = packed;
  if (!packed && compute::gemv_small_usable(g)) {  // classifier-sized layers: skip gemm_s8's dispatch
    compute::gemv_small(g);
    return;
  }
  gemm_s8(g, exec);
}

void linear_s8_per_channel(const LinearParams& p, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, const int32_t* multipliers, const int32_t* shifts,
                           int8_t* output, const Exec& exec) {
  GemmS8 g = linear_gemm(p, input, weights, bias, nullptr, multipliers, shifts, output);
  g.out.per_channel = true;
  gemm_s8(g, exec);
}

namespace {

// A fully connected layer as conv_s16 takes it: `rows` rows of in_features, each a 1x1 pixel.
compute::ConvS16Shape s16_shape(const LinearParams& p, int32_t rows) {
  compute::ConvS16Shape s;
  s.batches = rows, s.in_ch = p.in_features, s.out_ch = p.out_features;
  return s;
}

// The rows conv_s16 takes in one call (its batch count is an int32).
constexpr int64_t kRowsPerCall = INT32_MAX;

}  // namespace

size_t linear_s16_packed_bytes(const LinearParams& p) { return compute::conv_s16_packed_weights_bytes(s16_shape(p, 1)); }

const compute::ConvS16PackedWeights* linear_s16_pack_weights(const LinearParams& p, const int8_t* weights,
                                                             std::span<uint8_t> memory) {
  compute::ConvS16 c;
  c.shape = s16_shape(p, 1);
  c.weight = weights;
  return compute::conv_s16_pack_weights(c, memory);
}

size_t linear_s16_scratch_bytes(const LinearParams& p, int threads, const compute::ConvS16PackedWeights* packed) {
  return compute::conv_s16_scratch_bytes(s16_shape(p, 1), threads, packed);
}

void linear_s16(const LinearParams& p, const int16_t* input, const int8_t* weights, const int64_t* bias64,
                const int32_t* bias32, int16_t* output, const Exec& exec, const compute::ConvS16PackedWeights* packed) {
  compute::ConvS16 c;
  c.weight = weights;
  c.packed = packed;
  compute::S16Output& o = c.out;
  o.stage = compute::S16OutputStage::kRequantize64;  // arm_fully_connected_s16: 64-bit, whatever the bias
  o.bias64 = bias64, o.bias32 = bias64 ? nullptr : bias32;
  o.multiplier = &p.multiplier, o.shift = &p.shift, o.scale_per_channel = false;
  o.activation_min = p.activation_min, o.activation_max = p.activation_max;
  for (int64_t b = 0; b < p.batches; b += kRowsPerCall) {
    const int32_t rows = int32_t(std::min(kRowsPerCall, p.batches - b));
    c.shape = s16_shape(p, rows);
    c.input = input + b * p.in_features;
    o.out16 = output + b * p.out_features;
    compute::conv_s16(c, exec);
  }
}

namespace {

// quantized_linear(input, weights, bias?, kernel_sum?, input_offset, filter_offset, output_offset,
//   requantize_multipliers[], requantize_shifts[], activation_max, activation_min, out) + return:
// 13 arguments. Note activation_max comes before activation_min in the schema.
constexpr const char* kLinearOp = "cortex_m::quantized_linear.out";
constexpr size_t kLinearOut = 11;

struct LinearCall {
  LinearParams p;
  Tensor* input = nullptr;
  Tensor* weights = nullptr;
  Tensor* bias = nullptr;
  Tensor* kernel_sum = nullptr;
  Tensor* out = nullptr;
  bool s16 = false;
};

// Every argument check that does not need the activations' data (shared by prepare and execute).
Result<LinearCall> parse_linear_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(13, 13));
  LinearCall c;
  LinearParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.weights, args.tensor(1, "weights"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(kLinearOut, "out"));
  const Tensor& input = *c.input;
  const Tensor& weights = *c.weights;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", input, {ScalarType::Char, ScalarType::Short}));
  c.s16 = input.dtype() == ScalarType::Short;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "weights", weights, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, kLinearOut, "out", *c.out, {input.dtype()}));
  if (weights.rank() != 2) return args.error(1, "weights", "expected 2-D [out, in] weights");
  if (input.rank() < 1) return args.error(0, "input", "expected rank >= 1");
  if (!input.is_default_dim_order()) return args.error(0, "input", "expected contiguous memory");
  p.out_features = weights.size(0);
  p.in_features = weights.size(1);
  if (input.size(input.rank() - 1) != p.in_features)
    return args.error(0, "input", "last dim " + std::to_string(input.size(input.rank() - 1)) +
                                      " != weights in_features " + std::to_string(p.in_features));
  p.batches = p.in_features ? input.numel() / p.in_features : 0;
  VKRT_ASSIGN_OR_RETURN(c.bias, optional_bias(args, 2, "bias", p.out_features, c.s16));
  VKRT_ASSIGN_OR_RETURN(c.kernel_sum, optional_bias(args, 3, "kernel_sum", p.out_features, false));
  if (c.bias && c.kernel_sum) return args.error(3, "kernel_sum", "bias and kernel_sum are both set");
  if (c.s16 && c.kernel_sum) return args.error(3, "kernel_sum", "not supported with int16 input");
  VKRT_ASSIGN_OR_RETURN(p.input_offset, int_arg(args, 4, "input_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.filter_offset, int_arg(args, 5, "filter_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 6, "output_offset", -65536, 65536));
  // Lists with one value per tensor (only element 0 is used, §2).
  int64_t values[1];
  VKRT_ASSIGN_OR_RETURN(size_t nm, args.int_list(7, "requantize_multipliers", values));
  if (nm < 1) return args.error(7, "requantize_multipliers", "empty list");
  VKRT_RETURN_IF_ERROR(expect_range(args, 7, "requantize_multipliers", values[0], INT32_MIN, INT32_MAX));
  p.multiplier = int32_t(values[0]);
  VKRT_ASSIGN_OR_RETURN(size_t ns, args.int_list(8, "requantize_shifts", values));
  if (ns < 1) return args.error(8, "requantize_shifts", "empty list");
  VKRT_RETURN_IF_ERROR(expect_range(args, 8, "requantize_shifts", values[0], -31, 30));
  p.shift = int32_t(values[0]);
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 9, "activation_max"));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 10, "activation_min"));
  if (Status s = check_linear(p, c.s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  return c;
}

// Load time: the call is parsed once (prepare_call); constant int8 weights (and bias or
// kernel_sum) are also packed once for the GEMM.
Status quantized_linear_prepare(KernelPrepareContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kLinearOp, argv);
  VKRT_ASSIGN_OR_RETURN(PreparedCall<LinearCall> * prepared,
                        prepare_call(ctx, args, parse_linear_call, {1, 2, 3}));
  if (prepared == nullptr) return Status::ok();
  const LinearCall& c = prepared->call;
  if (c.weights->data() == nullptr) return Status::ok();
  if (c.s16) {  // the A16W8 convolution's panels
    const size_t bytes = linear_s16_packed_bytes(c.p);
    if (bytes == 0) return Status::ok();
    VKRT_ASSIGN_OR_RETURN(std::span<uint8_t> memory, packing_memory(ctx, args, bytes));
    prepared->packed = linear_s16_pack_weights(c.p, c.weights->data_as<int8_t>(), memory);
    return Status::ok();
  }
  const size_t bytes = linear_s8_packed_bytes(c.p);
  if (bytes == 0) return Status::ok();
  VKRT_ASSIGN_OR_RETURN(std::span<uint8_t> memory, packing_memory(ctx, args, bytes));
  prepared->packed = linear_s8_pack_weights(c.p, c.weights->data_as<int8_t>(),
                                            c.bias ? c.bias->data_as<int32_t>() : nullptr,
                                            c.kernel_sum ? c.kernel_sum->data_as<int32_t>() : nullptr, memory);
  return Status::ok();
}

Status quantized_linear_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kLinearOp, argv);
  const void* packed_weights = nullptr;
  VKRT_ASSIGN_OR_RETURN(LinearCall c, prepared_or_parse<LinearCall>(ctx, args, parse_linear_call, &packed_weights));
  const LinearParams& p = c.p;
  Tensor& input = *c.input;
  // Output: the input's leading dims with the last replaced by out_features.
  int32_t sizes[kMaxRank];
  for (int i = 0; i < input.rank(); ++i) sizes[i] = input.size(i);
  sizes[input.rank() - 1] = p.out_features;
  VKRT_RETURN_IF_ERROR(prepare_output(args, kLinearOut, *c.out, std::span<const int32_t>(sizes, input.rank())));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "weights", *c.weights));
  ContextRunner runner(ctx);
  if (c.s16) {
    const bool b64 = c.bias && c.bias->dtype() == ScalarType::Long;
    const auto* packed = static_cast<const compute::ConvS16PackedWeights*>(packed_weights);
    linear_s16(p, input.data_as<int16_t>(), c.weights->data_as<int8_t>(), b64 ? c.bias->data_as<int64_t>() : nullptr,
               (c.bias && !b64) ? c.bias->data_as<int32_t>() : nullptr, c.out->data_as<int16_t>(),
               make_exec(ctx, runner, linear_s16_scratch_bytes(p, runner.num_threads(), packed)), packed);
    return Status::ok();
  }
  const auto* packed = static_cast<const GemmS8PackedB*>(packed_weights);
  const Exec exec = make_exec(ctx, runner, linear_s8_scratch_bytes(p, runner.num_threads(), packed));
  linear_s8(p, input.data_as<int8_t>(), c.weights->data_as<int8_t>(), c.bias ? c.bias->data_as<int32_t>() : nullptr,
            c.kernel_sum ? c.kernel_sum->data_as<int32_t>() : nullptr, c.out->data_as<int8_t>(), exec, packed);
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kLinearOp, quantized_linear_out, quantized_linear_prepare);

}  // namespace vkrt::cortex_m
