// The compute core's integer pools at every ISA level the CPU has, bit for bit against the
// definitions written out here: CMSIS-NN's average ((sum ± count/2) / count, C division), TOSA's
// (apply_scale_32 with reciprocal_scale, the specification's functions in arith/), and the
// maximum, each over the window's taps inside the input. Random layers reach every path: int8
// windows up to and past kPoolInt16Taps (the Highway rows and the portable loop), channel counts
// around the vector widths, padding, strides, extreme values and zero points, int16, and one and
// two threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "compute/pool.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

int pick(std::mt19937& rng, std::initializer_list<int> values) { return *(values.begin() + rng() % values.size()); }

enum class Kind { kAverage, kMaximum };

// The pool by its definition, one output element at a time.
template <typename T>
std::vector<T> defined(const PoolWindows& w, const PoolOutput& o, Kind kind, const std::vector<T>& in) {
  std::vector<T> out(size_t(w.batches) * w.out_h * w.out_w * w.channels);
  for (int32_t b = 0; b < w.batches; ++b)
    for (int32_t oy = 0; oy < w.out_h; ++oy)
      for (int32_t ox = 0; ox < w.out_w; ++ox)
        for (int32_t c = 0; c < w.channels; ++c) {
          int64_t sum = 0, count = 0, best = std::numeric_limits<int64_t>::min();
          for (int32_t ky = 0; ky < w.kernel_h; ++ky)
            for (int32_t kx = 0; kx < w.kernel_w; ++kx) {
              const int32_t y = oy * w.stride_h - w.pad_top + ky, x = ox * w.stride_w - w.pad_left + kx;
              if (y < 0 || y >= w.in_h || x < 0 || x >= w.in_w) continue;
              const int64_t v = in[((size_t(b) * w.in_h + y) * w.in_w + x) * w.channels + c];
              sum += v;
              best = std::max(best, v);
              ++count;
            }
          int64_t value;
          if (kind == Kind::kMaximum) {
            value = best;
          } else if (o.average == PoolAverage::kCmsisNn) {
            value = (sum > 0 ? sum + count / 2 : sum - count / 2) / count;
          } else {
            const arith::ReciprocalScale rs = arith::reciprocal_scale(uint32_t(count));
            const int32_t acc = int32_t(uint32_t(uint64_t(sum - count * o.input_zp)));  // int32, wrapping
            value = int64_t(arith::apply_scale_32(acc, rs.multiplier, rs.shift, false)) + o.output_zp;
          }
          out[((size_t(b) * w.out_h + oy) * w.out_w + ox) * w.channels + c] =
              T(std::clamp<int64_t>(value, o.lo, o.hi));
        }
  return out;
}

template <typename T>
void check_random_layers(Isa isa, ThreadPool& two) {
  std::mt19937 rng(uint32_t(int(isa)) * 7 + sizeof(T));
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  for (int iteration = 0; iteration < 80; ++iteration) {
    PoolWindows w;
    w.batches = pick(rng, {1, 1, 2});
    // Every tenth a window past kPoolInt16Taps (17x17 = 289 taps): the portable loop at every level.
    const bool big = iteration % 10 == 7;
    w.in_h = big ? 20 : pick(rng, {1, 2, 5, 7, 9, 25});
    w.in_w = big ? 19 : pick(rng, {1, 3, 5, 7, 10});
    w.channels = pick(rng, {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129});
    w.kernel_h = big ? 17 : std::min(w.in_h + 1, pick(rng, {1, 2, 3, 3, 7, 25}));
    w.kernel_w = big ? 17 : std::min(w.in_w + 1, pick(rng, {1, 2, 3, 3, 5, 7}));
    w.stride_h = pick(rng, {1, 2, 3}), w.stride_w = pick(rng, {1, 2});
    w.pad_top = int32_t(rng() % uint32_t(w.kernel_h)), w.pad_left = int32_t(rng() % uint32_t(w.kernel_w));
    const int32_t pad_bottom = int32_t(rng() % uint32_t(w.kernel_h)), pad_right = int32_t(rng() % uint32_t(w.kernel_w));
    w.out_h = (w.in_h + w.pad_top + pad_bottom - w.kernel_h) / w.stride_h + 1;
    w.out_w = (w.in_w + w.pad_left + pad_right - w.kernel_w) / w.stride_w + 1;
    if (w.out_h <= 0 || w.out_w <= 0 || !pool_windows_have_taps(w)) continue;

    PoolOutput o;
    o.average = iteration % 2 ? PoolAverage::kTosa : PoolAverage::kCmsisNn;
    if (o.average == PoolAverage::kTosa && sizeof(T) == 1) {
      o.input_zp = pick(rng, {0, -128, 127, 5});
      o.output_zp = pick(rng, {0, -128, 127, -7});
    }
    o.lo = pick(rng, {kMin, kMin, kMin / 4});
    o.hi = pick(rng, {kMax, kMax, kMax / 3});
    // Uniform values, or all at one extreme (the largest sums of either sign).
    const int mode = int(rng() % 4);
    std::uniform_int_distribution<int32_t> value(kMin, kMax);
    std::vector<T> in(size_t(w.batches) * w.in_h * w.in_w * w.channels);
    for (auto& v : in) v = T(mode == 0 ? kMin : mode == 1 ? kMax : value(rng));

    for (Kind kind : {Kind::kAverage, Kind::kMaximum}) {
      const std::vector<T> want = defined(w, o, kind, in);
      for (ThreadPool* runner : {static_cast<ThreadPool*>(nullptr), &two}) {
        SCOPED_TRACE(std::string(kind == Kind::kAverage ? "average" : "maximum") + (runner ? ", two threads" : ", one thread") +
                     ", " + std::to_string(w.in_h) + "x" + std::to_string(w.in_w) + "x" + std::to_string(w.channels) +
                     " kernel " + std::to_string(w.kernel_h) + "x" + std::to_string(w.kernel_w) + " stride " +
                     std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " pad " + std::to_string(w.pad_top) +
                     "," + std::to_string(w.pad_left) + (o.average == PoolAverage::kTosa ? " tosa zp " : " cmsis zp ") +
                     std::to_string(o.input_zp) + "/" + std::to_string(o.output_zp) + " mode " + std::to_string(mode));
        std::vector<T> got(want.size(), T(0x55));
        Exec exec;
        exec.runner = runner;
        if (kind == Kind::kAverage)
          avg_pool(w, o, in.data(), got.data(), exec);
        else
          max_pool(w, o, in.data(), got.data(), exec);
        ASSERT_EQ(got, want);
      }
    }
  }
}

