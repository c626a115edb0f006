// The CMSIS-NN output stage on Highway vectors of int32 (cortex-m-ops.md §3): the shared part of
// the *_hwy.cpp kernels (hwy_targets.h). Included once per target from inside their
// foreach_target passes, hence the per-target include guard (Highway's -inl.h convention).
//
// The arithmetic is requantize_value (requantize_row.h), bit for bit. Double rounding
// (arith::requantize): RDBPOT(SRDHM_no_sat(v << left, m), right), left = clamp(shift, 0, 31),
// right = clamp(-shift, 0, 31). Single rounding (TOSA's, shifts -31..-1):
// ⌊(v·m + 2^(30+right)) / 2^(31+right)⌋. Both are taken in one divide from the 64-bit sums' high
// words where they can be (Requantize; the double rounding's derivation is at MakeScales).
// The 32x32→64 products come from MulEven; Highway 1.0.3 has no MulOdd for int32, so the odd
// lanes are shifted down first.
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

// Copies 1 <= bytes <= 64 bytes as two fixed-size moves that overlap where bytes is not a power
// of two: a few instructions, where GCC 12 made a memcpy of a variable size a byte loop. Up to
// 64: the fuzzers' clang build (ASan) compiles the partial loads and stores below with
// HWY_MAX_BYTES = 64; GCC builds reach at most 32.
HWY_INLINE void CopyUpTo64(void* to, const void* from, size_t bytes) {
  auto* dst = static_cast<uint8_t*>(to);
  const auto* src = static_cast<const uint8_t*>(from);
  auto two_moves = [&](auto word) {
    std::memcpy(&word, src, sizeof(word));
    std::memcpy(dst, &word, sizeof(word));
    std::memcpy(&word, src + bytes - sizeof(word), sizeof(word));
    std::memcpy(dst + bytes - sizeof(word), &word, sizeof(word));
  };
  struct Bytes16 {
    uint64_t words[2];
  };
  struct Bytes32 {
    uint64_t words[4];
  };
  if (bytes >= 32)
    two_moves(Bytes32{});
  else if (bytes >= 16)
    two_moves(Bytes16{});
  else if (bytes >= 8)
    two_moves(uint64_t{0});
  else if (bytes >= 4)
    two_moves(uint32_t{0});
  else if (bytes >= 2)
    two_moves(uint16_t{0});
  else
    *dst = *src;
}

// The first n lanes at p (the rest zero) without reading past them: a masked load on AVX3 (it
// cannot fault), a copy through the stack on AVX2 (no byte-masked load there).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadPartial(D d, const T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d))) return hn::LoadU(d, p);
  if (n <= 0) return hn::Zero(d);
#if HWY_MEM_OPS_MIGHT_FAULT
  HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)] = {};
  static_assert(HWY_MAX_BYTES <= 64, "CopyUpTo64 covers a vector of at most 64 bytes");
  CopyUpTo64(tmp, p, size_t(n) * sizeof(T));
  return hn::Load(d, tmp);
#else
  return hn::MaskedLoad(hn::FirstN(d, size_t(n)), d, p);
#endif
}

// The first n lanes at p, the rest repeating p[n − 1] (zero where n <= 0): a channel tail's
// output scales, whose padding lanes must not turn the one-divide fold off for the vector
// (MakeScales chooses the form from all lanes; a zero shift has no right shift).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadPartialRepeatLast(D d, const T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d)) || n <= 0) return LoadPartial(d, p, n);
  return hn::IfThenElse(hn::FirstN(d, size_t(n)), LoadPartial(d, p, n), hn::Set(d, p[n - 1]));
}

// The first 1 <= bytes < 16 bytes of v, a vector of at most 16 bytes (the int8 outputs), stored
// from two general registers by overlapping moves. Through the stack instead, the second move's
// reload starts inside the vector's store, which Intel cores do not forward: a stall of about a
// dozen cycles, a quarter of the tile store's samples in DS-CNN's 64→12 classifier (61 → 58 ns a
// call at avx2 once gone, Intel Xeon).
template <class D>
HWY_INLINE void StoreBytesFromRegisters(D d, hn::Vec<D> v, void* to, size_t bytes) {
  const hn::Repartition<uint64_t, D> du64;  // 1 or 2 lanes
  const auto words = hn::BitCast(du64, v);
  const uint64_t lo = hn::GetLane(words);
  uint64_t hi = 0;
  if constexpr (hn::MaxLanes(du64) > 1) hi = hn::ExtractLane(words, 1);
  auto* dst = static_cast<uint8_t*>(to);
  auto put = [dst](auto word, size_t at) { std::memcpy(dst + at, &word, sizeof(word)); };
  // Little-endian: byte i of the vector is bits 8i.. of lo (i < 8) or of hi.
  if (bytes >= 8) {
    put(lo, 0);
    if (bytes > 8) put((lo >> (8 * (bytes - 8))) | (hi << (8 * (16 - bytes))), bytes - 8);
  } else if (bytes >= 4) {
    put(uint32_t(lo), 0);
    put(uint32_t(lo >> (8 * (bytes - 4))), bytes - 4);
  } else if (bytes >= 2) {
    put(uint16_t(lo), 0);
    put(uint16_t(lo >> (8 * (bytes - 2))), bytes - 2);
  } else {
    put(uint8_t(lo), 0);
  }
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
  if constexpr (hn::MaxLanes(d) * sizeof(T) <= 16) {
    StoreBytesFromRegisters(d, v, p, size_t(n) * sizeof(T));
  } else {
    HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(v, d, tmp);
    static_assert(HWY_MAX_BYTES <= 64, "CopyUpTo64 covers a vector of at most 64 bytes");
    CopyUpTo64(p, tmp, size_t(n) * sizeof(T));
  }
#else
  hn::BlendedStore(v, hn::FirstN(d, size_t(n)), d, p);
#endif
}

