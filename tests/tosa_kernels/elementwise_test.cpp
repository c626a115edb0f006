// Elementwise binary/unary ops, MUL with shift, comparisons, SELECT, NEGATE, CLAMP (tosa.md §9, §12).
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(TosaBinary, AddSubBroadcastBothWays) {
  // a [2,1] = [1; 2], b [1,3] = [10 20 30] -> [2,3] = [11 21 31; 12 22 32].
  auto a = i32({2, 1}, {1, 2});
  auto b = i32({1, 3}, {10, 20, 30});
  auto out = i32({2, 3});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Add, a, b, {}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{11, 21, 31, 12, 22, 32}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Sub, a, b, {}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{-9, -19, -29, -8, -18, -28}));
  // Rank-4 broadcast over the middle dims: [1,2,1,2] + [1,1,3,1].
  auto c = f32({1, 2, 1, 2}, {1, 2, 3, 4});
  auto d = f32({1, 1, 3, 1}, {0.5f, 0.25f, 0.125f});
  auto outf = f32({1, 2, 3, 2});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Add, c, d, {}, outf));
  EXPECT_EQ(outf.data, (std::vector<float>{1.5f, 2.5f, 1.25f, 2.25f, 1.125f, 2.125f, 3.5f, 4.5f, 3.25f, 4.25f,
                                           3.125f, 4.125f}));
  // int32 ADD overflow wraps (TOSA REQUIREs it does not happen).
  auto big = i32({1}, {INT32_MAX});
  auto one = i32({1}, {1});
  auto o1 = i32({1});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Add, big, one, {}, o1));
  EXPECT_EQ(o1.data[0], INT32_MIN);
}

// Operands of the output's shape take a flat loop, split over threads above 16384 elements: the
// values are the ones written out here (wrapping sums), at every length around a vector's width.
TEST(TosaBinary, SameShapeIntegerOpsOnThreads) {
  std::mt19937 rng(3);
  CountingThreads three(3);
  auto fill = [&rng](auto& v, int64_t lo, int64_t hi) {
    std::uniform_int_distribution<int64_t> d(lo, hi);
    for (auto& x : v) x = decltype(+x)(d(rng));
  };
  for (int64_t n : {1, 7, 31, 33, 200000}) {
    auto a = i32({n}), b = i32({n}), out = i32({n});
    fill(a.data, INT32_MIN, INT32_MAX);
    fill(b.data, INT32_MIN, INT32_MAX);
    a.data[0] = INT32_MAX, b.data[0] = 1;
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Maximum, BinaryOp::Minimum}) {
      EXPECT_TOSA_OK(elementwise_binary(op, a, b, {}, out, &three));
      for (size_t i = 0; i < size_t(n); ++i) {
        const int64_t x = a.data[i], y = b.data[i];
        const int64_t want = op == BinaryOp::Add   ? int64_t(int32_t(uint32_t(x) + uint32_t(y)))
                             : op == BinaryOp::Sub ? int64_t(int32_t(uint32_t(x) - uint32_t(y)))
                             : op == BinaryOp::Maximum ? std::max(x, y)
                                                       : std::min(x, y);
        ASSERT_EQ(out.data[i], want) << binary_op_name(op) << " element " << i << " of " << n;
      }
    }
    auto c = i8({n}), d = i8({n}), o8 = i8({n});
    fill(c.data, -128, 127);
    fill(d.data, -128, 127);
    EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Maximum, c, d, {}, o8, &three));
    for (size_t i = 0; i < size_t(n); ++i) ASSERT_EQ(o8.data[i], std::max(c.data[i], d.data[i]));
  }
  EXPECT_EQ(three.tasks, 3 * 5);  // the four int32 ops and the int8 MAXIMUM of the largest length
}

