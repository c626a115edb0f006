// cortex_m::quantized_batch_matmul — CMSIS-NN arm_batch_matmul_s8 / _s16 (cortex-m-ops.md §4.1).
// lhs [B][M][K], rhs already transposed [B][N][K], out [B][M][N].
#pragma once

#include <cstddef>
#include <cstdint>

#include "cortex_m/compute_core.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct BatchMatmulParams {
  int32_t batches = 1, rows = 0, cols = 0, depth = 0;  // B, M, N, K
  int32_t lhs_offset = 0, rhs_offset = 0;  // CMSIS offsets (= −zero point), ignored by s16
  int32_t output_offset = 0;               // +output zero point, ignored by s16
  int32_t multiplier = 0, shift = 0;
  int32_t activation_min = -128, activation_max = 127;
};

Status check_batch_matmul(const BatchMatmulParams& p, bool int16);
size_t batch_matmul_s8_scratch_bytes(const BatchMatmulParams& p, int threads);
void batch_matmul_s8(const BatchMatmulParams& p, const int8_t* lhs, const int8_t* rhs_transposed, int8_t* output,
                     const Exec& exec);
// int16 x int16 with 64-bit accumulation and the reduced multiplier (arm_nn_requantize_s64), on
// the compute core's int16 GEMM (compute/gemm_s16.h): its panel path given
// batch_matmul_s16_scratch_bytes of scratch, else its int64 loops.
size_t batch_matmul_s16_scratch_bytes(const BatchMatmulParams& p, int threads);
void batch_matmul_s16(const BatchMatmulParams& p, const int16_t* lhs, const int16_t* rhs_transposed,
                      int16_t* output, const Exec& exec = {});

}  // namespace vkrt::cortex_m
