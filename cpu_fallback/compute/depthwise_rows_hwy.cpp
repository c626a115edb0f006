// The int8 depthwise row of depthwise_s8.h below VNNI on x86-64 (AVX2, AVX-512BW), written once
// with Highway, one copy per target (hwy_targets.h). It needs channel multiplier 1 and
// input_offset in [-127, 128]: then (x + input_offset)·w fits int16 exactly (|x + off| <= 255,
// |w| <= 128), and a pixel's sums stay in registers across all its taps.
//
// L int16 lanes of channels per step (16 on AVX2, 32 on AVX3), two taps per VPMADDWD. Two taps'
// (x + offset) and w are interleaved per channel (InterleaveLower/Upper), and
// ReorderWidenMulAccumulate, VPMADDWD on x86, multiplies and adds both: x0·w0 + x1·w1 in one
// int32 lane, exact (|sum| <= 2·255·128). An odd last tap pairs with zeros. The interleaves work
// within 128-bit blocks, so block i of sums_a holds channels 8i..8i+3 and of sums_b 8i+4..8i+7;
// the channel order is restored once per block of channels, after the taps: ConcatLowerLower /
// ConcatUpperUpper on AVX2, plus a 128-bit block permutation on AVX3 (4 blocks).
//
// The taps are listed as offsets from the window's origin once per output row, and again only
// for the windows at the left and right edges, which lose columns: listing them for every pixel
// cost up to 2x on layers of few channels (32: one or two blocks per pixel).
//
// Whole blocks of L channels in the loop and the tail once after it, each with its own loads:
// a partial load in the loop is a memcpy on AVX2 (docs/simd-choice.md, "Code generation").
#include "compute/hwy_targets.h"

#include "compute/depthwise_s8.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/depthwise_rows_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

// The window's valid kernel taps [*k0, *k1) along one axis, for a window starting at `start`.
HWY_INLINE void valid_taps(int64_t start, int32_t kernel, int32_t dilation, int32_t size, int32_t* k0, int32_t* k1) {
  for (*k0 = 0; *k0 < kernel && start + int64_t(*k0) * dilation < 0; ++*k0) {}
  for (*k1 = kernel; *k1 > *k0 && start + int64_t(*k1 - 1) * dilation >= size; --*k1) {}
}

// Taps of a window as byte offsets: of the input pixel, from the window's origin (the input
// pixel at iy0, ix0 of its first tap, which may lie in the padding), and of the weight row.
struct WindowTaps {
  int64_t in[kDepthwiseRowTaps];
  int64_t w[kDepthwiseRowTaps];
  int count = 0;
};

// Kernel rows [ky0, ky1) and columns [kx0, kx1) as a list of taps.
HWY_INLINE void list_taps(const DepthwiseS8Params& p, int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1,
                          WindowTaps* taps) {
  const int64_t channels = p.in_ch;
  taps->count = 0;
  for (int32_t ky = ky0; ky < ky1; ++ky)
    for (int32_t kx = kx0; kx < kx1; ++kx, ++taps->count) {
      taps->in[taps->count] = (int64_t(ky) * p.dilation_h * p.in_w + int64_t(kx) * p.dilation_w) * channels;
      taps->w[taps->count] = (int64_t(ky) * p.kernel_w + kx) * channels;
    }
}

// LoadU / StoreU for a whole vector (kFull), else the first n lanes.
template <bool kFull, class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> Load(D d, const T* p, ptrdiff_t n) {
  if constexpr (kFull) return hn::LoadU(d, p);
  return LoadPartial(d, p, n);
}
template <bool kFull, class D, typename T = hn::TFromD<D>>
HWY_INLINE void Store(D d, hn::Vec<D> v, T* p, ptrdiff_t n) {
  if constexpr (kFull) return hn::StoreU(v, d, p);
  StorePartial(d, v, p, n);
}

