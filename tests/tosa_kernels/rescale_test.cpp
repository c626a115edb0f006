// RESCALE (tosa.md §4, §5): rounding modes, saturation, per-channel, unsigned in/out, scale16,
// parameter errors. Values worked out by hand in the comments.
#include <random>

#include "arith/fixed_point.h"
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

RescaleAttr per_tensor(const std::vector<int32_t>& m, const std::vector<int32_t>& s,
                        RoundingMode mode = RoundingMode::SingleRound) {
  RescaleAttr a;
  a.multiplier = m;
  a.shift.assign(s.begin(), s.end());
  a.rounding_mode = mode;
  return a;
}

TEST(TosaRescale, SingleRoundHalvesGoUp) {
  // m = 2^30, shift 31: scale 0.5. (v*2^30 + 2^30) >> 31 = floor((v + 1) / 2):
  //   3 -> 2, 1 -> 1 (0.5 up), -1 -> 0 (-0.5 up), -3 -> -1 (-1.5 up), 5 -> 3, -5 -> -2.
  std::vector<int32_t> m = {1 << 30}, s = {31};
  auto in = i32({6}, {3, 1, -1, -3, 5, -5});
  auto out = i8({6});
  EXPECT_TOSA_OK(rescale(in, per_tensor(m, s), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{2, 1, 0, -1, 3, -2}));
  // INEXACT_ROUND is computed as SINGLE_ROUND.
  EXPECT_TOSA_OK(rescale(in, per_tensor(m, s, RoundingMode::InexactRound), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{2, 1, 0, -1, 3, -2}));
  // DOUBLE_ROUND only differs for shift > 31: here it is the same.
  EXPECT_TOSA_OK(rescale(in, per_tensor(m, s, RoundingMode::DoubleRound), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{2, 1, 0, -1, 3, -2}));
}

TEST(TosaRescale, DoubleRoundSendsNegativeHalvesAwayFromZero) {
  // m = 2^30, shift 32: scale 0.25. round = 2^31 +/- 2^30 (double) or 2^31 (single):
  //   v =  2 ( 0.5): double (2^31+2^31+2^30)>>32 = 1        single (2^31+2^31)>>32 = 1
  //   v = -2 (-0.5): double (-2^31+2^31-2^30)>>32 = -1      single 0
  //   v =  6 ( 1.5): double (6+2+1)*2^30>>32 = 2            single (6+2)*2^30>>32 = 2
  //   v = -6 (-1.5): double (-6+2-1)*2^30>>32 = floor(-5/4) = -2   single (-6+2)/4 = -1
  //   v = -3 (-0.75): double (-3+2-1)/4 = -0.5 -> -1         single (-3+2)/4 -> -1
  std::vector<int32_t> m = {1 << 30}, s = {32};
  auto in = i32({5}, {2, -2, 6, -6, -3});
  auto out = i8({5});
  EXPECT_TOSA_OK(rescale(in, per_tensor(m, s, RoundingMode::DoubleRound), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{1, -1, 2, -2, -1}));
  EXPECT_TOSA_OK(rescale(in, per_tensor(m, s, RoundingMode::SingleRound), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{1, 0, 2, -1, -1}));
}

TEST(TosaRescale, SaturatesWithOutputZeroPoint) {
  // scale 1 (m = 2^30, shift 30), output_zp 10: 100 -> 110, 120 -> 130 -> 127,
  // 1000 -> 127, -1000 -> -128, -138 -> -128, -137 -> -127.
  std::vector<int32_t> m = {1 << 30}, s = {30};
  auto a = per_tensor(m, s);
  a.output_zp = 10;
  auto in = i32({6}, {100, 120, 1000, -1000, -138, -137});
  auto out = i8({6});
  EXPECT_TOSA_OK(rescale(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{110, 127, 127, -128, -128, -127}));
  // To int16 none saturate (an int16 output_zp must be 0).
  auto out16 = i16({6});
  EXPECT_TOSA_ERROR(check_rescale(in, a, out16), InvalidArgument, "output_zp must be 0 for int16");
  a.output_zp = 0;
  EXPECT_TOSA_OK(rescale(in, a, out16));
  EXPECT_EQ(out16.data, (std::vector<int16_t>{100, 120, 1000, -1000, -138, -137}));
  // int8 -> int32 with input_zp: (v - (-3)) * 1.
  auto in8 = i8({3}, {-128, 0, 127});
  auto out32 = i32({3});
  auto b = per_tensor(m, s);
  b.input_zp = -3;
  EXPECT_TOSA_OK(rescale(in8, b, out32));
  EXPECT_EQ(out32.data, (std::vector<int32_t>{-125, 3, 130}));
}

