// The int8 GEMM at every ISA level the CPU has, bit for bit: its int32 output (what TOSA's CONV2D
// takes from it) against direct sums, and its int8 output stage with either rounding against the
// definitions (arith) on those sums: random shapes that reach every path, B packed ahead or per
// call, one and two threads. The output stage's row form on its ties and extremes; the ISA level
// names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/exec.h"
#include "compute/gemm_s8.h"
#include "compute/isa.h"
#include "compute/requantize_row.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

// bias[j] + Σ_k (a[r][k] + ao)(b[j][k] + bo), modulo 2^32.
std::vector<int32_t> direct_sums(int64_t m, int32_t n, int32_t k, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                 const int32_t* bias, int32_t ao, int32_t bo) {
  std::vector<int32_t> c(size_t(m) * n);
  for (int64_t r = 0; r < m; ++r)
    for (int32_t j = 0; j < n; ++j) {
      uint32_t acc = bias ? uint32_t(bias[j]) : 0u;
      for (int32_t i = 0; i < k; ++i)
        acc += uint32_t(int32_t(a[size_t(r) * k + i]) + ao) * uint32_t(int32_t(b[size_t(j) * k + i]) + bo);
      c[size_t(r) * n + j] = int32_t(acc);
    }
  return c;
}

// Rows through the callback: copied into the tmp buffer, as im2col does.
const int8_t* copy_row(const void* ctx, int64_t r, int8_t* tmp) {
  const auto* g = static_cast<const std::pair<const int8_t*, int32_t>*>(ctx);
  std::memcpy(tmp, g->first + r * g->second, size_t(g->second));
  return tmp;
}

int pick(std::mt19937& rng, std::initializer_list<int> values) { return *(values.begin() + rng() % values.size()); }

std::vector<int8_t> random_bytes(std::mt19937& rng, size_t count) {
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> bytes(count);
  for (auto& v : bytes) v = int8_t(byte(rng));
  return bytes;
}

// A random product of shapes that reach every path (GEMV rows, tiles with short last tiles,
// panels past n, odd depths), offsets up to the ±65536 the kernels accept, biases that make the
// sums wrap, rows read in place or through a row callback; its direct sums.
struct RandomProduct {
  GemmS8 g;  // no C yet, no output stage
  std::vector<int8_t> a, b;
  std::vector<int32_t> bias, sums;
  std::pair<const int8_t*, int32_t> rows;
  std::string what;

  explicit RandomProduct(std::mt19937& rng) {
    const int64_t m = pick(rng, {1, 2, 3, 4, 5, 7, 33, 64, 65, 150});
    const int32_t n = pick(rng, {1, 5, 12, 16, 17, 30, 40, 100});
    const int32_t k = pick(rng, {1, 2, 3, 7, 24, 64, 65, 200});
    const int32_t ao = pick(rng, {0, 128, -127, 5, 65536, -65536});
    const int32_t bo = pick(rng, {0, 0, 3, -128, 127});
    const bool with_bias = rng() % 4 != 0, by_callback = rng() % 3 == 0;
    std::uniform_int_distribution<int> byte(-128, 127);
    a.resize(size_t(m) * k), b.resize(size_t(n) * k), bias.resize(size_t(n));
    for (auto& v : a) v = int8_t(byte(rng));
    for (auto& v : b) v = int8_t(byte(rng));
    for (auto& v : bias) v = int32_t(rng());  // any int32: the sums wrap
    sums = direct_sums(m, n, k, a, b, with_bias ? bias.data() : nullptr, ao, bo);
    g.m = m, g.n = n, g.k = k;
    rows = {a.data(), k};
    if (by_callback) {
      g.a_row = copy_row, g.a_ctx = &rows;
    } else {
      g.a = a.data(), g.a_stride = k;
    }
    g.b = b.data(), g.b_stride = k;
    g.bias = with_bias ? bias.data() : nullptr;
    g.a_offset = ao, g.b_offset = bo;
    what = std::to_string(m) + "x" + std::to_string(k) + " * " + std::to_string(n) + " ao " + std::to_string(ao) +
           " bo " + std::to_string(bo) + (with_bias ? "" : " no bias") + (by_callback ? " rows by callback" : "");
  }
  RandomProduct(const RandomProduct&) = delete;  // g points into the vectors
};

