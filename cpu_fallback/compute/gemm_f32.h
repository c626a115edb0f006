// The fp32 matrix product behind aten::mm, addmm and bmm:
//
//   C[i][j] = Σ_k A[i][k]·B[k][j]      (A: m×k, B: k×n, C: m×n; row-major with leading dims)
//
// Numerics, the same at every ISA level, thread count and blocking: each C[i][j] is one chain
// of fused multiply-adds in k order, acc = fma(A[i][k], B[k][j], acc), from acc = +0 (float
// accumulation, as ExecuTorch's portable vec_matmul, which sums in the element type). Between
// depth blocks the chain goes on from the float stored in C, so blocking does not change a bit.
// Hence the vector paths and the portable loop give identical bytes; against a sum in double
// the result differs by the float rounding of k steps: |err| <= γ_k·Σ_k|A[i][k]·B[k][j]| with
// γ_k = k·u/(1 − k·u), u = 2^-24 (recursive summation; the tests check this bound).
//
// Paths (picked from compute::has() per call): AVX-512F (12×32 tiles), AVX2+FMA3 (6×16; the
// avx2 level is taken to include FMA3, as every AVX2 CPU has it, and is checked once: without
// it the portable loop runs), NEON on aarch64 (8×12), portable (4×4 with std::fma).
// No heap, no scratch: packing buffers live on the stack of each task (about 110 KiB; a
// ParallelRunner's threads need stacks larger than that, std::thread's default is 8 MiB).
#pragma once

#include <cstdint>

#include "compute/exec.h"

namespace vkrt::compute {

struct GemmF32 {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;  // row i at a + i·lda (k floats)
  int64_t lda = 0;
  const float* b = nullptr;  // row p at b + p·ldb (n floats)
  int64_t ldb = 0;
  float* c = nullptr;  // row i at c + i·ldc (n floats); must not overlap A or B
  int64_t ldc = 0;
};

// Computes C = A·B (k == 0: C = 0) with exec's threads (exec.scratch is not used).
void gemm_f32(const GemmF32& g, const Exec& exec);

// The same product with the portable tiles only (tests and benchmarks compare the paths).
void gemm_f32_portable(const GemmF32& g, const Exec& exec);

// The name of the path gemm_f32 takes at the active ISA level ("avx512", "avx2", "neon",
// "portable"), for benchmark reports.
const char* gemm_f32_path_name();

}  // namespace vkrt::compute
