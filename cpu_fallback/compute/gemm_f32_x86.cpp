// gemm_f32's register tiles on x86-64 (gemm_f32_tile.h has the contract).
//   * AVX-512F: 12 rows × 32 columns = 24 zmm accumulators; per depth two B loads and twelve
//     broadcasts of A (folded into the FMAs as {1to16} operands), 24 FMAs.
//   * AVX2 + FMA3: 6 rows × 16 columns = 12 ymm accumulators, two B registers, one broadcast.
// Both keep more independent chains than FMA latency × FMA ports (4 cycles × 2), so the FMA
// units never wait on a previous sum. Every loop over the accumulators is fully unrolled
// (#pragma GCC unroll): GCC 12 keeps an array that a rolled loop indexes in memory, which costs
// a store per accumulator per depth (half the AVX2 speed).
#include "compute/gemm_f32_tile.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <utility>

#define VKRT_TARGET_F32_AVX512 __attribute__((target("avx512f")))
#define VKRT_TARGET_F32_AVX2 __attribute__((target("avx2,fma")))

namespace vkrt::compute::detail {
namespace {

constexpr int kAvx512Rows = 12, kAvx2Rows = 6;

template <int R>
VKRT_TARGET_F32_AVX512 void tile_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, float* c,
                                        int64_t ldc, bool load_c) {
  __m512 acc[R][2];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    acc[r][0] = load_c ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
    acc[r][1] = load_c ? _mm512_loadu_ps(c + r * ldc + 16) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p, a += kAvx512Rows, b += ldb) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

template <int R>
VKRT_TARGET_F32_AVX2 void tile_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                                    bool load_c) {
  __m256 acc[R][2];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    acc[r][0] = load_c ? _mm256_loadu_ps(c + r * ldc) : _mm256_setzero_ps();
    acc[r][1] = load_c ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p, a += kAvx2Rows, b += ldb) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}

template <int... R>
constexpr F32Kernel avx512_kernel(std::integer_sequence<int, R...>) {
  return {"avx512", kAvx512Rows, 32, {nullptr, &tile_avx512<R + 1>...}};
}
template <int... R>
constexpr F32Kernel avx2_kernel(std::integer_sequence<int, R...>) {
  return {"avx2", kAvx2Rows, 16, {nullptr, &tile_avx2<R + 1>...}};
}

constexpr F32Kernel kAvx512 = avx512_kernel(std::make_integer_sequence<int, kAvx512Rows>{});
constexpr F32Kernel kAvx2 = avx2_kernel(std::make_integer_sequence<int, kAvx2Rows>{});

}  // namespace

const F32Kernel& f32_kernel_avx512() { return kAvx512; }
const F32Kernel& f32_kernel_avx2() { return kAvx2; }

}  // namespace vkrt::compute::detail
#endif  // __x86_64__