// What arith::requantize derives from each lane's multiplier and CMSIS shift, derived once per
// vector of columns: a GEMM tile applies the same columns to all its rows, so deriving them per
// row is wasted on all but the first. Only the chosen form's members are derived.
template <class D>
struct RequantizeScales {
  hn::Vec<D> mult, mult_odd;  // the multipliers; the odd lanes' moved down for MulEven
  // The one-divide form (Requantize): the terms added to the even and the odd lanes' 64-bit
  // products (the double rounding's chosen by the product's sign: *_negative where it is
  // negative), and right − 1, the shift of the sums' high words.
  hn::Vec<hn::Repartition<int64_t, D>> round_even, round_odd, round_even_negative, round_odd_negative;
  hn::Vec<D> high_shift;
  // The two-step form (double rounding where the one divide does not hold): clamp(shift, 0, 31),
  // clamp(-shift, 0, 31), and 2^right − 1 and its half, the rounding divide's remainder bits.
  hn::Vec<D> left, right, mask, half;
  bool single_round = false;
  bool one_divide = false;
};

// The double rounding in one divide. With P = (v << left)·m and x = SRDHM_no_sat = ⌊(P + 2^30) /
// 2^31⌋, RDBPOT(x, right) for right >= 1 is ⌊(x + 2^(right−1) − [x < 0]) / 2^right⌋, and nested
// floors fold (⌊(⌊a/b⌋ + k)/c⌋ = ⌊(a + k·b)/(b·c)⌋), so the result is
//   ⌊(P + 2^30 + 2^(30+right) − [P + 2^30 < 0]·2^31) / 2^(31+right)⌋,
// x < 0 being P + 2^30 < 0. P < 0 may stand for that: the two differ only for −2^30 <= P < 0,
// where either sum lies in [0, 2^(31+right)) and the result is 0. So the product's sign bit
// chooses the term. The sum stays below 2^63, so its high word shifted right by right − 1 is the
// result, as for the single rounding (depthwise_vnni.cpp folds the same two roundings with
// AVX-512's 64-bit shifts). It does not hold where right is 0 (no second rounding; left may be
// nonzero) or m is INT32_MIN: P = 2^62 there for v = INT32_MIN, and SRDHM's int32 result wraps,
// which the one divide would not. A vector with such a lane keeps the two steps.
//
// Deriving the one divide's terms and checking the lanes costs about what one Requantize saves,
// so scales used for one vector only (fold_double = false) keep the double rounding's two steps.
template <class D>
HWY_INLINE RequantizeScales<D> MakeScales(D d, hn::Vec<D> mult, hn::Vec<D> shift, bool single_round,
                                          bool fold_double = true) {
  using V = hn::Vec<D>;
  const hn::Repartition<int64_t, D> d64;
  const V zero = hn::Zero(d), max_shift = hn::Set(d, 31), one = hn::Set(d, 1);
  RequantizeScales<D> s;
  s.mult = mult;
  s.mult_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(hn::Repartition<uint64_t, D>(), mult)));  // logical
  s.single_round = single_round;
  V right = hn::Min(hn::Max(hn::Sub(zero, shift), zero), max_shift);
  s.one_divide = single_round ||
                 (fold_double && hn::AllFalse(d, hn::Or(hn::Eq(right, zero), hn::Eq(mult, hn::Set(d, INT32_MIN)))));
  if (s.one_divide) {
    // Single rounding: ⌊(v·m + 2^(30+right)) / 2^(31+right)⌋ for shifts −31..−1
    // (RequantizeRow::single_round); the max keeps other shifts harmless (their results are not
    // defined). Double rounding: 2^30 + 2^(30+right), less 2^31 where P < 0.
    if (single_round) right = hn::Max(right, one);
    const hn::Repartition<uint64_t, D> du64;  // logical shifts: AVX2 has no 64-bit arithmetic one
    const auto right64 = hn::BitCast(du64, right);
    const auto base = hn::Set(du64, uint64_t{1} << 30);
    const auto extra = hn::BitCast(d64, single_round ? hn::Zero(du64) : base);
    s.round_even = hn::Add(extra, hn::BitCast(d64, hn::Shl(base, hn::And(right64, hn::Set(du64, 0xFFFFFFFFu)))));
    s.round_odd = hn::Add(extra, hn::BitCast(d64, hn::Shl(base, hn::ShiftRight<32>(right64))));
    const auto carry = hn::Set(d64, int64_t{1} << 31);
    s.round_even_negative = hn::Sub(s.round_even, carry);
    s.round_odd_negative = hn::Sub(s.round_odd, carry);
    s.high_shift = hn::Sub(right, one);
    s.left = s.right = s.mask = s.half = zero;
  } else {
    s.round_even = s.round_odd = s.round_even_negative = s.round_odd_negative = hn::Zero(d64);
    s.high_shift = zero;
    s.left = hn::Min(hn::Max(shift, zero), max_shift);
    s.right = right;
    s.mask = hn::Sub(one << right, one);
    s.half = hn::ShiftRight<1>(s.mask);
  }
  return s;
}

