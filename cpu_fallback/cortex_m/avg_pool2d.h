// cortex_m::quantized_avg_pool2d — CMSIS-NN arm_avgpool_s8 / _s16 (cortex-m-ops.md §4.5):
// raw values averaged over in-bounds taps, rounded half away from zero; input and output share
// quantization parameters.
#pragma once

#include "cortex_m/compute_core.h"
#include "cortex_m/pooling.h"

namespace vkrt::cortex_m {

// InvalidArgument when an output window holds no input tap (CMSIS returns an argument error), or
// has 2^16 taps or more. Threads from exec's runner for large layers.
Status avg_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output, const Exec& exec);
Status avg_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output, const Exec& exec);
// Scratch for avg_pool2d_*: none (0); kept so that callers size every kernel's scratch alike.
size_t avg_pool2d_scratch_bytes(const PoolParams& p, int threads);

}  // namespace vkrt::cortex_m
