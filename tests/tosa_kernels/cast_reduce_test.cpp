// CAST, ARGMAX and REDUCE_* (tosa.md §12).
#include <cmath>
#include <cstring>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(TosaCast, IntegerWidthsAndBool) {
  auto in = i32({4}, {300, -129, 127, -5});
  auto out = i8({4});
  EXPECT_TOSA_OK(cast(in, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{44, 127, 127, -5}));  // narrowing keeps the low byte
  auto back = i32({4});
  EXPECT_TOSA_OK(cast(out, back));
  EXPECT_EQ(back.data, (std::vector<int32_t>{44, 127, 127, -5}));  // widening sign-extends
  auto b = boolean({3}, {0, 5, 1});
  auto bi = i16({3});
  EXPECT_TOSA_OK(cast(b, bi));
  EXPECT_EQ(bi.data, (std::vector<int16_t>{0, 1, 1}));
  auto ib = boolean({3});
  auto src = i16({3}, {0, -3, 256});
  EXPECT_TOSA_OK(cast(src, ib));
  EXPECT_EQ(ib.data, (std::vector<uint8_t>{0, 1, 1}));
}

TEST(TosaCast, FloatToIntRoundsHalfToEvenAndSaturates) {
  auto in = f32({9}, {2.5f, 3.5f, -2.5f, -0.5f, 1e6f, -1e6f, kNaN, 127.5f, 1.4999999f});
  auto out = i8({9});
  EXPECT_TOSA_OK(cast(in, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{2, 4, -2, 0, 127, -128, 0, 127, 1}));
  auto big = f32({3}, {2147483648.0f, -2147483648.0f, -2147483904.0f});
  auto o32 = i32({3});
  EXPECT_TOSA_OK(cast(big, o32));
  EXPECT_EQ(o32.data, (std::vector<int32_t>{INT32_MAX, INT32_MIN, INT32_MIN}));
  // int -> fp32 rounds to nearest even: 2^24 + 1 -> 2^24, 2^24 + 3 -> 2^24 + 4.
  auto ints = i32({2}, {16777217, 16777219});
  auto f = f32({2});
  EXPECT_TOSA_OK(cast(ints, f));
  EXPECT_EQ(f.data, (std::vector<float>{16777216.0f, 16777220.0f}));
}

TEST(TosaCast, Fp16AndBf16) {
  // fp16: 1 -> 0x3C00; 1/3 -> 0x3555; 65520 -> inf 0x7C00 (rounds up past 65504);
  // spacing 2 above 2048: 2049 -> 2048 (tie to even, 0x6800); 2051 -> 2052 (tie to even, 0x6802).
  auto in = f32({5}, {1.0f, 1.0f / 3.0f, 65520.0f, 2049.0f, 2051.0f});
  Tensor<uint16_t> h(DType::Fp16, {5});
  EXPECT_TOSA_OK(cast(in, h));
  EXPECT_EQ(h.data, (std::vector<uint16_t>{0x3C00, 0x3555, 0x7C00, 0x6800, 0x6802}));
  auto back = f32({5});
  EXPECT_TOSA_OK(cast(h, back));
  EXPECT_EQ(back.data[1], 0.333251953125f);
  EXPECT_EQ(back.data[3], 2048.0f);
  // bf16: 1 -> 0x3F80; 1 + 2^-8 ties to even -> 0x3F80; 1 + 3*2^-8 ties to even -> 0x3F82.
  auto bin = f32({3}, {1.0f, 1.00390625f, 1.01171875f});
  Tensor<uint16_t> bf(DType::Bf16, {3});
  EXPECT_TOSA_OK(cast(bin, bf));
  EXPECT_EQ(bf.data, (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F82}));
  // int -> bf16 with one rounding: 257 -> 256 (0x4380), 259 -> 260 (0x4382), INT32_MAX -> 2^31 (0x4F00).
  auto ints = i32({3}, {257, 259, INT32_MAX});
  Tensor<uint16_t> bf2(DType::Bf16, {3});
  EXPECT_TOSA_OK(cast(ints, bf2));
  EXPECT_EQ(bf2.data, (std::vector<uint16_t>{0x4380, 0x4382, 0x4F00}));
  auto i48in = i48({5});
  EXPECT_TOSA_ERROR(check_cast(i48in, in), NotSupported, "int48 -> fp32");
}