// The output stage's constant vectors, and the requantize scales of the row's channel blocks
// (two per block of 2·L32 channels), derived once per row into `scales`; null where the
// channels are too many for the table (then per pixel).
template <class D32>
struct OutputConsts {
  hn::Vec<D32> offset, lo, hi;
  bool single_round = false;
  const RequantizeScales<D32>* scales = nullptr;
};
// Channels whose scales the row's table holds: 32 KiB of stack at either width.
constexpr int32_t kScaleTableChannels = 1024;

// Channels [c, c + 2·L32) of one pixel (kFull), or the last n < 2·L32 of them: the sums over the
// taps, plus the bias, stored as int32 or through the int8 output stage.
template <bool kFull, class D32>
HWY_INLINE void channel_block(D32 d32, const WindowTaps& taps, const int8_t* input, int64_t origin,
                              const int8_t* weight, int32_t c, ptrdiff_t n,
                              hn::Vec<hn::Repartition<int16_t, D32>> offset16, const int32_t* bias,
                              const DepthwiseS8Output& to, int64_t pixel, const OutputConsts<D32>& k) {
  using V32 = hn::Vec<D32>;
  const hn::Repartition<int16_t, D32> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const ptrdiff_t lanes32 = ptrdiff_t(hn::Lanes(d32));
  if constexpr (kFull) n = 2 * lanes32;
  const int8_t* in = input + c;  // + origin + taps.in[t]: within the input for every valid tap
  const int8_t* w = weight + c;
  V32 sums_a = hn::Zero(d32), sums_b = hn::Zero(d32);
  V32 unused_a = hn::Zero(d32), unused_b = hn::Zero(d32);  // ReorderWidenMulAccumulate's second sums (x86: none)
  int t = 0;
  for (; t + 1 < taps.count; t += 2) {
    const auto x0 = hn::Add(hn::PromoteTo(d16, Load<kFull>(d8, in + (origin + taps.in[t]), n)), offset16);
    const auto x1 = hn::Add(hn::PromoteTo(d16, Load<kFull>(d8, in + (origin + taps.in[t + 1]), n)), offset16);
    const auto w0 = hn::PromoteTo(d16, Load<kFull>(d8, w + taps.w[t], n));
    const auto w1 = hn::PromoteTo(d16, Load<kFull>(d8, w + taps.w[t + 1], n));
    sums_a = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, x0, x1), hn::InterleaveLower(d16, w0, w1),
                                           sums_a, unused_a);
    sums_b = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, x0, x1), hn::InterleaveUpper(d16, w0, w1),
                                           sums_b, unused_b);
  }
  if (t < taps.count) {
    const auto zero = hn::Zero(d16);
    const auto x0 = hn::Add(hn::PromoteTo(d16, Load<kFull>(d8, in + (origin + taps.in[t]), n)), offset16);
    const auto w0 = hn::PromoteTo(d16, Load<kFull>(d8, w + taps.w[t], n));
    sums_a = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, x0, zero), hn::InterleaveLower(d16, w0, zero),
                                           sums_a, unused_a);
    sums_b = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, x0, zero), hn::InterleaveUpper(d16, w0, zero),
                                           sums_b, unused_b);
  }
  // Channel order: block i of sums_a is a_i (channels 8i..8i+3), of sums_b b_i (8i+4..8i+7).
  // The lower halves give a0 b0 (AVX2: channels 0-7), the upper a1 b1 (8-15); on AVX3 they give
  // a0 a1 b0 b1 and a2 a3 b2 b3, whose middle blocks swap.
  V32 acc0 = hn::ConcatLowerLower(d32, sums_b, sums_a);
  V32 acc1 = hn::ConcatUpperUpper(d32, sums_b, sums_a);
