// cortex_m::quantized_add — CMSIS-NN arm_elementwise_add_s8 / _s16 (cortex-m-ops.md §4.2).
#pragma once

#include <cstdint>

#include "cortex_m/elementwise.h"

namespace vkrt::cortex_m {

struct AddParams {
  int32_t input1_offset = 0, input1_multiplier = 0, input1_shift = 0;  // offsets = −zp
  int32_t input2_offset = 0, input2_multiplier = 0, input2_shift = 0;
  int32_t left_shift = 20;  // 20 for int8, 15 for int16
  int32_t output_offset = 0, output_multiplier = 0, output_shift = 0;
  int32_t activation_min = -128, activation_max = 127;
};

// a = requantize((x1 + off1) << left_shift, m1, s1); b likewise;
// out = clamp(requantize(a + b, mo, so) + out_off, act_min, act_max)
void add_s8(const AddParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out);
// int16: offsets (input and output) are ignored (symmetric quantization), left_shift 15.
void add_s16(const AddParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out);

}  // namespace vkrt::cortex_m
