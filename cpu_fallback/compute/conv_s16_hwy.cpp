// The A16W8 convolutions' sums (conv_s16.h) on Highway vectors, one copy per target
// (hwy_targets.h).
//
// Convolution: R rows of A (int16 activations, im2col'd or straight from the input) by C rows
// of weights (int8, widened as they are loaded, less their zero point), the depth padded to
// whole vectors by the caller (conv_s16.cpp). VPMADDWD
// (ReorderWidenMulAccumulate) multiplies L int16 depths of a row by the same depths of a weight
// row and adds neighbouring pairs into L/2 int32 lanes; each lane takes at most kS16Int32Pairs
// pairs (|pair| <= 2·32768·255) before it is widened and added into int64 lanes, and the row's
// int64 lanes are summed at the end. A tile is 4 rows × 2 weight rows on AVX2 (8 accumulators),
// 4 × 4 on AVX3; tiles of one or two rows take twice the weight rows, so that enough chains of
// VPMADDWD are in flight (a fully connected layer's single row).
//
// Depthwise (ch_mult 1), kernels of up to 64 taps: two taps a VPMADDWD. The weights of a block of
// channels are packed once a call with each tap pair interleaved (depthwise_s16_pack_pairs); a
// pixel's two taps' activations are interleaved to match, every tap read (a zero row for those in
// the padding), and the lanes' channel order restored when the sums are stored. Larger kernels,
// and the channels past the last whole vector: whole vectors of channels, each tap's activations
// and weights widened to int32 and multiplied (VPMULLD), four vectors a pass for independent
// chains; int32 lanes sum at most 256 taps (|x·w| <= 32768·255) before they are added into int64.
//
// Output stages: the definitions in conv_s16.cpp (finish_pixel_scalar) lane by lane in 64-bit
// lanes, and where a call's bounds allow (S16StageFacts) two vectors' low halves narrowed into
// one int32 vector for the rounding, zero point, clamp and int16 store.
#include "compute/hwy_targets.h"

#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "compute/conv_s16.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/conv_s16_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

// Weight rows a tile of many rows takes.
constexpr int kConvCols = HWY_MAX_BYTES >= 64 ? 4 : 2;

// sums[r·stride + q] for rows r < R of A and weight rows q < C (at b + q·b_stride); k a whole
// number of vectors.
template <int R, int C>
HWY_NOINLINE void conv_tile(const int16_t* const* a, const int8_t* b, int64_t b_stride, int32_t k, int32_t zp,
                            int64_t* sums, int64_t stride) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  const hn::Half<decltype(d32)> dh32;
  const hn::Repartition<int64_t, decltype(d16)> d64;
  using V16 = hn::Vec<decltype(d16)>;
  using V32 = hn::Vec<decltype(d32)>;
  using V64 = hn::Vec<decltype(d64)>;
  const int32_t lanes = int32_t(hn::Lanes(d16));
  const V16 zero_point = hn::Set(d16, int16_t(zp));
  V64 total[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int q = 0; q < C; ++q) total[r][q] = hn::Zero(d64);

  const int64_t chunk = int64_t(kS16Int32Pairs) * lanes;  // depths an int32 lane may take
  for (int32_t k0 = 0; k0 < k; k0 = int32_t(std::min<int64_t>(k, k0 + chunk))) {
    const int32_t k1 = int32_t(std::min<int64_t>(k, k0 + chunk));
    V32 acc[R][C], odd[R][C];  // odd: ReorderWidenMulAccumulate's second sums (unused on x86)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int q = 0; q < C; ++q) acc[r][q] = odd[r][q] = hn::Zero(d32);
    for (int32_t i = k0; i < k1; i += lanes) {
      V16 w[C];
#pragma GCC unroll 8
      for (int q = 0; q < C; ++q) w[q] = hn::Sub(hn::PromoteTo(d16, hn::LoadU(d8, b + q * b_stride + i)), zero_point);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const V16 x = hn::LoadU(d16, a[r] + i);
#pragma GCC unroll 8
        for (int q = 0; q < C; ++q) acc[r][q] = hn::ReorderWidenMulAccumulate(d32, x, w[q], acc[r][q], odd[r][q]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int q = 0; q < C; ++q) {
        const V32 s = hn::RearrangeToOddPlusEven(acc[r][q], odd[r][q]);
        total[r][q] = hn::Add(total[r][q], hn::Add(hn::PromoteTo(d64, hn::LowerHalf(dh32, s)),
                                                   hn::PromoteTo(d64, hn::UpperHalf(dh32, s))));
      }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int q = 0; q < C; ++q) sums[r * stride + q] = hn::GetLane(hn::SumOfLanes(d64, total[r][q]));
}

