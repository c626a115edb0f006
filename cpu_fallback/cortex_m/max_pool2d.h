// cortex_m::quantized_max_pool2d — CMSIS-NN arm_max_pool_s8 / _s16 (cortex-m-ops.md §4.5):
// maximum over the in-bounds taps (padding never wins), clamped to the activation range.
#pragma once

#include "cortex_m/compute_core.h"
#include "cortex_m/pooling.h"

namespace vkrt::cortex_m {

// InvalidArgument when an output window holds no input tap. Threads from exec's runner for large
// layers; no scratch.
Status max_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output, const Exec& exec = Exec{});
Status max_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output, const Exec& exec = Exec{});

}  // namespace vkrt::cortex_m
