// Integer pooling over NHWC: the average and the maximum of each window's taps that lie inside
// the input (padding takes no part in a sum, a count or a maximum), for int8 and int16. Both
// kernel families call it: cortex_m's quantized avg/max pool (CMSIS-NN's average) and TOSA's
// AVG_POOL2D / MAX_POOL2D (its reciprocal-scale average). At avx2 and above int8 runs one Highway
// row per target (pool_hwy.cpp); int16 and other architectures run the portable loops
// (pool.cpp), the same bytes.
#pragma once

#include <cstdint>
#include <optional>

#include "compute/exec.h"

namespace vkrt::compute {

struct PoolWindows {
  int32_t batches = 1, in_h = 0, in_w = 0, channels = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int32_t pad_top = 0, pad_left = 0;  // bottom and right padding only show in out_h and out_w
};

// How a window's sum becomes its average (count: the window's taps inside the input).
enum class PoolAverage : uint8_t {
  // CMSIS-NN (arm_avgpool_s8/s16): (sum + count/2) / count for sum > 0, else (sum − count/2) /
  // count, C's truncating division.
  kCmsisNn,
  // TOSA AVG_POOL2D: the sum of (x − input_zp) modulo 2^32, then apply_scale_32 with
  // reciprocal_scale(count) (single rounding), plus output_zp.
  kTosa,
};

struct PoolOutput {
  PoolAverage average = PoolAverage::kCmsisNn;
  int32_t input_zp = 0, output_zp = 0;  // kTosa's (zero for kCmsisNn)
  int32_t lo = -128, hi = 127;          // the clamp, within the element type
};

// The kernel indices [*begin, *end) along one axis of output coordinate o's taps inside an input
// of `size`; empty (begin == end) where the whole window lies in the padding.
inline void pool_taps(int64_t o, int32_t stride, int32_t pad, int32_t kernel, int32_t size, int32_t* begin,
                      int32_t* end) {
  const int64_t start = o * stride - pad;
  const int64_t b = start < 0 ? (-start < kernel ? -start : kernel) : 0;
  const int64_t e = int64_t(size) - start < kernel ? int64_t(size) - start : kernel;
  *begin = int32_t(b);
  *end = int32_t(e < b ? b : e);
}

// The Highway rows sum this many int8 taps at most in int16 lanes (|Σx| <= 256·128 = 2^15)
// before adding into int32 ones.
inline constexpr int32_t kPoolInt16Taps = 256;

// The first output row (or, where every row has taps, column) whose windows have no tap inside
// the input along that axis, if any: the pools' precondition is that there is none (TOSA's
// pad < kernel rule guarantees it; cortex_m reports it).
struct PoolEmptyWindow {
  bool row;  // else a column
  int32_t index;
};
std::optional<PoolEmptyWindow> pool_empty_window(const PoolWindows& w);
inline bool pool_windows_have_taps(const PoolWindows& w) { return !pool_empty_window(w); }

// Preconditions: pool_windows_have_taps(w), sizes non-negative; for kCmsisNn fewer than 2^16 taps
// per window (its sums of int16 then stay in int32). Threads from exec's runner for large layers;
// no scratch.
void avg_pool(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output, const Exec& exec);
void avg_pool(const PoolWindows& w, const PoolOutput& out, const int16_t* input, int16_t* output, const Exec& exec);
// clamp(max over the window's taps, out.lo, out.hi) (average and zero points unused).
void max_pool(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output, const Exec& exec);
void max_pool(const PoolWindows& w, const PoolOutput& out, const int16_t* input, int16_t* output, const Exec& exec);

}  // namespace vkrt::compute