// Columns [0, n) of `rows` (1 <= rows <= R) rows: tiles of C weight rows, then single ones.
template <int R, int C>
void conv_rows(int rows, const int16_t* const* a, const int8_t* b, int64_t b_stride, int32_t n, int32_t k, int32_t zp,
               int64_t* sums, int64_t stride) {
  if (rows < R) {
    if constexpr (R > 1) {
      constexpr int kNext = R - 1 <= 2 ? 2 * kConvCols : kConvCols;
      return conv_rows<R - 1, kNext>(rows, a, b, b_stride, n, k, zp, sums, stride);
    }
  }
  int32_t j = 0;
  for (; j + C <= n; j += C) conv_tile<R, C>(a, b + j * b_stride, b_stride, k, zp, sums + j, stride);
  for (; j < n; ++j) conv_tile<R, 1>(a, b + j * b_stride, b_stride, k, zp, sums + j, stride);
}

void conv_s16_sums(const int16_t* const* a, int rows, const int8_t* b, int64_t b_stride, int32_t n, int32_t k,
                   int32_t b_zero_point, int64_t* sums, int64_t sums_stride) {
  static_assert(detail::kConvS16Rows == 4, "conv_rows starts at 4 rows");
  static_assert(detail::kConvS16DepthAlign % (HWY_MAX_BYTES / 2) == 0, "depths pad to whole vectors");
  conv_rows<4, kConvCols>(rows, a, b, b_stride, n, k, b_zero_point, sums, sums_stride);
}

// The panel form: weights packed as panels of 16 columns, [kp/2][16][2] int16 (w − zero point,
// conv_s16.cpp), each depth pair of a row broadcast against a panel's pairs: every int32 lane is
// one output channel, so there is nothing to sum across lanes at the end. sums[r·stride + c] for
// rows r < R and the panel's 16 columns (its padding columns too).
template <int R>
HWY_NOINLINE void panel_tile(const int16_t* const* a, const int16_t* panel, int32_t kp, int64_t* sums, int64_t stride) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const hn::Half<decltype(d32)> dh32;
  const hn::Repartition<int64_t, decltype(d32)> d64;
  using V32 = hn::Vec<decltype(d32)>;
  constexpr int V = 64 / HWY_MAX_BYTES;  // vectors of int32 lanes in 16 columns: 2 on AVX2, 1 on AVX3
  const int32_t lanes = int32_t(hn::Lanes(d32)), half = lanes / 2;
  constexpr int32_t kChunk = 2 * kS16Int32Pairs;  // depths an int32 lane may take
  for (int32_t k0 = 0; k0 < kp; k0 += kChunk) {
    const int32_t k1 = std::min(kp, k0 + kChunk);
    V32 acc[R][V], odd[R][V];  // odd: ReorderWidenMulAccumulate's second sums (unused on x86)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = odd[r][v] = hn::Zero(d32);
    for (int32_t i = k0; i < k1; i += 2) {
      hn::Vec<decltype(d16)> w[V];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) w[v] = hn::LoadU(d16, panel + int64_t(i) * 16 + v * 2 * lanes);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        int32_t pair;
        std::memcpy(&pair, a[r] + i, sizeof(pair));
        const auto x = hn::BitCast(d16, hn::Set(d32, pair));
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) acc[r][v] = hn::ReorderWidenMulAccumulate(d32, x, w[v], acc[r][v], odd[r][v]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        const V32 s = hn::RearrangeToOddPlusEven(acc[r][v], odd[r][v]);
        auto low = hn::PromoteTo(d64, hn::LowerHalf(dh32, s)), high = hn::PromoteTo(d64, hn::UpperHalf(dh32, s));
        int64_t* to = sums + r * stride + v * lanes;
        if (k0 > 0) low = hn::Add(low, hn::LoadU(d64, to)), high = hn::Add(high, hn::LoadU(d64, to + half));
        hn::StoreU(low, d64, to);
        hn::StoreU(high, d64, to + half);
      }
  }
}

