#include "cortex_m/conformance_families.h"

#include <array>
#include <cctype>
#include <map>
#include <vector>

#include "cortex_m/avg_pool2d.h"
#include "cortex_m/batch_matmul.h"
#include "cortex_m/conv2d.h"
#include "compute/isa.h"
#include "cortex_m/data_movement.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/max_pool2d.h"
#include "cortex_m/minimum_maximum.h"
#include "cortex_m/quantized_add.h"
#include "cortex_m/quantized_mul.h"
#include "cortex_m/reference/reference_ops.h"
#include "cortex_m/softmax.h"
#include "cortex_m/softmax_s16.h"
#include "cortex_m/support/thread_runner.h"
#include "cortex_m/transpose_conv2d.h"

namespace vkrt::testing::cmsis {
namespace {

using namespace vkrt::cortex_m;

// Runs `fn(exec)` once at the ISA level the caller pinned (2 threads, ample scratch) and once
// portable (serial, no scratch).
struct Paths {
  ThreadRunner runner{2};
  std::vector<uint8_t> scratch;
  const compute::Isa level = compute::active_isa();
  Exec optimized(size_t bytes) {
    compute::pin_isa(level);
    scratch.assign(bytes + 128, 0);
    Exec e;
    e.scratch = scratch;
    e.runner = &runner;
    return e;
  }
  Exec portable() {
    compute::pin_isa(compute::Isa::Portable);
    return Exec{};
  }
  ~Paths() { compute::pin_isa(level); }
};

std::string first_error(std::initializer_list<std::string> errors) {
  for (const auto& e : errors)
    if (!e.empty()) return e;
  return "";
}

// ---- convolution ----------------------------------------------------------------------------
std::string run_conv_s8(VectorAccess& v) {
  Conv2dParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.in_ch = v.need("IN_CH");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W"), p.out_ch = v.need("OUT_CH");
  p.kernel_h = v.need("FILTER_Y"), p.kernel_w = v.need("FILTER_X");
  p.stride_h = v.need("STRIDE_Y"), p.stride_w = v.need("STRIDE_X");
  p.pad_h = v.need("PAD_Y"), p.pad_w = v.need("PAD_X");
  p.dilation_h = v.optional("DILATION_Y", 1), p.dilation_w = v.optional("DILATION_X", 1);
  const int32_t filter_ch = v.optional("FILTER_CH", p.in_ch);
  p.groups = filter_ch > 0 ? p.in_ch / filter_ch : 0;
  p.input_offset = v.need("INPUT_OFFSET"), p.output_offset = v.need("OUTPUT_OFFSET");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (Status s = check_conv2d(p, false); !s.is_ok()) return "parameters rejected: " + s.message();
  const int64_t in_count = int64_t(p.batches) * p.in_h * p.in_w * p.in_ch;
  const int64_t out_count = int64_t(p.batches) * p.out_h * p.out_w * p.out_ch;
  const auto input = v.array<int8_t>({"input"}, in_count);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.out_ch) * p.kernel_h * p.kernel_w * (p.in_ch / p.groups));
  const auto bias = v.optional_array<int32_t>({"biases", "bias"}, p.out_ch);
  const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, p.out_ch);
  const auto shift = v.array<int32_t>({"output_shift"}, p.out_ch);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  const int32_t* b = bias.empty() ? nullptr : bias.data();
  std::vector<int8_t> fast(out_count), portable(out_count), oracle(out_count);
  Paths paths;
  conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), fast.data(),
            paths.optimized(conv2d_s8_scratch_bytes(p, 2)));
  conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), portable.data(), paths.portable());
  reference::conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), oracle.data());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(portable, want, "portable"),
                      compare_outputs(oracle, want, "reference")});
}

std::string run_conv_s16(VectorAccess& v) {
  Conv2dParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.in_ch = v.need("IN_CH");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W"), p.out_ch = v.need("OUT_CH");
  p.kernel_h = v.need("FILTER_Y"), p.kernel_w = v.need("FILTER_X");
  p.stride_h = v.need("STRIDE_Y"), p.stride_w = v.need("STRIDE_X");
  p.pad_h = v.need("PAD_Y"), p.pad_w = v.need("PAD_X");
  p.dilation_h = v.optional("DILATION_Y", 1), p.dilation_w = v.optional("DILATION_X", 1);
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (Status s = check_conv2d(p, true); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto input = v.array<int16_t>({"input"}, int64_t(p.batches) * p.in_h * p.in_w * p.in_ch);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.out_ch) * p.kernel_h * p.kernel_w * p.in_ch);
  const CArray* bias = v.find({"biases", "bias"});
  std::vector<int64_t> bias64;
  std::vector<int32_t> bias32;
  if (bias && bias->type == "int64_t") bias64 = v.array<int64_t>({"biases", "bias"}, p.out_ch);
  if (bias && bias->type != "int64_t") bias32 = v.array<int32_t>({"biases", "bias"}, p.out_ch);
  const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, p.out_ch);
  const auto shift = v.array<int32_t>({"output_shift"}, p.out_ch);
  const auto want = v.array<int16_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int16_t> fast(int64_t(p.batches) * p.out_h * p.out_w * p.out_ch), portable(fast.size());
  const int32_t* b32 = bias32.empty() ? nullptr : bias32.data();
  const int64_t* b64 = bias64.empty() ? nullptr : bias64.data();
  Paths paths;
  conv2d_s16(p, input.data(), weights.data(), b32, b64, mult.data(), shift.data(), fast.data(),
             paths.optimized(conv2d_s16_scratch_bytes(p, 2)));
  // The weights packed ahead, as a loaded method packs constant ones (where the level packs).
  std::vector<uint8_t> memory(conv2d_s16_packed_bytes(p));
  const compute::ConvS16PackedWeights* packed = conv2d_s16_pack_weights(p, weights.data(), memory);
  std::vector<int16_t> ahead(fast.size());
  conv2d_s16(p, input.data(), weights.data(), b32, b64, mult.data(), shift.data(), ahead.data(),
             paths.optimized(conv2d_s16_scratch_bytes(p, 2, packed)), packed);
  conv2d_s16(p, input.data(), weights.data(), b32, b64, mult.data(), shift.data(), portable.data(), paths.portable());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(ahead, want, "packed ahead"),
                      compare_outputs(portable, want, "portable")});
}

