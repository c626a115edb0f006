// cortex_m::quantized_mul — CMSIS-NN arm_elementwise_mul_s8 / _s16 (cortex-m-ops.md §4.2).
#pragma once

#include <cstdint>

#include "cortex_m/elementwise.h"

namespace vkrt::cortex_m {

struct MulParams {
  int32_t input1_offset = 0, input2_offset = 0;  // = −zp
  int32_t output_offset = 0, output_multiplier = 0, output_shift = 0;
  int32_t activation_min = -128, activation_max = 127;
};

// out = clamp(requantize((x1 + off1)·(x2 + off2), m, s) + out_off, act_min, act_max)
void mul_s8(const MulParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out);
void mul_s16(const MulParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out);

}  // namespace vkrt::cortex_m
