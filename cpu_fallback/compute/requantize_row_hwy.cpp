// requantize_row_s8 (requantize_row.h) on Highway vectors, one copy per target (hwy_targets.h).
//
// Whole vectors in the loop and the tail once after it, with the per-channel choice outside the
// loop: a partial load inside the loop calls memcpy on AVX2, and GCC then keeps the constant
// vectors on the stack instead of in registers (docs/simd-choice.md, "Code generation").
#include "compute/hwy_targets.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/requantize_row_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

template <bool kPerChannel>
HWY_INLINE void RequantizeRowLoop(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                                  int8_t* out) {
  const hn::ScalableTag<int32_t> d;
  using V = hn::Vec<decltype(d)>;
  const int lanes = int(hn::Lanes(d));
  const V offset = hn::Set(d, spec.output_offset);
  const V lo = hn::Set(d, spec.activation_min), hi = hn::Set(d, spec.activation_max);
  const int32_t* mult = spec.multiplier + (kPerChannel ? first_channel : 0);
  const int32_t* shift = spec.shift + (kPerChannel ? first_channel : 0);
  V m = hn::Set(d, mult[0]), s = hn::Set(d, shift[0]);
  const bool single = spec.single_round;
  int i = 0;
  for (; i + 2 * lanes <= count; i += 2 * lanes) {
    V m1 = m, s1 = s;
    if (kPerChannel) {
      m = hn::LoadU(d, mult + i), m1 = hn::LoadU(d, mult + i + lanes);
      s = hn::LoadU(d, shift + i), s1 = hn::LoadU(d, shift + i + lanes);
    }
    StoreS8x2(d, Requantize(d, hn::LoadU(d, acc + i), m, s, single), Requantize(d, hn::LoadU(d, acc + i + lanes), m1, s1, single),
              offset, lo, hi, out + i);
  }
  for (; i + lanes <= count; i += lanes) {
    if (kPerChannel) {
      m = hn::LoadU(d, mult + i);
      s = hn::LoadU(d, shift + i);
    }
    StoreS8(d, Requantize(d, hn::LoadU(d, acc + i), m, s, single), offset, lo, hi, out + i, lanes);
  }
  if (i < count) {
    const ptrdiff_t n = count - i;
    if (kPerChannel) {
      m = LoadPartial(d, mult + i, n);
      s = LoadPartial(d, shift + i, n);
    }
    StoreS8(d, Requantize(d, LoadPartial(d, acc + i, n), m, s, single), offset, lo, hi, out + i, n);
  }
}

void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count, int8_t* out) {
  if (spec.per_channel)
    RequantizeRowLoop<true>(spec, acc, first_channel, count, out);
  else
    RequantizeRowLoop<false>(spec, acc, first_channel, count, out);
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