TEST(TosaBinary, BroadcastErrors) {
  auto a = i32({2, 3});
  auto b = i32({3, 3});
  auto out = i32({3, 3});
  EXPECT_TOSA_ERROR(check_elementwise_binary(BinaryOp::Add, a, b, {}, out), InvalidArgument, "do not broadcast");
  auto c = i32({3});
  EXPECT_TOSA_ERROR(check_elementwise_binary(BinaryOp::Add, a, c, {}, out), InvalidArgument, "equal ranks");
  auto d = i32({2, 1});
  auto wrong_out = i32({2, 1});
  EXPECT_TOSA_ERROR(check_elementwise_binary(BinaryOp::Add, a, d, {}, wrong_out), InvalidArgument,
                    "expected shape [2,3]");
  auto e = i8({2, 3});
  auto out8 = i8({2, 3});
  EXPECT_TOSA_ERROR(check_elementwise_binary(BinaryOp::Add, e, e, {}, out8), NotSupported, "ADD: dtype int8");
  auto f = f32({2, 3});
  EXPECT_TOSA_ERROR(check_elementwise_binary(BinaryOp::Add, a, f, {}, out), InvalidArgument, "input2: expected int32");
}

TEST(TosaBinary, MaximumMinimumNanModes) {
  auto a = f32({4}, {1, kNaN, kNaN, -2});
  auto b = f32({4}, {2, 3, kNaN, -3});
  auto out = f32({4});
  BinaryAttrs prop{NanMode::Propagate, false};
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Maximum, a, b, prop, out));
  EXPECT_EQ(out.data[0], 2);
  EXPECT_TRUE(std::isnan(out.data[1]));
  EXPECT_TRUE(std::isnan(out.data[2]));
  EXPECT_EQ(out.data[3], -2);
  BinaryAttrs ign{NanMode::Ignore, false};
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Minimum, a, b, ign, out));
  EXPECT_EQ(out.data[0], 1);
  EXPECT_EQ(out.data[1], 3);  // the NaN is ignored
  EXPECT_TRUE(std::isnan(out.data[2]));
  EXPECT_EQ(out.data[3], -3);
  auto x = i8({3}, {-128, 5, 127});
  auto y = i8({1}, {0});
  auto o8 = i8({3});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::Maximum, x, y, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{0, 5, 127}));
}