std::string run_depthwise_s8(VectorAccess& v) {
  DepthwiseConv2dParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.in_ch = v.need("IN_CH");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W");
  const int32_t out_ch = v.need("OUT_CH");
  p.ch_mult = v.optional("CH_MULT", p.in_ch ? out_ch / p.in_ch : 1);
  p.kernel_h = v.need("FILTER_Y"), p.kernel_w = v.need("FILTER_X");
  p.stride_h = v.need("STRIDE_Y"), p.stride_w = v.need("STRIDE_X");
  p.pad_h = v.need("PAD_Y"), p.pad_w = v.need("PAD_X");
  p.dilation_h = v.optional("DILATION_Y", 1), p.dilation_w = v.optional("DILATION_X", 1);
  p.input_offset = v.need("INPUT_OFFSET"), p.output_offset = v.need("OUTPUT_OFFSET");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (p.out_ch() != out_ch) return "OUT_CH != IN_CH x CH_MULT";
  if (Status s = check_depthwise_conv2d(p, false); !s.is_ok()) return "parameters rejected: " + s.message();
  const int64_t out_count = int64_t(p.batches) * p.out_h * p.out_w * out_ch;
  const auto input = v.array<int8_t>({"input"}, int64_t(p.batches) * p.in_h * p.in_w * p.in_ch);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.kernel_h) * p.kernel_w * out_ch);
  const auto bias = v.optional_array<int32_t>({"biases", "bias"}, out_ch);
  const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, out_ch);
  const auto shift = v.array<int32_t>({"output_shift"}, out_ch);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  const int32_t* b = bias.empty() ? nullptr : bias.data();
  std::vector<int8_t> fast(out_count), portable(out_count), oracle(out_count);
  Paths paths;
  depthwise_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), fast.data(),
                      paths.optimized(depthwise_conv2d_s8_scratch_bytes(p, 2)));
  depthwise_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), portable.data(), paths.portable());
  reference::depthwise_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), oracle.data());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(portable, want, "portable"),
                      compare_outputs(oracle, want, "reference")});
}

std::string run_depthwise_s16(VectorAccess& v) {
  DepthwiseConv2dParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.in_ch = v.need("IN_CH");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W");
  const int32_t out_ch = v.need("OUT_CH");
  p.ch_mult = v.optional("CH_MULT", p.in_ch ? out_ch / p.in_ch : 1);
  p.kernel_h = v.need("FILTER_Y"), p.kernel_w = v.need("FILTER_X");
  p.stride_h = v.need("STRIDE_Y"), p.stride_w = v.need("STRIDE_X");
  p.pad_h = v.need("PAD_Y"), p.pad_w = v.need("PAD_X");
  p.dilation_h = v.optional("DILATION_Y", 1), p.dilation_w = v.optional("DILATION_X", 1);
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (p.out_ch() != out_ch) return "OUT_CH != IN_CH x CH_MULT";
  if (Status s = check_depthwise_conv2d(p, true); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto input = v.array<int16_t>({"input"}, int64_t(p.batches) * p.in_h * p.in_w * p.in_ch);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.kernel_h) * p.kernel_w * out_ch);
  const CArray* bias = v.find({"biases", "bias"});
  std::vector<int64_t> bias64;
  std::vector<int32_t> bias32;
  if (bias && bias->type == "int64_t") bias64 = v.array<int64_t>({"biases", "bias"}, out_ch);
  if (bias && bias->type != "int64_t") bias32 = v.array<int32_t>({"biases", "bias"}, out_ch);
  const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, out_ch);
  const auto shift = v.array<int32_t>({"output_shift"}, out_ch);
  const auto want = v.array<int16_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int16_t> fast(int64_t(p.batches) * p.out_h * p.out_w * out_ch), portable(fast.size());
  const int32_t* b32 = bias32.empty() ? nullptr : bias32.data();
  const int64_t* b64 = bias64.empty() ? nullptr : bias64.data();
  Paths paths;
  depthwise_conv2d_s16(p, input.data(), weights.data(), b32, b64, mult.data(), shift.data(), fast.data(),
                       paths.optimized(0));
  depthwise_conv2d_s16(p, input.data(), weights.data(), b32, b64, mult.data(), shift.data(), portable.data(),
                       paths.portable());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(portable, want, "portable")});
}

