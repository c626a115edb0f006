// The register tiles of gemm_f32 (private to gemm_f32*.cpp): one per ISA path (x86-64: one
// Highway source, gemm_f32_hwy.cpp; aarch64: gemm_f32_neon.cpp), picked by gemm_f32.cpp.
//
// A tile multiplies `rows` rows of a packed A panel by a B panel over kc depths and adds into
// a rows×nr block of C, one fused multiply-add chain per element in depth order:
//   a: depth p of tile row r at a[p·mr + r] (packed for mr rows; lanes past `rows` hold zeros)
//   b: depth p at b + p·ldb, nr floats (a packed panel, or B itself when nr columns are there)
//   c: row r at c + r·ldc, nr floats
//   load_c: the chains go on from C (a later depth block); else they start from +0.
#pragma once

#include <cstdint>

namespace vkrt::compute::detail {

constexpr int kF32MaxRows = 12;     // the tallest tile (AVX-512)
constexpr int kF32MaxColumns = 32;  // the widest tile (AVX-512)

using F32Tile = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                         bool load_c);

struct F32Kernel {
  const char* name;
  int mr, nr;
  F32Tile tile[kF32MaxRows + 1];  // tile[r] for r = 1..mr rows
};

// x86-64: N_AVX3::f32_kernel() and N_AVX2::f32_kernel() (gemm_f32_hwy.cpp, hwy_targets.h).
// aarch64: in gemm_f32_neon.cpp.
const F32Kernel& f32_kernel_neon();

}  // namespace vkrt::compute::detail
