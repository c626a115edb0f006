// quantized_decomposed::quantize_per_tensor / dequantize_per_tensor.
#include <cmath>
#include <limits>

#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

TEST(PortableQuantize, RoundsHalfToEvenThenClamps) {
  KernelCall call("quantized_decomposed::quantize_per_tensor.out");
  // scale 0.5 -> x / scale = 2x: 0.25 -> 0.5 -> 0; 0.75 -> 1.5 -> 2; 1.25 -> 2.5 -> 2;
  // -0.75 -> -1.5 -> -2; 100 -> 200 -> clamp 127; -100 -> -200 -> clamp -100 (quant_min).
  auto* x = call.tensor<float>(ScalarType::Float, {6}, {0.25f, 0.75f, 1.25f, -0.75f, 100.0f, -100.0f});
  auto* out = call.out(ScalarType::Char, {6});
  ASSERT_TRUE(call.run({x, call.real(0.5), call.integer(0), call.integer(-100), call.integer(127),
                        call.integer(1), out})
                  .is_ok());
  EXPECT_THAT(data_of<int8_t>(out), ElementsAre(0, 2, 2, -2, 127, -100));
}

TEST(PortableQuantize, EthosUMinimalExampleParameters) {
  // ethos_u_minimal_example.pte: scale 0.003921568859 (1/255), zero_point -128, int8.
  // inv_scale = 1.0f / (float)scale = 254.999985f (float32), so 1.0 -> 254.999985 -> 255 - 128
  // = 127; 0 -> -128; 0.5 -> 127.499992 -> 127 - 128 = -1 (not 0: the float inverse matters).
  KernelCall call("quantized_decomposed::quantize_per_tensor.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 1, 1, 3}, {1.0f, 0.0f, 0.5f});
  auto* out = call.out(ScalarType::Char, {1, 1, 1, 3});
  ASSERT_TRUE(call.run({x, call.real(0.003921568859), call.integer(-128), call.integer(-128), call.integer(127),
                        call.integer(1), out})
                  .is_ok());
  EXPECT_THAT(data_of<int8_t>(out), ElementsAre(127, -128, -1));
}

TEST(PortableQuantize, ZeroPointUint8AndNonFinite) {
  KernelCall call("quantized_decomposed::quantize_per_tensor.out");
  const float inf = std::numeric_limits<float>::infinity();
  auto* x = call.tensor<float>(ScalarType::Float, {4}, {1.0f, inf, -inf, NAN});
  auto* out = call.out(ScalarType::Byte, {4});
  ASSERT_TRUE(call.run({x, call.real(0.25), call.integer(10), call.integer(0), call.integer(255),
                        call.integer(0), out})
                  .is_ok());
  EXPECT_THAT(data_of<uint8_t>(out), ElementsAre(14, 255, 0, 0));
}

TEST(PortableQuantize, TensorParamsOverload) {
  KernelCall call("quantized_decomposed::quantize_per_tensor.tensor_out");
  auto* x = call.tensor<float>(ScalarType::Float, {2}, {1.0f, -1.0f});
  auto* scale = call.tensor<double>(ScalarType::Double, {1}, {0.1});
  auto* zp = call.tensor<int64_t>(ScalarType::Long, {1}, {3});
  auto* out = call.out(ScalarType::Short, {2});
  ASSERT_TRUE(call.run({x, scale, zp, call.integer(-32768), call.integer(32767), call.integer(2), out}).is_ok());
  EXPECT_THAT(data_of<int16_t>(out), ElementsAre(13, -7));
}

TEST(PortableQuantize, Errors) {
  KernelCall call("quantized_decomposed::quantize_per_tensor.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1}, {1.0f});
  auto* out = call.out(ScalarType::Char, {1});
  auto run = [&](double scale, int64_t qmin, int64_t qmax, int64_t dtype) {
    return call.run({x, call.real(scale), call.integer(0), call.integer(qmin), call.integer(qmax),
                     call.integer(dtype), out});
  };
  EXPECT_ERROR(run(0.0, -128, 127, 1), InvalidArgument, "argument 1 (scale)", "positive");
  EXPECT_ERROR(run(NAN, -128, 127, 1), InvalidArgument, "argument 1 (scale)");
  EXPECT_ERROR(run(0.5, -129, 127, 1), InvalidArgument, "argument 3 (quant_min)", "int8");
  EXPECT_ERROR(run(0.5, 5, 4, 1), InvalidArgument, "argument 3 (quant_min)");
  EXPECT_ERROR(run(0.5, -128, 127, 0), InvalidArgument, "argument 5 (dtype)", "int8");
  auto* int_in = call.tensor<int32_t>(ScalarType::Int, {1}, {1});
  EXPECT_ERROR(call.run({int_in, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(1), out}),
               InvalidArgument, "argument 0 (input)", "floating");
  auto* fout = call.out(ScalarType::Float, {1});
  EXPECT_ERROR(call.run({x, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(6), fout}),
               InvalidArgument, "argument 6 (out)");
  EXPECT_ERROR(call.run_raw({x, x, x}), InvalidArgument, "expected 8");
}

TEST(PortableDequantize, WithOutDtypeNullLikeEthosUExample) {
  // ethos_u_minimal_example.pte: [q, 0.007843137719, -128, -128, 127, 1, None, out, out].
  KernelCall call("quantized_decomposed::dequantize_per_tensor.out");
  auto* q = call.tensor<int8_t>(ScalarType::Char, {1, 1, 1, 3}, {-128, 0, 127});
  auto* out = call.out(ScalarType::Float, {1, 1, 1, 3});
  ASSERT_TRUE(call.run({q, call.real(0.5), call.integer(-128), call.integer(-128), call.integer(127),
                        call.integer(1), call.none(), out})
                  .is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(0.0f, 64.0f, 127.5f));
}

TEST(PortableDequantize, OlderFormWithoutOutDtypeAndInt32) {
  KernelCall call("quantized_decomposed::dequantize_per_tensor.out");
  auto* q = call.tensor<int32_t>(ScalarType::Int, {2}, {2147483647, -2147483647 - 1});
  auto* out = call.out(ScalarType::Double, {2});
  ASSERT_TRUE(call.run({q, call.real(1.0), call.integer(1), call.integer(-2147483647 - 1),
                        call.integer(2147483647), call.integer(3), out})
                  .is_ok());
  EXPECT_THAT(data_of<double>(out), ElementsAre(2147483646.0, -2147483649.0));
}

TEST(PortableDequantize, Errors) {
  KernelCall call("quantized_decomposed::dequantize_per_tensor.out");
  auto* q = call.tensor<int8_t>(ScalarType::Char, {1}, {1});
  auto* out = call.out(ScalarType::Float, {1});
  EXPECT_ERROR(call.run({q, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(0), call.none(), out}),
               InvalidArgument, "argument 5 (dtype)", "int8");
  EXPECT_ERROR(call.run({q, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(1), call.integer(7), out}),
               InvalidArgument, "argument 6 (out_dtype)");
  auto* iout = call.out(ScalarType::Int, {1});
  EXPECT_ERROR(call.run({q, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(1), call.none(), iout}),
               InvalidArgument, "argument 7 (out)", "floating");
  auto* fin = call.tensor<float>(ScalarType::Float, {1}, {1});
  EXPECT_ERROR(call.run({fin, call.real(0.5), call.integer(0), call.integer(-128), call.integer(127),
                         call.integer(6), call.none(), out}),
               InvalidArgument, "argument 0 (input)", "float32");
}

TEST(PortableQuantize, RoundTripRecoversGridValues) {
  // Values on the quantization grid survive quantize -> dequantize exactly.
  KernelCall call("quantized_decomposed::quantize_per_tensor.out");
  std::vector<float> grid;
  for (int q = -128; q <= 127; ++q) grid.push_back(float(q - 3) * 0.125f);
  auto* x = call.tensor<float>(ScalarType::Float, {256}, grid);
  auto* q = call.out(ScalarType::Char, {256});
  ASSERT_TRUE(call.run({x, call.real(0.125), call.integer(3), call.integer(-128), call.integer(127),
                        call.integer(1), q})
                  .is_ok());
  KernelCall back("quantized_decomposed::dequantize_per_tensor.out");
  auto* y = back.out(ScalarType::Float, {256});
  ASSERT_TRUE(back.run({q, back.real(0.125), back.integer(3), back.integer(-128), back.integer(127),
                        back.integer(1), back.none(), y})
                  .is_ok());
  EXPECT_EQ(data_of<float>(y), grid);
}

}  // namespace
}  // namespace vkrt::portable::testing
