// relu, clamp, hardtanh, softmax, log_softmax and the elementwise floating functions.
#include <cmath>

#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

TEST(PortableRelu, FloatKeepsNaNAndIntegers) {
  KernelCall call("aten::relu.out");
  auto* x = call.tensor<float>(ScalarType::Float, {4}, {-1.5f, 0.0f, 2.5f, NAN});
  auto* out = call.out(ScalarType::Float, {4});
  ASSERT_TRUE(call.run({x, out}).is_ok());
  const auto r = data_of<float>(out);
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[1], 0.0f);
  EXPECT_EQ(r[2], 2.5f);
  EXPECT_TRUE(std::isnan(r[3]));

  auto* i = call.tensor<int8_t>(ScalarType::Char, {3}, {-128, 0, 127});
  auto* iout = call.out(ScalarType::Char, {3});
  ASSERT_TRUE(call.run({i, iout}).is_ok());
  EXPECT_THAT(data_of<int8_t>(iout), ElementsAre(0, 0, 127));
}

TEST(PortableRelu, Errors) {
  KernelCall call("aten::relu.out");
  auto* b = call.tensor<uint8_t>(ScalarType::Bool, {1}, {1});
  auto* bout = call.out(ScalarType::Bool, {1});
  EXPECT_ERROR(call.run({b, bout}), InvalidArgument, "aten::relu.out", "bool");
  auto* x = call.tensor<float>(ScalarType::Float, {1}, {1});
  auto* dout = call.out(ScalarType::Double, {1});
  EXPECT_ERROR(call.run({x, dout}), InvalidArgument, "argument 1 (out)", "float32");
  EXPECT_ERROR(call.run_raw({x, dout}), InvalidArgument, "expected 3");
}

TEST(PortableClamp, MinMaxBothAndInverted) {
  KernelCall call("aten::clamp.out");
  auto* x = call.tensor<float>(ScalarType::Float, {4}, {-2, 0.5f, 3, 10});
  auto* both = call.out(ScalarType::Float, {4});
  ASSERT_TRUE(call.run({x, call.integer(0), call.real(6.0), both}).is_ok());
  EXPECT_THAT(data_of<float>(both), ElementsAre(0, 0.5f, 3, 6));
  auto* lo = call.out(ScalarType::Float, {4});
  ASSERT_TRUE(call.run({x, call.real(1.0), call.none(), lo}).is_ok());
  EXPECT_THAT(data_of<float>(lo), ElementsAre(1, 1, 3, 10));
  auto* hi = call.out(ScalarType::Float, {4});
  ASSERT_TRUE(call.run({x, call.none(), call.integer(0), hi}).is_ok());
  EXPECT_THAT(data_of<float>(hi), ElementsAre(-2, 0, 0, 0));
  auto* inverted = call.out(ScalarType::Float, {4});  // min > max: everything becomes max
  ASSERT_TRUE(call.run({x, call.integer(5), call.integer(1), inverted}).is_ok());
  EXPECT_THAT(data_of<float>(inverted), ElementsAre(1, 1, 1, 1));
}