#if HWY_TARGET == HWY_AVX3
  const hn::Repartition<uint64_t, D32> d64;
  alignas(64) static constexpr uint64_t kBlocks0213[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  const auto blocks = hn::SetTableIndices(d64, kBlocks0213);
  acc0 = hn::BitCast(d32, hn::TableLookupLanes(hn::BitCast(d64, acc0), blocks));
  acc1 = hn::BitCast(d32, hn::TableLookupLanes(hn::BitCast(d64, acc1), blocks));
#endif
  if (bias) {
    acc0 = hn::Add(acc0, Load<kFull>(d32, bias + c, n));
    acc1 = hn::Add(acc1, Load<kFull>(d32, bias + c + lanes32, n - lanes32));
  }
  if (to.s32) {
    Store<kFull>(d32, acc0, to.s32 + pixel + c, n);
    Store<kFull>(d32, acc1, to.s32 + pixel + c + lanes32, n - lanes32);
    return;
  }
  if (k.scales) {
    const RequantizeScales<D32>* block = k.scales + 2 * (c / (2 * lanes32));
    acc0 = Requantize(d32, acc0, block[0]);
    acc1 = Requantize(d32, acc1, block[1]);
  } else {
    acc0 = Requantize(d32, acc0, Load<kFull>(d32, to.multiplier + c, n), Load<kFull>(d32, to.shift + c, n),
                      k.single_round);
    acc1 = Requantize(d32, acc1, Load<kFull>(d32, to.multiplier + c + lanes32, n - lanes32),
                      Load<kFull>(d32, to.shift + c + lanes32, n - lanes32), k.single_round);
  }
  if constexpr (kFull) return StoreS8x2(d32, acc0, acc1, k.offset, k.lo, k.hi, to.s8 + pixel + c);
  StoreS8(d32, acc0, k.offset, k.lo, k.hi, to.s8 + pixel + c, n);
  StoreS8(d32, acc1, k.offset, k.lo, k.hi, to.s8 + pixel + c + lanes32, n - lanes32);
}

void depthwise_row_s8(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                      const int32_t* bias, const DepthwiseS8Output& to) {
  using D32 = hn::ScalableTag<int32_t>;
  const D32 d32;
  const hn::Repartition<int16_t, D32> d16;
  const int32_t lanes16 = int32_t(hn::Lanes(d16));
  const int32_t channels = p.in_ch;
  const auto offset16 = hn::Set(d16, int16_t(p.input_offset));
  OutputConsts<D32> k{hn::Set(d32, p.output_offset), hn::Set(d32, p.activation_min), hn::Set(d32, p.activation_max),
                      p.single_round};
  // The int8 output stage's scales, once for the row rather than once per pixel (8 of the 25
  // instructions of a vector's requantize on AVX2).
  RequantizeScales<D32> scales[2 * kScaleTableChannels / (2 * HWY_MAX_BYTES / 4)];
  if (to.s8 && channels <= kScaleTableChannels) {
    const int32_t lanes32 = lanes16 / 2;
    // Up to the end of the last block of 2·L32: a tail block reads both its entries.
    for (int32_t c = 0, i = 0; c < (channels + lanes16 - 1) / lanes16 * lanes16; c += lanes32, ++i) {
      const ptrdiff_t n = channels - c;
      scales[i] = MakeScales(d32, Load<false>(d32, to.multiplier + c, n), Load<false>(d32, to.shift + c, n), p.single_round);
    }
    k.scales = scales;
  }
  const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
  int32_t ky0, ky1;
  valid_taps(iy0, p.kernel_h, p.dilation_h, p.in_h, &ky0, &ky1);
  // The taps of a window with all its columns inside the input, listed once for the row; a
  // window at the left or right edge lists its own.
  WindowTaps row_taps, edge_taps;
  list_taps(p, ky0, ky1, 0, p.kernel_w, &row_taps);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    valid_taps(ix0, p.kernel_w, p.dilation_w, p.in_w, &kx0, &kx1);
    const WindowTaps* taps = &row_taps;
    if (kx0 != 0 || kx1 != p.kernel_w) {
      list_taps(p, ky0, ky1, kx0, kx1, &edge_taps);
      taps = &edge_taps;
    }
    const int64_t origin = ((b * p.in_h + iy0) * p.in_w + ix0) * channels;
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
    int32_t c = 0;
    for (; c + lanes16 <= channels; c += lanes16)
      channel_block<true>(d32, *taps, input, origin, weight, c, lanes16, offset16, bias, to, pixel, k);
    if (c < channels)
      channel_block<false>(d32, *taps, input, origin, weight, c, channels - c, offset16, bias, to, pixel, k);
  }
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
