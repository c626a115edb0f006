// The oracle (library vkrt_cortex_m_reference, not part of the runtime): straightforward loops
// for the cortex_m compute kernels, written from the formulas in shared/docs/cortex-m-ops.md §4
// and kept deliberately unoptimized. The kernels'
// optimized and portable paths are tested against these (bit-exact), and the benchmark prints
// their speed next to the kernels'. They share only the fixed-point primitives (arith/).
#pragma once

#include <cstdint>

#include "cortex_m/avg_pool2d.h"
#include "cortex_m/conv2d.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/batch_matmul.h"
#include "cortex_m/transpose_conv2d.h"

namespace vkrt::cortex_m::reference {


void conv2d_s8(const Conv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output);
void depthwise_conv2d_s8(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output);
// Per-tensor when multipliers/shifts point at one value and per_channel is false.
void fully_connected_s8(const LinearParams& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
                        const int32_t* multipliers, const int32_t* shifts, bool per_channel, int8_t* output);
void batch_matmul_s8(const BatchMatmulParams& p, const int8_t* lhs, const int8_t* rhs_transposed, int8_t* output);
void batch_matmul_s16(const BatchMatmulParams& p, const int16_t* lhs, const int16_t* rhs_transposed, int16_t* output);
// Scatter form: every input pixel adds its contribution to the outputs it reaches.
void transpose_conv2d_s8(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output);
void avg_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output);
void max_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output);

}  // namespace vkrt::cortex_m::reference