TEST(PortableClamp, IntegersAndErrors) {
  KernelCall call("aten::clamp.out");
  auto* x = call.tensor<int32_t>(ScalarType::Int, {3}, {-300, 5, 300});
  auto* out = call.out(ScalarType::Int, {3});
  ASSERT_TRUE(call.run({x, call.integer(-128), call.integer(127), out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(-128, 5, 127));
  // An integer tensor with a floating bound computes in float32, which an int32 out cannot hold.
  EXPECT_ERROR(call.run({x, call.real(0.5), call.none(), out}), InvalidArgument, "argument 3 (out)", "float32");
  auto* fout = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({x, call.real(0.5), call.none(), fout}).is_ok());
  EXPECT_THAT(data_of<float>(fout), ElementsAre(0.5f, 5, 300));
  EXPECT_ERROR(call.run({x, call.none(), call.none(), out}), InvalidArgument, "aten::clamp.out", "at least one");
  EXPECT_ERROR(call.run({x, x, call.none(), out}), InvalidType, "argument 1 (min)", "Scalar");
}

TEST(PortableHardtanh, ClampsToBounds) {
  KernelCall call("aten::hardtanh.out");
  auto* x = call.tensor<float>(ScalarType::Float, {3}, {-7, 0.25f, 7});
  auto* out = call.out(ScalarType::Float, {3});
  ASSERT_TRUE(call.run({x, call.real(-1.0), call.real(1.0), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(-1, 0.25f, 1));
}

TEST(PortableSoftmax, LastAndFirstDim) {
  KernelCall call("aten::_softmax.out");
  // exp(log 1), exp(log 2), exp(log 3) -> [1, 2, 3] / 6; second row shifted by 100 (stability).
  const float l2 = std::log(2.0f), l3 = std::log(3.0f);
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {0, l2, l3, 100, 100 + l2, 100 + l3});
  auto* out = call.out(ScalarType::Float, {2, 3});
  ASSERT_TRUE(call.run({x, call.integer(-1), call.boolean(false), out}).is_ok());
  const std::vector<float> expected = {1 / 6.f, 2 / 6.f, 3 / 6.f, 1 / 6.f, 2 / 6.f, 3 / 6.f};
  EXPECT_THAT(data_of<float>(out), Pointwise(FloatNear(1e-5f), expected));

  auto* cols = call.out(ScalarType::Float, {2, 3});
  auto* y = call.tensor<float>(ScalarType::Float, {2, 3}, {0, 0, 0, 0, l2, l3});
  ASSERT_TRUE(call.run({y, call.integer(0), call.boolean(false), cols}).is_ok());
  EXPECT_THAT(data_of<float>(cols), Pointwise(FloatNear(1e-6f), std::vector<float>{0.5f, 1 / 3.f, 0.25f, 0.5f,
                                                                                   2 / 3.f, 0.75f}));
}

TEST(PortableSoftmax, LogSoftmaxAndErrors) {
  KernelCall call("aten::_log_softmax.out");
  auto* x = call.tensor<double>(ScalarType::Double, {2}, {0.0, 0.0});
  auto* out = call.out(ScalarType::Double, {2});
  ASSERT_TRUE(call.run({x, call.integer(0), call.boolean(false), out}).is_ok());
  EXPECT_THAT(data_of<double>(out), Pointwise(::testing::DoubleNear(1e-12), std::vector<double>{-M_LN2, -M_LN2}));
  EXPECT_ERROR(call.run({x, call.integer(0), call.boolean(true), out}), InvalidArgument,
               "argument 2 (half_to_float)");
  EXPECT_ERROR(call.run({x, call.integer(1), call.boolean(false), out}), InvalidArgument, "argument 1 (dim)");
  auto* i = call.tensor<int32_t>(ScalarType::Int, {2}, {1, 2});
  auto* iout = call.out(ScalarType::Int, {2});
  EXPECT_ERROR(call.run({i, call.integer(0), call.boolean(false), iout}), InvalidArgument, "argument 0 (self)",
               "floating");
}

TEST(PortableUnary, SigmoidTanhExpLogSqrtRsqrt) {
  struct Case {
    const char* name;
    float in;
    float expected;
  };
  const Case cases[] = {{"aten::sigmoid.out", 0.0f, 0.5f}, {"aten::tanh.out", 0.0f, 0.0f},
                        {"aten::exp.out", 1.0f, 2.7182817f}, {"aten::log.out", 1.0f, 0.0f},
                        {"aten::sqrt.out", 9.0f, 3.0f},      {"aten::rsqrt.out", 4.0f, 0.5f}};
  for (const Case& c : cases) {
    KernelCall call(c.name);
    auto* x = call.tensor<float>(ScalarType::Float, {1}, {c.in});
    auto* out = call.out(ScalarType::Float, {1});
    ASSERT_TRUE(call.run({x, out}).is_ok()) << c.name;
    EXPECT_FLOAT_EQ(data_of<float>(out)[0], c.expected) << c.name;
  }
  KernelCall ints("aten::sigmoid.out");  // integers promote to a floating out
  auto* i = ints.tensor<int32_t>(ScalarType::Int, {1}, {0});
  auto* out = ints.out(ScalarType::Float, {1});
  ASSERT_TRUE(ints.run({i, out}).is_ok());
  EXPECT_EQ(data_of<float>(out)[0], 0.5f);
  auto* iout = ints.out(ScalarType::Int, {1});
  EXPECT_ERROR(ints.run({i, iout}), InvalidArgument, "aten::sigmoid.out", "argument 1 (out)");
}

}  // namespace
}  // namespace vkrt::portable::testing
