// gemm_f32's register tile on x86-64, written once with Highway (hwy_targets.h), one copy per
// target (gemm_f32_tile.h has the contract):
//   * AVX3 (our avx512bw level and up): 12 rows × 32 columns = 24 zmm accumulators; per depth two
//     B loads and twelve broadcasts of A (folded into the FMAs as {1to16} operands), 24 FMAs.
//   * AVX2 (with FMA3): 6 rows × 16 columns = 12 ymm accumulators, two B registers, one broadcast.
// Both keep more independent chains than FMA latency × FMA ports (4 cycles × 2), so the FMA
// units never wait on a previous sum. Every loop over the accumulators is fully unrolled
// (#pragma GCC unroll): GCC 12 keeps an array that a rolled loop indexes in memory, which costs
// a store per accumulator per depth (half the AVX2 speed).
#include "compute/hwy_targets.h"

#include <utility>

#include "compute/gemm_f32_tile.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/gemm_f32_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kRows = HWY_MAX_BYTES >= 64 ? 12 : 6;
constexpr int kColumns = 2 * HWY_MAX_BYTES / int(sizeof(float));
static_assert(kRows <= detail::kF32MaxRows && kColumns <= detail::kF32MaxColumns, "gemm_f32_tile.h's bounds");

template <int R>
void tile(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc, bool load_c) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  V acc[R][2];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    acc[r][0] = load_c ? hn::LoadU(d, c + r * ldc) : hn::Zero(d);
    acc[r][1] = load_c ? hn::LoadU(d, c + r * ldc + lanes) : hn::Zero(d);
  }
  for (int64_t p = 0; p < kc; ++p, a += kRows, b += ldb) {
    const V b0 = hn::LoadU(d, b), b1 = hn::LoadU(d, b + lanes);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const V av = hn::Set(d, a[r]);
      acc[r][0] = hn::MulAdd(av, b0, acc[r][0]);
      acc[r][1] = hn::MulAdd(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    hn::StoreU(acc[r][0], d, c + r * ldc);
    hn::StoreU(acc[r][1], d, c + r * ldc + lanes);
  }
}

template <int... R>
constexpr detail::F32Kernel kernel_of(std::integer_sequence<int, R...>) {
  return {HWY_MAX_BYTES >= 64 ? "avx512" : "avx2", kRows, kColumns, {nullptr, &tile<R + 1>...}};
}

constexpr detail::F32Kernel kKernel = kernel_of(std::make_integer_sequence<int, kRows>{});

const detail::F32Kernel& f32_kernel() { return kKernel; }

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