template <int R>
void panel_rows(int rows, const int16_t* const* a, const int16_t* panels, int32_t panel_count, int32_t kp,
                int64_t* sums, int64_t stride) {
  if constexpr (R > 1)
    if (rows < R) return panel_rows<R - 1>(rows, a, panels, panel_count, kp, sums, stride);
  for (int32_t p = 0; p < panel_count; ++p) panel_tile<R>(a, panels + int64_t(p) * 16 * kp, kp, sums + p * 16, stride);
}

void conv_s16_panel_sums(const int16_t* const* a, int rows, const int16_t* panels, int32_t panel_count, int32_t kp,
                         int64_t* sums, int64_t sums_stride) {
  panel_rows<detail::kConvS16Rows>(rows, a, panels, panel_count, kp, sums, sums_stride);
}

// V vectors of channels from channel c (the last with n valid lanes where not whole) over the
// window, into sums[c...] (whole vectors: sums has room for them).
template <int V, bool kWhole>
HWY_INLINE void depthwise_pass(const detail::DepthwiseS16Window& win, int32_t c, int32_t n, int32_t zp,
                               int64_t* sums) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<int16_t, decltype(d32)> d16;
  const hn::Rebind<int8_t, decltype(d32)> d8;
  const hn::Half<decltype(d32)> dh32;
  const hn::Repartition<int64_t, decltype(d32)> d64;
  using V32 = hn::Vec<decltype(d32)>;
  using V64 = hn::Vec<decltype(d64)>;
  const int32_t lanes = int32_t(hn::Lanes(d32));
  const V32 zero_point = hn::Set(d32, zp);
  V32 acc[V];
  V64 low[V], high[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) acc[v] = hn::Zero(d32), low[v] = high[v] = hn::Zero(d64);
  auto flush = [&]() HWY_ATTR {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      low[v] = hn::Add(low[v], hn::PromoteTo(d64, hn::LowerHalf(dh32, acc[v])));
      high[v] = hn::Add(high[v], hn::PromoteTo(d64, hn::UpperHalf(dh32, acc[v])));
      acc[v] = hn::Zero(d32);
    }
  };
  int32_t taps = 0;
  for (int32_t ty = 0; ty < win.taps_y; ++ty)
    for (int32_t tx = 0; tx < win.taps_x; ++tx) {
      const int16_t* x = win.input + ty * win.input_step_y + tx * win.input_step_x + c;
      const int8_t* w = win.weight + ty * win.weight_step_y + tx * win.weight_step_x + c;
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        const auto xv = kWhole ? hn::LoadU(d16, x + v * lanes) : LoadPartial(d16, x, n);
        const auto wv = kWhole ? hn::LoadU(d8, w + v * lanes) : LoadPartial(d8, w, n);
        acc[v] = hn::Add(acc[v], hn::Mul(hn::PromoteTo(d32, xv), hn::Sub(hn::PromoteTo(d32, wv), zero_point)));
      }
      if (++taps == 256) flush(), taps = 0;
    }
  flush();
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    hn::StoreU(low[v], d64, sums + c + v * lanes);
    hn::StoreU(high[v], d64, sums + c + v * lanes + lanes / 2);
  }
}