TEST(ComputePool, Int8AndInt16PoolsEqualTheDefinitionsAtEveryLevel) {
  ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    check_random_layers<int8_t>(isa, two);
    check_random_layers<int16_t>(isa, two);
  }
}

// A layer large enough to be shared out by rows (1M taps·channels): MobileNetV2's global average
// pool over 7x7x1280 times a batch of 16, both averages, at every level.
TEST(ComputePool, LargeLayersSharedByRowsEqualTheDefinitionsAtEveryLevel) {
  ThreadPool two(2);
  PoolWindows w;
  w.batches = 16, w.in_h = 7, w.in_w = 7, w.channels = 1280, w.out_h = 1, w.out_w = 1, w.kernel_h = 7, w.kernel_w = 7;
  std::mt19937 rng(5);
  std::vector<int8_t> in(size_t(w.batches) * 49 * 1280);
  for (auto& v : in) v = int8_t(rng());
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    for (PoolAverage average : {PoolAverage::kCmsisNn, PoolAverage::kTosa}) {
      PoolOutput o;
      o.average = average;
      if (average == PoolAverage::kTosa) o.input_zp = -3, o.output_zp = 4;
      const std::vector<int8_t> want = defined(w, o, Kind::kAverage, in);
      std::vector<int8_t> got(want.size());
      Exec exec;
      exec.runner = &two;
      avg_pool(w, o, in.data(), got.data(), exec);
      EXPECT_EQ(got, want);
    }
  }
}

// Windows past kPoolInt16Taps, whose int16 sums are added into int32 every 256 taps: a 40x40
// window of the extreme values (the largest sums of either sign) with a channel tail, both
// averages; and a 3000x3000 window, whose TOSA sum of −255 per tap wraps modulo 2^32 as TOSA's
// int32 accumulator does. At every level.
TEST(ComputePool, LargeWindowsAndWrappingSumsEqualTheDefinitionsAtEveryLevel) {
  struct Case {
    int32_t side, channels;
    PoolAverage average;
    int8_t value;
    int32_t input_zp;
  };
  const Case cases[] = {{40, 37, PoolAverage::kCmsisNn, -128, 0}, {40, 37, PoolAverage::kCmsisNn, 127, 0},
                        {40, 37, PoolAverage::kTosa, -128, 127}, {40, 37, PoolAverage::kTosa, 127, -128},
                        {3000, 1, PoolAverage::kTosa, -128, 127}};
  for (const Case& k : cases) {
    PoolWindows w;
    w.in_h = w.in_w = w.kernel_h = w.kernel_w = k.side;
    w.channels = k.channels, w.out_h = w.out_w = 1;
    std::vector<int8_t> in(size_t(k.side) * k.side * k.channels, k.value);
    in[3] = 5;  // not all equal: a sum that is not a multiple of the count
    PoolOutput o;
    o.average = k.average, o.input_zp = k.input_zp;
    const std::vector<int8_t> want = defined(w, o, Kind::kAverage, in);
    for (Isa isa : available_isas()) {
      ScopedIsa pin(isa);
      SCOPED_TRACE(std::string("ISA level ") + isa_name(isa) + ", side " + std::to_string(k.side) + ", value " +
                   std::to_string(k.value));
      std::vector<int8_t> got(want.size());
      avg_pool(w, o, in.data(), got.data(), Exec{});
      EXPECT_EQ(got, want);
    }
  }
}

TEST(ComputePool, WindowsWithoutTapsAreFoundByRowOrColumn) {
  PoolWindows w;
  w.in_h = 4, w.in_w = 4, w.channels = 3, w.kernel_h = 2, w.kernel_w = 2, w.stride_h = 1, w.stride_w = 1;
  w.out_h = 3, w.out_w = 3;
  EXPECT_TRUE(pool_windows_have_taps(w));
  w.pad_top = 2, w.out_h = 5;  // row 0's window lies in the padding
  EXPECT_FALSE(pool_windows_have_taps(w));
  ASSERT_TRUE(pool_empty_window(w).has_value());
  EXPECT_TRUE(pool_empty_window(w)->row);
  EXPECT_EQ(pool_empty_window(w)->index, 0);
  w.pad_top = 0, w.out_h = 3, w.pad_left = 1, w.stride_w = 3, w.out_w = 2;  // columns -1..0 and 2..3
  EXPECT_TRUE(pool_windows_have_taps(w));
  w.out_w = 3;  // column 2: x = 5..6, past the input
  EXPECT_FALSE(pool_windows_have_taps(w));
  ASSERT_TRUE(pool_empty_window(w).has_value());
  EXPECT_FALSE(pool_empty_window(w)->row);
  EXPECT_EQ(pool_empty_window(w)->index, 2);
}

}  // namespace
}  // namespace vkrt::compute
