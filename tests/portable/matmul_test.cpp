// addmm, mm, bmm.
#include <cmath>

#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

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
