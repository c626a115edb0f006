// The compute core's names as the cortex_m kernels use them (cpu_fallback/compute/: scratch and
// threads, the int8 GEMM, the CMSIS-NN output stage, the per-ISA SIMD helpers).
#pragma once

#include "compute/conv_s16.h"
#include "compute/exec.h"
#include "compute/gemm_s8.h"
#include "compute/isa.h"
#include "compute/requantize_row.h"

namespace vkrt::compute::simd {}

namespace vkrt::cortex_m {

using compute::align_up;
using compute::Exec;
using compute::gemm_s8;
using compute::gemm_s8_min_scratch_bytes;
using compute::gemm_s8_pack_b;
using compute::gemm_s8_packed_b_bytes;
using compute::gemm_s8_portable;
using compute::gemm_s8_scratch_bytes;
using compute::GemmS8;
using compute::GemmS8PackedB;
using compute::requantize_row_s8;
using compute::RequantizeRow;
namespace simd = compute::simd;

// CMSIS-NN's output stage of its 16x8 convolutions (arm_convolve_s16, arm_depthwise_conv_s16),
// per-channel scales: with an int64 bias the 64-bit requantization, else (an int32 bias or none)
// the int32 accumulator's, as on the device.
inline compute::S16Output s16_output(const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                                     const int32_t* shift, int32_t activation_min, int32_t activation_max,
                                     int16_t* output) {
  compute::S16Output o;
  o.stage = bias64 ? compute::S16OutputStage::kRequantize64 : compute::S16OutputStage::kRequantize32;
  o.bias64 = bias64, o.bias32 = bias64 ? nullptr : bias32;
  o.multiplier = multiplier, o.shift = shift;
  o.activation_min = activation_min, o.activation_max = activation_max;
  o.out16 = output;
  return o;
}

}  // namespace vkrt::cortex_m
