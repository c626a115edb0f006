// vkrt::arith against hand-computed values and against exact 128-bit formulas.
#include <gtest/gtest.h>

#include <random>

#include "arith/fixed_point.h"

namespace vkrt::arith {
namespace {

TEST(FixedPoint, SaturatingRoundingDoublingHighMul) {
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kInt32Min, kInt32Min), kInt32Max);
  EXPECT_EQ(rounding_doubling_high_mul_no_sat(kInt32Min, kInt32Min), kInt32Min);  // wraps like the C code
  EXPECT_EQ(saturating_rounding_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(3, 1 << 30), 2);    // 1.5 rounds up
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);  // -1.5 rounds up too
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kInt32Max, kInt32Max), kInt32Max - 1);
}

TEST(FixedPoint, RoundingDivideByPowerOfTwo) {
  EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);    // 2.5 away from zero
  EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);  // -2.5 away from zero
  EXPECT_EQ(rounding_divide_by_pot(4, 1), 2);
  EXPECT_EQ(rounding_divide_by_pot(-4, 1), -2);
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(rounding_divide_by_pot(123, 0), 123);
  EXPECT_EQ(rounding_divide_by_pot(kInt32Min, 31), -1);
  EXPECT_EQ(rounding_divide_by_pot(kInt32Max, 31), 1);
  EXPECT_EQ(rounding_divide_by_pot(7, 40), rounding_divide_by_pot(7, 31));  // clamped exponent
}

TEST(FixedPoint, RequantizeHandValues) {
  EXPECT_EQ(requantize(100, 1 << 30, -1), 25);  // 100 · 0.5 / 2
  EXPECT_EQ(requantize(7, 1 << 30, 1), 7);      // 7 · 2 · 0.5
  EXPECT_EQ(requantize(1 << 30, 1 << 30, 2), 0);  // the left shift wraps to 0 as on the device
  // Double rounding differs from single rounding here: 1 · (1 − 2^-31) / 2.
  EXPECT_EQ(requantize(1, kInt32Max, -1), 1);
  EXPECT_EQ(requantize_single_round(1, kInt32Max, -1), 0);
  EXPECT_EQ(requantize_single_round(100, 1 << 30, -1), 25);
}

// Exact double rounding with 128-bit integers: round_half_up(v·2^l·m / 2^31), then divide by
// 2^r rounding half away from zero.
int32_t exact_double_rounding(int32_t v, int32_t m, int32_t s) {
  const int l = s > 0 ? s : 0, r = s < 0 ? -s : 0;
  const int32_t shifted = int32_t(uint32_t(v) << l);
  const __int128 p = __int128(shifted) * m;
  const __int128 first = (p + (__int128(1) << 30)) >> 31;  // floor(x + 1/2)
  const int64_t f = int64_t(first);
  if (r == 0) return int32_t(f);
  const int64_t d = int64_t(1) << r;
  const int64_t q = f >= 0 ? (f + d / 2) / d : -((-f + d / 2) / d);
  return int32_t(q);
}

TEST(FixedPoint, RequantizeMatchesExactDoubleRounding) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int32_t> value(-(1 << 24), 1 << 24);
  std::uniform_int_distribution<int32_t> mult(1, kInt32Max);
  std::uniform_int_distribution<int32_t> shift(-31, 6);
  for (int i = 0; i < 200000; ++i) {
    const int32_t v = value(rng), m = mult(rng), s = shift(rng);
    ASSERT_EQ(requantize(v, m, s), exact_double_rounding(v, m, s)) << v << " " << m << " " << s;
  }
}

TEST(FixedPoint, TosaApplyScaleIdentity) {
  // cortex-m-ops.md §3: requantize(v, m, s) == apply_scale_32(v, m, 31 − s, double_round) for m >= 0.
  std::mt19937 rng(99);
  std::uniform_int_distribution<int32_t> value(-(1 << 22), 1 << 22);
  std::uniform_int_distribution<int32_t> mult(0, kInt32Max);
  std::uniform_int_distribution<int32_t> shift(-31, 8);
  for (int i = 0; i < 200000; ++i) {
    const int32_t v = value(rng), m = mult(rng), s = shift(rng);
    ASSERT_TRUE(apply_scale_32_in_range(v, m, 31 - s));
    ASSERT_EQ(requantize(v, m, s), apply_scale_32(v, m, 31 - s, true)) << v << " " << m << " " << s;
  }
}

// The identity with every int32 value where TOSA's shift is 32 to 62 (a right shift after
// SRDHM): the VGF CPU executor's fused CONV2D+RESCALE rests on it (tosa::conv_requantize).
// Values at the edges of int32 and of the rounding boundaries as well as random ones.
TEST(FixedPoint, TosaApplyScaleIdentityEveryValueForRightShifts) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> value(kInt32Min, kInt32Max);
  std::uniform_int_distribution<int32_t> mult(0, kInt32Max);
  std::uniform_int_distribution<int32_t> tosa_shift(32, 62);
  const int32_t edges[] = {kInt32Min, kInt32Min + 1, -(1 << 30) - 1, -(1 << 30), -(1 << 30) + 1, -2, -1, 0, 1,
                           (1 << 30) - 1, 1 << 30, kInt32Max - 1, kInt32Max};
  auto check = [](int32_t v, int32_t m, int32_t s) {
    ASSERT_TRUE(apply_scale_32_in_range(v, m, s));
    ASSERT_EQ(requantize(v, m, 31 - s), apply_scale_32(v, m, s, true)) << v << " " << m << " " << s;
  };
  for (int32_t s = 32; s <= 62; ++s)
    for (int32_t v : edges)
      for (int32_t m : {0, 1, 1 << 30, kInt32Max, 1518500250}) check(v, m, s);
  for (int i = 0; i < 300000; ++i) check(value(rng), mult(rng), tosa_shift(rng));
  // Products on and next to the final rounding's half-way points: with m = 2^30, v·m is an odd
  // multiple of 2^(s−1) for v = ±odd·2^(s−31), and v ± 1 lies just either side.
  for (int i = 0; i < 100000; ++i) {
    const int32_t s = tosa_shift(rng);
    const int64_t odd = int64_t(rng() % (uint64_t(1) << (62 - s))) | 1, sign = rng() % 2 ? 1 : -1;
    const int64_t v = sign * (odd << (s - 31)) + int64_t(rng() % 3) - 1;
    if (v >= kInt32Min && v <= kInt32Max) check(int32_t(v), 1 << 30, s);
  }
}

