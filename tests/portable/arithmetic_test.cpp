// aten::add/sub/mul/div.out: values, broadcasting, promotion, alpha, layouts, errors.
#include <cmath>
#include <limits>

#include "half.h"
#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

TEST(PortableAdd, FloatWithZeroDimConstantLikeAddModel) {
  // executorch AddModel: out = x(f32[3]) + const 0-dim 1.0, with x = ones -> [2, 2, 2].
  KernelCall call("aten::add.out");
  auto* x = call.tensor<float>(ScalarType::Float, {3}, {1, 1, 1});
  auto* one = call.tensor<float>(ScalarType::Float, {}, {1.0f});
  auto* out = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({x, one, call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(2, 2, 2));
}

TEST(PortableAdd, BroadcastsBothOperands) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {3, 1}, {10, 20, 30});
  auto* b = call.tensor<float>(ScalarType::Float, {1, 2}, {1, 2});
  auto* out = call.out(ScalarType::Float, {3, 2});
  ASSERT_TRUE(call.run({a, b, call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(11, 12, 21, 22, 31, 32));
}

TEST(PortableAdd, IntAlphaAndFloatAlpha) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<int32_t>(ScalarType::Int, {2}, {1, 2});
  auto* b = call.tensor<int32_t>(ScalarType::Int, {2}, {10, 20});
  auto* out = call.out(ScalarType::Int, {2});
  ASSERT_TRUE(call.run({a, b, call.integer(3), out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(31, 62));

  auto* fa = call.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* fb = call.tensor<float>(ScalarType::Float, {2}, {4, 8});
  auto* fout = call.out(ScalarType::Float, {2});
  ASSERT_TRUE(call.run({fa, fb, call.real(0.5), fout}).is_ok());
  EXPECT_THAT(data_of<float>(fout), ElementsAre(3, 6));
}

TEST(PortableAdd, Int32WrapsAroundLikePyTorch) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<int32_t>(ScalarType::Int, {1}, {std::numeric_limits<int32_t>::max()});
  auto* b = call.tensor<int32_t>(ScalarType::Int, {1}, {1});
  auto* out = call.out(ScalarType::Int, {1});
  ASSERT_TRUE(call.run({a, b, call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(std::numeric_limits<int32_t>::min()));
}

TEST(PortableAdd, Int64LikeDtypesProgram) {
  // dtypes.pte: x(int64[1]) + x with alpha 1.
  KernelCall call("aten::add.out");
  auto* x = call.tensor<int64_t>(ScalarType::Long, {1}, {int64_t(1) << 40});
  auto* out = call.out(ScalarType::Long, {1});
  ASSERT_TRUE(call.run({x, x, call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<int64_t>(out), ElementsAre(int64_t(1) << 41));
}

TEST(PortableAdd, PromotesMixedDtypes) {
  KernelCall call("aten::add.out");
  // int32 + float32 -> float32
  auto* i = call.tensor<int32_t>(ScalarType::Int, {2}, {1, -2});
  auto* f = call.tensor<float>(ScalarType::Float, {2}, {0.5f, 0.25f});
  auto* fout = call.out(ScalarType::Float, {2});
  ASSERT_TRUE(call.run({i, f, call.integer(1), fout}).is_ok());
  EXPECT_THAT(data_of<float>(fout), ElementsAre(1.5f, -1.75f));
  // uint8 + int8 -> int16: 200 + (-1) = 199 (no uint8 or int8 wrap-around)
  auto* u = call.tensor<uint8_t>(ScalarType::Byte, {1}, {200});
  auto* s = call.tensor<int8_t>(ScalarType::Char, {1}, {-1});
  auto* sout = call.out(ScalarType::Short, {1});
  ASSERT_TRUE(call.run({u, s, call.integer(1), sout}).is_ok());
  EXPECT_THAT(data_of<int16_t>(sout), ElementsAre(199));
  // A float result written to a float64 out.
  auto* dout = call.out(ScalarType::Double, {2});
  ASSERT_TRUE(call.run({i, f, call.integer(1), dout}).is_ok());
  EXPECT_THAT(data_of<double>(dout), ElementsAre(1.5, -1.75));
}

TEST(PortableAdd, BoolIsLogicalOr) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<uint8_t>(ScalarType::Bool, {4}, {0, 0, 1, 1});
  auto* b = call.tensor<uint8_t>(ScalarType::Bool, {4}, {0, 1, 0, 1});
  auto* out = call.out(ScalarType::Bool, {4});
  ASSERT_TRUE(call.run({a, b, call.integer(1), out}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(out), ElementsAre(0, 1, 1, 1));
}

TEST(PortableAdd, HalfComputesInFloat) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<uint16_t>(ScalarType::Half, {2}, {float_to_half(1.5f), float_to_half(-2.0f)});
  auto* b = call.tensor<uint16_t>(ScalarType::Half, {2}, {float_to_half(0.25f), float_to_half(0.5f)});
  auto* out = call.out(ScalarType::Half, {2});
  ASSERT_TRUE(call.run({a, b, call.integer(1), out}).is_ok());
  const auto r = data_of<uint16_t>(out);
  EXPECT_EQ(half_to_float(r[0]), 1.75f);
  EXPECT_EQ(half_to_float(r[1]), -1.5f);
}

TEST(PortableAdd, ChannelsLastInputContiguousOutput) {
  // a: logical [1,2,1,2] (N,C,H,W) stored NHWC: memory order (w0:c0,c1), (w1:c0,c1).
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1, 2, 1, 2}, {1, 3, 2, 4}, {0, 2, 3, 1});
  auto* b = call.tensor<float>(ScalarType::Float, {1, 2, 1, 2}, {10, 20, 30, 40});
  auto* out = call.out(ScalarType::Float, {1, 2, 1, 2});
  ASSERT_TRUE(call.run({a, b, call.integer(1), out}).is_ok());
  // Logical a = [[1,2],[3,4]] over (C, W).
  EXPECT_THAT(data_of<float>(out), ElementsAre(11, 22, 33, 44));
}

TEST(PortableAdd, ResizesDynamicBoundOutput) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* out = call.out(ScalarType::Float, {8}, {}, ShapeDynamism::DynamicBound);
  ASSERT_TRUE(call.run({a, a, call.integer(1), out}).is_ok());
  EXPECT_THAT(sizes_of(out), ElementsAre(2));
  EXPECT_THAT(data_of<float>(out), ElementsAre(2, 4));
}

TEST(PortableSub, AlphaAndBroadcast) {
  KernelCall call("aten::sub.out");
  auto* a = call.tensor<float>(ScalarType::Float, {2, 2}, {10, 20, 30, 40});
  auto* b = call.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* out = call.out(ScalarType::Float, {2, 2});
  ASSERT_TRUE(call.run({a, b, call.integer(2), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(8, 16, 28, 36));
}

TEST(PortableSub, RejectsBool) {
  KernelCall call("aten::sub.out");
  auto* a = call.tensor<uint8_t>(ScalarType::Bool, {1}, {1});
  auto* out = call.out(ScalarType::Bool, {1});
  EXPECT_ERROR(call.run({a, a, call.integer(1), out}), InvalidArgument, "aten::sub.out", "bool");
}

TEST(PortableMul, FloatAndIntLikeBundledProgram) {
  KernelCall call("aten::mul.out");
  auto* x = call.tensor<int32_t>(ScalarType::Int, {2, 2}, {0, 1, -2, 3});
  auto* three = call.tensor<int32_t>(ScalarType::Int, {2, 2}, {3, 3, 3, 3});
  auto* out = call.out(ScalarType::Int, {2, 2});
  ASSERT_TRUE(call.run({x, three, out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(0, 3, -6, 9));

  auto* f = call.tensor<float>(ScalarType::Float, {3}, {1.5f, -2, 4});
  auto* two = call.tensor<float>(ScalarType::Float, {}, {2});
  auto* fout = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({two, f, fout}).is_ok());
  EXPECT_THAT(data_of<float>(fout), ElementsAre(3, -4, 8));
}

TEST(PortableMul, Int64OverflowWraps) {
  KernelCall call("aten::mul.out");
  auto* a = call.tensor<int64_t>(ScalarType::Long, {1}, {int64_t(1) << 62});
  auto* b = call.tensor<int64_t>(ScalarType::Long, {1}, {4});
  auto* out = call.out(ScalarType::Long, {1});
  ASSERT_TRUE(call.run({a, b, out}).is_ok());
  EXPECT_THAT(data_of<int64_t>(out), ElementsAre(0));
}

TEST(PortableDiv, IntegersDivideTrulyIntoFloat) {
  KernelCall call("aten::div.out");
  auto* a = call.tensor<int32_t>(ScalarType::Int, {3}, {7, -7, 1});
  auto* b = call.tensor<int32_t>(ScalarType::Int, {3}, {2, 2, 0});
  auto* out = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({a, b, out}).is_ok());
  const auto r = data_of<float>(out);
  EXPECT_EQ(r[0], 3.5f);
  EXPECT_EQ(r[1], -3.5f);
  EXPECT_TRUE(std::isinf(r[2]));
  auto* iout = call.out(ScalarType::Int, {3});
  EXPECT_ERROR(call.run({a, b, iout}), InvalidArgument, "argument 2 (out)", "float32", "int32");
}

TEST(PortableArithmeticErrors, WrongArgumentCount) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1}, {1});
  EXPECT_ERROR(call.run_raw({a, a, a, a}), InvalidArgument, "aten::add.out", "expected 5");
  KernelCall mul("aten::mul.out");
  auto* m = mul.tensor<float>(ScalarType::Float, {1}, {1});
  EXPECT_ERROR(mul.run_raw({m, m, m}), InvalidArgument, "aten::mul.out", "expected 4");
}

