// The fp32 GEMM at every ISA level the CPU has, with one and two threads, on random shapes that
// reach every edge (rows and columns not multiples of the tile, depths across the depth block,
// k = 0 and 1, leading dimensions past the widths):
//   * bit for bit against a chain of std::fma in depth order (the contract of gemm_f32.h, so
//     every level, thread count and blocking gives the same bytes);
//   * within the float rounding bound of a sum in double: |c − ref| <= γ_k·Σ|a||b|,
//     γ_k = k·u/(1 − k·u), u = 2^-24 (Higham, recursive summation with fused products);
//   * nothing outside C's n columns is written.
// A, B and C are allocated to their last element exactly, so AddressSanitizer catches a tile
// that reads past a row.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compute/exec.h"
#include "compute/gemm_f32.h"
#include "compute/isa.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

struct Problem {
  int64_t m, n, k, lda, ldb, ldc;
  std::vector<float> a, b;
};

// Elements a strided matrix spans: rows-1 full strides and one row of `width`.
size_t span_of(int64_t rows, int64_t width, int64_t ld) { return rows == 0 ? 0 : size_t((rows - 1) * ld + width); }

Problem make_problem(std::mt19937& rng, int64_t m, int64_t n, int64_t k, int64_t pad) {
  Problem p{m, n, k, k + pad, n + pad, n + pad, {}, {}};
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  p.a.resize(span_of(m, k, p.lda));
  p.b.resize(span_of(k, n, p.ldb));
  for (float& v : p.a) v = value(rng);
  for (float& v : p.b) v = value(rng);
  return p;
}

const float kSentinel = 12345.0f;

// C as gemm_f32 writes it, in a buffer holding exactly C's span; the gaps between rows hold
// the sentinel and must keep it.
std::vector<float> run_gemm(const Problem& p, const Exec& exec, bool portable = false) {
  std::vector<float> c(span_of(p.m, p.n, p.ldc), kSentinel);
  GemmF32 g;
  g.m = p.m, g.n = p.n, g.k = p.k;
  g.a = p.a.data(), g.lda = p.lda;
  g.b = p.b.data(), g.ldb = p.ldb;
  g.c = c.data(), g.ldc = p.ldc;
  if (portable)
    gemm_f32_portable(g, exec);
  else
    gemm_f32(g, exec);
  return c;
}

float fma_chain(const Problem& p, int64_t i, int64_t j) {
  float acc = 0.0f;
  for (int64_t q = 0; q < p.k; ++q) acc = std::fma(p.a[size_t(i * p.lda + q)], p.b[size_t(q * p.ldb + j)], acc);
  return acc;
}

// Checks c against the contract; returns the number of mismatches (reported up to a few).
int check(const Problem& p, const std::vector<float>& c) {
  const double u = std::ldexp(1.0, -24), gamma = double(p.k) * u / (1.0 - double(p.k) * u);
  int bad = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.ldc && size_t(i * p.ldc + j) < c.size(); ++j) {
      const float got = c[size_t(i * p.ldc + j)];
      if (j >= p.n) {
        if (got != kSentinel && bad++ < 5) ADD_FAILURE() << "wrote past column n at (" << i << ", " << j << ")";
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t q = 0; q < p.k; ++q) {
        const double x = p.a[size_t(i * p.lda + q)], y = p.b[size_t(q * p.ldb + j)];
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      const float chain = fma_chain(p, i, j);
      const bool same_bits = std::memcmp(&got, &chain, sizeof(float)) == 0;
      const bool within = std::fabs(double(got) - sum) <= gamma * magnitude;
      if ((!same_bits || !within) && bad++ < 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", fma chain " << chain << ", double " << sum
                      << " (bound " << gamma * magnitude << ")";
    }
  }
  return bad;
}

int pick(std::mt19937& rng, std::initializer_list<int> values) { return *(values.begin() + rng() % values.size()); }

TEST(ComputeGemmF32, EqualsFmaChainAndDoubleBoundAtEveryLevel) {
  vkrt::ThreadPool two(2);
  const Exec serial, threaded{{}, &two};
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    ASSERT_TRUE(pin.ok());
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa) + ", path " + gemm_f32_path_name());
    std::mt19937 rng(uint32_t(int(isa)) + 11);
    for (int iteration = 0; iteration < 40; ++iteration) {
      const int64_t m = pick(rng, {1, 2, 3, 5, 7, 11, 12, 13, 25, 73, 150});
      const int64_t n = pick(rng, {1, 3, 4, 12, 15, 16, 17, 31, 32, 33, 47, 100});
      const int64_t k = pick(rng, {0, 1, 2, 7, 255, 256, 257, 600});
      const int64_t pad = pick(rng, {0, 0, 1, 5, 32});
      SCOPED_TRACE("m " + std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(k) + " pad " +
                   std::to_string(pad));
      const Problem p = make_problem(rng, m, n, k, pad);
      const std::vector<float> one = run_gemm(p, serial);
      ASSERT_EQ(check(p, one), 0);
      const std::vector<float> both = run_gemm(p, threaded);
      ASSERT_EQ(std::memcmp(one.data(), both.data(), one.size() * sizeof(float)), 0) << "two threads differ";
    }
  }
}

// Shapes big enough for two tasks, split by rows and (one tile row) by columns, with depths
// across several depth blocks; and the portable tiles against the active path.
TEST(ComputeGemmF32, ThreadSplitsAndPortableGiveTheSameBytes) {
  vkrt::ThreadPool two(2);
  const Exec serial, threaded{{}, &two};
  std::mt19937 rng(7);
  const int64_t shapes[][3] = {{97, 61, 700}, {5, 300, 1000}, {1, 1000, 1100}, {200, 3, 2000}, {12, 32, 513}};
  for (const auto& s : shapes) {
    SCOPED_TRACE("m " + std::to_string(s[0]) + " n " + std::to_string(s[1]) + " k " + std::to_string(s[2]));
    const Problem p = make_problem(rng, s[0], s[1], s[2], 3);
    const std::vector<float> one = run_gemm(p, serial);
    ASSERT_EQ(check(p, one), 0);
    for (Isa isa : available_isas()) {
      ScopedIsa pin(isa);
      SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
      const std::vector<float> both = run_gemm(p, threaded);
      EXPECT_EQ(std::memcmp(one.data(), both.data(), one.size() * sizeof(float)), 0);
    }
    const std::vector<float> portable = run_gemm(p, threaded, /*portable=*/true);
    EXPECT_EQ(std::memcmp(one.data(), portable.data(), one.size() * sizeof(float)), 0);
  }
}

// Infinities and NaN stay in their own rows and columns: the zero padding of short tiles never
// mixes into a stored element, and 0·inf in a padding lane is thrown away.
TEST(ComputeGemmF32, NonFiniteValuesStayInTheirRowsAndColumns) {
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(3);
    Problem p = make_problem(rng, 13, 35, 9, 0);
    p.a[size_t(12 * p.lda + 4)] = INFINITY;  // last row
    p.b[size_t(2 * p.ldb + 34)] = NAN;       // last column
    const std::vector<float> c = run_gemm(p, Exec{});
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const float v = c[size_t(i * p.ldc + j)];
        EXPECT_EQ(std::isfinite(v), i != 12 && j != 34) << "(" << i << ", " << j << ") = " << v;
      }
  }
}

}  // namespace
}  // namespace vkrt::compute