// Runs g at one and two threads (B packed ahead into `packed_memory` when pack_ahead) and
// returns what each wrote, C initialised to `fill`. C's rows are kGap elements apart, which must
// keep `fill`: a partial store that writes past column n - 1 shows there, where a row written
// later would cover it in a packed C.
template <typename T>
void for_each_run(GemmS8 g, bool pack_ahead, vkrt::ThreadPool& two, T fill,
                  const std::function<void(const std::vector<T>&, const std::string&)>& check) {
  std::vector<uint8_t> packed_memory(gemm_s8_packed_b_bytes(g));
  if (pack_ahead && !packed_memory.empty()) {
    g.packed_b = gemm_s8_pack_b(g, packed_memory);
    ASSERT_NE(g.packed_b, nullptr);
  }
  constexpr int32_t kGap = 3;
  for (int threads : {1, 2}) {
    const std::string how = std::string(g.packed_b ? " packed ahead" : "") + ", " + std::to_string(threads) + " thread(s)";
    std::vector<T> strided(size_t(g.m) * (g.n + kGap), fill);
    if constexpr (std::is_same_v<T, int32_t>)
      g.c32 = strided.data();
    else
      g.c = strided.data();
    g.c_stride = g.n + kGap;
    std::vector<uint8_t> scratch(gemm_s8_scratch_bytes(g, threads) + 64, 0xA5);
    Exec exec;
    exec.scratch = scratch;
    exec.runner = threads == 2 ? &two : nullptr;
    gemm_s8(g, exec);
    std::vector<T> got;
    for (int64_t r = 0; r < g.m; ++r) {
      const auto row = strided.begin() + r * g.c_stride;
      got.insert(got.end(), row, row + g.n);
      for (int32_t i = 0; i < kGap; ++i)
        ASSERT_EQ(row[g.n + i], fill) << "row " << r << " written past column " << g.n - 1 << how;
    }
    check(got, how);
  }
}

TEST(ComputeGemmS8, Int32OutputEqualsDirectSumsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 5);
    for (int iteration = 0; iteration < 120; ++iteration) {
      RandomProduct p(rng);
      p.g.out.per_channel = true;  // no output stage: multiplier and shift stay null
      for_each_run<int32_t>(p.g, rng() % 2 == 0, two, 0x5A5A5A5A,
                            [&](const std::vector<int32_t>& got, const std::string& how) {
                              ASSERT_EQ(got, p.sums) << "iteration " << iteration << ": " << p.what << how;
                            });
    }
  }
}

// Products big enough for two tasks, shared out by column panels (one block of rows with more
// panels than row tiles: a fully connected layer, a 7x7 pointwise one) or by row tiles, B packed
// ahead or per call: the int32 sums equal the direct ones at every level.
TEST(ComputeGemmS8, WorkSharedByPanelsOrByRowsEqualsDirectSumsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  struct Shape {
    int64_t m;
    int32_t n, k;
  };
  const Shape shapes[] = {{1, 1000, 300}, {49, 1000, 24}, {49, 160, 960}, {150, 40, 200}};
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 59);
    for (const Shape& shape : shapes) {
      const std::vector<int8_t> a = random_bytes(rng, size_t(shape.m) * shape.k),
                                b = random_bytes(rng, size_t(shape.n) * shape.k);
      std::vector<int32_t> bias(static_cast<size_t>(shape.n));
      for (auto& v : bias) v = int32_t(rng());
      const std::vector<int32_t> sums = direct_sums(shape.m, shape.n, shape.k, a, b, bias.data(), 128, 0);
      GemmS8 g;
      g.m = shape.m, g.n = shape.n, g.k = shape.k, g.a = a.data(), g.a_stride = shape.k, g.b = b.data(),
      g.b_stride = shape.k, g.bias = bias.data(), g.a_offset = 128;
      g.out.per_channel = true;  // no output stage
      for (bool pack_ahead : {false, true})
        for_each_run<int32_t>(g, pack_ahead, two, 0x5A5A5A5A, [&](const std::vector<int32_t>& got, const std::string& how) {
          ASSERT_EQ(got, sums) << shape.m << "x" << shape.k << " * " << shape.n << how;
        });
    }
  }
}