TEST(PortableArithmeticErrors, ShapesThatDoNotBroadcast) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* b = call.tensor<float>(ScalarType::Float, {3}, {1, 2, 3});
  auto* out = call.out(ScalarType::Float, {3});
  EXPECT_ERROR(call.run({a, b, call.integer(1), out}), InvalidArgument, "argument 1 (other)", "[3]",
               "[2]");
}

TEST(PortableArithmeticErrors, OutShapeMismatch) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* out = call.out(ScalarType::Float, {3});
  EXPECT_ERROR(call.run({a, a, call.integer(1), out}), InvalidArgument, "argument 3 (out)",
               "expected shape [2]", "got [3]");
}

TEST(PortableArithmeticErrors, ResultNotCastableToOut) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1}, {1});
  auto* out = call.out(ScalarType::Int, {1});
  EXPECT_ERROR(call.run({a, a, call.integer(1), out}), InvalidArgument, "argument 3 (out)", "float32",
               "int32");
}

TEST(PortableArithmeticErrors, FloatAlphaWithIntegers) {
  KernelCall call("aten::add.out");
  auto* a = call.tensor<int32_t>(ScalarType::Int, {1}, {1});
  auto* out = call.out(ScalarType::Int, {1});
  EXPECT_ERROR(call.run({a, a, call.real(0.5), out}), InvalidArgument, "argument 2 (alpha)");
}