TEST(TosaBinary, IntDivBitwiseShiftsAndLogical) {
  auto a = i32({4}, {7, -7, 7, -7});
  auto b = i32({4}, {2, 2, -2, -2});
  auto out = i32({4});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::IntDiv, a, b, {}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{3, -3, -3, 3}));  // truncation toward zero
  auto z = i32({4}, {2, 0, 1, 1});
  EXPECT_TOSA_ERROR(elementwise_binary(BinaryOp::IntDiv, a, z, {}, out), InvalidArgument, "INTDIV");
  auto mn = i32({1}, {INT32_MIN});
  auto m1 = i32({1}, {-1});
  auto o1 = i32({1});
  EXPECT_TOSA_ERROR(elementwise_binary(BinaryOp::IntDiv, mn, m1, {}, o1), InvalidArgument, "undefined");

  auto p = i8({3}, {0x0F, -1, 0x55});
  auto q = i8({3}, {0x3C, 0x01, 0x0F});
  auto o8 = i8({3});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::BitwiseAnd, p, q, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{0x0C, 0x01, 0x05}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::BitwiseOr, p, q, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{0x3F, -1, 0x5F}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::BitwiseXor, p, q, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{0x33, -2, 0x5A}));

  // Shifts on int8: -128 >> 1 arithmetic = -64, logical = 0x40 = 64; 1 << 7 = -128 (wraps in width).
  auto s_in = i8({3}, {-128, -128, 1});
  auto s_by = i8({3}, {1, 7, 7});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::ArithmeticRightShift, s_in, s_by, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{-64, -1, 0}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::LogicalRightShift, s_in, s_by, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{64, 1, 0}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::LogicalLeftShift, s_in, s_by, {}, o8));
  EXPECT_EQ(o8.data, (std::vector<int8_t>{0, 0, -128}));
  // ARITHMETIC_RIGHT_SHIFT with round: 5 >> 1 = 2, bit 0 set -> 3; -5 >> 1 = -3, bit 0 set -> -2;
  // 4 >> 1 = 2 (bit 0 clear).
  auto r_in = i32({3}, {5, -5, 4});
  auto r_by = i32({1, }, {1});
  auto r_out = i32({3});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::ArithmeticRightShift, r_in, r_by, BinaryAttrs{NanMode::Propagate, true}, r_out));
  EXPECT_EQ(r_out.data, (std::vector<int32_t>{3, -2, 2}));
  auto bad_by = i32({1}, {32});
  EXPECT_TOSA_ERROR(elementwise_binary(BinaryOp::LogicalLeftShift, r_in, bad_by, {}, r_out), InvalidArgument,
                    "shift amount 32");

  // Bool bytes: any nonzero byte is true; results are 0/1.
  auto t = boolean({4}, {0, 0, 1, 7});
  auto u = boolean({4}, {0, 1, 0, 1});
  auto ob = boolean({4});
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::LogicalAnd, t, u, {}, ob));
  EXPECT_EQ(ob.data, (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::LogicalOr, t, u, {}, ob));
  EXPECT_EQ(ob.data, (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_TOSA_OK(elementwise_binary(BinaryOp::LogicalXor, t, u, {}, ob));
  EXPECT_EQ(ob.data, (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(TosaMul, Int8Int16ProductsAndInt32Shift) {
  auto a = i8({3}, {-128, 127, -3});
  auto b = i8({3}, {-128, 127, 5});
  auto out = i32({3});
  EXPECT_TOSA_OK(mul(a, b, {}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{16384, 16129, -15}));
  auto c = i16({1}, {-32768});
  auto o16 = i32({1});
  EXPECT_TOSA_OK(mul(c, c, {}, o16));
  EXPECT_EQ(o16.data[0], 1 << 30);
  EXPECT_TOSA_ERROR(check_mul(a, b, MulAttr{1}, out), InvalidArgument, "shift must be 0");
  // int32 with shift 1: (p + 1) >> 1: 3*5 = 15 -> 8 (7.5 up), -15 -> -7 (-7.5 up), 2*3 = 6 -> 3.
  auto x = i32({3}, {3, -3, 2});
  auto y = i32({3}, {5, 5, 3});
  auto o = i32({3});
  EXPECT_TOSA_OK(mul(x, y, MulAttr{1}, o));
  EXPECT_EQ(o.data, (std::vector<int32_t>{8, -7, 3}));
  // Shift 31 (a Q31 multiply): (2^30 * 2^30 + 2^30) >> 31 = 2^29; (-2^30 * 3 + 2^30) >> 31 = -1.
  auto q1 = i32({2}, {1 << 30, -(1 << 30)});
  auto q2 = i32({2}, {1 << 30, 3});
  auto o2 = i32({2});
  EXPECT_TOSA_OK(mul(q1, q2, MulAttr{31}, o2));
  EXPECT_EQ(o2.data, (std::vector<int32_t>{1 << 29, -1}));
  // Shift 0 keeps the low 32 bits: 65536 * 65536 = 2^32 -> 0; 65536 * 32769 -> 2^31 + 2^16 -> wraps negative.
  auto w1 = i32({2}, {65536, 65536});
  auto w2 = i32({2}, {65536, 32769});
  EXPECT_TOSA_OK(mul(w1, w2, MulAttr{0}, o2));
  EXPECT_EQ(o2.data, (std::vector<int32_t>{0, int32_t(0x80010000u)}));
  // Shift 63 with the largest product must not overflow: (2^62 + 2^62) >> 63 = 1.
  auto m = i32({1}, {INT32_MIN});
  auto om = i32({1});
  EXPECT_TOSA_OK(mul(m, m, MulAttr{63}, om));
  EXPECT_EQ(om.data[0], 1);
  EXPECT_TOSA_ERROR(check_mul(m, m, MulAttr{64}, om), InvalidArgument, "outside [0, 63]");
  auto f1 = f32({2}, {1.5f, -2});
  auto f2 = f32({1}, {4});
  auto of = f32({2});
  EXPECT_TOSA_OK(mul(f1, f2, {}, of));
  EXPECT_EQ(of.data, (std::vector<float>{6, -8}));
}

TEST(TosaCompareSelect, ComparisonsAndSelectBroadcast) {
  auto a = i32({2, 2}, {1, 5, 3, 3});
  auto b = i32({1, 2}, {3, 3});
  auto out = boolean({2, 2});
  EXPECT_TOSA_OK(compare(CompareOp::Equal, a, b, out));
  EXPECT_EQ(out.data, (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_TOSA_OK(compare(CompareOp::Greater, a, b, out));
  EXPECT_EQ(out.data, (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_TOSA_OK(compare(CompareOp::GreaterEqual, a, b, out));
  EXPECT_EQ(out.data, (std::vector<uint8_t>{0, 1, 1, 1}));
  auto fa = f32({2}, {kNaN, 1});
  auto fb = f32({2}, {kNaN, 1});
  auto fo = boolean({2});
  EXPECT_TOSA_OK(compare(CompareOp::Equal, fa, fb, fo));
  EXPECT_EQ(fo.data, (std::vector<uint8_t>{0, 1}));  // NaN == NaN is false
  EXPECT_TOSA_ERROR(check_compare(CompareOp::Equal, a, b, a), InvalidArgument, "output: expected bool");

  // SELECT: cond [2,1], on_true [1,3], on_false scalar-shaped [1,1].
  auto cond = boolean({2, 1}, {1, 0});
  auto t = i8({1, 3}, {1, 2, 3});
  auto f = i8({1, 1}, {-9});
  auto so = i8({2, 3});
  EXPECT_TOSA_OK(select(cond, t, f, so));
  EXPECT_EQ(so.data, (std::vector<int8_t>{1, 2, 3, -9, -9, -9}));
  auto bad_out = i8({2, 2});
  EXPECT_TOSA_ERROR(check_select(cond, t, f, bad_out), InvalidArgument, "does not broadcast");
  auto not_bool = i8({2, 1});
  EXPECT_TOSA_ERROR(check_select(not_bool, t, f, so), InvalidArgument, "input1: expected bool");
}

TEST(TosaUnary, IntegerAndFloatOps) {
  auto a = i32({4}, {-5, 0, INT32_MIN, 7});
  auto out = i32({4});
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Abs, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{5, 0, INT32_MAX, 7}));
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::BitwiseNot, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{4, -1, INT32_MAX, -8}));
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Clz, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{0, 32, 0, 29}));
  auto b = boolean({3}, {0, 1, 9});
  auto ob = boolean({3});
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::LogicalNot, b, ob));
  EXPECT_EQ(ob.data, (std::vector<uint8_t>{1, 0, 0}));

  auto x = f32({4}, {0.0f, 1.0f, -2.5f, 4.0f});
  auto y = f32({4});
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Sigmoid, x, y));
  EXPECT_FLOAT_EQ(y.data[0], 0.5f);
  EXPECT_NEAR(y.data[1], 0.7310585786f, 1e-6);
  EXPECT_NEAR(y.data[2], 0.0758581800f, 1e-6);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Tanh, x, y));
  EXPECT_NEAR(y.data[1], 0.7615941559f, 1e-6);
  EXPECT_NEAR(y.data[2], -0.9866142982f, 1e-6);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Exp, x, y));
  EXPECT_NEAR(y.data[1], 2.7182818284f, 1e-6);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Erf, x, y));
  EXPECT_NEAR(y.data[1], 0.8427007929f, 1e-6);
  EXPECT_NEAR(y.data[2], -0.9995930480f, 1e-6);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Reciprocal, x, y));
  EXPECT_TRUE(std::isinf(y.data[0]));
  EXPECT_FLOAT_EQ(y.data[2], -0.4f);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Rsqrt, x, y));
  EXPECT_FLOAT_EQ(y.data[3], 0.5f);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Floor, x, y));
  EXPECT_EQ(y.data[2], -3.0f);
  EXPECT_TOSA_OK(elementwise_unary(UnaryOp::Ceil, x, y));
  EXPECT_EQ(y.data[2], -2.0f);
  EXPECT_TOSA_ERROR(check_elementwise_unary(UnaryOp::Exp, a, out), NotSupported, "EXP: dtype int32");
  EXPECT_TOSA_ERROR(check_elementwise_unary(UnaryOp::Abs, x, out), InvalidArgument, "output: expected fp32");
}

