// The CMSIS-NN output stage on Highway vectors of int32 (cortex-m-ops.md §3): the shared part of
// the *_hwy.cpp kernels (hwy_targets.h). Included once per target from inside their
// foreach_target passes, hence the per-target include guard (Highway's -inl.h convention).
//
// The arithmetic is requantize_value (requantize_row.h), op for op. Double rounding
// (arith::requantize): RDBPOT(SRDHM_no_sat(v << left, m), right), left = clamp(shift, 0, 31),
// right = clamp(-shift, 0, 31). Single rounding (TOSA's, shifts -31..-1):
// ⌊(v·m + 2^(30+right)) / 2^(31+right)⌋, taken in one step from the 64-bit sums' high words
// (Requantize). The 32x32→64 products come from MulEven; Highway 1.0.3 has no MulOdd for int32,
// so the odd lanes are shifted down first.
#if defined(VKRT_COMPUTE_OUTPUT_STAGE_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef VKRT_COMPUTE_OUTPUT_STAGE_HWY_INL_H_
#undef VKRT_COMPUTE_OUTPUT_STAGE_HWY_INL_H_
#else
#define VKRT_COMPUTE_OUTPUT_STAGE_HWY_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

// The first n lanes at p (the rest zero) without reading past them: a masked load on AVX3 (it
// cannot fault), a copy through the stack on AVX2 (no byte-masked load there).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadPartial(D d, const T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d))) return hn::LoadU(d, p);
  if (n <= 0) return hn::Zero(d);
#if HWY_MEM_OPS_MIGHT_FAULT
  HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)] = {};
  std::memcpy(tmp, p, size_t(n) * sizeof(T));
  return hn::Load(d, tmp);
#else
  return hn::MaskedLoad(hn::FirstN(d, size_t(n)), d, p);
#endif
}

// Stores the first n lanes of v (none when n <= 0).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void StorePartial(D d, hn::Vec<D> v, T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d))) {
    hn::StoreU(v, d, p);
    return;
  }
  if (n <= 0) return;
#if HWY_MEM_OPS_MIGHT_FAULT
  HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, tmp);
  std::memcpy(p, tmp, size_t(n) * sizeof(T));
#else
  hn::BlendedStore(v, hn::FirstN(d, size_t(n)), d, p);
#endif
}

// What arith::requantize derives from each lane's multiplier and CMSIS shift, derived once per
// vector of columns: a GEMM tile applies the same columns to all its rows, so deriving them per
// row (8 of Requantize's 25 instructions on AVX2) is wasted on all but the first.
template <class D>
struct RequantizeScales {
  hn::Vec<D> mult, mult_odd;  // the multipliers; the odd lanes' moved down for MulEven
  hn::Vec<D> left, right;     // clamp(shift, 0, 31), clamp(-shift, 0, 31)
  hn::Vec<D> mask, half;      // 2^right - 1 and its half: the rounding divide's remainder bits
  hn::Vec<hn::Repartition<uint64_t, D>> round;  // added to the 64-bit products: 2^30, or 0 (single rounding)
  hn::Vec<D> negative;        // all ones: ties away from zero (double rounding); zero: ties up
  // Single rounding only (Requantize's one-divide form): 2^(30+right) for the even and the odd
  // lanes' products, and right − 1, the shift of the products' high words.
  hn::Vec<hn::Repartition<uint64_t, D>> round_even, round_odd;
  hn::Vec<D> high_shift;
  bool single_round = false;
};

template <class D>
HWY_INLINE RequantizeScales<D> MakeScales(D d, hn::Vec<D> mult, hn::Vec<D> shift, bool single_round) {
  using V = hn::Vec<D>;
  const hn::Repartition<uint64_t, D> du64;
  const V zero = hn::Zero(d), max_shift = hn::Set(d, 31), one = hn::Set(d, 1);
  RequantizeScales<D> s;
  s.round = hn::Set(du64, single_round ? 0 : uint64_t{1} << 30);
  s.negative = single_round ? zero : hn::Set(d, -1);
  s.mult = mult;
  s.mult_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, mult)));
  s.left = hn::Min(hn::Max(shift, zero), max_shift);
  s.right = hn::Min(hn::Max(hn::Sub(zero, shift), zero), max_shift);
  s.mask = hn::Sub(one << s.right, one);
  s.half = hn::ShiftRight<1>(s.mask);
  s.single_round = single_round;
  if (single_round) {
    // Shifts −31..−1 (RequantizeRow::single_round): right >= 1; the max keeps other shifts
    // harmless (their results are not defined).
    const V right = hn::Max(s.right, one);
    const auto right_even = hn::And(hn::BitCast(du64, right), hn::Set(du64, 0xFFFFFFFFu));
    const auto right_odd = hn::ShiftRight<32>(hn::BitCast(du64, right));
    const auto one64 = hn::Set(du64, 1), thirty = hn::Set(du64, 30);
    s.round_even = hn::Shl(one64, hn::Add(right_even, thirty));
    s.round_odd = hn::Shl(one64, hn::Add(right_odd, thirty));
    s.high_shift = hn::Sub(right, one);
  } else {
    s.round_even = s.round_odd = hn::Zero(du64);
    s.high_shift = zero;
  }
  return s;
}

