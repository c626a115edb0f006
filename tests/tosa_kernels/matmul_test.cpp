// MATMUL on the compute core's GEMMs (matmul.cpp): int8 on the int8 GEMM against the reference
// loops, byte for byte, at every ISA level, on one and three threads, with zero points and sums
// past int32; fp32 on the fp32 GEMM against sums in double, within the float rounding of a chain
// of C steps, |err| <= γ_C·Σ|a·b| with γ_C = C·u/(1 − C·u), u = 2^-24.
#include <cmath>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

struct MatmulCase {
  int64_t n, h, c, w;
};

// Shapes: one row (a vector by a matrix, without the transpose, in batches too), rows and columns that are not multiples of any tile
// (1, 7, 17, 33), a depth past one 256-deep block, and several batches.
const MatmulCase kCases[] = {{1, 1, 64, 12}, {2, 7, 17, 33}, {3, 33, 300, 5}, {1, 70, 96, 90}, {1, 16, 1, 1}, {2, 1, 40, 3}};

TEST(TosaMatmulFast, Int8MatchesTheReferenceLoops) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  const MatmulAttr zero_points[] = {{0, 0}, {-128, 127}, {5, -3}, {127, 0}};
  for (const MatmulCase& k : kCases)
    for (const MatmulAttr& zp : zero_points) {
      auto a = i8({k.n, k.h, k.c}), b = i8({k.n, k.c, k.w});
      for (auto& v : a.data) v = int8_t(byte(rng));
      for (auto& v : b.data) v = int8_t(byte(rng));
      auto want = i32({k.n, k.h, k.w});
      detail::matmul_reference(a, b, zp, want);
      for (compute::Isa isa : compute::available_isas()) {
        compute::ScopedIsa pin(isa);
        for (int threads : {1, 3}) {
          CountingThreads pool(threads);
          ParallelRunner* runner = threads > 1 ? &pool : nullptr;
          auto out = i32({k.n, k.h, k.w}, std::vector<int32_t>(size_t(k.n * k.h * k.w), 0x55555555));
          std::vector<uint8_t> scratch(matmul_scratch_bytes(a, b, zp, out, threads), 0xA5);
          ASSERT_EQ(scratch.empty(), k.h == 1);  // one row: no transpose, no GEMM
          ASSERT_TOSA_OK(matmul(a, b, zp, out, runner, scratch));
          EXPECT_EQ(out.data, want.data) << k.n << "x" << k.h << "x" << k.c << " by " << k.w << ", zero points "
                                         << zp.a_zp << ", " << zp.b_zp << " at " << compute::isa_name(isa) << ", "
                                         << threads << " thread(s)";
        }
      }
    }
}

// 33026 products of (−128 − 127)² = 65025 pass INT32_MAX: the int32 sum wraps, as the
// definition's does, in the one-row form and through the GEMM.
TEST(TosaMatmulFast, Int8SumsPastInt32Wrap) {
  const int64_t depth = 33026;
  const int32_t wrapped = int32_t(uint32_t(uint64_t(depth) * 65025));
  ASSERT_LT(wrapped, 0);
  auto b = i8({1, depth, 2}, std::vector<int8_t>(size_t(depth) * 2, -128));
  const MatmulAttr zp{127, 127};
  for (int64_t rows : {1, 2}) {
    auto a = i8({1, rows, depth}, std::vector<int8_t>(size_t(rows * depth), -128));
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      auto out = i32({1, rows, 2});
      std::vector<uint8_t> scratch(matmul_scratch_bytes(a, b, zp, out, 1));
      ASSERT_TOSA_OK(matmul(a, b, zp, out, nullptr, scratch));
      EXPECT_EQ(out.data, std::vector<int32_t>(size_t(rows) * 2, wrapped)) << rows << " row(s) at " << compute::isa_name(isa);
    }
  }
}

