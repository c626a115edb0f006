// cortex_m::quantized_depthwise_conv2d — CMSIS-NN arm_depthwise_conv_wrapper_s8 / _s16
// (cortex-m-ops.md §4.4, §4.8). Activations NHWC; weights [1][kh][kw][out_ch] (IHWO);
// output channel oc = ic·ch_mult + m.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cortex_m/compute_core.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct DepthwiseConv2dParams {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t ch_mult = 1;  // out_ch = in_ch · ch_mult
  int32_t kernel_h = 1, kernel_w = 1;
  int32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int32_t input_offset = 0, output_offset = 0;  // ignored by the s16 kernel
  int32_t activation_min = -128, activation_max = 127;
  int32_t out_ch() const { return in_ch * ch_mult; }
};

Status check_depthwise_conv2d(const DepthwiseConv2dParams& p, bool int16_activations);
size_t depthwise_conv2d_s8_scratch_bytes(const DepthwiseConv2dParams& p, int threads);
void depthwise_conv2d_s8(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                         int8_t* output, const Exec& exec);
void depthwise_conv2d_s16(const DepthwiseConv2dParams& p, const int16_t* input, const int8_t* weight,
                          const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                          const int32_t* shift, int16_t* output);

}  // namespace vkrt::cortex_m
