// The int8 depthwise rows of depthwise_s8.h below VNNI on x86-64 (AVX2, AVX-512BW), written once
// with Highway, one copy per target (hwy_targets.h). It needs channel multiplier 1 and
// input_offset in [-127, 128]: then (x + input_offset)·w fits int16 exactly (|x + off| <= 255,
// |w| <= 128), and a pixel's sums stay in registers across all its taps.
//
// L int16 lanes of channels per step (16 on AVX2, 32 on AVX3), two taps per VPMADDWD. Two taps'
// (x + offset) are interleaved per channel (InterleaveLower/Upper) and ReorderWidenMulAccumulate,
// VPMADDWD on x86, multiplies them by the two taps' weights and adds both: x0·w0 + x1·w1 in one
// int32 lane, exact (|sum| <= 2·255·128). The interleaves work within 128-bit blocks, so block i
// of sums_a holds channels 8i..8i+3 and of sums_b 8i+4..8i+7; the channel order is restored once
// per block of channels, after the taps: ConcatLowerLower / ConcatUpperUpper on AVX2, plus a
// 128-bit block permutation on AVX3 (4 blocks).
//
// Prepared once per call (a chunk of output rows, or of channel blocks), not per pixel:
//   - the weights, widened to int16 and interleaved by tap pairs in the order the inputs are
//     (pack_weights): a pixel's weights are then plain loads. Widening and interleaving them per
//     pixel took half the shuffles of the loop, and shuffles (one port on Intel) bound it;
//   - a row of padding, −input_offset in every channel, so that (x + offset) is 0 there: a tap
//     outside the input reads it. Every window then runs every tap of the kernel (as XNNPACK's
//     indirection buffer does), and the pairs, hence the packed weights, are the same for every
//     pixel. The second tap of an odd count has weights 0 and reads any valid pixel;
//   - the int8 output stage's scales per block of channels.
//
// Channel blocks: whole blocks of L from channel 0, then, where L does not divide the channels,
// one more whole block ending at the last channel. It overlaps the one before and writes some
// channels twice, with the same values: a partial load is a copy through the stack on AVX2
// (docs/simd-choice.md, "Code generation") and cost up to 1.5x on layers such as 276 channels.
// Only layers of fewer than L channels take partial loads.
//
// The 3x3 kernels' five pairs are a compile-time count (the loop unrolled): 1.1-1.2x on
// MobileNetV2's layers, one thread, AVX2 and AVX-512BW alike (docs/simd-choice.md).
#include "compute/hwy_targets.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "compute/depthwise_s8.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/depthwise_rows_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

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

// The layer's channel blocks of L int16 lanes: block i starts at channel i·L, except a last
// block that overlaps the one before (see the top of the file).
struct ChannelBlocks {
  int32_t lanes = 0, count = 0, channels = 0;
  int32_t start(int32_t i) const { return channels >= lanes ? std::min(i * lanes, channels - lanes) : 0; }
  // Channels the block computes: L, or all of them where the layer has fewer than L.
  int32_t width() const { return std::min(lanes, channels); }
};

// The weights of every tap pair and channel block in [first, last) as the loop reads them: for
// block i and pair j (taps 2j, 2j + 1; a missing second tap has weight 0), InterleaveLower then
// InterleaveUpper of the two taps' int16 weights, L lanes each.
template <class D16>
std::vector<int16_t> pack_weights(D16 d16, const DepthwiseS8Params& p, const ChannelBlocks& blocks, int32_t first,
                                  int32_t last, int pairs, const int8_t* weight) {
  const hn::Rebind<int8_t, D16> d8;
  const int32_t taps = p.kernel_h * p.kernel_w, lanes = blocks.lanes;
  std::vector<int16_t> packed(size_t(last - first) * size_t(pairs) * 2 * size_t(lanes));
  int16_t* to = packed.data();
  for (int32_t i = first; i < last; ++i) {
    const int32_t c = blocks.start(i);
    for (int j = 0; j < pairs; ++j, to += 2 * lanes) {
      const auto w0 = hn::PromoteTo(d16, LoadPartial(d8, weight + int64_t(2 * j) * p.in_ch + c, blocks.width()));
      const auto w1 = 2 * j + 1 < taps
                          ? hn::PromoteTo(d16, LoadPartial(d8, weight + int64_t(2 * j + 1) * p.in_ch + c, blocks.width()))
                          : hn::Zero(d16);
      hn::StoreU(hn::InterleaveLower(d16, w0, w1), d16, to);
      hn::StoreU(hn::InterleaveUpper(d16, w0, w1), d16, to + lanes);
    }
  }
  return packed;
}