void depthwise_s16_sums(const detail::DepthwiseS16Window& win, int32_t channels, int32_t w_zero_point, int64_t* sums) {
  const int32_t lanes = int32_t(hn::Lanes(hn::ScalableTag<int32_t>()));
  int32_t c = 0;
  for (; c + 4 * lanes <= channels; c += 4 * lanes) depthwise_pass<4, true>(win, c, 4 * lanes, w_zero_point, sums);
  for (; c + lanes <= channels; c += lanes) depthwise_pass<1, true>(win, c, lanes, w_zero_point, sums);
  if (c < channels) depthwise_pass<1, false>(win, c, channels - c, w_zero_point, sums);
}

int32_t depthwise_s16_pair_block() { return int32_t(hn::Lanes(hn::ScalableTag<int16_t>())); }

void depthwise_s16_pack_pairs(const int8_t* weight, int64_t tap_stride, int32_t taps, int32_t channels, int32_t zp,
                              int16_t* packed) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const int32_t block = int32_t(hn::Lanes(d16)), pairs = (taps + 1) / 2;
  const auto zero_point = hn::Set(d16, int16_t(zp));
  for (int32_t c = 0; c < channels; c += block)
    for (int32_t q = 0; q < pairs; ++q) {
      auto tap = [&](int32_t t) HWY_ATTR {
        return t < taps ? hn::Sub(hn::PromoteTo(d16, hn::LoadU(d8, weight + t * tap_stride + c)), zero_point)
                        : hn::Zero(d16);
      };
      const auto w0 = tap(2 * q), w1 = tap(2 * q + 1);
      int16_t* to = packed + (int64_t(c / block) * pairs + q) * 2 * block;
      hn::StoreU(hn::InterleaveLower(d16, w0, w1), d16, to);
      hn::StoreU(hn::InterleaveUpper(d16, w0, w1), d16, to + block);
    }
}

void depthwise_s16_pair_sums(const int16_t* const* tap_inputs, int32_t taps, const int16_t* packed, int32_t channels,
                             int64_t* sums) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  const hn::Half<decltype(d32)> dh32;
  const hn::Repartition<int64_t, decltype(d32)> d64;
  const int32_t block = int32_t(hn::Lanes(d16)), pairs = (taps + 1) / 2;
  for (int32_t c = 0; c < channels; c += block) {
    const int16_t* w = packed + int64_t(c / block) * pairs * 2 * block;
    // Each 128-bit block of `lower` holds 4 channels' two taps, its next 4 channels in `upper`'s.
    // ReorderWidenMulAccumulate is VPMADDWD and an add on x86: each int32 lane the sum of its
    // two products (`unused`: the second sums of other targets).
    auto lower = hn::Zero(d32), upper = hn::Zero(d32), unused = hn::Zero(d32);
    for (int32_t q = 0; q < pairs; ++q, w += 2 * block) {
      const auto x0 = hn::LoadU(d16, tap_inputs[2 * q] + c);
      const auto x1 = 2 * q + 1 < taps ? hn::LoadU(d16, tap_inputs[2 * q + 1] + c) : hn::Zero(d16);
      lower = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, x0, x1), hn::LoadU(d16, w), lower, unused);
      upper = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, x0, x1), hn::LoadU(d16, w + block), upper,
                                            unused);
    }
    // Back to channel order: lane block b of lower is channels 8b..8b+3, of upper 8b+4..8b+7.
    alignas(64) int64_t wide[2][hn::MaxLanes(d32)];
    hn::Store(hn::PromoteTo(d64, hn::LowerHalf(dh32, lower)), d64, wide[0]);
    hn::Store(hn::PromoteTo(d64, hn::UpperHalf(dh32, lower)), d64, wide[0] + block / 4);
    hn::Store(hn::PromoteTo(d64, hn::LowerHalf(dh32, upper)), d64, wide[1]);
    hn::Store(hn::PromoteTo(d64, hn::UpperHalf(dh32, upper)), d64, wide[1] + block / 4);
    for (int32_t b = 0; b < block / 8; ++b) {
      std::memcpy(sums + c + 8 * b, wide[0] + 4 * b, 4 * sizeof(int64_t));
      std::memcpy(sums + c + 8 * b + 4, wide[1] + 4 * b, 4 * sizeof(int64_t));
    }
  }
}

