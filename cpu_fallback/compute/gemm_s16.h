// int16 × int16 matrix products, each output's products summed exactly in int64, then one of the
// A16W8 output stages (conv_s16.h's S16Output):
//
//   C[r][j] = stage_j(Σ_i A[r][i]·B[j][i])
//
// for cortex_m's int16 batch matmul (arm_batch_matmul_s16: CMSIS-NN's 64-bit requantize) and
// TOSA's int16 MATMUL (int48 sums).
//
// A product of two int16 reaches 2^30 and a VPMADDWD pair of them 2^31, one past int32. So at avx2
// and above B is split into bytes, B = 256·hi + lo (hi signed, lo in [0, 255]), each packed into
// the A16W8 panels (conv_s16's panel form: VPMADDWD pairs below 2^24, 128 summed in int32), and
// the two sums combined in int64: twice the A16W8 work, exact. Elsewhere, and with less scratch
// than gemm_s16_scratch_bytes, int64 loops.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/conv_s16.h"
#include "compute/exec.h"

namespace vkrt::compute {

struct GemmS16 {
  int64_t m = 0;  // rows of A and C
  int32_t n = 0;  // columns of C
  int32_t k = 0;  // depth
  const int16_t* a = nullptr;  // A[r][i] at a + r·a_stride + i
  int64_t a_stride = 0;
  const int16_t* b = nullptr;  // B[j][i] at b + j·b_column_stride + i·b_depth_stride
  int64_t b_column_stride = 0, b_depth_stride = 1;
  // Output r·n + j (out16 or out64); per-channel biases and scales indexed by column j.
  S16Output out;
};

// Scratch gemm_s16's panel path takes on `threads` workers (0 where the level has none).
size_t gemm_s16_scratch_bytes(const GemmS16& g, int threads);
// Preconditions: m, n, k >= 0; out's arrays hold n columns where per channel.
void gemm_s16(const GemmS16& g, const Exec& exec = {});
// The int64 loops alone (tests compare the paths).
void gemm_s16_portable(const GemmS16& g);

}  // namespace vkrt::compute