// The output stage's constant vectors, and the requantize scales of each channel block (two per
// block, from the call's first block), derived once per call.
template <class D32>
struct OutputConsts {
  hn::Vec<D32> offset, lo, hi;
  const RequantizeScales<D32>* scales = nullptr;
};

// Where a window's taps read: a window inside the input reads origin + offset[t] (the offsets
// are the same for every such window: no per-pixel list); one at an edge reads the list x[t],
// whose taps outside the input point at the padding row.
struct WindowTaps {
  const int8_t* origin = nullptr;
  const int64_t* offset = nullptr;
  const int8_t* const* x = nullptr;
};
template <bool kInside>
HWY_INLINE const int8_t* tap(const WindowTaps& taps, int t) {
  if constexpr (kInside) return taps.origin + taps.offset[t];
  return taps.x[t];
}

// One channel block of one pixel: the sums over the taps (tap(t) + c: tap t's input or the
// padding row), plus the bias, stored as int32 or through the int8 output stage. Whole blocks
// (kFull), or the first n < L channels of a layer that has fewer.
template <bool kFull, bool kInside, int kPairs, class D32>
HWY_INLINE void channel_block(D32 d32, const WindowTaps& taps, int pairs, const int16_t* w, int32_t c,
                              int32_t block, ptrdiff_t n, hn::Vec<hn::Repartition<int16_t, D32>> offset16,
                              const int32_t* bias, const DepthwiseS8Output& to, int64_t pixel,
                              const OutputConsts<D32>& k) {
  using V32 = hn::Vec<D32>;
  const hn::Repartition<int16_t, D32> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const ptrdiff_t lanes32 = ptrdiff_t(hn::Lanes(d32)), lanes16 = 2 * lanes32;
  if constexpr (kFull) n = lanes16;
  V32 sums_a = hn::Zero(d32), sums_b = hn::Zero(d32);
  V32 unused_a = hn::Zero(d32), unused_b = hn::Zero(d32);  // ReorderWidenMulAccumulate's second sums (x86: none)
  if constexpr (kPairs > 0) pairs = kPairs;
  for (int j = 0; j < pairs; ++j, w += 2 * lanes16) {
    const auto x0 = hn::Add(hn::PromoteTo(d16, Load<kFull>(d8, tap<kInside>(taps, 2 * j) + c, n)), offset16);
    const auto x1 = hn::Add(hn::PromoteTo(d16, Load<kFull>(d8, tap<kInside>(taps, 2 * j + 1) + c, n)), offset16);
    sums_a = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, x0, x1), hn::LoadU(d16, w), sums_a, unused_a);
    sums_b = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, x0, x1), hn::LoadU(d16, w + lanes16), sums_b,
                                           unused_b);
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
  acc0 = Requantize(d32, acc0, k.scales[2 * block]);  // block: counted from the call's first
  acc1 = Requantize(d32, acc1, k.scales[2 * block + 1]);
  if constexpr (kFull) return StoreS8x2(d32, acc0, acc1, k.offset, k.lo, k.hi, to.s8 + pixel + c);
  StoreS8(d32, acc0, k.offset, k.lo, k.hi, to.s8 + pixel + c, n);
  StoreS8(d32, acc1, k.offset, k.lo, k.hi, to.s8 + pixel + c + lanes32, n - lanes32);
}

