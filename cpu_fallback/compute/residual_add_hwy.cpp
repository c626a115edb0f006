// residual_add_s8 (residual_add_s8.h) on Highway vectors, one copy per target (hwy_targets.h).
//
// apply_scale_32 with a shift of 32 or more needs no 64-bit shift: floor(p / 2^s) is the high
// word of p shifted right by s − 32, and the high word of p + round (a product of two int32 plus
// a rounding term below 2^62) is an int32. So per vector: two 32x32→64 multiplies (even lanes,
// then the odd ones moved down), the rounding term, the high words gathered back into one vector
// and one 32-bit shift. The double rounding's term depends on the product's sign; for m >= 0
// that is the sum's, and where either is 0 both terms give 0, so the sum's sign bits choose it
// (a blend, no compare). Two vectors per step, narrowed together (StoreS8x2).
#include "compute/hwy_targets.h"

#include "compute/residual_add_s8.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/residual_add_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

// The loop for one rounding (kDoubleRound: the term chosen by the sign; else one constant).
template <bool kDoubleRound>
HWY_INLINE void residual_add_loop(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out,
                                  int64_t count) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<int8_t, decltype(d)> d8;
  const hn::Repartition<int64_t, decltype(d)> d64;
  const hn::Repartition<uint64_t, decltype(d)> du64;
  using V = hn::Vec<decltype(d)>;
  const int64_t lanes = int64_t(hn::Lanes(d));
  const V a_mult = hn::Set(d, p.a_mult), b_mult = hn::Set(d, p.b_mult), bias = hn::Set(d, p.bias);
  const V mult = hn::Set(d, p.out_mult);
  const int64_t half = int64_t(1) << (p.out_shift - 1), extra = kDoubleRound ? int64_t(1) << 30 : 0;
  const auto round_nonnegative = hn::Set(d64, half + extra), round_negative = hn::Set(d64, half - extra);
  const int shift_past_32 = p.out_shift - 32;
  const V offset = hn::Set(d, p.out_zp), lo = hn::Set(d, p.lo), hi = hn::Set(d, p.hi);

  // The rounding term of the products whose signs are the top bits of `signs`' 64-bit lanes.
  auto round = [&](hn::Vec<decltype(d64)> signs) HWY_ATTR {
    if constexpr (kDoubleRound) return hn::IfNegativeThenElse(signs, round_negative, round_nonnegative);
    return round_nonnegative;
  };
  auto step = [&](hn::Vec<decltype(d8)> va, hn::Vec<decltype(d8)> vb) HWY_ATTR {
    const V sum = hn::Add(hn::Add(hn::Mul(hn::PromoteTo(d, va), a_mult), hn::Mul(hn::PromoteTo(d, vb), b_mult)), bias);
    // The odd lanes' signs are the top bits of sum's 64-bit lanes; the even ones', once moved up.
    const auto sum64 = hn::BitCast(d64, sum);
    const auto even = hn::Add(hn::BitCast(d64, hn::MulEven(sum, mult)), round(hn::ShiftLeft<32>(sum64)));
    const V sum_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, sum)));
    const auto odd = hn::Add(hn::BitCast(d64, hn::MulEven(sum_odd, mult)), round(sum64));
    // The high words: the even products' moved down into the even lanes, the odd ones' in place.
    const V high = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, even))));
    return hn::ShiftRightSame(high, shift_past_32);
  };
  int64_t i = 0;
  for (; i + 2 * lanes <= count; i += 2 * lanes)
    StoreS8x2(d, step(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)),
              step(hn::LoadU(d8, a + i + lanes), hn::LoadU(d8, b + i + lanes)), offset, lo, hi, out + i);
  for (; i < count; i += lanes) {
    const ptrdiff_t n = ptrdiff_t(count - i);
    StoreS8(d, step(LoadPartial(d8, a + i, n), LoadPartial(d8, b + i, n)), offset, lo, hi, out + i, n);
  }
}

void residual_add_s8(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count) {
  if (p.double_round) return residual_add_loop<true>(p, a, b, out, count);
  residual_add_loop<false>(p, a, b, out, count);
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