TEST(TosaArgmax, FirstMaximumWinsAndNanModes) {
  // [[1 5 5]; [7 2 7]]: axis 1 -> [1, 0]; axis 0 -> [1, 0, 1].
  auto in = i8({2, 3}, {1, 5, 5, 7, 2, 7});
  auto out1 = i32({2});
  EXPECT_TOSA_OK(argmax(in, ArgmaxAttr{1}, out1));
  EXPECT_EQ(out1.data, (std::vector<int32_t>{1, 0}));
  auto out0 = i32({3});
  EXPECT_TOSA_OK(argmax(in, ArgmaxAttr{0}, out0));
  EXPECT_EQ(out0.data, (std::vector<int32_t>{1, 0, 1}));
  auto f = f32({4}, {1, kNaN, 3, kNaN});
  auto fo = i32({});
  EXPECT_TOSA_OK(argmax(f, ArgmaxAttr{0, NanMode::Propagate}, fo));
  EXPECT_EQ(fo.data[0], 1);
  EXPECT_TOSA_OK(argmax(f, ArgmaxAttr{0, NanMode::Ignore}, fo));
  EXPECT_EQ(fo.data[0], 2);
  auto wrong = i32({2, 1});
  EXPECT_TOSA_ERROR(check_argmax(in, ArgmaxAttr{1}, wrong), InvalidArgument, "expected shape [2]");
  EXPECT_TOSA_ERROR(check_argmax(in, ArgmaxAttr{2}, out1), InvalidArgument, "axis 2");
}

TEST(TosaReduce, SumMaxMinProductAllAny) {
  auto in = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r1 = i32({2, 1});
  EXPECT_TOSA_OK(reduce(ReduceOp::Sum, in, AxisAttr{1}, r1));
  EXPECT_EQ(r1.data, (std::vector<int32_t>{6, 15}));
  auto r0 = i32({1, 3});
  EXPECT_TOSA_OK(reduce(ReduceOp::Sum, in, AxisAttr{0}, r0));
  EXPECT_EQ(r0.data, (std::vector<int32_t>{5, 7, 9}));
  EXPECT_TOSA_OK(reduce(ReduceOp::Max, in, AxisAttr{1}, r1));
  EXPECT_EQ(r1.data, (std::vector<int32_t>{3, 6}));
  EXPECT_TOSA_OK(reduce(ReduceOp::Min, in, AxisAttr{0}, r0));
  EXPECT_EQ(r0.data, (std::vector<int32_t>{1, 2, 3}));
  auto i8in = i8({1, 3, 1}, {-7, 100, -128});
  auto i8out = i8({1, 1, 1});
  EXPECT_TOSA_OK(reduce(ReduceOp::Min, i8in, AxisAttr{1}, i8out));
  EXPECT_EQ(i8out.data[0], -128);
  auto f = f32({3}, {2, kNaN, 5});
  auto fo = f32({1});
  EXPECT_TOSA_OK(reduce(ReduceOp::Max, f, AxisAttr{0, NanMode::Propagate}, fo));
  EXPECT_TRUE(std::isnan(fo.data[0]));
  EXPECT_TOSA_OK(reduce(ReduceOp::Max, f, AxisAttr{0, NanMode::Ignore}, fo));
  EXPECT_EQ(fo.data[0], 5.0f);
  auto p = f32({3}, {2, -0.5f, 3});
  EXPECT_TOSA_OK(reduce(ReduceOp::Product, p, AxisAttr{0}, fo));
  EXPECT_EQ(fo.data[0], -3.0f);
  auto b = boolean({2, 2}, {1, 9, 0, 1});
  auto bo = boolean({2, 1});
  EXPECT_TOSA_OK(reduce(ReduceOp::All, b, AxisAttr{1}, bo));
  EXPECT_EQ(bo.data, (std::vector<uint8_t>{1, 0}));
  EXPECT_TOSA_OK(reduce(ReduceOp::Any, b, AxisAttr{1}, bo));
  EXPECT_EQ(bo.data, (std::vector<uint8_t>{1, 1}));
  // A single-element axis still normalises bool bytes.
  auto b1 = boolean({1, 2}, {9, 0});
  auto b1o = boolean({1, 2});
  EXPECT_TOSA_OK(reduce(ReduceOp::Any, b1, AxisAttr{0}, b1o));
  EXPECT_EQ(b1o.data, (std::vector<uint8_t>{1, 0}));
  EXPECT_TOSA_ERROR(check_reduce(ReduceOp::Sum, i8in, AxisAttr{1}, i8out), NotSupported, "REDUCE_SUM: dtype int8");
  EXPECT_TOSA_ERROR(check_reduce(ReduceOp::Sum, in, AxisAttr{1}, r0), InvalidArgument, "expected shape [2,1]");
}

}  // namespace
}  // namespace vkrt::tosa::test
