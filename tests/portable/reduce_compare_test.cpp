// mean / sum, the comparison family and where.
#include <cmath>

#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

TEST(PortableMean, OverOneDimLikeModelPte) {
  // model.pte (2023): mean.out(x f32[1,2], dim [1], keepdim False, dtype None) -> f32[1].
  KernelCall call("aten::mean.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2}, {1.0f, 4.0f});
  auto* out = call.out(ScalarType::Float, {1});
  ASSERT_TRUE(call.run({x, call.int_list({1}), call.boolean(false), call.none(), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(2.5f));
}

TEST(PortableMean, KeepdimAllDimsAndMiddleDim) {
  KernelCall call("aten::mean.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto* mid = call.out(ScalarType::Float, {2, 1, 2});
  ASSERT_TRUE(call.run({x, call.int_list({-2}), call.boolean(true), call.none(), mid}).is_ok());
  EXPECT_THAT(data_of<float>(mid), ElementsAre(3, 4, 9, 10));
  auto* all = call.out(ScalarType::Float, {});
  ASSERT_TRUE(call.run({x, call.none(), call.boolean(false), call.none(), all}).is_ok());
  EXPECT_THAT(data_of<float>(all), ElementsAre(6.5f));
  auto* two = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({x, call.int_list({0, 2}), call.boolean(false), call.integer(6), two}).is_ok());
  EXPECT_THAT(data_of<float>(two), ElementsAre(4.5f, 6.5f, 8.5f));
}

TEST(PortableMean, Errors) {
  KernelCall call("aten::mean.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 2}, {1, 2, 3, 4});
  auto* out = call.out(ScalarType::Float, {2});
  EXPECT_ERROR(call.run({x, call.int_list({1, 1}), call.boolean(false), call.none(), out}), InvalidArgument,
               "argument 1 (dim)", "twice");
  EXPECT_ERROR(call.run({x, call.int_list({2}), call.boolean(false), call.none(), out}), InvalidArgument,
               "argument 1 (dim)", "out of range");
  EXPECT_ERROR(call.run({x, call.int_list({1}), call.boolean(false), call.integer(7), out}), InvalidArgument,
               "argument 3 (dtype)");
  auto* iout = call.out(ScalarType::Int, {2});
  EXPECT_ERROR(call.run({x, call.int_list({1}), call.boolean(false), call.none(), iout}), InvalidArgument,
               "argument 4 (out)", "floating");
  auto* wrong = call.out(ScalarType::Float, {1, 2});
  EXPECT_ERROR(call.run({x, call.int_list({1}), call.boolean(false), call.none(), wrong}), InvalidArgument,
               "argument 4 (out)", "expected shape [2]");
}

TEST(PortableSum, IntegersAccumulateInInt64) {
  KernelCall call("aten::sum.IntList_out");
  auto* x = call.tensor<int32_t>(ScalarType::Int, {2, 2}, {2000000000, 2000000000, -1, 1});
  auto* out = call.out(ScalarType::Long, {2});
  ASSERT_TRUE(call.run({x, call.int_list({1}), call.boolean(false), call.integer(4), out}).is_ok());
  EXPECT_THAT(data_of<int64_t>(out), ElementsAre(4000000000LL, 0));
}

TEST(PortableComparison, EqScalarLikeModelPte) {
  // model.pte: eq.Scalar_out(x f32[1], Int 0) -> bool[1].
  KernelCall call("aten::eq.Scalar_out");
  auto* x = call.tensor<float>(ScalarType::Float, {3}, {0.0f, -0.0f, 0.5f});
  auto* out = call.out(ScalarType::Bool, {3});
  ASSERT_TRUE(call.run({x, call.integer(0), out}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(out), ElementsAre(1, 1, 0));
}

TEST(PortableComparison, IntegersCompareExactly) {
  KernelCall call("aten::ge.Scalar_out");
  const int64_t big = (int64_t(1) << 53) + 1;  // not representable in double
  auto* x = call.tensor<int64_t>(ScalarType::Long, {2}, {big, big - 1});
  auto* out = call.out(ScalarType::Bool, {2});
  ASSERT_TRUE(call.run({x, call.integer(big), out}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(out), ElementsAre(1, 0));
}

TEST(PortableComparison, TensorOverloadsBroadcast) {
  KernelCall lt("aten::lt.Tensor_out");
  auto* a = lt.tensor<float>(ScalarType::Float, {2, 1}, {1, 3});
  auto* b = lt.tensor<int32_t>(ScalarType::Int, {3}, {0, 2, 4});
  auto* out = lt.out(ScalarType::Bool, {2, 3});
  ASSERT_TRUE(lt.run({a, b, out}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(out), ElementsAre(0, 1, 1, 0, 0, 1));

  KernelCall ne("aten::ne.Tensor_out");
  auto* c = ne.tensor<float>(ScalarType::Float, {2}, {NAN, 1});
  auto* nout = ne.out(ScalarType::Bool, {2});
  ASSERT_TRUE(ne.run({c, c, nout}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(nout), ElementsAre(1, 0));  // NaN != NaN

  auto* bad = ne.tensor<float>(ScalarType::Float, {3}, {1, 2, 3});
  EXPECT_ERROR(ne.run({c, bad, nout}), InvalidArgument, "argument 1 (other)", "broadcast");
  EXPECT_ERROR(ne.run({c, ne.real(1.0), nout}), InvalidType, "argument 1 (other)");
}

TEST(PortableWhere, BroadcastsZeroDimSelfLikeModelPte) {
  // model.pte: where.self_out(cond bool[1], self f32[] , other f32[1]).
  KernelCall call("aten::where.self_out");
  auto* cond = call.tensor<uint8_t>(ScalarType::Bool, {3}, {1, 0, 1});
  auto* self = call.tensor<float>(ScalarType::Float, {}, {9});
  auto* other = call.tensor<float>(ScalarType::Float, {3}, {1, 2, 3});
  auto* out = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({cond, self, other, out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(9, 2, 9));
}

TEST(PortableWhere, PromotesAndRejectsBadCondition) {
  KernelCall call("aten::where.self_out");
  auto* cond = call.tensor<uint8_t>(ScalarType::Bool, {2}, {0, 1});
  auto* self = call.tensor<int32_t>(ScalarType::Int, {2}, {5, 6});
  auto* other = call.tensor<double>(ScalarType::Double, {2}, {0.5, 0.25});
  auto* out = call.out(ScalarType::Double, {2});
  ASSERT_TRUE(call.run({cond, self, other, out}).is_ok());
  EXPECT_THAT(data_of<double>(out), ElementsAre(0.5, 6.0));
  auto* fcond = call.tensor<float>(ScalarType::Float, {2}, {0, 1});
  EXPECT_ERROR(call.run({fcond, self, other, out}), InvalidArgument, "argument 0 (condition)", "bool");
  auto* iout = call.out(ScalarType::Int, {2});
  EXPECT_ERROR(call.run({cond, self, other, iout}), InvalidArgument, "argument 3 (out)", "float64");
}

}  // namespace
}  // namespace vkrt::portable::testing