// One row of A by int8 weights (too large to be widened ahead) on AVX2 takes its own kernel,
// which splits A + 128 into nibbles (gemm_s8_hwy.cpp, row_panels): depths that end mid group of
// 8 pairs and on an odd value, an odd count of panels and a last panel of at most 8 columns, input
// offsets on both sides of 128 and a weight offset, a depth past the kernel's stack buffer (another
// path), rows by callback; packed ahead or per call, int32 and int8 outputs, at every level.
TEST(ComputeGemmS8, OneRowByInt8WeightsEqualsDirectSumsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  struct Shape {
    int32_t n, k;
  };
  const Shape shapes[] = {{1000, 1280}, {136, 1001}, {300, 701}, {40, 4097}};
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 83);
    int variant = 0;
    for (const Shape& shape : shapes) {
      for (const int32_t ao : {128, -127, 5}) {
        ++variant;
        const int32_t bo = variant % 3 == 0 ? -3 : 0;
        std::vector<int8_t> a = random_bytes(rng, size_t(shape.k)), b = random_bytes(rng, size_t(shape.n) * shape.k);
        if (variant == 5) {  // the largest nibbles (a + 128 = 255) by the largest weights: int16 sums at their bound
          std::fill(a.begin(), a.end(), int8_t(127));
          std::fill(b.begin(), b.end(), int8_t(-128));
        }
        std::vector<int32_t> bias(static_cast<size_t>(shape.n));
        for (auto& v : bias) v = int32_t(rng() % 200001) - 100000;
        const std::vector<int32_t> sums = direct_sums(1, shape.n, shape.k, a, b, bias.data(), ao, bo);
        int32_t mult = 1 << 30, shift = -14;
        std::vector<int8_t> want(sums.size());
        for (size_t i = 0; i < sums.size(); ++i)
          want[i] = int8_t(std::clamp(arith::wrap_add(arith::requantize(sums[i], mult, shift), 7), -128, 127));
        std::pair<const int8_t*, int32_t> rows{a.data(), shape.k};
        GemmS8 g;
        g.m = 1, g.n = shape.n, g.k = shape.k, g.b = b.data(), g.b_stride = shape.k, g.bias = bias.data();
        if (variant % 2 == 0)
          g.a_row = copy_row, g.a_ctx = &rows;
        else
          g.a = a.data(), g.a_stride = shape.k;
        g.a_offset = ao, g.b_offset = bo;
        const std::string what = "1x" + std::to_string(shape.k) + " * " + std::to_string(shape.n) + " ao " +
                                 std::to_string(ao) + " bo " + std::to_string(bo);
        GemmS8 int32_out = g;
        int32_out.out.per_channel = true;  // no output stage
        GemmS8 int8_out = g;
        int8_out.out = RequantizeRow{&mult, &shift, false, 7, -128, 127, false};
        for (bool pack_ahead : {false, true}) {
          for_each_run<int32_t>(int32_out, pack_ahead, two, 0x5A5A5A5A,
                                [&](const std::vector<int32_t>& got, const std::string& how) {
                                  ASSERT_EQ(got, sums) << what << how;
                                });
          for_each_run<int8_t>(int8_out, pack_ahead, two, int8_t(0x5A),
                               [&](const std::vector<int8_t>& got, const std::string& how) {
                                 ASSERT_EQ(got, want) << what << how;
                               });
        }
      }
    }
  }
}