// requantize_value on int32 lanes with their columns' scales.
template <class D>
HWY_INLINE hn::Vec<D> Requantize(D d, hn::Vec<D> v, const RequantizeScales<D>& s) {
  using V = hn::Vec<D>;
  const hn::Repartition<uint64_t, D> du64;
  if (s.single_round) {
    // One divide: ⌊(v·m + 2^(30+right)) / 2^(31+right)⌋ is the high word of the 64-bit sum (which
    // cannot overflow: |v·m| <= 2^62) shifted right by right − 1. 8 instructions on AVX2 where
    // the two-step form below takes 17.
    const auto even = hn::Add(hn::BitCast(du64, hn::MulEven(v, s.mult)), s.round_even);
    const V v_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
    const auto odd = hn::Add(hn::BitCast(du64, hn::MulEven(v_odd, s.mult_odd)), s.round_odd);
    // The high words: the even sums' moved down into the even lanes, the odd ones' in place.
    const V high = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(even)));
    return high >> s.high_shift;
  }
  v = v << s.left;
  // SRDHM without saturation: (i64(a)·b + 2^30) >> 31, low 32 bits (single rounding: no 2^30). A
  // logical shift gives the same low bits as an arithmetic one, and AVX2 has no 64-bit
  // arithmetic shift.
  const auto even = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v, s.mult)), s.round));
  const V v_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
  const auto odd = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v_odd, s.mult_odd)), s.round));
  const V x = hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(odd)), hn::BitCast(d, even));
  // Rounding divide by 2^right: threshold = half + (x < 0) ties away from zero, half alone ties up.
  const V remainder = hn::And(x, s.mask);
  const V quotient = x >> s.right;
  const V threshold = hn::Sub(s.half, hn::And(hn::ShiftRight<31>(quotient), s.negative));
  return hn::Sub(quotient, hn::VecFromMask(d, remainder > threshold));
}

// requantize_value on int32 lanes with per-lane multipliers and CMSIS shifts.
template <class D>
HWY_INLINE hn::Vec<D> Requantize(D d, hn::Vec<D> v, hn::Vec<D> mult, hn::Vec<D> shift, bool single_round) {
  return Requantize(d, v, MakeScales(d, mult, shift, single_round));
}

// clamp(v + offset, lo, hi) narrowed to int8 and stored to the first n bytes at out. The narrowing
// saturates, which equals the portable loops' int8 cast for activation bounds within int8.
template <class D>
HWY_INLINE void StoreS8(D d, hn::Vec<D> v, hn::Vec<D> offset, hn::Vec<D> lo, hn::Vec<D> hi, int8_t* out,
                        ptrdiff_t n) {
  const hn::Rebind<int8_t, D> d8;
  v = hn::Min(hn::Max(hn::Add(v, offset), lo), hi);
  StorePartial(d8, hn::DemoteTo(d8, v), out, n);
}

// StoreS8 of two vectors, a for lanes [0, L) and b for [L, 2L), as 2L bytes at out. One pair of
// saturating packs narrows both (ReorderDemote2To leaves them interleaved by groups of 4 per
// 128-bit block; DemoteTo keeps that order), and one 32-bit lane permutation puts the groups
// back: group i of the result is group 2i (from a) or 2(i - L/4) + 1 (from b). That is 4
// instructions for 2L lanes, where two DemoteTo calls take 6, and it matters on the output-bound
// small-k GEMMs (docs/simd-choice.md).
template <class D>
HWY_INLINE void StoreS8x2(D /*d*/, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> offset, hn::Vec<D> lo, hn::Vec<D> hi,
                          int8_t* out) {
  const hn::Repartition<int16_t, D> d16;            // 2L lanes
  const hn::Rebind<int8_t, decltype(d16)> d8;       // 2L lanes, half a vector
  const hn::Repartition<int32_t, decltype(d8)> d8_groups;  // L/2 groups of 4 bytes
  constexpr size_t kGroups = HWY_MAX_BYTES / 8;
  struct Order {
    int32_t lane[kGroups];
  };
  alignas(64) static constexpr Order kOrder = [] {
    Order o{};
    for (size_t i = 0; i < kGroups; ++i) o.lane[i] = int32_t(i < kGroups / 2 ? 2 * i : 2 * (i - kGroups / 2) + 1);
    return o;
  }();
  a = hn::Min(hn::Max(hn::Add(a, offset), lo), hi);
  b = hn::Min(hn::Max(hn::Add(b, offset), lo), hi);
  const auto bytes = hn::DemoteTo(d8, hn::ReorderDemote2To(d16, a, b));
  const auto grouped = hn::TableLookupLanes(hn::BitCast(d8_groups, bytes), hn::SetTableIndices(d8_groups, kOrder.lane));
  hn::StoreU(hn::BitCast(d8, grouped), d8, out);
}

#endif  // AVX2 or AVX3

}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
