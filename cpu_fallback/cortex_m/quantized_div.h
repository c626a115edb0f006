// cortex_m::quantized_div — ExecuTorch's own kernel (no CMSIS-NN), cortex-m-ops.md §2:
//   num = q1 − zp1; den = q2 − zp2; quot = den ? (float)num / (float)den : 0
//   out = clamp(roundf(quot · output_scale) + zp_out, dtype range)    (roundf: half away from 0)
#pragma once

#include <cstdint>

#include "cortex_m/elementwise.h"

namespace vkrt::cortex_m {

struct DivParams {
  int32_t input1_zero_point = 0, input2_zero_point = 0, output_zero_point = 0;
  float output_scale = 1.0f;  // s1 / (s2 · s_out), used in float32 as on the device
};

void div_s8(const DivParams& p, const ChannelBroadcast& shape, const int8_t* in1, const int8_t* in2, int8_t* out);
void div_s16(const DivParams& p, const ChannelBroadcast& shape, const int16_t* in1, const int16_t* in2, int16_t* out);

}  // namespace vkrt::cortex_m
