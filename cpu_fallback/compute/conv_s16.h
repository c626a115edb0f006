// A16W8: convolutions of int16 activations by int8 weights, each output's products summed
// exactly in int64, then one of the two families' output stages. Both kernel families call it:
// cortex_m's quantized conv2d, depthwise_conv2d and linear on int16 input (CMSIS-NN's
// arm_convolve_s16, arm_depthwise_conv_s16, arm_fully_connected_s16) and TOSA's int16 CONV2D and
// DEPTHWISE_CONV2D (int48 sums out).
//
// At avx2 and above the sums run on one Highway source (conv_s16_hwy.cpp): VPMADDWD pairs of
// int16 activations with pairs of widened weights for the convolution, pairs of taps for the
// depthwise one, in int32 lanes for as many depths as cannot overflow them
// (kS16Int32Pairs), then added into int64. Elsewhere (aarch64, the portable level) the portable
// loops in conv_s16.cpp, which the compiler vectorises. The output stage is one scalar function
// for every path, so all give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "compute/exec.h"

namespace vkrt::compute {

// NHWC input [batches, in_h, in_w, in_ch], output [batches, out_h, out_w, out_ch]. Weights:
//   conv_s16:      OHWI [out_ch][kernel_h][kernel_w][in_ch / groups];
//   depthwise_s16: [kernel_h][kernel_w][in_ch · ch_mult], output channel c·ch_mult + m reading
//                  input channel c (out_ch = in_ch · ch_mult; groups unused).
// A fully connected layer is a 1x1 convolution over 1x1 pixels (batches rows).
struct ConvS16Shape {
  int32_t batches = 1, in_h = 1, in_w = 1, in_ch = 0;
  int32_t out_h = 1, out_w = 1, out_ch = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int32_t pad_top = 0, pad_left = 0, dilation_h = 1, dilation_w = 1;
  int32_t groups = 1;
  int32_t ch_mult = 1;
};

// How an output channel's sum Σ x·(w − weight_zero_point) becomes its output.
enum class S16OutputStage : uint8_t {
  // CMSIS-NN's 64-bit form (arm_nn_requantize_s64): requantize_s64(sum + bias,
  // reduce_multiplier(multiplier), shift), the sum and bias adding modulo 2^64; clamped to
  // [activation_min, activation_max] and stored as int16. Bias from bias64, or bias32 widened.
  kRequantize64,
  // CMSIS-NN's convolutions with a 32-bit bias or none: the int32 accumulator of the device wraps,
  // so requantize(int32(sum mod 2^32) + bias32, multiplier, shift) (both modulo 2^32); clamped,
  // int16.
  kRequantize32,
  // TOSA's int48 accumulator: clamp48(clamp48(sum) + clamp48(bias64)), stored as int64.
  kInt48,
  // kInt48's value, then TOSA's RESCALE with scale16 to int16 (and a CLAMP): clamp(
  // apply_scale_16(value, int16(multiplier), rescale_shift) + output_zp, activation_min,
  // activation_max), stored as int16 (the VGF CPU executor's fused CONV2D → RESCALE → CLAMP of an
  // A16W8 network; the int48 tensor is never written).
  kRescale16,
};

struct S16Output {
  S16OutputStage stage = S16OutputStage::kRequantize64;
  const int64_t* bias64 = nullptr;  // kRequantize64 (or bias32) and kInt48; null: no bias
  const int32_t* bias32 = nullptr;
  bool bias_per_channel = true;     // else one bias value for every channel (TOSA allows it)
  const int32_t* multiplier = nullptr;  // kRequantize*: Q31 multipliers; kRescale16: int16 ones
  const int32_t* shift = nullptr;       // kRequantize*: CMSIS-NN shifts, within [-31, 30]
  const int8_t* rescale_shift = nullptr;  // kRescale16: RESCALE's shifts (clamped to [1, 62])
  int32_t output_zp = 0;                  // kRescale16: within ±2^16
  bool scale_per_channel = true;        // else element 0 for every channel
  int32_t activation_min = -32768, activation_max = 32767;  // within int16
  int16_t* out16 = nullptr;  // kRequantize*, kRescale16
  int64_t* out64 = nullptr;  // kInt48
};

struct ConvS16PackedWeights;

struct ConvS16 {
  ConvS16Shape shape;
  const int16_t* input = nullptr;
  const int8_t* weight = nullptr;
  int32_t weight_zero_point = 0;  // subtracted from every weight (TOSA's weight_zp; 0 for CMSIS-NN)
  S16Output out;
  // The weights packed once ahead (conv_s16_pack_weights, for constant weights): used by the
  // panel form when built from this weight pointer, depth, channels, groups and zero point; else
  // ignored and the weights are packed into the scratch on every call.
  const ConvS16PackedWeights* packed = nullptr;
};

// The weights as conv_s16's panel form reads them: each group's output channels in panels of 16,
// [kp/2][16][2] int16 (w − weight_zero_point), zeros past the group's channels and past k, and a
// record of what they were built from. Lives in caller-owned memory.
struct ConvS16PackedWeights {
  const int8_t* weight;
  int32_t k, out_ch, groups, weight_zero_point;  // k: kernel_h·kernel_w·in_ch/groups
  int32_t kp, panels_per_group;
  const int16_t* panels;
};
// Bytes conv_s16_pack_weights needs for `s`'s weights (its kernel size, channels and groups; not
// its spatial sizes), or 0 where the active ISA level has no panel form.
size_t conv_s16_packed_weights_bytes(const ConvS16Shape& s);
// Packs c's weights into `memory` (at least conv_s16_packed_weights_bytes(c.shape)); returns the
// header, at the start of `memory`, or null when there is nothing to pack or it does not fit.
const ConvS16PackedWeights* conv_s16_pack_weights(const ConvS16& c, std::span<uint8_t> memory);

// Pairs of products one int32 lane may sum before it is added into int64: a pair is at most
// 2·32768·255 in magnitude (weights less their zero point are within ±255), and 128 of them stay
// below 2^31. A depthwise lane sums single products, twice as many taps.
inline constexpr int32_t kS16Int32Pairs = 128;

// Scratch conv_s16 needs for its GEMM-shaped path on `threads` workers, less with weights packed
// ahead (`packed`, for these weights). depthwise_s16 needs none.
size_t conv_s16_scratch_bytes(const ConvS16Shape& s, int threads, const ConvS16PackedWeights* packed = nullptr);
// Preconditions: sizes positive and consistent (out_ch and in_ch multiples of groups, or
// out_ch = in_ch · ch_mult), for conv_s16 kernel_h · kernel_w · in_ch / groups below 2^31,
// weights and scales of out_ch channels. With less scratch than conv_s16_scratch_bytes the
// portable loop runs.
void conv_s16(const ConvS16& c, const Exec& exec = {});
void depthwise_s16(const ConvS16& c, const Exec& exec = {});
// The portable loops alone (tests compare the paths).
void conv_s16_portable(const ConvS16& c);
void depthwise_s16_portable(const ConvS16& c);

namespace detail {
// Rows of A that conv_s16's vector path multiplies by the weights at a time.
inline constexpr int kConvS16Rows = 4;
// The vector path's depth is padded with zeros to a multiple of this (a whole int16 vector at
// every target), in A's rows and in the weights' where they are not already, so that its loop
// has no partial vectors: on AVX2 a partial load is a copy through the stack.
inline constexpr int32_t kConvS16DepthAlign = 32;
// One output pixel's depthwise window as the vector path reads it: `taps_y` × `taps_x` taps inside
// the input, the first at `input` (and its weights at `weight`), both at the window's first
// channel; each next tap along x or y `*_step` elements further on.
struct DepthwiseS16Window {
  const int16_t* input;
  const int8_t* weight;
  int32_t taps_y, taps_x;
  int64_t input_step_y, input_step_x, weight_step_y, weight_step_x;
};
// What a call's depth, biases and scales prove about its output stage, worked out once a call
// (conv_s16.cpp, s16_stage_facts): where no value can leave a type, the vector stages skip the
// clamps and saturations that the stage's definition applies.
struct S16StageFacts {
  bool sums_in_int48 = false;  // no sum leaves int48 (each of `products` products is at most 32768·255)
  // kRescale16: no sum + bias leaves int48, and every channel's result, its zero point added,
  // lies in int32: the low halves of the 64-bit results are the results.
  bool rescaled_in_int32 = false;
};
// The facts for a call whose sums have `products` products each, none past `product_max` in
// magnitude (32768·255 for int16 by int8 less a zero point), from o's biases and scales over
// `channels` output channels (O(channels)).
S16StageFacts s16_stage_facts(const S16Output& o, double products, int32_t channels,
                              double product_max = 32768.0 * 255.0);
// The output stage for channels [first, first + count) of `rows` pixels from their exact sums
// (sums[r·sums_stride] is row r's channel first), outputs from out_index, out_stride apart: the
// level's vector stage where it has one (each vector's channel constants derived once for the
// rows), the rest scalar. `facts`: s16_stage_facts of the call.
void finish_s16_rows(const S16Output& o, int64_t out_index, int64_t out_stride, int32_t first, const int64_t* sums,
                     int64_t sums_stride, int rows, int32_t count, const S16StageFacts& facts);
}  // namespace detail

}  // namespace vkrt::compute