void depthwise_rows_s8(const DepthwiseS8Params& p, int64_t first_row, int64_t last_row, int part, int parts,
                       const int8_t* input, const int8_t* weight, const int32_t* bias, const DepthwiseS8Output& to) {
  using D32 = hn::ScalableTag<int32_t>;
  const D32 d32;
  const hn::Repartition<int16_t, D32> d16;
  const int32_t channels = p.in_ch, taps = p.kernel_h * p.kernel_w, pairs = (taps + 1) / 2;
  const int32_t lanes16 = int32_t(hn::Lanes(d16)), lanes32 = lanes16 / 2;
  const ChannelBlocks blocks{lanes16, (channels + lanes16 - 1) / lanes16, channels};
  // This part's blocks: [first_block, last_block), whole blocks, possibly none. Each part packs
  // and derives only its own (a split by rows repeats that for every part). A last block that
  // overlaps the one before stays in that block's part: two threads would write its shared
  // channels at once.
  const bool last_overlaps = channels % lanes16 != 0 && blocks.count >= 2;
  auto boundary = [&](int q) {
    const int32_t b = int32_t(int64_t(blocks.count) * q / parts);
    return last_overlaps && b == blocks.count - 1 ? b - 1 : b;
  };
  const int32_t first_block = boundary(part), last_block = boundary(part + 1);
  if (first_block >= last_block) return;
  const std::vector<int16_t> packed = pack_weights(d16, p, blocks, first_block, last_block, pairs, weight);
  const std::vector<int8_t> padding(size_t(channels), int8_t(-p.input_offset));
  const auto offset16 = hn::Set(d16, int16_t(p.input_offset));
  OutputConsts<D32> k{hn::Set(d32, p.output_offset), hn::Set(d32, p.activation_min), hn::Set(d32, p.activation_max)};
  // The int8 output stage's scales, once for the call rather than once per pixel (MakeScales is
  // about 20 instructions per vector on AVX2 where it folds the double rounding into one divide,
  // beside Requantize's 10). On the heap: 384 bytes per 8 channels on AVX2, too much for a
  // thread's stack at MobileNetV2's widths.
  std::unique_ptr<RequantizeScales<D32>[]> scales;
  if (to.s8) {
    scales.reset(new RequantizeScales<D32>[2 * size_t(last_block - first_block)]);
    for (int32_t i = first_block; i < last_block; ++i) {
      const int32_t c = blocks.start(i);
      for (int half = 0; half < 2; ++half) {
        const int32_t ch = c + half * lanes32;
        const ptrdiff_t n = blocks.width() - half * lanes32;
        scales[2 * (i - first_block) + half] = MakeScales(d32, LoadPartialRepeatLast(d32, to.multiplier + ch, n),
                                                          LoadPartialRepeatLast(d32, to.shift + ch, n), p.single_round);
      }
    }
    k.scales = scales.get();
  }
  // Each tap's input pixel as a byte offset from the window's origin (its first tap's pixel);
  // the odd count's second tap reads the padding row (an edge window's list) or the origin
  // (a window inside; its weights are 0).
  int64_t tap_offset[kDepthwiseRowTaps + 1];
  for (int32_t ky = 0, t = 0; ky < p.kernel_h; ++ky)
    for (int32_t kx = 0; kx < p.kernel_w; ++kx, ++t)
      tap_offset[t] = (int64_t(ky) * p.dilation_h * p.in_w + int64_t(kx) * p.dilation_w) * channels;
  tap_offset[taps] = 0;
  const int8_t* edge_x[kDepthwiseRowTaps + 1];
  edge_x[taps] = padding.data();
  // The pixel's channel blocks, its window inside the input or not.
  auto pixel_blocks = [&](auto inside, const WindowTaps& window, int64_t pixel) HWY_ATTR {
    constexpr bool kInside = decltype(inside)::value;
    const int16_t* w = packed.data();
    if (channels < lanes16)
      return channel_block<false, kInside, 0>(d32, window, pairs, w, 0, 0, channels, offset16, bias, to, pixel, k);
    if (pairs == 5) {
      for (int32_t i = first_block; i < last_block; ++i, w += 2 * 5 * lanes16)
        channel_block<true, kInside, 5>(d32, window, 5, w, blocks.start(i), i - first_block, lanes16, offset16, bias, to,
                                        pixel, k);
      return;
    }
    for (int32_t i = first_block; i < last_block; ++i, w += 2 * pairs * lanes16)
      channel_block<true, kInside, 0>(d32, window, pairs, w, blocks.start(i), i - first_block, lanes16, offset16, bias,
                                      to, pixel, k);
  };
  for (int64_t row = first_row; row < last_row; ++row) {
    const int64_t b = row / p.out_h, oy = row % p.out_h;
    const int64_t iy0 = oy * p.stride_h - p.pad_h;
    const bool rows_inside = iy0 >= 0 && iy0 + int64_t(p.kernel_h - 1) * p.dilation_h < p.in_h;
    for (int32_t ox = 0; ox < p.out_w; ++ox) {
      const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
      const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
      if (rows_inside && ix0 >= 0 && ix0 + int64_t(p.kernel_w - 1) * p.dilation_w < p.in_w) {
        const WindowTaps window{input + ((b * p.in_h + iy0) * p.in_w + ix0) * channels, tap_offset, nullptr};
        pixel_blocks(std::true_type{}, window, pixel);
        continue;
      }
      // The window crosses the input's edge: its taps outside read the padding row.
      for (int32_t ky = 0, t = 0; ky < p.kernel_h; ++ky) {
        const int64_t iy = iy0 + int64_t(ky) * p.dilation_h;
        for (int32_t kx = 0; kx < p.kernel_w; ++kx, ++t) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          edge_x[t] = iy >= 0 && iy < p.in_h && ix >= 0 && ix < p.in_w
                          ? input + ((b * p.in_h + iy) * p.in_w + ix) * channels
                          : padding.data();
        }
      }
      pixel_blocks(std::false_type{}, WindowTaps{nullptr, nullptr, edge_x}, pixel);
    }
  }
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