TEST(TosaNegate, ZeroPointsAndSaturation) {
  // int8: -(in - in_zp) + out_zp, in_zp 3, out_zp -5: 3 -> -5, 10 -> -12, -128 -> 131 - 5 = 126,
  // -100 -> 103 - 5 = 98, 127 -> -129 -> -128.
  auto in = i8({5}, {3, 10, -128, -100, 127});
  auto out = i8({5});
  EXPECT_TOSA_OK(negate(in, NegateAttr{3, -5}, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{-5, -12, 126, 98, -128}));
  // Without zero points -(-128) saturates to 127.
  EXPECT_TOSA_OK(negate(in, NegateAttr{}, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{-3, -10, 127, 100, -127}));
  auto in32 = i32({2}, {INT32_MIN, 5});
  auto out32 = i32({2});
  EXPECT_TOSA_OK(negate(in32, NegateAttr{}, out32));
  EXPECT_EQ(out32.data, (std::vector<int32_t>{INT32_MAX, -5}));
  EXPECT_TOSA_ERROR(check_negate(in32, NegateAttr{1, 0}, out32), InvalidArgument, "must be 0");
  auto f = f32({1}, {2.5f});
  auto fo = f32({1});
  EXPECT_TOSA_OK(negate(f, NegateAttr{}, fo));
  EXPECT_EQ(fo.data[0], -2.5f);
}