TEST(TosaRescale, PerChannelUsesTheLastDimension) {
  // channels scale 1, 0.5, 0.75 (m = 3*2^28, shift 30):
  //   row [10 10 10] -> [10, 5, 7.5 -> 8];  row [-4 -4 -4] -> [-4, -2, -3]
  //   (0.75 * -4 = -3 exactly; 7.5 rounds up).
  std::vector<int32_t> m = {1 << 30, 1 << 30, 3 << 28}, s = {30, 31, 30};
  RescaleAttr a = per_tensor(m, s);
  a.per_channel = true;
  auto in = i32({2, 3}, {10, 10, 10, -4, -4, -4});
  auto out = i8({2, 3});
  EXPECT_TOSA_OK(rescale(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{10, 5, 8, -4, -2, -3}));
  // Per-channel needs one pair per channel.
  std::vector<int32_t> m2 = {1 << 30, 1 << 30}, s2 = {30, 30};
  a.multiplier = m2;
  a.shift.assign(s2.begin(), s2.end());
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "expected 3 multiplier");
}

TEST(TosaRescale, UnsignedInput) {
  // uint8 bytes 0, 128, 255, 200 (stored as int8 0, -128, -1, -56), input_zp 128, scale 1:
  //   -128, 0, 127, 72. The zp may be given as 128 or sign-extended as -128.
  std::vector<int32_t> m = {1 << 30}, s = {30};
  auto a = per_tensor(m, s);
  a.input_unsigned = true;
  auto in = i8({4}, {0, -128, -1, -56});
  auto out = i8({4});
  for (int64_t zp : {128, -128}) {
    a.input_zp = zp;
    EXPECT_TOSA_OK(rescale(in, a, out));
    EXPECT_EQ(out.data, (std::vector<int8_t>{-128, 0, 127, 72}));
  }
  // uint16 with zp 32768: 65535 (stored -1) -> 32767, 0 -> -32768, 32768 (stored -32768) -> 0.
  a.input_zp = 32768;
  auto in16 = i16({3}, {-1, 0, -32768});
  auto out16 = i16({3});
  EXPECT_TOSA_OK(rescale(in16, a, out16));
  EXPECT_EQ(out16.data, (std::vector<int16_t>{32767, -32768, 0}));
}

TEST(TosaRescale, UnsignedOutput) {
  // int8 -> uint8 with output_zp 128, scale 1: -128 -> 0, 0 -> 128, 127 -> 255, -1 -> 127.
  std::vector<int32_t> m = {1 << 30}, s = {30};
  auto a = per_tensor(m, s);
  a.output_unsigned = true;
  a.output_zp = 128;
  auto in = i8({4}, {-128, 0, 127, -1});
  auto out = i8({4});
  EXPECT_TOSA_OK(rescale(in, a, out));
  std::vector<uint8_t> bytes(out.data.begin(), out.data.end());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0, 128, 255, 127}));
  // int16 -> uint8 saturates to [0, 255]: 300 -> 255, -5 -> 0, 17 -> 17.
  a.output_zp = 0;
  auto in16 = i16({3}, {300, -5, 17});
  auto out8 = i8({3});
  EXPECT_TOSA_OK(rescale(in16, a, out8));
  std::vector<uint8_t> bytes2(out8.data.begin(), out8.data.end());
  EXPECT_EQ(bytes2, (std::vector<uint8_t>{255, 0, 17}));
  // int16 -> uint16 range [0, 65535]: 40000 is out of int16 input range, use scale 2 (m 2^30, shift 29):
  //   20000 -> 40000 (stored as int16 -25536), -1 -> 0.
  std::vector<int32_t> m2 = {1 << 30}, s2 = {29};
  auto b = per_tensor(m2, s2);
  b.output_unsigned = true;
  auto in2 = i16({2}, {20000, -1});
  auto out2 = i16({2});
  EXPECT_TOSA_OK(rescale(in2, b, out2));
  EXPECT_EQ(uint16_t(out2.data[0]), 40000);
  EXPECT_EQ(out2.data[1], 0);
}

TEST(TosaRescale, Scale16AndInt48Input) {
  // scale16: m = 16384 (i16), shift 15: 0.5 -> 3 -> (3*16384 + 2^14) >> 15 = 2, -3 -> -1.
  std::vector<int32_t> m = {16384}, s = {15};
  auto a = per_tensor(m, s);
  a.scale32 = false;
  auto in = i16({2}, {3, -3});
  auto out = i8({2});
  EXPECT_TOSA_OK(rescale(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{2, -1}));
  // int48 input: 2^40 with m 1, shift 20 -> 2^20; -(2^40) - 2^19 -> -(2^20) (the half goes up).
  std::vector<int32_t> m1 = {1}, s20 = {20};
  auto b = per_tensor(m1, s20);
  b.scale32 = false;
  auto in48 = i48({2}, {int64_t(1) << 40, -(int64_t(1) << 40) - (int64_t(1) << 19)});
  auto out32 = i32({2});
  EXPECT_TOSA_OK(rescale(in48, b, out32));
  EXPECT_EQ(out32.data, (std::vector<int32_t>{1 << 20, -(1 << 20)}));
}

