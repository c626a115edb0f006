// The compute core's names as the cortex_m kernels use them (cpu_fallback/compute/: scratch and
// threads, the int8 GEMM, the CMSIS-NN output stage, the per-ISA SIMD helpers).
#pragma once

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

}  // namespace vkrt::cortex_m