std::string run_transpose_conv_s8(VectorAccess& v) {
  TransposeConv2dParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.in_ch = v.need("IN_CH");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W"), p.out_ch = v.need("OUT_CH");
  p.kernel_h = v.need("FILTER_Y"), p.kernel_w = v.need("FILTER_X");
  p.stride_h = v.need("STRIDE_Y"), p.stride_w = v.need("STRIDE_X");
  p.pad_h = v.need("PAD_Y"), p.pad_w = v.need("PAD_X");
  p.input_offset = v.need("INPUT_OFFSET"), p.output_offset = v.need("OUTPUT_OFFSET");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (Status s = check_transpose_conv2d(p); !s.is_ok()) return "parameters rejected: " + s.message();
  const int64_t out_count = int64_t(p.batches) * p.out_h * p.out_w * p.out_ch;
  const auto input = v.array<int8_t>({"input"}, int64_t(p.batches) * p.in_h * p.in_w * p.in_ch);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.out_ch) * p.kernel_h * p.kernel_w * p.in_ch);
  const auto bias = v.optional_array<int32_t>({"biases", "bias"}, p.out_ch);
  const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, p.out_ch);
  const auto shift = v.array<int32_t>({"output_shift"}, p.out_ch);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  const int32_t* b = bias.empty() ? nullptr : bias.data();
  std::vector<int8_t> got(out_count), loops(out_count), oracle(out_count);
  Paths paths;
  transpose_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), got.data(),
                      paths.optimized(transpose_conv2d_s8_scratch_bytes(p, 2)));
  transpose_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), loops.data(), paths.portable());
  reference::transpose_conv2d_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), oracle.data());
  return first_error({compare_outputs(got, want, "optimized"), compare_outputs(loops, want, "without scratch"),
                      compare_outputs(oracle, want, "reference")});
}

// ---- fully connected / batch matmul --------------------------------------------------------
std::string run_fc_s8(VectorAccess& v) {
  LinearParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_features = v.need({"ACCUMULATION_DEPTH", "IN_CH"});
  p.out_features = v.need("OUT_CH");
  p.input_offset = v.need("INPUT_OFFSET"), p.filter_offset = v.optional("FILTER_OFFSET", 0);
  p.output_offset = v.need("OUTPUT_OFFSET");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  const bool per_channel = v.text("PER_CHANNEL_QUANT") == "true";
  std::vector<int32_t> mult, shift;
  if (per_channel) {
    mult = v.array<int32_t>({"output_multiplier", "output_mult"}, p.out_features);
    shift = v.array<int32_t>({"output_shift"}, p.out_features);
  } else {
    mult = {v.need("OUTPUT_MULTIPLIER")};
    shift = {v.need("OUTPUT_SHIFT")};
    p.multiplier = mult[0], p.shift = shift[0];
  }
  if (!v.ok()) return v.error();
  if (Status s = check_linear(p, false); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto input = v.array<int8_t>({"input"}, p.batches * p.in_features);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.out_features) * p.in_features);
  const auto bias = v.optional_array<int32_t>({"biases", "bias"}, p.out_features);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  const int32_t* b = bias.empty() ? nullptr : bias.data();
  const int64_t out_count = p.batches * p.out_features;
  std::vector<int8_t> fast(out_count), portable(out_count), oracle(out_count), folded(out_count);
  Paths paths;
  if (per_channel) {
    linear_s8_per_channel(p, input.data(), weights.data(), b, mult.data(), shift.data(), fast.data(),
                          paths.optimized(linear_s8_scratch_bytes(p, 2)));
    linear_s8_per_channel(p, input.data(), weights.data(), b, mult.data(), shift.data(), portable.data(),
                          paths.portable());
    folded = fast;
  } else {
    linear_s8(p, input.data(), weights.data(), b, nullptr, fast.data(), paths.optimized(linear_s8_scratch_bytes(p, 2)));
    linear_s8(p, input.data(), weights.data(), b, nullptr, portable.data(), paths.portable());
    // The MVE form: kernel_sum[o] = bias[o] + in_off·Σ_i (w[o][i] + w_off), no bias.
    std::vector<int32_t> kernel_sum(p.out_features);
    for (int32_t o = 0; o < p.out_features; ++o) {
      int64_t sum = 0;
      for (int32_t i = 0; i < p.in_features; ++i) sum += weights[int64_t(o) * p.in_features + i] + p.filter_offset;
      kernel_sum[o] = int32_t(uint32_t((b ? b[o] : 0) + uint64_t(int64_t(p.input_offset) * sum)));
    }
    linear_s8(p, input.data(), weights.data(), nullptr, kernel_sum.data(), folded.data(),
              paths.optimized(linear_s8_scratch_bytes(p, 2)));
  }
  reference::fully_connected_s8(p, input.data(), weights.data(), b, mult.data(), shift.data(), per_channel,
                                oracle.data());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(portable, want, "portable"),
                      compare_outputs(folded, want, "kernel_sum form"), compare_outputs(oracle, want, "reference")});
}

std::string run_fc_s16(VectorAccess& v) {
  LinearParams p;
  p.batches = v.need({"INPUT_BATCHES", "BATCH_SIZE"});
  p.in_features = v.need({"ACCUMULATION_DEPTH", "IN_CH"});
  p.out_features = v.need("OUT_CH");
  p.multiplier = v.need("OUTPUT_MULTIPLIER"), p.shift = v.need("OUTPUT_SHIFT");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  if (Status s = check_linear(p, true); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto input = v.array<int16_t>({"input"}, p.batches * p.in_features);
  const auto weights = v.array<int8_t>({"weights"}, int64_t(p.out_features) * p.in_features);
  const CArray* bias = v.find({"biases", "bias"});
  std::vector<int64_t> bias64;
  std::vector<int32_t> bias32;
  if (bias && bias->type == "int64_t") bias64 = v.array<int64_t>({"biases", "bias"}, p.out_features);
  if (bias && bias->type != "int64_t") bias32 = v.array<int32_t>({"biases", "bias"}, p.out_features);
  const auto want = v.array<int16_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int16_t> fast(p.batches * p.out_features), portable(fast.size());
  const int32_t* b32 = bias32.empty() ? nullptr : bias32.data();
  const int64_t* b64 = bias64.empty() ? nullptr : bias64.data();
  Paths paths;
  linear_s16(p, input.data(), weights.data(), b64, b32, fast.data(), paths.optimized(linear_s16_scratch_bytes(p, 2)));
  // The weights packed ahead, as a loaded method packs constant ones (where the level packs).
  std::vector<uint8_t> memory(linear_s16_packed_bytes(p));
  const compute::ConvS16PackedWeights* packed = linear_s16_pack_weights(p, weights.data(), memory);
  std::vector<int16_t> ahead(fast.size());
  linear_s16(p, input.data(), weights.data(), b64, b32, ahead.data(),
             paths.optimized(linear_s16_scratch_bytes(p, 2, packed)), packed);
  linear_s16(p, input.data(), weights.data(), b64, b32, portable.data(), paths.portable());
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(ahead, want, "packed ahead"),
                      compare_outputs(portable, want, "portable")});
}