TEST(FixedPoint, TosaApplyScaleHandValues) {
  EXPECT_EQ(apply_scale_32(100, 1 << 30, 31, false), 50);  // 50.5 - 2^-31·... : (100·2^30 + 2^30) >> 31
  EXPECT_EQ(apply_scale_32(3, 1 << 30, 32, true), 1);      // 0.75 with the extra 2^30 → 1
  EXPECT_EQ(apply_scale_32(3, 1 << 30, 32, false), 1);     // (3·2^30 + 2^31) >> 32 = 1
  EXPECT_EQ(apply_scale_32(-3, 1 << 30, 32, true), -1);
  EXPECT_EQ(apply_scale_32(-3, 1 << 30, 32, false), -1);   // floor(-0.25) = -1
  EXPECT_EQ(apply_scale_32(-1, 1 << 30, 32, true), 0);     // (−2^30 + 2^31 − 2^30) >> 32: −0.25 → 0, as CMSIS
  EXPECT_EQ(apply_scale_16(1000, 16384, 15), 500);
  EXPECT_EQ(apply_scale_16(-1000, 16384, 15), -500);
  EXPECT_EQ(apply_scale_16(int64_t(1) << 46, 32767, 2), kInt32Max);  // saturated
  EXPECT_FALSE(apply_scale_32_in_range(1, -1, 10));
  EXPECT_FALSE(apply_scale_32_in_range(1 << 10, 1, 10));
  EXPECT_TRUE(apply_scale_32_in_range((1 << 9) - 1, 1, 10));
  EXPECT_FALSE(apply_scale_16_in_range(1, 1));
  EXPECT_TRUE(apply_scale_16_in_range(1, 62));
}

TEST(FixedPoint, ReciprocalScale) {
  EXPECT_EQ(reciprocal_scale(1).multiplier, (1 << 30) + 1);
  EXPECT_EQ(reciprocal_scale(1).shift, 30);
  EXPECT_EQ(reciprocal_scale(3).multiplier, 1431655766);  // ((2^30 + 1)·4) / 3
  EXPECT_EQ(reciprocal_scale(3).shift, 32);
  EXPECT_EQ(reciprocal_scale(4).shift, 32);
  // TOSA average of 3 values summing to 5: 5/3 → 2.
  const auto r = reciprocal_scale(3);
  EXPECT_EQ(apply_scale_32(5, r.multiplier, r.shift, false), 2);
}

TEST(FixedPoint, Int16Variants) {
  EXPECT_EQ(reduce_multiplier(0x7FFF0000), 0x7FFF);
  EXPECT_EQ(reduce_multiplier(kInt32Max), 0x7FFF);
  EXPECT_EQ(reduce_multiplier(1 << 30), 16384);
  EXPECT_EQ(requantize_s64(1000, 16384, 0), 500);   // 1000 · 0.5
  EXPECT_EQ(requantize_s64(1001, 16384, 0), 501);   // 500.5 rounds up
  EXPECT_EQ(requantize_s64(-1001, 16384, 0), -500); // -500.5 rounds up
  EXPECT_EQ(requantize_s64(1000, 16384, -2), 125);
  EXPECT_EQ(requantize_s64(int64_t(1) << 40, 16384, 0), requantize_s64(int64_t(1) << 40, 16384, 0));
}

TEST(FixedPoint, SaturationHelpers) {
  EXPECT_EQ(saturate_int8(200), 127);
  EXPECT_EQ(saturate_int8(-200), -128);
  EXPECT_EQ(saturate_int16(40000), 32767);
  EXPECT_EQ(saturate_int16(-40000), -32768);
  EXPECT_EQ(saturate_int32(int64_t(1) << 40), kInt32Max);
  EXPECT_EQ(clamp_activation(5, -3, 3), 3);
  EXPECT_EQ(clamp_activation(-5, -3, 3), -3);
  EXPECT_EQ(wrap_add(kInt32Max, 1), kInt32Min);
  EXPECT_EQ(wrap_mul(1 << 16, 1 << 16), 0);
  EXPECT_EQ(saturating_mul_by_pot(1 << 29, 2), kInt32Max);
  EXPECT_EQ(saturating_mul_by_pot(-(1 << 29), 3), kInt32Min);
  EXPECT_EQ(saturating_mul_by_pot(3, 2), 12);
}

TEST(FixedPoint, QuantizeMultiplier) {
  EXPECT_EQ(quantize_multiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(0.5).shift, 0);
  EXPECT_EQ(quantize_multiplier(1.0).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(1.0).shift, 1);
  EXPECT_EQ(quantize_multiplier(0.75).multiplier, 1610612736);
  EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
  // Just below 1 rounds up to 2^31: renormalised to 2^30 with shift + 1.
  EXPECT_EQ(quantize_multiplier(1.0 - 1e-12).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(1.0 - 1e-12).shift, 1);
}

}  // namespace
}  // namespace vkrt::arith