TEST(PortableArithmeticErrors, UnsupportedDtype) {
  KernelCall call("aten::mul.out");
  auto* a = call.tensor<uint16_t>(ScalarType::UInt16, {1}, {1});
  auto* out = call.out(ScalarType::UInt16, {1});
  EXPECT_ERROR(call.run({a, a, out}), InvalidArgument, "aten::mul.out", "argument 0 (self)",
               "unsupported dtype");
}

TEST(PortableArithmeticErrors, WrongTagAndMissingData) {
  KernelCall call("aten::mul.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1}, {1});
  auto* out = call.out(ScalarType::Float, {1});
  EXPECT_ERROR(call.run({a, call.integer(2), out}), InvalidType, "argument 1 (other)", "Tensor");
  a->to_tensor().set_data(nullptr);
  EXPECT_ERROR(call.run({a, a, out}), InvalidArgument, "argument 0 (self)", "no data");
}

TEST(PortableScalarOverloads, PromoteOnlyAcrossCategories) {
  KernelCall mul("aten::mul.Scalar_out");
  auto* i8 = mul.tensor<int8_t>(ScalarType::Char, {2}, {3, -4});
  auto* i8out = mul.out(ScalarType::Char, {2});
  ASSERT_TRUE(mul.run({i8, mul.integer(2), i8out}).is_ok());  // int8 * Int stays int8
  EXPECT_THAT(data_of<int8_t>(i8out), ElementsAre(6, -8));
  auto* fout = mul.out(ScalarType::Float, {2});
  ASSERT_TRUE(mul.run({i8, mul.real(0.5), fout}).is_ok());  // int8 * Double -> float32
  EXPECT_THAT(data_of<float>(fout), ElementsAre(1.5f, -2.0f));
  EXPECT_ERROR(mul.run({i8, mul.real(0.5), i8out}), InvalidArgument, "argument 2 (out)", "float32");

  KernelCall add("aten::add.Scalar_out");
  auto* b = add.tensor<uint8_t>(ScalarType::Bool, {2}, {0, 1});
  auto* lout = add.out(ScalarType::Long, {2});
  ASSERT_TRUE(add.run({b, add.integer(5), add.integer(2), lout}).is_ok());  // bool + Int -> int64
  EXPECT_THAT(data_of<int64_t>(lout), ElementsAre(10, 11));

  KernelCall sub("aten::sub.Scalar_out");
  auto* f = sub.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* sout = sub.out(ScalarType::Float, {2});
  ASSERT_TRUE(sub.run({f, sub.real(0.25), sub.integer(4), sout}).is_ok());
  EXPECT_THAT(data_of<float>(sout), ElementsAre(0, 1));

  KernelCall div("aten::div.Scalar_out");
  auto* n = div.tensor<int32_t>(ScalarType::Int, {2}, {1, 3});
  auto* dout = div.out(ScalarType::Float, {2});
  ASSERT_TRUE(div.run({n, div.integer(2), dout}).is_ok());
  EXPECT_THAT(data_of<float>(dout), ElementsAre(0.5f, 1.5f));
  EXPECT_ERROR(div.run({n, n, dout}), InvalidType, "argument 1 (other)", "Scalar");
}

}  // namespace
}  // namespace vkrt::portable::testing
