// The Cortex-M INT8 recipe's sample: a DS-CNN keyword-spotting network as ExecuTorch's Cortex-M
// flow writes it, built with the project's writer. Float [1,1,49,10] MFCC features in,
// cortex_m::quantize_per_tensor into dim_order [0,2,1,3] (one channel: the exporter's order,
// whose bytes are already NHWC), a depthwise convolution (3x3/2, channel multiplier 8), a
// pointwise convolution (8 -> 16), a global average pool, a view, a linear layer (12 classes),
// cortex_m::dequantize_per_tensor to float [1,12]. Weights and requantization parameters are
// deterministic (a seeded generator), so tests can compute the expected outputs from them.
#pragma once

#include <cstdint>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::samples {

struct DsCnnParameters {
  float in_scale = 0.05f;
  int32_t in_zero_point = -3;
  // Depthwise 3x3, stride 2, pad 1, 1 -> 8 channels: [1,3,3,8] weights, per-channel requantization.
  std::vector<int8_t> dw_weights;
  std::vector<int32_t> dw_bias, dw_multipliers, dw_shifts;
  int32_t dw_output_offset = -128;
  // Pointwise 8 -> 16: OIHW [16,8,1,1] in dim_order [0,2,3,1] (OHWI bytes).
  std::vector<int8_t> pw_weights;
  std::vector<int32_t> pw_bias, pw_multipliers, pw_shifts;
  int32_t pw_input_offset = 128, pw_output_offset = -128;
  // Average pool over the whole 25x5 map (zero point -128, multiplier 2^30, shift 1).
  int32_t pool_zero_point = -128, pool_multiplier = 1 << 30, pool_shift = 1;
  // Linear 16 -> 12: [12,16] weights, one requantization.
  std::vector<int8_t> fc_weights;
  std::vector<int32_t> fc_bias;
  int32_t fc_input_offset = 128, fc_multiplier = 1518500250, fc_shift = -7;
  float out_scale = 0.1f;
  int32_t out_zero_point = 5;
};

inline constexpr int32_t kDsCnnFrames = 49, kDsCnnCoefficients = 10, kDsCnnClasses = 12;

DsCnnParameters dscnn_parameters(uint32_t seed = 49);

Result<std::vector<uint8_t>> dscnn_int8_program(const DsCnnParameters& p);
inline Result<std::vector<uint8_t>> dscnn_int8_program() { return dscnn_int8_program(dscnn_parameters()); }

}  // namespace vkrt::samples