TEST(TosaRescale, ShiftBoundsAndParameterErrors) {
  auto in = i32({1}, {5});
  auto out = i8({1});
  // Shift must lie in [2, 62]; a negative or too small shift is an error, 62 is accepted.
  for (int32_t bad : {-1, 0, 1, 63}) {
    std::vector<int32_t> m = {1 << 30}, s = {bad};
    EXPECT_TOSA_ERROR(check_rescale(in, per_tensor(m, s), out), InvalidArgument, "outside [2, 62]");
  }
  {
    std::vector<int32_t> m = {1 << 30}, s = {62};
    EXPECT_TOSA_OK(rescale(in, per_tensor(m, s), out));
    EXPECT_EQ(out.data[0], 0);
  }
  std::vector<int32_t> m = {1 << 30}, s = {30};
  {
    std::vector<int32_t> neg = {-5};
    EXPECT_TOSA_ERROR(check_rescale(in, per_tensor(neg, s), out), InvalidArgument, "multiplier[0]");
  }
  auto a = per_tensor(m, s, RoundingMode::DoubleRound);
  a.scale32 = false;
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "DOUBLE_ROUND requires scale32");
  a = per_tensor(m, s);
  a.scale32 = false;  // 2^30 does not fit an i16 multiplier
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "scale16");
  auto in48 = i48({1});
  EXPECT_TOSA_ERROR(check_rescale(in48, per_tensor(m, s), out), InvalidArgument, "int48");
  a = per_tensor(m, s);
  a.input_unsigned = a.output_unsigned = true;
  auto in8 = i8({1});
  EXPECT_TOSA_ERROR(check_rescale(in8, a, out), InvalidArgument, "both set");
  a = per_tensor(m, s);
  a.input_unsigned = true;
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "input_unsigned with a int32");
  a = per_tensor(m, s);
  a.output_unsigned = true;
  auto out32 = i32({1});
  EXPECT_TOSA_ERROR(check_rescale(in8, a, out32), InvalidArgument, "output_unsigned");
  a = per_tensor(m, s);
  a.input_zp = 4;
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "input_zp must be 0");
  a = per_tensor(m, s);
  a.input_unsigned = true;
  a.input_zp = 5;
  auto in16 = i16({1});
  EXPECT_TOSA_ERROR(check_rescale(in16, a, out), InvalidArgument, "0 or 32768");
  a = per_tensor(m, s);
  a.rounding_mode = RoundingMode(0);  // no such mode
  EXPECT_TOSA_ERROR(check_rescale(in, a, out), InvalidArgument, "rounding_mode");
  auto out_f = f32({1});
  EXPECT_TOSA_ERROR(check_rescale(in, per_tensor(m, s), out_f), NotSupported, "output dtype fp32");
  auto out_shape = i8({2});
  EXPECT_TOSA_ERROR(check_rescale(in, per_tensor(m, s), out_shape), InvalidArgument, "expected shape");
}

// DOUBLE_ROUND with shift >= 31 is TFLite/CMSIS-NN requantization (cortex-m-ops.md §3):
// rescale(v, m, s) == requantize(v, m, 31 - s). SINGLE_ROUND is checked against the definition
// evaluated in 128-bit arithmetic.
TEST(TosaRescale, MatchesCmsisRequantizeAndExactSingleRound) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int32_t> value(-(1 << 24), 1 << 24);
  std::uniform_int_distribution<int32_t> mult(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int32_t> shift(31, 45);
  const int kCases = 20000;
  std::vector<int32_t> vin(kCases);
  for (auto& v : vin) v = value(rng);
  auto in = i32({kCases}, vin);
  auto out = i32({kCases});
  int mismatches = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<int32_t> m = {mult(rng)}, s = {shift(rng)};
    ASSERT_TRUE(rescale(in, per_tensor(m, s, RoundingMode::DoubleRound), out).is_ok());
    for (int i = 0; i < kCases; ++i)
      if (out.data[size_t(i)] != arith::requantize(vin[size_t(i)], m[0], 31 - s[0])) ++mismatches;
    ASSERT_TRUE(rescale(in, per_tensor(m, s, RoundingMode::SingleRound), out).is_ok());
    for (int i = 0; i < kCases; ++i) {
      const __int128 exact = (__int128(vin[size_t(i)]) * m[0] + (__int128(1) << (s[0] - 1))) >> s[0];
      if (out.data[size_t(i)] != int32_t(exact)) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace vkrt::tosa::test
