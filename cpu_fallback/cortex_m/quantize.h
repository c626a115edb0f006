// cortex_m::quantize_per_tensor / dequantize_per_tensor (cortex-m-ops.md §2, scalar path):
//   q = clamp(zp + (int32)nearbyint((1.0f / (float)scale) · x), qmin, qmax)   float32, ties to even
//   x = (float)((int32)q − zp) · (float)scale
// Values the C code leaves undefined: NaN quantizes to zp; |x/scale| beyond int32 saturates.
#pragma once

#include <cstdint>

namespace vkrt::cortex_m {

struct QuantizeParams {
  float scale = 1.0f;
  int32_t zero_point = 0, quant_min = -128, quant_max = 127;
};

void quantize_f32_s8(const QuantizeParams& p, const float* input, int64_t count, int8_t* output);
void quantize_f32_s16(const QuantizeParams& p, const float* input, int64_t count, int16_t* output);
void dequantize_s8_f32(const QuantizeParams& p, const int8_t* input, int64_t count, float* output);
void dequantize_s16_f32(const QuantizeParams& p, const int16_t* input, int64_t count, float* output);

}  // namespace vkrt::cortex_m