// Weights packed ahead are widened to int16 where they are small, on the levels whose tiles read
// that (AVX2, AVX-512BW), and stay int8 where they are large: both forms give the direct sums, as
// int32 and through the output stage, at one and two threads. A classifier (12x64), a pointwise
// layer over few channels, and weights past the int16 limit (gemm_s8_tiled.h, 256 KiB widened).
TEST(ComputeGemmS8, SmallWeightsPackedWideAndLargeOnesInt8EqualDirectSumsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  struct Shape {
    int64_t m;
    int32_t n, k;
    bool small;  // widened where the level reads int16 panels
  };
  const Shape shapes[] = {{1, 12, 64, true}, {7, 64, 64, true}, {1, 160, 1024, false}, {13, 300, 500, false}};
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    const bool reads_int16 = isa == Isa::Avx2 || isa == Isa::Avx512bw;
    std::mt19937 rng(uint32_t(int(isa)) + 71);
    for (const Shape& shape : shapes) {
      const std::vector<int8_t> a = random_bytes(rng, size_t(shape.m) * shape.k),
                                b = random_bytes(rng, size_t(shape.n) * shape.k);
      std::vector<int32_t> bias(static_cast<size_t>(shape.n));
      for (auto& v : bias) v = int32_t(rng() % 200001) - 100000;
      const int32_t ao = 3, bo = -2;
      const std::vector<int32_t> sums = direct_sums(shape.m, shape.n, shape.k, a, b, bias.data(), ao, bo);
      int32_t mult = 1 << 30, shift = -12;
      std::vector<int8_t> want(sums.size());
      for (size_t i = 0; i < sums.size(); ++i)
        want[i] = int8_t(std::clamp(arith::wrap_add(arith::requantize(sums[i], mult, shift), -5), -128, 127));
      GemmS8 g;
      g.m = shape.m, g.n = shape.n, g.k = shape.k, g.a = a.data(), g.a_stride = shape.k, g.b = b.data(),
      g.b_stride = shape.k, g.bias = bias.data(), g.a_offset = ao, g.b_offset = bo;
      const std::string what = std::to_string(shape.m) + "x" + std::to_string(shape.k) + " * " + std::to_string(shape.n);
      GemmS8 int32_out = g;
      int32_out.out.per_channel = true;  // no output stage
      std::vector<uint8_t> packed_memory(gemm_s8_packed_b_bytes(int32_out));
      const GemmS8PackedB* packed = packed_memory.empty() ? nullptr : gemm_s8_pack_b(int32_out, packed_memory);
      if (isa != Isa::Portable) {
        ASSERT_NE(packed, nullptr) << what;
      }
      if (packed) {
        EXPECT_EQ(packed->b_int16, reads_int16 && shape.small) << what;
      }
      for_each_run<int32_t>(int32_out, true, two, 0x5A5A5A5A, [&](const std::vector<int32_t>& got, const std::string& how) {
        ASSERT_EQ(got, sums) << what << how;
      });
      GemmS8 int8_out = g;
      int8_out.out = RequantizeRow{&mult, &shift, false, -5, -128, 127, false};
      for_each_run<int8_t>(int8_out, true, two, int8_t(0x5A), [&](const std::vector<int8_t>& got, const std::string& how) {
        ASSERT_EQ(got, want) << what << how;
      });
    }
  }
}