TEST(TosaMatmulFast, Fp32MatchesDoubleSumsWithinRounding) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const MatmulCase& k : kCases) {
    auto a = f32({k.n, k.h, k.c}), b = f32({k.n, k.c, k.w});
    for (float& v : a.data) v = value(rng);
    for (float& v : b.data) v = value(rng);
    const double u = std::ldexp(1.0, -24), gamma = double(k.c) * u / (1 - double(k.c) * u);
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      for (int threads : {1, 3}) {
        CountingThreads pool(threads);
        auto out = f32({k.n, k.h, k.w}, std::vector<float>(size_t(k.n * k.h * k.w), std::nanf("")));
        EXPECT_EQ(matmul_scratch_bytes(a, b, MatmulAttr{}, out, threads), 0u);  // fp32 takes none
        ASSERT_TOSA_OK(matmul(a, b, MatmulAttr{}, out, threads > 1 ? &pool : nullptr));
        for (int64_t n = 0; n < k.n; ++n)
          for (int64_t h = 0; h < k.h; ++h)
            for (int64_t w = 0; w < k.w; ++w) {
              double sum = 0, magnitude = 0;
              for (int64_t c = 0; c < k.c; ++c) {
                const double p = double(a.data[size_t((n * k.h + h) * k.c + c)]) * b.data[size_t((n * k.c + c) * k.w + w)];
                sum += p, magnitude += std::fabs(p);
              }
              const float got = out.data[size_t((n * k.h + h) * k.w + w)];
              ASSERT_LE(std::fabs(double(got) - sum), gamma * magnitude)
                  << "output " << n << "," << h << "," << w << " at " << compute::isa_name(isa) << ", " << threads
                  << " thread(s)";
            }
      }
    }
  }
}

// Without the scratch matmul_scratch_bytes asks for, int8 runs the reference loops: the same
// bytes.
TEST(TosaMatmulFast, Int8WithoutScratchTheReferenceLoops) {
  std::mt19937 rng(3);
  auto a = i8({2, 5, 9}), b = i8({2, 9, 4});
  for (auto& v : a.data) v = int8_t(rng());
  for (auto& v : b.data) v = int8_t(rng());
  auto want = i32({2, 5, 4}), out = i32({2, 5, 4});
  detail::matmul_reference(a, b, MatmulAttr{3, -4}, want);
  ASSERT_TOSA_OK(matmul(a, b, MatmulAttr{3, -4}, out));
  EXPECT_EQ(out.data, want.data);
}

// int16 on the int16 GEMM, with and without its scratch, against the reference loops: random
// values and every value −32768 (two products of 2^30 make a VPMADDWD pair of 2^31, one past
// int32), odd and even depths, int48 sums past int32.
TEST(TosaMatmulFast, Int16MatchesTheReferenceLoops) {
  std::mt19937 rng(5);
  for (const MatmulCase& k : kCases)
    for (bool extreme : {false, true}) {
      auto a = i16({k.n, k.h, k.c}), b = i16({k.n, k.c, k.w});
      for (auto& v : a.data) v = extreme ? int16_t(-32768) : int16_t(rng());
      for (auto& v : b.data) v = extreme ? int16_t(-32768) : int16_t(rng());
      auto want = i48({k.n, k.h, k.w});
      detail::matmul_reference(a, b, MatmulAttr{}, want);
      if (extreme) {
        ASSERT_EQ(want.data[0], int64_t(k.c) << 30);
      }
      for (compute::Isa isa : compute::available_isas()) {
        compute::ScopedIsa pin(isa);
        for (int threads : {1, 3}) {
          CountingThreads pool(threads);
          auto out = i48({k.n, k.h, k.w});
          std::vector<uint8_t> scratch(matmul_scratch_bytes(a, b, MatmulAttr{}, out, threads), 0xA5);
          for (bool with_scratch : {true, false}) {
            std::fill(out.data.begin(), out.data.end(), 0x5555);
            ASSERT_TOSA_OK(matmul(a, b, MatmulAttr{}, out, threads > 1 ? &pool : nullptr,
                                  with_scratch ? std::span<uint8_t>(scratch) : std::span<uint8_t>()));
            EXPECT_EQ(out.data, want.data) << k.n << "x" << k.h << "x" << k.c << " by " << k.w
                                           << (extreme ? ", all −32768" : "") << " at " << compute::isa_name(isa)
                                           << ", " << threads << " thread(s)"
                                           << (with_scratch ? "" : ", without scratch");
          }
        }
      }
    }
}

}  // namespace
}  // namespace vkrt::tosa::test
