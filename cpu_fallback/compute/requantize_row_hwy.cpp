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

// The scales of the n (<= one vector) channels from `channel`, used for that one vector: the
// double rounding in two steps (MakeScales).
template <class D>
HWY_INLINE RequantizeScales<D> ChannelScales(D d, const RequantizeRow& spec, int channel, ptrdiff_t n) {
  const bool single = spec.single_round, fold_double = false;
  if (n >= ptrdiff_t(hn::Lanes(d)))
    return MakeScales(d, hn::LoadU(d, spec.multiplier + channel), hn::LoadU(d, spec.shift + channel), single, fold_double);
  return MakeScales(d, LoadPartial(d, spec.multiplier + channel, n), LoadPartial(d, spec.shift + channel, n), single,
                    fold_double);
}

template <bool kPerChannel>
HWY_INLINE void RequantizeRowLoop(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                                  int8_t* out) {
  const hn::ScalableTag<int32_t> d;
  using V = hn::Vec<decltype(d)>;
  const int lanes = int(hn::Lanes(d));
  const V offset = hn::Set(d, spec.output_offset);
  const V lo = hn::Set(d, spec.activation_min), hi = hn::Set(d, spec.activation_max);
  // Per tensor, one set of scales for the row; per channel, one per vector.
  const auto tensor = kPerChannel ? RequantizeScales<hn::ScalableTag<int32_t>>{}
                                  : MakeScales(d, hn::Set(d, spec.multiplier[0]), hn::Set(d, spec.shift[0]), spec.single_round);
  int i = 0;
  for (; i + 2 * lanes <= count; i += 2 * lanes) {
    const V a = hn::LoadU(d, acc + i), b = hn::LoadU(d, acc + i + lanes);
    if constexpr (kPerChannel)
      StoreS8x2(d, Requantize(d, a, ChannelScales(d, spec, first_channel + i, lanes)),
                Requantize(d, b, ChannelScales(d, spec, first_channel + i + lanes, lanes)), offset, lo, hi, out + i);
    else
      StoreS8x2(d, Requantize(d, a, tensor), Requantize(d, b, tensor), offset, lo, hi, out + i);
  }
  for (; i + lanes <= count; i += lanes)
    StoreS8(d, Requantize(d, hn::LoadU(d, acc + i), kPerChannel ? ChannelScales(d, spec, first_channel + i, lanes) : tensor),
            offset, lo, hi, out + i, lanes);
  if (i < count) {
    const ptrdiff_t n = count - i;
    StoreS8(d, Requantize(d, LoadPartial(d, acc + i, n), kPerChannel ? ChannelScales(d, spec, first_channel + i, n) : tensor),
            offset, lo, hi, out + i, n);
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
