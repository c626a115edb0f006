// The project's one implementation of int8/int16 fixed-point arithmetic.
//
// Used by the cortex_m:: kernels (bit-exact with CMSIS-NN, default build), the TOSA CPU kernels
// and the shader generators' reference tests. Every function is total: inputs outside the
// documented range never cause undefined behaviour (int32 overflow wraps where the C code it
// mirrors wraps, shift amounts are clamped), so values read from a file cannot crash a kernel;
// kernels still validate parameters at check time and report bad ones as errors.
//
// Sources (facts, not code):
//  * CMSIS-NN Include/arm_nnsupportfunctions.h (arm_nn_doubling_high_mult[_no_sat],
//    arm_nn_divide_by_power_of_two, arm_nn_requantize, arm_nn_requantize_s64, REDUCE_MULTIPLIER),
//    summarised in shared/docs/cortex-m-ops.md §3.
//  * gemmlowp fixedpoint.h (the same primitives), ruy apply_multiplier.cc (single rounding).
//  * TOSA 1.0 specification, apply_scale_32 / apply_scale_16 / reciprocal_scale
//    (shared/docs/tosa.md §4).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace vkrt::arith {

inline constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
inline constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

// ---------------------------------------------------------------------------------------------
// Wrapping int32 helpers (two's complement modulo 2^32, like the device's 32-bit registers).