// CMSIS batch matmul vectors: batch dims LHS_BATCH x LHS_HEIGHT (and RHS_*), each broadcast
// when 1; ADJ_X selects the provided transposed LHS ([M][K]); see ADJ_Y below for the RHS.
template <typename T>
std::string run_bmm(VectorAccess& v) {
  const int32_t lb = v.need("LHS_BATCH"), lh = v.need("LHS_HEIGHT"), rb = v.need("RHS_BATCH"), rh = v.need("RHS_HEIGHT");
  const int32_t ob = v.need("OUTPUT_BATCH"), oh = v.need("OUTPUT_HEIGHT");
  const int32_t m = v.need("OUTPUT_ROWS"), n = v.need("OUTPUT_COLS");
  const int32_t adj_x = v.optional("ADJ_X", 0);
  const int32_t k = adj_x ? v.need("LHS_ROWS") : v.need("LHS_COLS");
  BatchMatmulParams p;
  p.batches = 1, p.rows = m, p.cols = n, p.depth = k;
  p.lhs_offset = v.need("LHS_OFFSET"), p.rhs_offset = v.need("RHS_OFFSET"), p.output_offset = v.need("OUTPUT_OFFSET");
  p.multiplier = v.need("OUTPUT_MULTIPLIER"), p.shift = v.need("OUTPUT_SHIFT");
  p.activation_min = v.need("ACTIVATION_MIN"), p.activation_max = v.need("ACTIVATION_MAX");
  if (!v.ok()) return v.error();
  constexpr bool s16 = sizeof(T) == 2;
  if (Status s = check_batch_matmul(p, s16); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto lhs = v.array<T>({adj_x ? "lhs_transposed_tensor" : "lhs_input_tensor"}, int64_t(lb) * lh * m * k);
  // CMSIS-NN takes the RHS as [N][K]: the vector's transposed RHS, or its plain RHS when the
  // TFLite op already had adj_y (then the plain RHS is [N][K]).
  const int32_t adj_y = v.optional("ADJ_Y", 0);
  const auto rhs = v.array<T>({adj_y ? "rhs_input_tensor" : "rhs_transposed_tensor"}, int64_t(rb) * rh * n * k);
  const auto want = v.array<T>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<T> got(int64_t(ob) * oh * m * n), oracle(got.size()), portable(got.size());
  Paths paths;
  for (int32_t b = 0; b < ob; ++b)
    for (int32_t h = 0; h < oh; ++h) {
      const int64_t li = int64_t(lb == 1 ? 0 : b) * lh + (lh == 1 ? 0 : h);
      const int64_t ri = int64_t(rb == 1 ? 0 : b) * rh + (rh == 1 ? 0 : h);
      const int64_t oi = int64_t(b) * oh + h;
      if constexpr (s16) {
        batch_matmul_s16(p, lhs.data() + li * m * k, rhs.data() + ri * n * k, got.data() + oi * m * n,
                         paths.optimized(batch_matmul_s16_scratch_bytes(p, 2)));
        batch_matmul_s16(p, lhs.data() + li * m * k, rhs.data() + ri * n * k, portable.data() + oi * m * n,
                         paths.portable());
        reference::batch_matmul_s16(p, lhs.data() + li * m * k, rhs.data() + ri * n * k, oracle.data() + oi * m * n);
      } else {
        batch_matmul_s8(p, lhs.data() + li * m * k, rhs.data() + ri * n * k, got.data() + oi * m * n,
                        paths.optimized(batch_matmul_s8_scratch_bytes(p, 2)));
        reference::batch_matmul_s8(p, lhs.data() + li * m * k, rhs.data() + ri * n * k, oracle.data() + oi * m * n);
      }
    }
  if constexpr (s16)
    return first_error({compare_outputs(got, want, "optimized"), compare_outputs(portable, want, "portable"),
                        compare_outputs(oracle, want, "reference")});
  return first_error({compare_outputs(got, want, "kernel"), compare_outputs(oracle, want, "reference")});
}

// ---- elementwise ----------------------------------------------------------------------------
template <typename T>
std::string run_add(VectorAccess& v) {
  AddParams p;
  p.input1_offset = v.need("INPUT1_OFFSET"), p.input1_multiplier = v.need("INPUT1_MULT"), p.input1_shift = v.need("INPUT1_SHIFT");
  p.input2_offset = v.need("INPUT2_OFFSET"), p.input2_multiplier = v.need("INPUT2_MULT"), p.input2_shift = v.need("INPUT2_SHIFT");
  p.left_shift = v.need("LEFT_SHIFT");
  p.output_offset = v.need("OUTPUT_OFFSET"), p.output_multiplier = v.need("OUTPUT_MULT"), p.output_shift = v.need("OUTPUT_SHIFT");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  const int32_t size = v.need("DST_SIZE");
  if (!v.ok()) return v.error();
  const auto a = v.array<T>({"input1"}, size), b = v.array<T>({"input2"}, size);
  const auto want = v.array<T>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<T> got(size);
  ChannelBroadcast shape;
  shape.size = size;
  if constexpr (sizeof(T) == 1) add_s8(p, shape, a.data(), b.data(), got.data());
  else add_s16(p, shape, a.data(), b.data(), got.data());
  return compare_outputs(got, want, "kernel");
}

template <typename T>
std::string run_mul(VectorAccess& v) {
  MulParams p;
  p.input1_offset = v.need("INPUT1_OFFSET"), p.input2_offset = v.need("INPUT2_OFFSET");
  p.output_offset = v.need("OUTPUT_OFFSET"), p.output_multiplier = v.need("OUTPUT_MULT"), p.output_shift = v.need("OUTPUT_SHIFT");
  p.activation_min = v.need("OUT_ACTIVATION_MIN"), p.activation_max = v.need("OUT_ACTIVATION_MAX");
  const int32_t size = v.need("DST_SIZE");
  if (!v.ok()) return v.error();
  const auto a = v.array<T>({"input1"}, size), b = v.array<T>({"input2"}, size);
  const auto want = v.array<T>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<T> got(size);
  ChannelBroadcast shape;
  shape.size = size;
  if constexpr (sizeof(T) == 1) mul_s8(p, shape, a.data(), b.data(), got.data());
  else mul_s16(p, shape, a.data(), b.data(), got.data());
  return compare_outputs(got, want, "kernel");
}

std::string run_min_max(VectorAccess& v) {
  const std::string type = v.text("LAYER_TYPE");
  if (type != "maximum" && type != "minimum") return "LAYER_TYPE is neither maximum nor minimum: " + type;
  const std::array<int32_t, 4> d1{v.need("BATCH_1"), v.need("HEIGHT_1"), v.need("WIDTH_1"), v.need("CHANNEL_1")};
  const std::array<int32_t, 4> d2{v.need("BATCH_2"), v.need("HEIGHT_2"), v.need("WIDTH_2"), v.need("CHANNEL_2")};
  if (!v.ok()) return v.error();
  Broadcast4 shape;
  if (!contiguous_broadcast(d1, d2, &shape)) return "input dims cannot be broadcast";
  const int64_t n1 = int64_t(d1[0]) * d1[1] * d1[2] * d1[3], n2 = int64_t(d2[0]) * d2[1] * d2[2] * d2[3];
  const auto a = v.array<int8_t>({"input_tensor_1"}, n1), b = v.array<int8_t>({"input_tensor_2"}, n2);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int8_t> got(int64_t(shape.sizes[0]) * shape.sizes[1] * shape.sizes[2] * shape.sizes[3]);
  if (type == "maximum") maximum_s8(shape, a.data(), b.data(), got.data());
  else minimum_s8(shape, a.data(), b.data(), got.data());
  return compare_outputs(got, want, type);
}

// ---- pooling --------------------------------------------------------------------------------
PoolParams pool_params(VectorAccess& v) {
  PoolParams p;
  p.batches = v.need({"BATCH_SIZE", "INPUT_N"});  // avgpooling_4: INPUT_N 1 but BATCH_SIZE 3 (the data has 3)
  p.in_h = v.need("INPUT_H"), p.in_w = v.need("INPUT_W"), p.channels = v.need("INPUT_C");
  p.out_h = v.need("OUTPUT_H"), p.out_w = v.need("OUTPUT_W");
  p.kernel_h = v.need("FILTER_H"), p.kernel_w = v.need("FILTER_W");
  p.stride_h = v.need("STRIDE_H"), p.stride_w = v.need("STRIDE_W");
  p.pad_h = v.need("PADDING_H"), p.pad_w = v.need("PADDING_W");
  p.activation_min = v.need("ACTIVATION_MIN"), p.activation_max = v.need("ACTIVATION_MAX");
  return p;
}

template <typename T, bool kAverage>
std::string run_pool(VectorAccess& v) {
  const PoolParams p = pool_params(v);
  if (!v.ok()) return v.error();
  if (Status s = check_pool(p, sizeof(T) == 2); !s.is_ok()) return "parameters rejected: " + s.message();
  const auto input = v.array<T>({"input_tensor", "input"}, int64_t(p.batches) * p.in_h * p.in_w * p.channels);
  const auto want = v.array<T>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  const int64_t count = int64_t(p.batches) * p.out_h * p.out_w * p.channels;
  std::vector<T> fast(count), portable(count), oracle(count);
  Paths paths;
  Status s1, s2;
  if constexpr (kAverage) {
    if constexpr (sizeof(T) == 1) {
      s1 = avg_pool2d_s8(p, input.data(), fast.data(), paths.optimized(avg_pool2d_scratch_bytes(p, 2)));
      s2 = avg_pool2d_s8(p, input.data(), portable.data(), paths.portable());
      reference::avg_pool2d_s8(p, input.data(), oracle.data());
    } else {
      s1 = avg_pool2d_s16(p, input.data(), fast.data(), paths.optimized(avg_pool2d_scratch_bytes(p, 2)));
      s2 = avg_pool2d_s16(p, input.data(), portable.data(), paths.portable());
      oracle = fast;
    }
  } else {
    if constexpr (sizeof(T) == 1) {
      s1 = max_pool2d_s8(p, input.data(), fast.data());
      reference::max_pool2d_s8(p, input.data(), oracle.data());
    } else {
      s1 = max_pool2d_s16(p, input.data(), fast.data());
      oracle = fast;
    }
    portable = fast;
  }
  if (!s1.is_ok()) return "kernel error: " + s1.message();
  if (!s2.is_ok()) return "kernel error: " + s2.message();
  return first_error({compare_outputs(fast, want, "optimized"), compare_outputs(portable, want, "portable"),
                      compare_outputs(oracle, want, "reference")});
}

// ---- softmax, data movement ------------------------------------------------------------------
template <typename Out>
std::string run_softmax(VectorAccess& v) {
  SoftmaxParams p;
  p.rows = v.need("NUM_ROWS"), p.row_size = v.need("ROW_SIZE");
  p.input_multiplier = v.need("INPUT_MULT"), p.input_left_shift = v.need("INPUT_LEFT_SHIFT");
  p.diff_min = v.need("DIFF_MIN");
  if (!v.ok()) return v.error();
  const auto input = v.array<int8_t>({"input"}, p.rows * p.row_size);
  const auto want = v.array<Out>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<Out> got(p.rows * p.row_size);
  if constexpr (sizeof(Out) == 1) softmax_s8(p, input.data(), got.data());
  else softmax_s8_s16(p, input.data(), got.data());
  return compare_outputs(got, want, "kernel");
}

// arm_softmax_s16 (LUT-based): the tables are built here as TFLite 2.6 builds them; the vector
// holds only input, parameters and output.
std::string run_softmax_s16(VectorAccess& v) {
  SoftmaxS16Params p;
  p.rows = v.need("NUM_ROWS"), p.row_size = v.need("ROW_SIZE");
  p.input_multiplier = v.need("INPUT_MULT"), p.input_left_shift = v.need("INPUT_LEFT_SHIFT");
  if (!v.ok()) return v.error();
  const auto input = v.array<int16_t>({"input"}, p.rows * p.row_size);
  const auto want = v.array<int16_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int16_t> got(size_t(p.rows * p.row_size));
  if (Status s = softmax_s16(p, input.data(), got.data()); !s.is_ok()) return "kernel error: " + s.message();
  return compare_outputs(got, want, "kernel");
}

std::string run_pad(VectorAccess& v) {
  PadParams p;
  p.in_dims = {v.need("INPUT_N"), v.need("INPUT_H"), v.need("INPUT_W"), v.need("INPUT_C")};
  p.pre = {v.need("PRE_PAD_N"), v.need("PRE_PAD_H"), v.need("PRE_PAD_W"), v.need("PRE_PAD_C")};
  p.post = {v.need("POST_PAD_N"), v.need("POST_PAD_H"), v.need("POST_PAD_W"), v.need("POST_PAD_C")};
  const int32_t value = v.need("PAD_VALUE");
  if (!v.ok()) return v.error();
  if (value < -128 || value > 127) return "PAD_VALUE outside int8";
  p.pad_value = int8_t(value);
  int64_t out_count = 1;
  for (int d = 0; d < 4; ++d) {
    if (p.in_dims[d] < 0 || p.pre[d] < 0 || p.post[d] < 0) return "negative size";
    out_count *= int64_t(p.pre[d]) + p.in_dims[d] + p.post[d];
  }
  const auto input = v.array<int8_t>({"input_tensor", "input"}, int64_t(p.in_dims[0]) * p.in_dims[1] * p.in_dims[2] * p.in_dims[3]);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int8_t> got(out_count);
  pad_s8(p, input.data(), got.data());
  return compare_outputs(got, want, "kernel");
}

std::string run_transpose(VectorAccess& v) {
  const int32_t rank = v.need("PERM_SIZE");
  const auto in_dims = v.list("IN_DIM");
  const auto perm = v.list("PERM");
  if (!v.ok()) return v.error();
  if (rank < 1 || rank > 4 || int(in_dims.size()) < rank || int(perm.size()) < rank) return "bad PERM_SIZE/IN_DIM/PERM";
  TransposeParams p;
  p.rank = rank;
  std::array<int64_t, 4> in_strides{};
  int64_t stride = 1, count = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (in_dims[d] < 0 || in_dims[d] > INT32_MAX) return "bad IN_DIM";
    in_strides[d] = stride;
    stride *= in_dims[d];
  }
  count = stride;
  bool seen[4] = {};
  for (int d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]]) return "PERM is not a permutation";
    seen[perm[d]] = true;
  }
  int64_t out_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int k = 4 - rank + d;
    p.out_sizes[k] = int32_t(in_dims[perm[d]]);
    p.out_strides[k] = out_stride;
    p.in_strides[k] = in_strides[perm[d]];
    out_stride *= in_dims[perm[d]];
  }
  const auto input = v.array<int8_t>({"input_tensor", "input"}, count);
  const auto want = v.array<int8_t>({"output_ref", "output"});
  if (!v.ok()) return v.error();
  std::vector<int8_t> got(count);
  transpose_bytes(p, 1, input.data(), got.data());
  return compare_outputs(got, want, "kernel");
}