// The int8 output stage with either rounding against its definition on the direct sums:
// arith::requantize (CMSIS-NN, double rounding) or arith::apply_scale_32 (TOSA's single
// rounding, shift 31 − shift), then the offset and the clamp. Multipliers over all of [0, 2^31),
// per channel or per tensor, and scales that put most results inside int8, so the roundings show.
TEST(ComputeGemmS8, Int8OutputEqualsRequantizedSumsAtEveryLevelAndRounding) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 17);
    for (int iteration = 0; iteration < 120; ++iteration) {
      RandomProduct p(rng);
      GemmS8& g = p.g;
      g.out.single_round = iteration % 2 == 0;
      g.out.per_channel = rng() % 3 != 0;
      g.out.output_offset = pick(rng, {0, -128, 5, 127});
      g.out.activation_min = pick(rng, {-128, -128, -20});
      g.out.activation_max = pick(rng, {127, 127, 30});
      // Scale each column's sums into about ±300: m·2^-(31+r) ≈ 300 / max |sum| (the wrapped
      // biases make that 2^31), with r = −shift in [1, 31] and m >= 2^30 where r allows.
      std::vector<int32_t> mult(size_t(g.n)), shift(size_t(g.n));
      for (int32_t j = 0; j < g.n; ++j) {
        const int r = pick(rng, {1, 2, 8, 15, 22, 31});
        // Double rounding: right shifts only in half the iterations (each vector of columns in one
        // divide), and some left shifts in the others (vectors holding one keep two steps).
        shift[size_t(j)] = g.out.single_round || iteration % 4 == 1 ? -r : pick(rng, {-r, -r, 0, 3});
        mult[size_t(j)] = j % 7 == 3 ? pick(rng, {0, 1, INT32_MAX, 1 << 30}) : int32_t((1u << 30) | (rng() >> 2));
      }
      g.out.multiplier = mult.data(), g.out.shift = shift.data();
      std::vector<int8_t> want(p.sums.size());
      for (size_t i = 0; i < want.size(); ++i) {
        const int c = g.out.per_channel ? int(i % size_t(g.n)) : 0;
        const int32_t v = g.out.single_round ? arith::apply_scale_32(p.sums[i], mult[size_t(c)], 31 - shift[size_t(c)], false)
                                             : arith::requantize(p.sums[i], mult[size_t(c)], shift[size_t(c)]);
        want[i] = int8_t(std::clamp(arith::wrap_add(v, g.out.output_offset), g.out.activation_min, g.out.activation_max));
      }
      for_each_run<int8_t>(g, rng() % 2 == 0, two, int8_t(0x5A), [&](const std::vector<int8_t>& got, const std::string& how) {
        ASSERT_EQ(got, want) << "iteration " << iteration << ": " << p.what
                             << (g.out.single_round ? ", single rounding" : ", double rounding")
                             << (g.out.per_channel ? ", per channel" : ", per tensor") << how;
      });
    }
  }
}

// The GEMM's own output stages (the tiles' and the GEMVs', which derive their scales apart from
// requantize_row_s8) on the values where the double rounding's terms matter: sums next to every
// tie of the second rounding, of both signs, for each right shift. k = 1 and B = 1 make each
// sum bias[j] + a[r]: bias[j] a tie (2t + 1)·2^r (INT32_MIN under an INT32_MIN multiplier),
// a[r] in -3..3 (and a few larger). Every column shifts right, so vectors of columns take the
// one divide where their multipliers allow; in two products of three some columns have an
// INT32_MIN multiplier (one in three) or a negative one (one in three).
TEST(ComputeGemmS8, DoubleRoundingOnTiesEqualsTheDefinitionAtEveryLevel) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 31);
    for (int iteration = 0; iteration < 60; ++iteration) {
      const int64_t m = pick(rng, {1, 3, 4, 9, 24});  // the GEMV paths and the tiles
      const int32_t n = pick(rng, {16, 32, 40});
      std::vector<int8_t> a(static_cast<size_t>(m)), b(static_cast<size_t>(n), 1);
      for (int64_t r = 0; r < m; ++r) a[size_t(r)] = int8_t(r < 7 ? r - 3 : int32_t(rng() % 41) - 20);
      std::vector<int32_t> bias(static_cast<size_t>(n)), mult(bias), shift(bias);
      const int odd_multipliers = iteration % 3;  // 0: INT32_MIN among them; 1: negative ones
      for (int32_t j = 0; j < n; ++j) {
        const int r = 1 + int(rng() % 22);
        const int64_t t = int64_t(rng() % 201) - 100;
        bias[size_t(j)] = int32_t((2 * t + 1) << r);
        shift[size_t(j)] = -(r - 1 + int(rng() % 2));  // right shift r: a tie; r − 1: an exact quotient
        mult[size_t(j)] = j % 5 == 2 && odd_multipliers == 0 ? INT32_MIN
                          : j % 5 == 2 && odd_multipliers == 1 ? -int32_t(1u << 30)
                          : rng() % 4 == 0                      ? int32_t((1u << 30) | (rng() >> 2))
                                                                : int32_t(1u << 30);
        if (shift[size_t(j)] == 0) shift[size_t(j)] = -1;
        // SRDHM's one overflow: a sum of INT32_MIN (the row with a = 0) times INT32_MIN wraps.
        if (mult[size_t(j)] == INT32_MIN) bias[size_t(j)] = INT32_MIN;
      }
      GemmS8 g;
      g.m = m, g.n = n, g.k = 1, g.a = a.data(), g.a_stride = 1, g.b = b.data(), g.b_stride = 1, g.bias = bias.data();
      g.out = RequantizeRow{mult.data(), shift.data(), true, 0, -128, 127, false};
      std::vector<int8_t> want(size_t(m) * n);
      for (int64_t r = 0; r < m; ++r)
        for (int32_t j = 0; j < n; ++j) {
          const int32_t sum = arith::wrap_add(bias[size_t(j)], a[size_t(r)]);
          want[size_t(r) * n + j] = int8_t(std::clamp(arith::requantize(sum, mult[size_t(j)], shift[size_t(j)]), -128, 127));
        }
      for_each_run<int8_t>(g, rng() % 2 == 0, two, int8_t(0x5A), [&](const std::vector<int8_t>& got, const std::string& how) {
        ASSERT_EQ(got, want) << "iteration " << iteration << ": " << m << " rows, " << n << " columns" << how;
      });
    }
  }
}