TEST(TosaClamp, IntegerFloatAndNanModes) {
  auto in = i8({5}, {-128, -10, 0, 50, 127});
  auto out = i8({5});
  ClampAttr a;
  a.min_int = -10;
  a.max_int = 20;
  EXPECT_TOSA_OK(clamp(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{-10, -10, 0, 20, 20}));
  a.min_int = 30;
  EXPECT_TOSA_ERROR(check_clamp(in, a, out), InvalidArgument, "not an interval");
  a.min_int = -200;
  EXPECT_TOSA_ERROR(check_clamp(in, a, out), InvalidArgument, "int8 range");
  auto f = f32({4}, {-1.0f, 0.25f, 9.0f, kNaN});
  auto fo = f32({4});
  ClampAttr b;
  b.min_fp = 0.0f;
  b.max_fp = 6.0f;  // ReLU6
  EXPECT_TOSA_OK(clamp(f, b, fo));
  EXPECT_EQ(fo.data[0], 0.0f);
  EXPECT_EQ(fo.data[1], 0.25f);
  EXPECT_EQ(fo.data[2], 6.0f);
  EXPECT_TRUE(std::isnan(fo.data[3]));
  b.nan_mode = NanMode::Ignore;  // a NaN input gives min_val
  EXPECT_TOSA_OK(clamp(f, b, fo));
  EXPECT_EQ(fo.data[3], 0.0f);
}

}  // namespace
}  // namespace vkrt::tosa::test