// requantize_value on int32 lanes with their columns' scales.
template <class D>
HWY_INLINE hn::Vec<D> Requantize(D d, hn::Vec<D> v, const RequantizeScales<D>& s) {
  using V = hn::Vec<D>;
  const hn::Repartition<uint64_t, D> du64;
  const hn::Repartition<int64_t, D> d64;
  if (s.one_divide) {
    // The high word of the 64-bit sum (below 2^63: |v·m| <= 2^62) shifted right by right − 1.
    // On AVX2: 8 instructions for the single rounding, 10 for the double (its terms chosen by a
    // blend on the products' sign bits), where the two steps below take 17.
    const auto even_product = hn::BitCast(d64, hn::MulEven(v, s.mult));
    const V v_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
    const auto odd_product = hn::BitCast(d64, hn::MulEven(v_odd, s.mult_odd));
    hn::Vec<decltype(d64)> even, odd;
    if (s.single_round) {
      even = hn::Add(even_product, s.round_even);
      odd = hn::Add(odd_product, s.round_odd);
    } else {
      even = hn::Add(even_product, hn::IfNegativeThenElse(even_product, s.round_even_negative, s.round_even));
      odd = hn::Add(odd_product, hn::IfNegativeThenElse(odd_product, s.round_odd_negative, s.round_odd));
    }
    // The high words: the even sums' moved down into the even lanes, the odd ones' in place.
    const V high = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, even))));
    return high >> s.high_shift;
  }
  // The double rounding's two steps. SRDHM without saturation: (i64(a)·b + 2^30) >> 31, low 32
  // bits. A logical shift gives the same low bits as an arithmetic one, and AVX2 has no 64-bit
  // arithmetic shift.
  v = v << s.left;
  const auto srdhm_round = hn::Set(du64, uint64_t{1} << 30);
  const auto even = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v, s.mult)), srdhm_round));
  const V v_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
  const auto odd = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v_odd, s.mult_odd)), srdhm_round));
  const V x = hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(odd)), hn::BitCast(d, even));
  // Rounding divide by 2^right, ties away from zero: threshold = half + (x < 0).
  const V remainder = hn::And(x, s.mask);
  const V quotient = x >> s.right;
  const V threshold = hn::Sub(s.half, hn::ShiftRight<31>(quotient));
  return hn::Sub(quotient, hn::VecFromMask(d, remainder > threshold));
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
// small-k GEMMs (docs/simd-choice.md). kClamp = false leaves the clamp to the packs' saturation,
// which is the same for bounds of [-128, 127] (lo and hi are then not read). n < 2L stores the
// first n bytes only.
template <bool kClamp = true, class D>
HWY_INLINE void StoreS8x2(D /*d*/, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> offset, hn::Vec<D> lo, hn::Vec<D> hi,
                          int8_t* out, ptrdiff_t n = ptrdiff_t(2 * hn::Lanes(D()))) {
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
  a = hn::Add(a, offset);
  b = hn::Add(b, offset);
  if constexpr (kClamp) {
    a = hn::Min(hn::Max(a, lo), hi);
    b = hn::Min(hn::Max(b, lo), hi);
  }
  const auto bytes = hn::DemoteTo(d8, hn::ReorderDemote2To(d16, a, b));
  const auto grouped = hn::TableLookupLanes(hn::BitCast(d8_groups, bytes), hn::SetTableIndices(d8_groups, kOrder.lane));
  StorePartial(d8, hn::BitCast(d8, grouped), out, n);
}

#endif  // AVX2 or AVX3

}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
