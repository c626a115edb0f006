// gemm_f32's register tile on aarch64 (gemm_f32_tile.h has the contract): 8 rows × 12 columns
// = 24 q-register accumulators, three B registers and two A registers per depth (29 of the 32),
// FMLA by lane (fused, like the x86 paths' FMAs). Loading A as two vectors rather than eight
// scalars is what keeps the accumulators out of memory.
#include "compute/gemm_f32_tile.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#include <utility>

namespace vkrt::compute::detail {
namespace {

constexpr int kNeonRows = 8;

// Row r of the tile at one depth: acc[r] += A[r]·B (lane r % 4 of the A vector r / 4 holds A[r]).
template <int r>
inline void row_step(float32x4_t (&acc)[3], const float32x4_t (&a)[2], float32x4_t b0, float32x4_t b1,
                     float32x4_t b2) {
  acc[0] = vfmaq_laneq_f32(acc[0], b0, a[r / 4], r % 4);
  acc[1] = vfmaq_laneq_f32(acc[1], b1, a[r / 4], r % 4);
  acc[2] = vfmaq_laneq_f32(acc[2], b2, a[r / 4], r % 4);
}

template <int R, int... r>
void tile_rows(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc, bool load_c,
               std::integer_sequence<int, r...>) {
  // Every loop over the accumulators is unrolled: one left rolled puts the array in memory.
  float32x4_t acc[R][3];
  #pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
    #pragma GCC unroll 3
    for (int q = 0; q < 3; ++q) acc[i][q] = load_c ? vld1q_f32(c + i * ldc + 4 * q) : vdupq_n_f32(0.0f);
  for (int64_t p = 0; p < kc; ++p, a += kNeonRows, b += ldb) {
    const float32x4_t av[2] = {vld1q_f32(a), R > 4 ? vld1q_f32(a + 4) : vdupq_n_f32(0.0f)};
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
    (row_step<r>(acc[r], av, b0, b1, b2), ...);
  }
  #pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
    #pragma GCC unroll 3
    for (int q = 0; q < 3; ++q) vst1q_f32(c + i * ldc + 4 * q, acc[i][q]);
}

template <int R>
void tile_neon(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc, bool load_c) {
  tile_rows<R>(kc, a, b, ldb, c, ldc, load_c, std::make_integer_sequence<int, R>{});
}

template <int... R>
constexpr F32Kernel neon_kernel(std::integer_sequence<int, R...>) {
  return {"neon", kNeonRows, 12, {nullptr, &tile_neon<R + 1>...}};
}

constexpr F32Kernel kNeon = neon_kernel(std::make_integer_sequence<int, kNeonRows>{});

}  // namespace

const F32Kernel& f32_kernel_neon() { return kNeon; }

}  // namespace vkrt::compute::detail
#endif  // __aarch64__
