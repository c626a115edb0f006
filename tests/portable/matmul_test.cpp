// addmm, mm, bmm.
#include <cmath>
#include <random>
#include <string>

#include "kernel_call.h"
#include "vkrt/thread_pool.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

std::vector<float> random_floats(std::mt19937& rng, size_t count) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(count);
  for (float& x : v) x = value(rng);
  return v;
}

// Contiguous float32 operands take the compute core's GEMM (op_matmul.cpp's numerics): each
// element within the float rounding of k steps of a sum in double, γ_k·Σ|a·b| with
// γ_k = k·u/(1 − k·u), u = 2^-24; addmm's alpha·sum + beta·self adds one more rounding of the
// result. mm and bmm also equal, bit for bit, the GEMM's contract: one fused multiply-add chain
// in depth order per element (which a sum in double would not). The shapes cross the register
// tiles' and depth blocks' edges (and k = 0, 1).
TEST(PortableMatmulF32, ContiguousFloatWithinFloatRoundingOfDouble) {
  struct Case {
    int batches, m, k, n;
  };
  const Case cases[] = {{1, 1, 1, 1}, {1, 5, 0, 3}, {1, 13, 1, 29}, {1, 7, 300, 33}, {1, 64, 65, 70},
                        {1, 1, 513, 40}, {3, 2, 17, 5},  {2, 25, 260, 18}};
  std::mt19937 rng(42);
  const double u = std::ldexp(1.0, -24);
  for (const Case& c : cases) {
    for (const char* op : {"aten::mm.out", "aten::bmm.out", "aten::addmm.out"}) {
      const bool batched = std::string(op) == "aten::bmm.out", addmm = std::string(op) == "aten::addmm.out";
      if (c.batches > 1 && !batched) continue;
      SCOPED_TRACE(std::string(op) + " batches " + std::to_string(c.batches) + " m " + std::to_string(c.m) + " k " +
                   std::to_string(c.k) + " n " + std::to_string(c.n));
      const int b = batched ? c.batches : 1;
      const std::vector<float> a = random_floats(rng, size_t(b * c.m * c.k)), w = random_floats(rng, size_t(b * c.k * c.n));
      const std::vector<float> bias = random_floats(rng, size_t(c.n));
      const double alpha = 1.5, beta = -0.75;
      KernelCall call(op);
      auto shape = [&](int rows, int cols) {
        return batched ? std::vector<int32_t>{b, rows, cols} : std::vector<int32_t>{rows, cols};
      };
      auto* lhs = call.tensor<float>(ScalarType::Float, shape(c.m, c.k), a);
      auto* rhs = call.tensor<float>(ScalarType::Float, shape(c.k, c.n), w);
      auto* out = call.out(ScalarType::Float, shape(c.m, c.n));
      if (addmm) {
        auto* self = call.tensor<float>(ScalarType::Float, {c.n}, bias);
        ASSERT_TRUE(call.run({self, lhs, rhs, call.real(beta), call.real(alpha), out}).is_ok());
      } else {
        ASSERT_TRUE(call.run({lhs, rhs, out}).is_ok());
      }
      const std::vector<float> got = data_of<float>(out);
      const double gamma = c.k * u / (1 - c.k * u);
      for (int x = 0; x < b; ++x)
        for (int i = 0; i < c.m; ++i)
          for (int j = 0; j < c.n; ++j) {
            double sum = 0, magnitude = 0;
            float chain = 0.0f;
            for (int q = 0; q < c.k; ++q) {
              const float y = a[size_t((x * c.m + i) * c.k + q)], z = w[size_t((x * c.k + q) * c.n + j)];
              sum += double(y) * z;
              magnitude += std::fabs(double(y) * z);
              chain = std::fma(y, z, chain);
            }
            double want = sum, bound = gamma * magnitude;
            if (addmm) {
              want = alpha * sum + beta * bias[size_t(j)];
              bound = std::fabs(alpha) * bound + u * std::fabs(want);
            }
            const float v = got[size_t((x * c.m + i) * c.n + j)];
            ASSERT_LE(std::fabs(double(v) - want), bound) << "at " << x << ", " << i << ", " << j << ": " << v;
            if (!addmm) {
              ASSERT_EQ(v, chain) << "at " << x << ", " << i << ", " << j;
            }
          }
    }
  }
}

// With the method's threads (a KernelContext over a two-thread pool) the GEMM splits the work
// between them; every element still comes from one chain, so the bytes equal the serial call's.
TEST(PortableMatmulF32, TwoThreadsGiveTheSerialBytes) {
  std::mt19937 rng(9);
  const int m = 97, k = 160, n = 130;  // about 2M multiply-adds: worth two tasks
  const std::vector<float> a = random_floats(rng, size_t(m * k)), w = random_floats(rng, size_t(k * n));
  KernelCall call("aten::mm.out");
  auto* lhs = call.tensor<float>(ScalarType::Float, {m, k}, a);
  auto* rhs = call.tensor<float>(ScalarType::Float, {k, n}, w);
  auto* serial = call.out(ScalarType::Float, {m, n});
  ASSERT_TRUE(call.run({lhs, rhs, serial}).is_ok());
  auto* threaded = call.out(ScalarType::Float, {m, n});
  ThreadPool pool(2);
  TempAllocator temp;
  KernelContext ctx(&temp, &pool);
  const std::vector<EValue*> args{lhs, rhs, threaded, threaded};
  ASSERT_TRUE(KernelRegistry::global().find("aten::mm.out")(ctx, args).is_ok());
  EXPECT_EQ(data_of<float>(serial), data_of<float>(threaded));
}