// A packed B is used only for the product it was built from: one packed for other weights, another
// bias, other offsets or another output scale (a method whose constants changed, a --cpu_isa pinned
// after packing) is ignored and the product computed from its own operands. Small products too,
// which take the tiles without scratch where B is packed ahead.
TEST(ComputeGemmS8, PackedBOfAnotherProductIsIgnoredAtEveryLevel) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 43);
    for (const int64_t m : {int64_t(1), int64_t(4), int64_t(70)}) {
      const int32_t n = 12, k = 64;
      std::uniform_int_distribution<int> byte(-128, 127);
      std::vector<int8_t> a(size_t(m) * k), b(size_t(n) * k), other_b(b.size());
      for (auto& v : a) v = int8_t(byte(rng));
      for (auto& v : b) v = int8_t(byte(rng));
      for (auto& v : other_b) v = int8_t(byte(rng));
      std::vector<int32_t> bias(static_cast<size_t>(n)), other_bias(static_cast<size_t>(n));
      for (auto& v : bias) v = int32_t(rng() % 20001) - 10000;
      for (auto& v : other_bias) v = int32_t(rng() % 20001) - 10000;
      int32_t mult = 1 << 30, shift = -9, other_mult = 1500000000, other_shift = -11;
      GemmS8 g;
      g.m = m, g.n = n, g.k = k, g.a = a.data(), g.a_stride = k, g.b = b.data(), g.b_stride = k, g.bias = bias.data();
      g.a_offset = 128, g.b_offset = 0;
      g.out = RequantizeRow{&mult, &shift, false, -5, -128, 127, false};
      // The products that differ from g in one constant each, with what they must give.
      struct Variant {
        const char* what;
        GemmS8 g;
      };
      std::vector<Variant> variants(5, Variant{"", g});
      variants[0] = {"other weights", g}, variants[0].g.b = other_b.data();
      variants[1] = {"another bias", g}, variants[1].g.bias = other_bias.data();
      variants[2] = {"another input offset", g}, variants[2].g.a_offset = -3;
      variants[3] = {"another weight offset", g}, variants[3].g.b_offset = 7;
      variants[4] = {"another output scale", g};
      variants[4].g.out.multiplier = &other_mult, variants[4].g.out.shift = &other_shift;
      std::vector<uint8_t> packed_memory(gemm_s8_packed_b_bytes(g));
      const GemmS8PackedB* packed = packed_memory.empty() ? nullptr : gemm_s8_pack_b(g, packed_memory);
      for (const Variant& v : variants) {
        const GemmS8& h = v.g;
        const std::vector<int32_t> sums = direct_sums(m, n, k, a, h.b == b.data() ? b : other_b, h.bias, h.a_offset, h.b_offset);
        std::vector<int8_t> want(sums.size());
        for (size_t i = 0; i < sums.size(); ++i)
          want[i] = int8_t(std::clamp(arith::wrap_add(arith::requantize(sums[i], *h.out.multiplier, *h.out.shift), -5), -128, 127));
        std::vector<int8_t> got(want.size());
        GemmS8 run = h;
        run.packed_b = packed;  // g's, not h's
        run.c = got.data(), run.c_stride = n;
        std::vector<uint8_t> scratch(gemm_s8_scratch_bytes(run, 2) + 64);
        Exec exec;
        exec.scratch = scratch;
        exec.runner = &two;
        gemm_s8(run, exec);
        ASSERT_EQ(got, want) << m << " rows, " << v.what;
      }
    }
  }
}

