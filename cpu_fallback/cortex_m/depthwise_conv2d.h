// cortex_m::quantized_depthwise_conv2d — CMSIS-NN arm_depthwise_conv_wrapper_s8 / _s16
// (cortex-m-ops.md §4.4, §4.8). Activations NHWC; weights [1][kh][kw][out_ch] (IHWO);
// output channel oc = ic·ch_mult + m.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/depthwise_s8.h"
#include "cortex_m/compute_core.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

// The compute core's parameters (compute/depthwise_s8.h), the same for s8 and s16.
using DepthwiseConv2dParams = compute::DepthwiseS8Params;

Status check_depthwise_conv2d(const DepthwiseConv2dParams& p, bool int16_activations);
// The s8 kernel: the compute core's depthwise with the CMSIS-NN output stage.
inline size_t depthwise_conv2d_s8_scratch_bytes(const DepthwiseConv2dParams& p, int threads) {
  return compute::depthwise_s8_scratch_bytes(p, /*int32_sums=*/false, threads);
}
inline void depthwise_conv2d_s8(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                                const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output,
                                const Exec& exec) {
  compute::DepthwiseS8Output to;
  to.s8 = output;
  to.multiplier = multiplier;
  to.shift = shift;
  compute::depthwise_s8(p, input, weight, bias, to, exec);
}
// The s16 kernel: the compute core's depthwise_s16 with CMSIS-NN's 16x8 output stage (bias as
// conv2d_s16's). No scratch.
void depthwise_conv2d_s16(const DepthwiseConv2dParams& p, const int16_t* input, const int8_t* weight,
                          const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                          const int32_t* shift, int16_t* output, const Exec& exec = {});

}  // namespace vkrt::cortex_m
