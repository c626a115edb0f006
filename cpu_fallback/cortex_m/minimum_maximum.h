// cortex_m::minimum / cortex_m::maximum — CMSIS-NN arm_minimum_s8 / arm_maximum_s8: raw values
// (both inputs share the output's quantization), broadcasting over 4 dims. maximum returns
// a >= b ? a : b. int16 is accepted as well (same rule).
#pragma once

#include <cstdint>

#include "cortex_m/elementwise.h"

namespace vkrt::cortex_m {

void minimum_s8(const Broadcast4& shape, const int8_t* a, const int8_t* b, int8_t* out);
void maximum_s8(const Broadcast4& shape, const int8_t* a, const int8_t* b, int8_t* out);
void minimum_s16(const Broadcast4& shape, const int16_t* a, const int16_t* b, int16_t* out);
void maximum_s16(const Broadcast4& shape, const int16_t* a, const int16_t* b, int16_t* out);

}  // namespace vkrt::cortex_m