// requantize_row_s8 at every level against the definitions, on the values where the roundings
// differ: every tie (acc·m exactly half way, m = 2^30: acc = (2j + 1)·2^r) of both signs, for
// every right shift r; results of either sign near int8's ends; int32's extremes.
TEST(ComputeRequantizeRow, EqualsTheDefinitionsOnTiesAndExtremesAtEveryLevel) {
  for (bool single : {true, false})
    for (int r = 1; r <= 31; ++r) {
      std::vector<int32_t> acc = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX};
      for (int64_t j = -130; j <= 130; ++j) {
        const int64_t tie = (2 * j + 1) << std::min(r, 22);
        acc.push_back(int32_t(tie));
        acc.push_back(int32_t(tie - 1));
        acc.push_back(int32_t(tie + 1));
      }
      const std::vector<int32_t> mult = {1 << 30, INT32_MAX, 0, 1 << 30, int32_t(0x5A5A5A5A)};
      for (bool per_channel : {true, false}) {
        std::vector<int32_t> m(acc.size()), s(acc.size(), -r);
        for (size_t i = 0; i < m.size(); ++i) m[i] = per_channel ? mult[i % mult.size()] : mult[0];
        RequantizeRow spec{m.data(), s.data(), per_channel, -3, -128, 127, single};
        std::vector<int8_t> want(acc.size());
        for (size_t i = 0; i < acc.size(); ++i) {
          const int32_t v = single ? arith::apply_scale_32(acc[i], m[i], 31 + r, false) : arith::requantize(acc[i], m[i], -r);
          want[i] = int8_t(std::clamp(arith::wrap_add(v, -3), -128, 127));
        }
        for (Isa isa : available_isas()) {
          ScopedIsa pin(isa);
          for (int count : {int(acc.size()), 5, 37}) {  // tails of every vector width
            std::vector<int8_t> got(size_t(count), 0x5A);
            requantize_row_s8(spec, acc.data(), 0, count, got.data());
            ASSERT_EQ(got, std::vector<int8_t>(want.begin(), want.begin() + count))
                << isa_name(isa) << (single ? ", single" : ", double") << " rounding, shift -" << r
                << (per_channel ? ", per channel" : ", per tensor") << ", " << count << " values";
          }
        }
      }
    }
}