// ---- whole networks (DS-CNN keyword spotting) ----------------------------------------------------
// Layers are discovered from the config macros <TYPE>_<N>_* (TYPE one of CONV_2D,
// DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, FULLY_CONNECTED, SOFTMAX) and run in the order of N; their
// arrays are <folder>_layer_<N>_<type>_{weights,bias,output_mult,output_shift}. Each layer's output
// feeds the next; the network output is compared with <folder>_output_ref.
std::string run_network(VectorAccess& v) {
  struct LayerRef {
    int index;
    std::string type;  // upper-case macro type
  };
  static const char* kTypes[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"};
  std::map<int, std::string> layers;
  for (const auto& [name, value] : v.data().defines()) {
    for (const char* type : kTypes) {
      const std::string t = std::string(type) + "_";
      if (name.compare(0, t.size(), t) != 0) continue;
      size_t i = t.size(), digits = 0;
      int index = 0;
      while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && digits < 6)
        index = index * 10 + (name[i++] - '0'), ++digits;
      if (digits > 0 && i < name.size() && name[i] == '_') layers[index] = type;
    }
  }
  if (layers.empty()) return "no layers found";
  const auto input = v.array<int8_t>({"input"});
  const auto want = v.array<int8_t>({"output_ref"});
  if (!v.ok()) return v.error();
  std::vector<int8_t> x = input;
  Paths paths;
  for (const auto& [index, type] : layers) {
    VectorAccess m(v.data(), type + "_" + std::to_string(index));  // macros: <TYPE>_<N>_*
    std::string lower = type;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    VectorAccess a(v.data(), v.folder() + "_layer_" + std::to_string(index) + "_" + lower);  // arrays
    std::vector<int8_t> y;
    const std::string where = "layer " + std::to_string(index) + " (" + type + "): ";
    if (type == "CONV_2D" || type == "DEPTHWISE_CONV_2D") {
      const int32_t in_h = m.need("INPUT_H"), in_w = m.need("INPUT_W"), in_ch = m.need("IN_CH"), out_ch = m.need("OUT_CH");
      const int32_t out_h = m.need("OUTPUT_H"), out_w = m.need("OUTPUT_W");
      const int32_t kh = m.need("FILTER_Y"), kw = m.need("FILTER_X"), sh = m.need("STRIDE_Y"), sw = m.need("STRIDE_X");
      const int32_t ph = m.need("PAD_Y"), pw = m.need("PAD_X"), in_off = m.need("INPUT_OFFSET"), out_off = m.need("OUTPUT_OFFSET");
      const int32_t lo = m.need("OUT_ACTIVATION_MIN"), hi = m.need("OUT_ACTIVATION_MAX");
      const auto bias = a.array<int32_t>({"bias"}, out_ch);
      const auto mult = a.array<int32_t>({"output_mult"}, out_ch);
      const auto shift = a.array<int32_t>({"output_shift"}, out_ch);
      if (!m.ok()) return where + m.error();
      if (!a.ok()) return where + a.error();
      if (int64_t(x.size()) != int64_t(in_h) * in_w * in_ch) return where + "input size does not chain";
      y.assign(size_t(out_h) * out_w * out_ch, 0);
      if (type == "CONV_2D") {
        Conv2dParams p;
        p.in_h = in_h, p.in_w = in_w, p.in_ch = in_ch, p.out_h = out_h, p.out_w = out_w, p.out_ch = out_ch;
        p.kernel_h = kh, p.kernel_w = kw, p.stride_h = sh, p.stride_w = sw, p.pad_h = ph, p.pad_w = pw;
        p.input_offset = in_off, p.output_offset = out_off, p.activation_min = lo, p.activation_max = hi;
        if (Status s = check_conv2d(p, false); !s.is_ok()) return where + s.message();
        const auto w = a.array<int8_t>({"weights"}, int64_t(out_ch) * kh * kw * in_ch);
        if (!a.ok()) return where + a.error();
        conv2d_s8(p, x.data(), w.data(), bias.data(), mult.data(), shift.data(), y.data(),
                  paths.optimized(conv2d_s8_scratch_bytes(p, 2)));
      } else {
        DepthwiseConv2dParams p;
        p.in_h = in_h, p.in_w = in_w, p.in_ch = in_ch, p.out_h = out_h, p.out_w = out_w;
        p.ch_mult = in_ch ? out_ch / in_ch : 1;
        p.kernel_h = kh, p.kernel_w = kw, p.stride_h = sh, p.stride_w = sw, p.pad_h = ph, p.pad_w = pw;
        p.input_offset = in_off, p.output_offset = out_off, p.activation_min = lo, p.activation_max = hi;
        if (p.out_ch() != out_ch) return where + "OUT_CH is not a multiple of IN_CH";
        if (Status s = check_depthwise_conv2d(p, false); !s.is_ok()) return where + s.message();
        const auto w = a.array<int8_t>({"weights"}, int64_t(kh) * kw * out_ch);
        if (!a.ok()) return where + a.error();
        depthwise_conv2d_s8(p, x.data(), w.data(), bias.data(), mult.data(), shift.data(), y.data(),
                            paths.optimized(depthwise_conv2d_s8_scratch_bytes(p, 2)));
      }
    } else if (type == "AVERAGE_POOL_2D") {
      PoolParams p;
      p.in_h = m.need("INPUT_H"), p.in_w = m.need("INPUT_W"), p.channels = m.need("IN_CH");
      p.out_h = m.need("OUTPUT_H"), p.out_w = m.need("OUTPUT_W"), p.kernel_h = m.need("FILTER_Y"), p.kernel_w = m.need("FILTER_X");
      p.stride_h = m.need("STRIDE_Y"), p.stride_w = m.need("STRIDE_X"), p.pad_h = m.need("PAD_Y"), p.pad_w = m.need("PAD_X");
      p.activation_min = m.need("OUT_ACTIVATION_MIN"), p.activation_max = m.need("OUT_ACTIVATION_MAX");
      if (!m.ok()) return where + m.error();
      if (Status s = check_pool(p, false); !s.is_ok()) return where + s.message();
      if (int64_t(x.size()) != int64_t(p.in_h) * p.in_w * p.channels) return where + "input size does not chain";
      y.assign(size_t(p.out_h) * p.out_w * p.channels, 0);
      if (Status s = avg_pool2d_s8(p, x.data(), y.data(), paths.optimized(avg_pool2d_scratch_bytes(p, 2))); !s.is_ok())
        return where + s.message();
    } else if (type == "FULLY_CONNECTED") {
      // The generator's IN_CH/OUT_CH are swapped for these layers: sizes come from the arrays.
      const auto bias = a.array<int32_t>({"bias"});
      const auto w = a.array<int8_t>({"weights"});
      LinearParams p;
      p.input_offset = m.need("INPUT_OFFSET"), p.output_offset = m.need("OUTPUT_OFFSET");
      p.multiplier = m.need("OUTPUT_MULTIPLIER"), p.shift = m.need("OUTPUT_SHIFT");
      p.activation_min = m.need("OUT_ACTIVATION_MIN"), p.activation_max = m.need("OUT_ACTIVATION_MAX");
      if (!m.ok()) return where + m.error();
      if (!a.ok()) return where + a.error();
      if (bias.empty() || w.size() % bias.size() != 0 || w.size() / bias.size() != x.size())
        return where + "weights do not match the input and bias sizes";
      p.out_features = int32_t(bias.size()), p.in_features = int32_t(x.size()), p.batches = 1;
      if (Status s = check_linear(p, false); !s.is_ok()) return where + s.message();
      y.assign(bias.size(), 0);
      linear_s8(p, x.data(), w.data(), bias.data(), nullptr, y.data(), paths.optimized(linear_s8_scratch_bytes(p, 2)));
    } else {  // SOFTMAX
      SoftmaxParams p;
      p.rows = m.need("NUM_ROWS"), p.row_size = m.need("ROW_SIZE");
      p.input_multiplier = m.need("MULT"), p.input_left_shift = m.need("SHIFT"), p.diff_min = m.need("DIFF_MIN");
      if (!m.ok()) return where + m.error();
      if (p.rows * p.row_size != int64_t(x.size())) return where + "input size does not chain";
      y.assign(x.size(), 0);
      softmax_s8(p, x.data(), y.data());
    }
    x = std::move(y);
  }
  return compare_outputs(x, want, "network output");
}

