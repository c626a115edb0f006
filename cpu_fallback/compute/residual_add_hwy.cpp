// residual_add_s8 (residual_add_s8.h) on Highway vectors, one copy per target (hwy_targets.h).
//
// apply_scale_32 with a shift of 32 or more needs no 64-bit shift: floor(p / 2^s) is the high
// word of p shifted right by s − 32, and the high word of p + round (a product of two int32 plus
// a rounding term below 2^62) is an int32. So per vector: two 32x32→64 multiplies (even lanes,
// then the odd ones moved down), the rounding term chosen by the product's sign (double
// rounding; for m >= 0 its sign is the sum's, and where either is 0 both terms give 0), the high
// words gathered back into one vector and one 32-bit shift.
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

void residual_add_s8(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<int8_t, decltype(d)> d8;
  const hn::Repartition<int64_t, decltype(d)> d64;
  const hn::Repartition<uint64_t, decltype(d)> du64;
  using V = hn::Vec<decltype(d)>;
  const int64_t lanes = int64_t(hn::Lanes(d));
  const V a_mult = hn::Set(d, p.a_mult), b_mult = hn::Set(d, p.b_mult), bias = hn::Set(d, p.bias);
  const V mult = hn::Set(d, p.out_mult);
  const int64_t half = int64_t(1) << (p.out_shift - 1), extra = p.double_round ? int64_t(1) << 30 : 0;
  const auto round_nonnegative = hn::Set(d64, half + extra), round_negative = hn::Set(d64, half - extra);
  const auto zero64 = hn::Zero(d64);
  const int shift_past_32 = p.out_shift - 32;
  const V offset = hn::Set(d, p.out_zp), lo = hn::Set(d, p.lo), hi = hn::Set(d, p.hi);

  auto rounded = [&](hn::Vec<decltype(d64)> product) HWY_ATTR {
    return hn::Add(product, hn::IfThenElse(hn::Lt(product, zero64), round_negative, round_nonnegative));
  };
  auto step = [&](hn::Vec<decltype(d8)> va, hn::Vec<decltype(d8)> vb) HWY_ATTR {
    const V sum = hn::Add(hn::Add(hn::Mul(hn::PromoteTo(d, va), a_mult), hn::Mul(hn::PromoteTo(d, vb), b_mult)), bias);
    const auto even = rounded(hn::MulEven(sum, mult));
    const V sum_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, sum)));
    const auto odd = rounded(hn::MulEven(sum_odd, mult));
    // The high words: the even products' moved down into the even lanes, the odd ones' in place.
    const V high = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, even))));
    return hn::ShiftRightSame(high, shift_past_32);
  };
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes)
    StoreS8(d, step(hn::LoadU(d8, a + i), hn::LoadU(d8, b + i)), offset, lo, hi, out + i, lanes);
  if (i < count) {
    const ptrdiff_t n = ptrdiff_t(count - i);
    StoreS8(d, step(LoadPartial(d8, a + i, n), LoadPartial(d8, b + i, n)), offset, lo, hi, out + i, n);
  }
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