// The double rounding at every level against arith::requantize for any multiplier and shift: a
// vector whose lanes all shift right by 1..31 and whose multipliers are not INT32_MIN may be taken
// in one divide, the others in two steps (output_stage_hwy-inl.h; the row folds per-tensor scales
// only), so the channels are drawn so that both kinds of vector occur: right shifts only, or any
// shift in -40..40 (clamped to ±31); every multiplier, negative ones and INT32_MIN included;
// values near the ties, small and full range; per channel and per tensor.
TEST(ComputeRequantizeRow, DoubleRoundingEqualsTheDefinitionForAnyMultiplierAndShift) {
  std::mt19937 rng(2026);
  for (int iteration = 0; iteration < 400; ++iteration) {
    const int count = 1 + int(rng() % 70);
    const bool right_only = iteration % 2 == 0;
    const int special = int(rng() % 4);  // 0: INT32_MIN multipliers appear; 1: negative ones; else positive
    std::vector<int32_t> acc(static_cast<size_t>(count)), m = acc, s = acc;
    for (int i = 0; i < count; ++i) {
      const int r = 1 + int(rng() % 31);
      s[size_t(i)] = right_only ? -r : int32_t(rng() % 81) - 40;
      m[size_t(i)] = special == 0 && rng() % 5 == 0 ? INT32_MIN
                     : special <= 1                 ? int32_t(rng())
                                                    : int32_t((1u << 30) | (rng() >> 2));
      switch (m[size_t(i)] == INT32_MIN && rng() % 2 == 0 ? 3 : rng() % 3) {
        case 3: acc[size_t(i)] = INT32_MIN; break;  // SRDHM's one overflow: the int32 result wraps
        case 0: acc[size_t(i)] = int32_t(rng()); break;
        case 1: acc[size_t(i)] = int32_t(rng() % 4001) - 2000; break;
        default: {  // next to a tie of the second rounding for m = 2^30
          const int64_t tie = (2 * (int64_t(rng() % 201) - 100) + 1) << std::min(r, 22);
          acc[size_t(i)] = int32_t(tie + int64_t(rng() % 3) - 1);
          if (rng() % 2 == 0) m[size_t(i)] = 1 << 30;
        }
      }
    }
    // Per tensor (every third iteration): the first channel's scales for all; its multiplier
    // INT32_MIN where INT32_MIN multipliers appear, with an INT32_MIN value among the rest.
    const bool per_channel = iteration % 3 != 0;
    if (!per_channel && special == 0) m[0] = INT32_MIN, acc[size_t(count - 1)] = INT32_MIN;
    RequantizeRow spec{m.data(), s.data(), per_channel, 7, -128, 127, false};
    std::vector<int8_t> want(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      const size_t c = per_channel ? size_t(i) : 0;
      want[size_t(i)] = int8_t(std::clamp(arith::wrap_add(arith::requantize(acc[size_t(i)], m[c], s[c]), 7), -128, 127));
    }
    for (Isa isa : available_isas()) {
      ScopedIsa pin(isa);
      std::vector<int8_t> got(size_t(count), 0x5A);
      requantize_row_s8(spec, acc.data(), 0, count, got.data());
      ASSERT_EQ(got, want) << isa_name(isa) << ", iteration " << iteration << (right_only ? ", right shifts" : ", any shifts")
                           << (per_channel ? ", per channel" : ", per tensor")
                           << ", multipliers " << (special == 0 ? "with INT32_MIN" : special == 1 ? "of either sign" : "positive");
    }
  }
}

TEST(ComputeIsa, NamesParseAndPinningIsBounded) {
  for (const char* name : {"portable", "avx2", "avx512bw", "avx512vnni", "neon", "dotprod", "i8mm"}) {
    Isa isa;
    ASSERT_TRUE(parse_isa(name, &isa)) << name;
    EXPECT_STREQ(isa_name(isa), name);
  }
  Isa isa;
  EXPECT_FALSE(parse_isa("AVX2", &isa));  // names are exact
  EXPECT_FALSE(parse_isa("", &isa));
  // Every level the CPU has can be pinned; the other chain's levels cannot.
  const Isa before = active_isa();
  for (Isa level : available_isas()) {
    ScopedIsa pin(level);
    EXPECT_TRUE(pin.ok());
    EXPECT_EQ(active_isa(), level);
    EXPECT_TRUE(has(level));
    EXPECT_TRUE(has(Isa::Portable));
  }
  EXPECT_EQ(active_isa(), before);
#if defined(__x86_64__)
  EXPECT_NE(pin_isa(std::string_view("neon")).find("this CPU has no neon"), std::string::npos);
  EXPECT_FALSE(has(Isa::Neon));
#elif defined(__aarch64__)
  EXPECT_NE(pin_isa(std::string_view("avx2")).find("this CPU has no avx2"), std::string::npos);
  EXPECT_FALSE(has(Isa::Avx2));
#endif
  EXPECT_NE(pin_isa(std::string_view("sse9")).find("unknown ISA level 'sse9'"), std::string::npos);
  EXPECT_EQ(active_isa(), before);
}

}  // namespace
}  // namespace vkrt::compute
