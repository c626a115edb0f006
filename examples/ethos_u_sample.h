// The Ethos-U INT8 recipe's sample: a small CNN as one EthosUBackend delegate for an Ethos-U55-128,
// built with the project's writers (the vela_bin_stream container, the COP1 payload, the weight and
// scale/bias stream encoder). Int8 [1,8,8,8] in, int8 [1,1,1,10] out (both NHWC bytes, the delegate's
// view; the program gives them as plain sizes), computed by four NPU operations:
//   CONV 3x3, stride 1, pad 1, 8 -> 16 channels, bias, ReLU (clamp at the OFM zero point)
//   DEPTHWISE 3x3, stride 1, pad 1, 16 channels, bias, ReLU
//   POOL average 8x8 (global), OFM_SCALE: the output keeps the input's quantization
//   CONV 1x1 16 -> 10 (a fully connected layer), bias, no activation
// Weights, biases and per-channel requantization (TFLite's QuantizeMultiplier of float scales) come from
// a seeded generator, so tests can compute the expected outputs from ethos_u_sample_parameters().
//
// The command stream is HAND-ENCODED, in the style Vela writes (every register an operation reads is
// set before it, BLOCKDEP 0, TFL rounding), and has been checked only on the virtual NPU
// (ethosu/virtual/, `--ethosu_driver virtual`), against the cortex_m (CMSIS-NN-exact) kernels
// (tests/ethosu/ethos_u_sample_test.cpp). It has NOT run on hardware: the OFM block sizes and the SHRAM
// split (IFM_IB_END 6, AB_START 14, as Vela wrote for the small conformance models) were chosen by hand,
// not by Vela's block-config search and SHRAM allocator, and the weight streams use the MLW codec's
// uncompressed mode only (ethosu/format/weight_encoder.h).
//
// Memory (docs/ethos-u.md): region 0 (weight_data) holds, per CONV/DEPTHWISE operation, its scale/bias
// records then its weight stream, each 16-byte aligned; region 1 (scratch) holds every feature map,
// NHWC, at the offsets below. The inputs/outputs blocks describe the input and output there.
#pragma once

#include <cstdint>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::samples {

inline constexpr int32_t kEthosUSampleSize = 8;       // input height and width
inline constexpr int32_t kEthosUSampleInChannels = 8;
inline constexpr int32_t kEthosUSampleChannels = 16;  // after the first convolution
inline constexpr int32_t kEthosUSampleClasses = 10;

// Feature maps in the scratch region (region 1), NHWC, byte offsets.
struct EthosUSampleScratch {
  static constexpr int32_t kInput = 0;        // [8,8,8]    512 bytes
  static constexpr int32_t kConv = 512;       // [8,8,16]  1024 bytes
  static constexpr int32_t kDepthwise = 1536;  // [8,8,16]  1024 bytes
  static constexpr int32_t kPool = 2560;      // [1,1,16]    16 bytes
  static constexpr int32_t kOutput = 2576;    // [1,1,10]    10 bytes
  static constexpr int32_t kSize = 2592;      // scratch_size
};

// Every number the network computes with, in the cortex_m kernels' conventions (cpu_fallback/cortex_m/):
// offsets are −zero point for inputs and +zero point for outputs' (kept here as zero points), shifts are
// CMSIS-NN's (multiplier · 2^shift, negative: right). The NPU's scale records hold (multiplier,
// 31 − shift).
struct EthosUSampleParameters {
  int32_t in_zero_point = -3;
  // CONV: OHWI [16][3][3][8], per-channel requantization, ReLU at conv_zero_point.
  std::vector<int8_t> conv_weights;
  std::vector<int32_t> conv_bias, conv_multipliers, conv_shifts;
  int32_t conv_zero_point = -10;
  // DEPTHWISE: [1][3][3][16] (channel last, as cortex_m's depthwise), ReLU at dw_zero_point.
  std::vector<int8_t> dw_weights;
  std::vector<int32_t> dw_bias, dw_multipliers, dw_shifts;
  int32_t dw_zero_point = 5;
  // POOL: average over the 8x8 map; the output has the input's scale and zero point (dw_zero_point).
  // FULLY CONNECTED: [10][16], one requantization for every output.
  std::vector<int8_t> fc_weights;
  std::vector<int32_t> fc_bias;
  int32_t fc_multiplier = 0, fc_shift = 0;
  int32_t out_zero_point = -7;
};

EthosUSampleParameters ethos_u_sample_parameters(uint32_t seed = 55);

// The delegate's payload (a vela_bin_stream: cmd_data COP1, weight_data, scratch_size, inputs, outputs).
Result<std::vector<uint8_t>> ethos_u_sample_payload(const EthosUSampleParameters& p);

// The program: method "forward", one int8 input [1,8,8,8], one EthosUBackend delegate call, one int8
// output [1,1,1,10].
Result<std::vector<uint8_t>> ethos_u_sample_program(const EthosUSampleParameters& p);
inline Result<std::vector<uint8_t>> ethos_u_sample_program() {
  return ethos_u_sample_program(ethos_u_sample_parameters());
}

}  // namespace vkrt::samples