TEST(PortableAddmm, LinearLikeLinearPte) {
  // linear.pte: permute_copy(weight) then addmm(bias[3], x[n,3], weight^T[3,3], 1, 1).
  KernelCall call("aten::addmm.out");
  auto* bias = call.tensor<float>(ScalarType::Float, {2}, {10, 20});
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* w = call.tensor<float>(ScalarType::Float, {3, 2}, {1, 0, 0, 1, 1, 1});
  auto* out = call.out(ScalarType::Float, {2, 2});
  ASSERT_TRUE(call.run({bias, x, w, call.integer(1), call.integer(1), out}).is_ok());
  // x @ w = [[1+3, 2+3], [4+6, 5+6]] = [[4, 5], [10, 11]]
  EXPECT_THAT(data_of<float>(out), ElementsAre(14, 25, 20, 31));

  auto* scaled = call.out(ScalarType::Float, {2, 2});
  ASSERT_TRUE(call.run({bias, x, w, call.real(0.5), call.real(2.0), scaled}).is_ok());
  EXPECT_THAT(data_of<float>(scaled), ElementsAre(13, 20, 25, 32));
}

// beta == 0 still reads self, as ExecuTorch's portable kernel does (0 * NaN = NaN; PyTorch
// would skip self).
TEST(PortableAddmm, BetaZeroKeepsNaNBiasAndTransposedOperand) {
  KernelCall call("aten::addmm.out");
  auto* bias = call.tensor<float>(ScalarType::Float, {1}, {NAN});
  // mat2 stored column-major (dim order [1, 0]): logical [[1, 2], [3, 4]].
  auto* a = call.tensor<float>(ScalarType::Float, {1, 2}, {1, 1});
  auto* b = call.tensor<float>(ScalarType::Float, {2, 2}, {1, 3, 2, 4}, {1, 0});
  auto* out = call.out(ScalarType::Float, {1, 2});
  ASSERT_TRUE(call.run({bias, a, b, call.integer(0), call.integer(1), out}).is_ok());
  EXPECT_TRUE(std::isnan(data_of<float>(out)[0]) && std::isnan(data_of<float>(out)[1]));
  auto* finite = call.tensor<float>(ScalarType::Float, {1}, {100});
  ASSERT_TRUE(call.run({finite, a, b, call.integer(0), call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(4, 6));
}

TEST(PortableAddmm, Errors) {
  KernelCall call("aten::addmm.out");
  auto* bias = call.tensor<float>(ScalarType::Float, {3}, {0, 0, 0});
  auto* a = call.tensor<float>(ScalarType::Float, {2, 2}, {1, 2, 3, 4});
  auto* b = call.tensor<float>(ScalarType::Float, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto* out = call.out(ScalarType::Float, {2, 2});
  EXPECT_ERROR(call.run({bias, a, b, call.integer(1), call.integer(1), out}), InvalidArgument,
               "argument 2 (mat2)", "cannot multiply");
  EXPECT_ERROR(call.run({bias, a, a, call.integer(1), call.integer(1), out}), InvalidArgument,
               "argument 0 (self)", "broadcast");
  auto* d = call.tensor<double>(ScalarType::Double, {2, 2}, {1, 2, 3, 4});
  auto* zero = call.tensor<float>(ScalarType::Float, {1}, {0});
  EXPECT_ERROR(call.run({zero, a, d, call.integer(1), call.integer(1), out}), InvalidArgument,
               "argument 2 (mat2)", "float64");
  EXPECT_ERROR(call.run({zero, a, a, call.integer(1), out}), InvalidArgument, "expected 7");
}

TEST(PortableMm, IntegersAndBatched) {
  KernelCall mm("aten::mm.out");
  auto* a = mm.tensor<int32_t>(ScalarType::Int, {2, 2}, {1, 2, 3, 4});
  auto* out = mm.out(ScalarType::Int, {2, 2});
  ASSERT_TRUE(mm.run({a, a, out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(7, 10, 15, 22));

  KernelCall bmm("aten::bmm.out");
  auto* x = bmm.tensor<float>(ScalarType::Float, {2, 1, 2}, {1, 2, 3, 4});
  auto* y = bmm.tensor<float>(ScalarType::Float, {2, 2, 1}, {5, 6, 7, 8});
  auto* bout = bmm.out(ScalarType::Float, {2, 1, 1});
  ASSERT_TRUE(bmm.run({x, y, bout}).is_ok());
  EXPECT_THAT(data_of<float>(bout), ElementsAre(17, 53));
  auto* z = bmm.tensor<float>(ScalarType::Float, {3, 2, 1}, {1, 2, 3, 4, 5, 6});
  EXPECT_ERROR(bmm.run({x, z, bout}), InvalidArgument, "argument 1 (mat2)");
  auto* two_d = bmm.tensor<float>(ScalarType::Float, {2, 2}, {1, 2, 3, 4});
  EXPECT_ERROR(bmm.run({two_d, two_d, bout}), InvalidArgument, "argument 0 (self)", "3-D");
}

}  // namespace
}  // namespace vkrt::portable::testing
