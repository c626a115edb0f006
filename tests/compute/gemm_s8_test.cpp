// The int8 GEMM's int32 output (what TOSA's CONV2D takes from it) against direct sums, bit for
// bit, at every ISA level the CPU has: random shapes that reach every path (GEMV rows, tiles
// with short last tiles, panels past n, odd depths), offsets up to the ±65536 the kernels
// accept, biases that make the sums wrap, rows read in place or through a row callback, B
// packed ahead or per call, one and two threads; and the ISA level names.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compute/exec.h"
#include "compute/gemm_s8.h"
#include "compute/isa.h"
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

TEST(ComputeGemmS8, Int32OutputEqualsDirectSumsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 5);
    for (int iteration = 0; iteration < 120; ++iteration) {
      const int64_t m = pick(rng, {1, 2, 3, 4, 5, 7, 33, 64, 65, 150});
      const int32_t n = pick(rng, {1, 5, 16, 17, 40, 100});
      const int32_t k = pick(rng, {1, 2, 3, 7, 24, 64, 65, 200});
      const int32_t ao = pick(rng, {0, 128, -127, 5, 65536, -65536});
      const int32_t bo = pick(rng, {0, 0, 3, -128, 127});
      const bool with_bias = rng() % 4 != 0, by_callback = rng() % 3 == 0, pack_ahead = rng() % 2 == 0;
      std::uniform_int_distribution<int> byte(-128, 127);
      std::vector<int8_t> a(size_t(m) * k), b(size_t(n) * k);
      for (auto& v : a) v = int8_t(byte(rng));
      for (auto& v : b) v = int8_t(byte(rng));
      std::vector<int32_t> bias(static_cast<size_t>(n));
      for (auto& v : bias) v = int32_t(rng());  // any int32: the sums wrap
      const auto want = direct_sums(m, n, k, a, b, with_bias ? bias.data() : nullptr, ao, bo);

      GemmS8 g;
      g.m = m, g.n = n, g.k = k;
      const std::pair<const int8_t*, int32_t> rows{a.data(), k};
      if (by_callback) {
        g.a_row = copy_row, g.a_ctx = &rows;
      } else {
        g.a = a.data(), g.a_stride = k;
      }
      g.b = b.data(), g.b_stride = k;
      g.bias = with_bias ? bias.data() : nullptr;
      g.a_offset = ao, g.b_offset = bo;
      g.out.per_channel = true;  // no output stage: multiplier and shift stay null
      std::vector<uint8_t> packed_memory(gemm_s8_packed_b_bytes(g));
      if (pack_ahead && !packed_memory.empty()) {
        g.packed_b = gemm_s8_pack_b(g, packed_memory);
        ASSERT_NE(g.packed_b, nullptr);
      }
      for (int threads : {1, 2}) {
        std::vector<int32_t> got(want.size(), 0x5A5A5A5A);
        g.c32 = got.data(), g.c_stride = n;
        std::vector<uint8_t> scratch(gemm_s8_scratch_bytes(g, threads) + 64, 0xA5);
        Exec exec;
        exec.scratch = scratch;
        exec.runner = threads == 2 ? &two : nullptr;
        gemm_s8(g, exec);
        ASSERT_EQ(got, want) << "iteration " << iteration << ": " << m << "x" << k << " * " << n << " ao " << ao
                             << " bo " << bo << (with_bias ? "" : " no bias") << (by_callback ? " rows by callback" : "")
                             << (g.packed_b ? " packed ahead" : "") << ", " << threads << " thread(s)";
      }
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