const Family kFamilies[] = {
    {"test_arm_ds_cnn_s_s8", "network ds_cnn", run_network},
    {"test_arm_ds_cnn_l_s8", "network ds_cnn", run_network},
    {"test_arm_convolve_s8", "conv s8", run_conv_s8},
    {"test_arm_convolve_1x1_s8_fast", "conv s8", run_conv_s8},
    {"test_arm_convolve_1_x_n_s8", "conv s8", run_conv_s8},
    {"test_arm_grouped_convolve_s8", "conv s8", run_conv_s8},
    {"test_arm_convolve_s16", "conv s16", run_conv_s16},
    {"test_arm_depthwise_conv_s8", "depthwise s8", run_depthwise_s8},
    {"test_arm_depthwise_conv_s8_opt", "depthwise s8", run_depthwise_s8},
    {"test_arm_depthwise_conv_3x3_s8", "depthwise s8", run_depthwise_s8},
    {"test_arm_depthwise_conv_s16", "depthwise s16", run_depthwise_s16},
    {"test_arm_depthwise_conv_fast_s16", "depthwise s16", run_depthwise_s16},
    {"test_arm_transpose_conv_s8", "transpose conv s8", run_transpose_conv_s8},
    {"test_arm_reverse_transpose_conv_s8", "transpose conv s8", run_transpose_conv_s8},
    {"test_arm_fully_connected_s8", "fully connected s8", run_fc_s8},
    {"test_arm_fully_connected_s16", "fully connected s16", run_fc_s16},
    {"test_arm_batch_matmul_s8", "batch matmul s8", run_bmm<int8_t>},
    {"test_arm_batch_matmul_s16", "batch matmul s16", run_bmm<int16_t>},
    {"test_arm_elementwise_add_s8", "add s8", run_add<int8_t>},
    {"test_arm_elementwise_add_s16", "add s16", run_add<int16_t>},
    {"test_arm_elementwise_mul_s8", "mul s8", run_mul<int8_t>},
    {"test_arm_elementwise_mul_s16", "mul s16", run_mul<int16_t>},
    {"test_arm_maximum_minimum_s8", "maximum/minimum s8", run_min_max},
    {"test_arm_avgpool_s8", "avg pool s8", run_pool<int8_t, true>},
    {"test_arm_avgpool_s16", "avg pool s16", run_pool<int16_t, true>},
    {"test_arm_max_pool_s8", "max pool s8", run_pool<int8_t, false>},
    {"test_arm_max_pool_s16", "max pool s16", run_pool<int16_t, false>},
    {"test_arm_softmax_s8", "softmax s8", run_softmax<int8_t>},
    {"test_arm_softmax_s8_s16", "softmax s8->s16", run_softmax<int16_t>},
    {"test_arm_softmax_s16", "softmax s16 (LUT)", run_softmax_s16},
    {"test_arm_pad_s8", "pad s8", run_pad},
    {"test_arm_transpose_s8", "transpose s8", run_transpose},
};

}  // namespace

const Family* family_for_unit_test(const std::string& unit_test) {
  for (const Family& f : kFamilies)
    if (unit_test == f.unit_test) return &f;
  return nullptr;
}

}  // namespace vkrt::testing::cmsis