constexpr int32_t wrap_add(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }
constexpr int32_t wrap_sub(int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); }
constexpr int32_t wrap_mul(int32_t a, int32_t b) { return int32_t(uint32_t(a) * uint32_t(b)); }
// a << s modulo 2^32; s is clamped to [0, 31].
constexpr int32_t wrap_shl(int32_t a, int s) {
  return int32_t(uint32_t(a) << std::clamp(s, 0, 31));
}
constexpr int64_t wrap_add64(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
constexpr int64_t wrap_mul64(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

// ---------------------------------------------------------------------------------------------
// Saturation / clamping.

// TOSA's int48 accumulator (the int16 convolutions' sums), held in int64.
inline constexpr int64_t kInt48Min = -(int64_t(1) << 47);
inline constexpr int64_t kInt48Max = (int64_t(1) << 47) - 1;
constexpr int64_t clamp_int48(int64_t v) { return v < kInt48Min ? kInt48Min : (v > kInt48Max ? kInt48Max : v); }

template <typename T>
constexpr T saturate(int64_t v) {
  return T(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
constexpr int8_t saturate_int8(int32_t v) { return saturate<int8_t>(v); }
constexpr int16_t saturate_int16(int32_t v) { return saturate<int16_t>(v); }
constexpr int32_t saturate_int32(int64_t v) { return saturate<int32_t>(v); }
// clamp(v, lo, hi) that never asserts: when lo > hi the result is hi (as CMSIS's MAX then MIN).
constexpr int32_t clamp_activation(int32_t v, int32_t lo, int32_t hi) {
  return std::min(std::max(v, lo), hi);
}

// ---------------------------------------------------------------------------------------------
// CMSIS-NN / gemmlowp primitives (cortex-m-ops.md §3).

// Saturating rounding doubling high multiply (VQRDMULH): round(a * b / 2^31), halves rounded up
// (towards +inf); the single overflow case INT32_MIN * INT32_MIN saturates to INT32_MAX.
// Equals CMSIS arm_nn_doubling_high_mult and gemmlowp SaturatingRoundingDoublingHighMul.
constexpr int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  return int32_t((int64_t(a) * int64_t(b) + (int64_t(1) << 30)) >> 31);
}
// The same without saturation (CMSIS arm_nn_doubling_high_mult_no_sat, used by arm_nn_requantize):
// INT32_MIN * INT32_MIN wraps to INT32_MIN.
constexpr int32_t rounding_doubling_high_mul_no_sat(int32_t a, int32_t b) {
  return int32_t(uint32_t(uint64_t((int64_t(a) * int64_t(b) + (int64_t(1) << 30)) >> 31)));
}

// Rounding divide by 2^exponent, ties away from zero (CMSIS arm_nn_divide_by_power_of_two,
// gemmlowp RoundingDivideByPOT). exponent is clamped to [0, 31].
constexpr int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const int e = std::clamp(exponent, 0, 31);
  const int32_t mask = int32_t((uint32_t(1) << e) - 1u);
  const int32_t remainder = x & mask;
  const int32_t quotient = x >> e;  // arithmetic shift (defined in C++20)
  const int32_t threshold = (mask >> 1) + (quotient < 0 ? 1 : 0);
  return quotient + (remainder > threshold ? 1 : 0);
}

// CMSIS-NN arm_nn_requantize, default build (double rounding, TFLite-compatible):
//   RDBPOT(SRDHM(v << max(shift, 0), multiplier), max(-shift, 0))
// multiplier in [INT32_MIN+1, INT32_MAX] (INT32_MIN wraps like the C no-sat multiply),
// shift in [-31, 30] (clamped to [-31, 31]); v << left wraps modulo 2^32 like the C code.
constexpr int32_t requantize(int32_t v, int32_t multiplier, int32_t shift) {
  const int left = shift > 0 ? std::min<int32_t>(shift, 31) : 0;
  const int right = shift < 0 ? std::min<int32_t>(-int64_t(shift), 31) : 0;
  return rounding_divide_by_pot(rounding_doubling_high_mul_no_sat(wrap_shl(v, left), multiplier),
                                right);
}

// CMSIS-NN requantize when built with CMSIS_NN_USE_SINGLE_ROUNDING (ruy single rounding):
// round(v * m / 2^(31 - shift)), halves up. Offered as an option only; devices use requantize().
constexpr int32_t requantize_single_round(int32_t v, int32_t multiplier, int32_t shift) {
  const int total_right = 31 - std::clamp<int32_t>(shift, -31, 30);  // in [1, 62]
  const int64_t r = (int64_t(v) * int64_t(multiplier)) >> (total_right - 1);
  const int32_t narrowed = int32_t(uint32_t(uint64_t(r)));  // the C code narrows here
  return wrap_add(narrowed, 1) >> 1;
}

// REDUCE_MULTIPLIER for the 16x8 kernels with 64-bit accumulators: a Q31 multiplier rounded to Q15.
constexpr int32_t reduce_multiplier(int32_t multiplier) {
  return multiplier < 0x7FFF0000 ? int32_t((int64_t(multiplier) + (1 << 15)) >> 16) : 0x7FFF;
}

// CMSIS-NN arm_nn_requantize_s64: (i32((v * reduced_multiplier) >> (14 - shift)) + 1) >> 1.
// reduced_multiplier from reduce_multiplier(); shift in [-31, 14] (clamped so the shift stays
// in [0, 63]); the 64-bit product and the narrowing wrap like the C code on the device.
constexpr int32_t requantize_s64(int64_t v, int32_t reduced_multiplier, int32_t shift) {
  const int right = std::clamp<int64_t>(14 - int64_t(shift), 0, 63);
  const int64_t product = wrap_mul64(v, reduced_multiplier);
  const int32_t narrowed = int32_t(uint32_t(uint64_t(product >> right)));
  return wrap_add(narrowed, 1) >> 1;
}

// gemmlowp SaturatingRoundingMultiplyByPOT for a non-negative exponent (softmax MUL_POW2):
// v * 2^e saturated to int32. e is clamped to [0, 31].
constexpr int32_t saturating_mul_by_pot(int32_t v, int exponent) {
  const int e = std::clamp(exponent, 0, 31);
  if (e == 0) return v;
  const int32_t threshold = int32_t((uint32_t(1) << (31 - e)) - 1u);
  if (v > threshold) return kInt32Max;
  if (v < -threshold) return kInt32Min;
  return wrap_shl(v, e);
}

// ---------------------------------------------------------------------------------------------
// AOT multiplier generation (ExecuTorch passes_utils.py quantize_multiplier, cortex-m-ops.md §3.1).

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31
  int32_t shift = 0;       // CMSIS shift: real ≈ multiplier · 2^(shift − 31)
};

// Python semantics: frexp, round half to even, renormalise 2^31; scale == 0 gives (0, 0).
inline QuantizedMultiplier quantize_multiplier(double scale) {
  if (scale == 0.0 || !std::isfinite(scale)) return {};
  int exponent = 0;
  const double fraction = std::frexp(scale, &exponent);
  double q = std::nearbyint(fraction * 2147483648.0);  // default FE_TONEAREST: half to even
  if (q == 2147483648.0) {
    q /= 2;
    ++exponent;
  }
  q = std::clamp(q, -2147483648.0, 2147483647.0);
  return {int32_t(q), int32_t(exponent)};
}

// ---------------------------------------------------------------------------------------------
// TOSA 1.0 integer primitives (tosa.md §4). The REQUIRE preconditions of the specification are
// exposed as *_in_range() predicates for the kernels' check functions; outside them the
// functions below still return a defined value (shift clamped to [1, 62], result saturated).

// True when apply_scale_32's REQUIREs hold for this value, multiplier and shift.
constexpr bool apply_scale_32_in_range(int32_t value, int32_t multiplier, int shift) {
  if (multiplier < 0 || shift < 2 || shift > 62) return false;
  if (shift - 1 < 32) {
    const int64_t bound = int64_t(1) << (shift - 1);
    if (value < -bound || value >= bound) return false;
  }
  return true;
}
// True when the parameters are valid for apply_scale_16 (multiplier >= 0, shift in [2, 62]).
constexpr bool apply_scale_16_in_range(int16_t multiplier, int shift) {
  return multiplier >= 0 && shift >= 2 && shift <= 62;
}

// apply_scale_32(value, multiplier, shift, double_round):
//   round = 2^(shift-1) [+/- 2^30 when double_round and shift > 31]; (value·multiplier + round) >> shift.
// The final "REQUIRE r fits in i32" is made total by saturating.
constexpr int32_t apply_scale_32(int32_t value, int32_t multiplier, int shift, bool double_round) {
  const int s = std::clamp(shift, 1, 62);
  int64_t round = int64_t(1) << (s - 1);
  if (double_round && s > 31) round += value >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  // |value·multiplier| <= 2^62 and |round| < 2^61 + 2^30: no int64 overflow.
  const int64_t r = (int64_t(value) * int64_t(multiplier) + round) >> s;
  return saturate_int32(r);
}

// apply_scale_16(value (int48 in int64), multiplier, shift): (value·multiplier + 2^(shift-1)) >> shift,
// single rounding. value is clamped to the int48 range first (the spec's input type), so the
// product cannot overflow; the result is saturated to int32.
constexpr int32_t apply_scale_16(int64_t value, int16_t multiplier, int shift) {
  const int s = std::clamp(shift, 1, 62);
  const int64_t v48 = std::clamp<int64_t>(value, -(int64_t(1) << 47), (int64_t(1) << 47) - 1);
  const int64_t r = (v48 * int64_t(multiplier) + (int64_t(1) << (s - 1))) >> s;
  return saturate_int32(r);
}

// TOSA reciprocal_scale(count) for AVG_POOL2D: multiplier in [2^30, 2^31), shift = 30 + k.
struct ReciprocalScale {
  int32_t multiplier = 0;
  int32_t shift = 0;
};
constexpr ReciprocalScale reciprocal_scale(uint32_t count) {
  if (count == 0) return {};
  const int k = count == 1 ? 0 : 32 - __builtin_clz(count - 1);  // 2^(k-1) < count <= 2^k
  const int64_t numerator = ((int64_t(1) << 30) + 1) << k;
  return {int32_t(numerator / int64_t(count)), 30 + k};
}

}  // namespace vkrt::arith