// acc·r modulo 2^64 for r within int32. AVX-512DQ multiplies 64-bit lanes; AVX2 multiplies only
// their low 32 bits (VPMULUDQ), so with acc = H·2^32 + L (L unsigned) and r's low word read
// unsigned as r + 2^32·[r < 0]:
//   acc·r = L·r + H·r·2^32 = VPMULUDQ(acc, r) + ((VPMULUDQ(H, r) − L·[r < 0]) << 32)  (mod 2^64).
template <class D64>
HWY_INLINE hn::Vec<D64> MulWrap64(D64 d64, hn::Vec<D64> acc, hn::Vec<D64> r) {
#if HWY_TARGET == HWY_AVX3
  (void)d64;
  return hn::Mul(acc, r);
#else
  const hn::Repartition<uint64_t, D64> du64;
  const hn::Repartition<uint32_t, D64> du32;
  const auto a = hn::BitCast(du64, acc), m = hn::BitCast(du64, r);
  const auto low = hn::MulEven(hn::BitCast(du32, a), hn::BitCast(du32, m));
  const auto high = hn::MulEven(hn::BitCast(du32, hn::ShiftRight<32>(a)), hn::BitCast(du32, m));
  const auto correction = hn::IfThenElseZero(hn::RebindMask(du64, hn::Lt(r, hn::Zero(d64))), hn::And(a, hn::Set(du64, 0xFFFFFFFFu)));
  return hn::BitCast(d64, hn::Add(low, hn::ShiftLeft<32>(hn::Sub(high, correction))));
#endif
}

int32_t finish_s16_vectors(const S16Output& o, int64_t out_index, int64_t out_stride, int32_t first, const int64_t* sums,
                           int64_t sums_stride, int rows, int32_t count, const detail::S16StageFacts& facts) {
  const hn::ScalableTag<int64_t> d64;
  const hn::Rebind<int32_t, decltype(d64)> dh32;  // half a vector: one int32 per int64 lane
  const hn::Rebind<int16_t, decltype(d64)> dq16;
  const hn::Rebind<uint32_t, decltype(d64)> du32;
  const hn::RebindToUnsigned<decltype(d64)> du64;
  const int32_t lanes = int32_t(hn::Lanes(d64));
  // Channel j's per-channel value as a vector, or the one value broadcast.
  auto channel32 = [&](const int32_t* values, bool per_channel, int32_t j) HWY_ATTR {
    return per_channel ? hn::LoadU(dh32, values + first + j) : hn::Set(dh32, values[0]);
  };
  auto clamp48 = [&](hn::Vec<decltype(d64)> v) HWY_ATTR {
    return hn::Min(hn::Max(v, hn::Set(d64, arith::kInt48Min)), hn::Set(d64, arith::kInt48Max));
  };
  // A sum as the int48 stages take it: clamped, unless no sum can leave int48 (AVX2 has no 64-bit
  // min or max: each is a compare and a blend).
  auto sum48 = [&](const int64_t* at) HWY_ATTR {
    return facts.sums_in_int48 ? hn::LoadU(d64, at) : clamp48(hn::LoadU(d64, at));
  };
  auto bias64_at = [&](int32_t j) HWY_ATTR {
    if (o.bias64) return o.bias_per_channel ? hn::LoadU(d64, o.bias64 + first + j) : hn::Set(d64, o.bias64[0]);
    if (o.bias32) return hn::PromoteTo(d64, channel32(o.bias32, o.bias_per_channel, j));
    return hn::Zero(d64);
  };
  int32_t j = 0;
  switch (o.stage) {
    case S16OutputStage::kRequantize64: {
      // arith::requantize_s64 after reduce_multiplier, lane by lane; shifts clamped first so that
      // 14 − shift cannot overflow (the scalar form clamps 14 − shift to [0, 63]).
      struct Requant {
        hn::Vec<decltype(d64)> reduced, right, bias;
      };
      auto requant_at = [&](int32_t j) HWY_ATTR {
        const auto m = channel32(o.multiplier, o.scale_per_channel, j);
        const auto reduced = hn::IfThenElse(hn::Lt(m, hn::Set(dh32, 0x7FFF0000)),
                                            hn::ShiftRight<16>(hn::Add(m, hn::Set(dh32, 1 << 15))), hn::Set(dh32, 0x7FFF));
        const auto shift = hn::Min(hn::Max(channel32(o.shift, o.scale_per_channel, j), hn::Set(dh32, -49)), hn::Set(dh32, 14));
        return Requant{hn::PromoteTo(d64, reduced), hn::PromoteTo(d64, hn::Sub(hn::Set(dh32, 14), shift)), bias64_at(j)};
      };
      {
        // Two vectors' worth at a time, their low halves (requantize_s64 keeps only the low 32
        // bits of the shifted product) rounded, clamped and narrowed in int32 lanes. AVX2 has no
        // 64-bit arithmetic shift; for shifts of at most 32 a logical one leaves the same low half
        // (a block with a larger one goes to the loop below).
        constexpr bool kArithmetic = HWY_TARGET == HWY_AVX3;
        const hn::Repartition<int32_t, decltype(d64)> d32;
        const hn::Rebind<int16_t, decltype(d32)> d16;
        const auto lo32 = hn::Set(d32, o.activation_min), hi32 = hn::Set(d32, o.activation_max);
        auto low_half = [&](const int64_t* at, const Requant& q) HWY_ATTR {
          const auto product = MulWrap64(d64, hn::Add(hn::LoadU(d64, at), q.bias), q.reduced);
          return kArithmetic ? product >> q.right : hn::BitCast(d64, hn::Shr(hn::BitCast(du64, product), hn::BitCast(du64, q.right)));
        };
        for (; j + 2 * lanes <= count; j += 2 * lanes) {
          const Requant q[2] = {requant_at(j), requant_at(j + lanes)};
          const auto past = hn::Set(d64, 33);
          if (!kArithmetic && !hn::AllTrue(d64, hn::And(hn::Lt(q[0].right, past), hn::Lt(q[1].right, past)))) break;
          for (int r = 0; r < rows; ++r) {
            const int64_t* at = sums + r * sums_stride + j;
            auto v = hn::ConcatEven(d32, hn::BitCast(d32, low_half(at + lanes, q[1])), hn::BitCast(d32, low_half(at, q[0])));
            v = hn::Min(hn::Max(hn::ShiftRight<1>(hn::Add(v, hn::Set(d32, 1))), lo32), hi32);
            hn::StoreU(hn::DemoteTo(d16, v), d16, o.out16 + out_index + r * out_stride + first + j);
          }
        }
      }
      const auto lo = hn::Set(dh32, o.activation_min), hi = hn::Set(dh32, o.activation_max);
      for (; j + lanes <= count; j += lanes) {
        const Requant q = requant_at(j);
        for (int r = 0; r < rows; ++r) {
          const auto acc = hn::Add(hn::LoadU(d64, sums + r * sums_stride + j), q.bias);
          const auto product = MulWrap64(d64, acc, q.reduced) >> q.right;
          const auto narrowed = hn::BitCast(dh32, hn::TruncateTo(du32, hn::BitCast(du64, product)));
          const auto v = hn::Min(hn::Max(hn::ShiftRight<1>(hn::Add(narrowed, hn::Set(dh32, 1))), lo), hi);
          hn::StoreU(hn::DemoteTo(dq16, v), dq16, o.out16 + out_index + r * out_stride + first + j);
        }
      }
      return j;
    }
    case S16OutputStage::kRequantize32: {
      // requantize(int32(sum) + bias32, multiplier, shift) with the int8 GEMM's vector form.
      const auto lo = hn::Set(dh32, o.activation_min), hi = hn::Set(dh32, o.activation_max);
      for (; j + lanes <= count; j += lanes) {
        const auto bias = o.bias32 ? channel32(o.bias32, o.bias_per_channel, j) : hn::Zero(dh32);
        const auto scales = MakeScales(dh32, channel32(o.multiplier, o.scale_per_channel, j),
                                       channel32(o.shift, o.scale_per_channel, j), /*single_round=*/false,
                                       /*fold_double=*/rows > 1);
        for (int r = 0; r < rows; ++r) {
          auto v = hn::BitCast(dh32, hn::TruncateTo(du32, hn::BitCast(du64, hn::LoadU(d64, sums + r * sums_stride + j))));
          v = hn::Min(hn::Max(Requantize(dh32, hn::Add(v, bias), scales), lo), hi);
          hn::StoreU(hn::DemoteTo(dq16, v), dq16, o.out16 + out_index + r * out_stride + first + j);
        }
      }
      return j;
    }
    case S16OutputStage::kInt48: {
      for (; j + lanes <= count; j += lanes) {
        const auto bias = clamp48(bias64_at(j));
        for (int r = 0; r < rows; ++r)
          hn::StoreU(clamp48(hn::Add(sum48(sums + r * sums_stride + j), bias)), d64,
                     o.out64 + out_index + r * out_stride + first + j);
      }
      return j;
    }
    case S16OutputStage::kRescale16: {
      // apply_scale_16 on the int48 value: |value·multiplier| <= 2^62, exact in 64 bits; the
      // rounding term 2^(shift−1) as a variable left shift; the zero point and the clamp in 64-bit
      // lanes, then narrowed. apply_scale_16's saturation to int32 is left out: with the clamp
      // within int16 and the zero point within ±2^16 (an int16 or uint16 one), a value past int32
      // clamps to the same bound either way. On AVX2 the arithmetic shift is a logical one (AVX2
      // has only that) of the sum plus 2^62, which lies in [0, 2^63 + 2^61]: less 2^(62−shift)
      // after.
      const hn::Rebind<int8_t, decltype(d64)> d8;
      const auto lo = hn::Set(d64, o.activation_min), hi = hn::Set(d64, o.activation_max),
                 zp = hn::Set(d64, o.output_zp);
      // AVX3 shifts arithmetically (VPSRAVQ); AVX2 adds 2^62 first and shifts logically.
      constexpr bool kLogical = HWY_TARGET != HWY_AVX3;
      // Channel j's constants: the multiplier as int64, the shift, the rounding term (with 2^62
      // where the shift is logical) and what to add after the shift (the zero point, less
      // 2^(62−shift) where the shift is logical).
      struct Scale {
        hn::Vec<decltype(d64)> m, offset;
        hn::Vec<decltype(du64)> shift, round;
      };
      auto scale_at = [&](int32_t j) HWY_ATTR {
        const auto m32 = channel32(o.multiplier, o.scale_per_channel, j);
        const auto shift8 = o.scale_per_channel ? hn::LoadU(d8, o.rescale_shift + first + j)
                                                : hn::Set(d8, o.rescale_shift[0]);
        Scale sc;
        sc.m = hn::PromoteTo(d64, hn::ShiftRight<16>(hn::ShiftLeft<16>(m32)));  // int16(multiplier)
        sc.shift = hn::BitCast(du64, hn::PromoteTo(d64, hn::Min(hn::Max(hn::PromoteTo(dh32, shift8), hn::Set(dh32, 1)),
                                                                 hn::Set(dh32, 62))));
        sc.round = hn::Add(hn::Shl(hn::Set(du64, 1), hn::Sub(sc.shift, hn::Set(du64, 1))),
                           hn::Set(du64, kLogical ? uint64_t{1} << 62 : 0));
        sc.offset = kLogical ? hn::Sub(zp, hn::BitCast(d64, hn::Shr(hn::Set(du64, uint64_t{1} << 62), sc.shift))) : zp;
        return sc;
      };
      auto shift_right = [&](hn::Vec<decltype(d64)> sum, const Scale& sc) HWY_ATTR {
        return kLogical ? hn::BitCast(d64, hn::Shr(hn::BitCast(du64, sum), sc.shift)) : sum >> hn::BitCast(d64, sc.shift);
      };
      if (facts.rescaled_in_int32) {
        // No accumulator leaves int48 and every result lies in int32 (s16_stage_facts): no clamp
        // in 64 bits, the bias's product folded into the rounding term, and each result the low
        // half of its 64-bit lane, two vectors' worth clamped and narrowed in int32 lanes (at
        // avx2, 10 instructions for 4 channels where the clamping form takes about 30). With a
        // logical shift the low half is right less 2^(62−shift) taken in int32, wrapping.
        const hn::Repartition<int32_t, decltype(d64)> d32;
        const hn::Rebind<int16_t, decltype(d32)> d16;
        const auto lo32 = hn::Set(d32, o.activation_min), hi32 = hn::Set(d32, o.activation_max);
        for (; j + 2 * lanes <= count; j += 2 * lanes) {
          const Scale sc[2] = {scale_at(j), scale_at(j + lanes)};
          hn::Vec<decltype(d64)> add[2];
          for (int h = 0; h < 2; ++h)
            add[h] = hn::Add(MulWrap64(d64, clamp48(bias64_at(j + h * lanes)), sc[h].m), hn::BitCast(d64, sc[h].round));
          const auto offset = hn::ConcatEven(d32, hn::BitCast(d32, sc[1].offset), hn::BitCast(d32, sc[0].offset));
          for (int r = 0; r < rows; ++r) {
            const int64_t* at = sums + r * sums_stride + j;
            const auto v0 = shift_right(hn::Add(MulWrap64(d64, hn::LoadU(d64, at), sc[0].m), add[0]), sc[0]);
            const auto v1 = shift_right(hn::Add(MulWrap64(d64, hn::LoadU(d64, at + lanes), sc[1].m), add[1]), sc[1]);
            const auto v = hn::Add(hn::ConcatEven(d32, hn::BitCast(d32, v1), hn::BitCast(d32, v0)), offset);
            hn::StoreU(hn::DemoteTo(d16, hn::Min(hn::Max(v, lo32), hi32)), d16,
                       o.out16 + out_index + r * out_stride + first + j);
          }
        }
      }
      for (; j + lanes <= count; j += lanes) {
        const auto bias = clamp48(bias64_at(j));
        const Scale sc = scale_at(j);
        const auto m = sc.m;
        const auto round = sc.round;
        const auto offset = sc.offset;
        for (int r = 0; r < rows; ++r) {
          const auto acc = clamp48(hn::Add(sum48(sums + r * sums_stride + j), bias));
          const auto shifted = shift_right(hn::Add(MulWrap64(d64, acc, m), hn::BitCast(d64, round)), sc);
          const auto v = hn::Min(hn::Max(hn::Add(shifted, offset), lo), hi);
          const auto narrowed = hn::BitCast(dh32, hn::TruncateTo(du32, hn::BitCast(du64, v)));
          hn::StoreU(hn::DemoteTo(dq16, narrowed), dq16, o.out16 + out_index + r * out_stride + first + j);
        }
      }
      return j;
    }
  }
  return j;
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
