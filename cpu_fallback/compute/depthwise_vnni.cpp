// Depthwise convolution (channel multiplier 1) on AVX-512 VNNI, bit-exact with the reference:
//
//   acc[c] = bias[c] + Σ_{valid taps} (x + in_off)·w[c]                       (cortex-m-ops.md §4.4)
//
// VPDPBUSD multiplies 4 unsigned bytes by 4 signed bytes and adds the 4 products to one int32
// lane. A depthwise lane is one channel, so the 4 bytes must be 4 taps of that channel: we use
// 4 kernel rows (ky = 4g .. 4g+3) at one input column. For each output row and row group g the
// input columns are interleaved once into Q[column][channel][4 rows] (unsigned: u = x ^ 0x80 =
// x + 128), a chunk of columns at a time so that Q stays in L1; every output pixel then needs
// one VPDPBUSD per kernel column and 16 channels:
//
//   acc[c] = colterm[c] + Σ_{g,kx} Σ_t Q[ox·sw + kx·dw][c][t] · W[g][kx][c][t]
//   colterm[c] = bias[c] + (in_off − 128)·Σ_{ky,kx} w[ky][kx][c]
//
// Padding taps (outside the image, or kernel rows past kh) hold u = 128 − in_off, i.e.
// x + in_off = 0, so they add exactly 0 and borders need no special case: the pixel loop has no
// bounds checks. All sums wrap modulo 2^32 like the device, so the regrouping is exact.
//
// The interleave uses in-lane unpacks, which permute channels within each 128-bit lane: vector
// j of a 64-channel block holds channels 16L + 4j + i in lane 4L + i. Weights and per-channel
// constants are stored in the same order, and the output's saturating packs (32 → 16 → 8 bits,
// also in-lane) undo the permutation, so the stored bytes are in channel order. Int32 sums
// (DepthwiseS8Output::s32) are put back in channel order by the same 128-bit lane transpose
// (permute_block is its own inverse).
#include "compute/depthwise_vnni.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "compute/simd_avx512.h"

namespace vkrt::compute {
#if defined(__x86_64__)
namespace {

constexpr int kBlock = 64;         // channels per block (4 vectors of 16 lanes)
constexpr int kBlockBytes = 256;   // 64 channels x 4 taps
constexpr int kConstants = 10;     // vectors of per-lane constants per 16 channels (LaneConstants)

struct Layout {
  int32_t blocks = 0;   // 64-channel blocks
  int32_t groups = 0;   // groups of 4 kernel rows
  // Stride 1, at most 3 kernel rows: the 4 interleaved input rows of output row oy are also
  // rows 0..2 of output row oy + 1, so rows are done in pairs from one interleave, the second
  // with the weights shifted down one row (0, w0, w1, w2).
  bool paired_rows = false;
  // Stride 2, 3 kernel rows: input rows are interleaved in aligned quads, each once. Output row
  // 2m uses quad m (rows 0..2, weights w0 w1 w2 0); row 2m + 1 uses quad m rows 2, 3 (weights
  // 0 0 w0 w1) and quad m + 1 row 0 (weights w2 0 0 0): half the interleaving of one quad per
  // output row, for 1.5 VPDPBUSD per kernel column instead of 1.
  bool stride2_quads = false;
  int32_t weight_sets = 1;  // packed weight sets (see prepare)
  size_t weight_set_bytes = 0, q_bytes = 0;
  // The last block's channels fill `tail_lanes` 128-bit lanes; when that is 1 or 2, its vectors
  // carry 4 or 2 output pixels side by side (`tail_pixels`) instead of padding channels.
  int32_t tail_lanes = 4, tail_pixels = 1;
  int64_t columns = 0;  // input columns spanned by one output row, from ix = −pad_w
  // Output rows are done in chunks of output pixels whose interleaved columns fit in L1.
  int64_t chunk_pixels = 0, chunk_columns = 0;
  size_t weight_bytes = 0, constant_bytes = 0, task_bytes = 0;
};

// Interleaved columns of one chunk: at most this many bytes (half of a 48 KiB L1), unless one
// output pixel alone needs more.
constexpr int64_t kChunkBytes = 24 * 1024;

Layout layout_of(const DepthwiseS8Params& p) {
  Layout l;
  // Sizes are bounded by depthwise_vnni_usable before any of this is used.
  l.blocks = int32_t((int64_t(p.in_ch) + kBlock - 1) / kBlock);
  l.groups = int32_t((int64_t(p.kernel_h) + 3) / 4);
  l.columns = p.out_w > 0 ? int64_t(p.out_w - 1) * p.stride_w + int64_t(p.kernel_w - 1) * p.dilation_w + 1 : 0;
  l.paired_rows = p.stride_h == 1 && p.dilation_h == 1 && p.kernel_h <= 3;
  l.stride2_quads = p.stride_h == 2 && p.dilation_h == 1 && p.kernel_h == 3;
  l.weight_sets = l.paired_rows ? 2 : l.stride2_quads ? 3 : 1;
  l.tail_lanes = (p.in_ch - (l.blocks - 1) * kBlock + 15) / 16;
  l.tail_pixels = l.tail_lanes == 1 ? 4 : l.tail_lanes == 2 ? 2 : 1;
  l.weight_set_bytes = align_up(size_t(l.groups) * p.kernel_w * l.blocks * kBlockBytes);
  l.weight_bytes = l.weight_set_bytes * size_t(l.weight_sets);
  l.constant_bytes = align_up(size_t(kConstants) * l.blocks * kBlock * 4);  // [block][vector j][constant][16]
  const int64_t span = int64_t(p.kernel_w - 1) * p.dilation_w + 1;
  const int64_t column_bytes = int64_t(l.groups) * l.blocks * kBlockBytes;
  const int64_t budget = kChunkBytes / (l.stride2_quads ? 2 : 1);  // two quads live at a time
  l.chunk_pixels = std::clamp<int64_t>((budget / column_bytes - span) / p.stride_w + 1, 1, std::max(p.out_w, 1));
  l.chunk_columns = (l.chunk_pixels - 1) * p.stride_w + span;
  l.q_bytes = align_up(size_t(l.chunk_columns) * size_t(column_bytes));
  l.task_bytes = l.q_bytes * (l.stride2_quads ? 2 : 1);
  return l;
}

// Interleaves 4 rows of 64 bytes into 4 vectors of 16 lanes x 4 bytes (permuted channel order).
VKRT_TARGET_AVX512 inline void interleave4(__m512i r0, __m512i r1, __m512i r2, __m512i r3, uint8_t* dst) {
  const __m512i a01_lo = _mm512_unpacklo_epi8(r0, r1), a01_hi = _mm512_unpackhi_epi8(r0, r1);
  const __m512i a23_lo = _mm512_unpacklo_epi8(r2, r3), a23_hi = _mm512_unpackhi_epi8(r2, r3);
  _mm512_storeu_si512(dst, _mm512_unpacklo_epi16(a01_lo, a23_lo));
  _mm512_storeu_si512(dst + 64, _mm512_unpackhi_epi16(a01_lo, a23_lo));
  _mm512_storeu_si512(dst + 128, _mm512_unpacklo_epi16(a01_hi, a23_hi));
  _mm512_storeu_si512(dst + 192, _mm512_unpackhi_epi16(a01_hi, a23_hi));
}

inline __mmask64 channel_mask(int32_t channels, int32_t block) {
  const int32_t left = channels - block * kBlock;
  return left >= kBlock ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
}

// Tail block with several pixels per vector: 128-bit lane λ belongs to pixel λ / tail_lanes and
// holds the channel lane λ % tail_lanes. Per-channel data (weights, constants) is replicated.
VKRT_TARGET_AVX512 inline __m512i replicate_lanes(__m512i v, int32_t tail_lanes) {
  return tail_lanes == 1 ? _mm512_shuffle_i32x4(v, v, 0x00) : _mm512_shuffle_i32x4(v, v, 0x44);
}

VKRT_TARGET_AVX512 inline void replicate_in_place(uint8_t* vectors, int count, int32_t tail_lanes) {
  for (int i = 0; i < count; ++i)
    _mm512_storeu_si512(vectors + 64 * i, replicate_lanes(_mm512_loadu_si512(vectors + 64 * i), tail_lanes));
}

// One input row of the tail block: lane λ = channels c0 + 16·(λ % L) .. +15 (zero past the
// channels) of column ix + (λ / L)·stride_w, unsigned; `pad` outside the image or for no row.
template <int L>
VKRT_TARGET_AVX512 inline __m512i tail_row(const DepthwiseS8Params& p, const int8_t* row, int64_t ix, int32_t c0,
                                           __m512i pad) {
  const int32_t left = p.in_ch - c0;
  auto inside = [&](int64_t x) { return row != nullptr && x >= 0 && x < p.in_w; };
  if constexpr (L == 2) {
    const __m256i flip = _mm256_set1_epi8(int8_t(0x80));
    const __mmask32 m = left >= 32 ? ~__mmask32(0) : (__mmask32(1) << left) - 1;
    const int64_t x0 = ix, x1 = ix + p.stride_w;
    const __m256i a = inside(x0) ? _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, row + x0 * p.in_ch + c0), flip)
                                 : _mm512_castsi512_si256(pad);
    const __m256i b = inside(x1) ? _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, row + x1 * p.in_ch + c0), flip)
                                 : _mm512_castsi512_si256(pad);
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  } else {
    const __m128i flip = _mm_set1_epi8(int8_t(0x80));
    const __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
    __m128i lane[4];
    for (int q = 0; q < 4; ++q) {
      const int64_t x = ix + int64_t(q) * p.stride_w;
      lane[q] = inside(x) ? _mm_xor_si128(_mm_maskz_loadu_epi8(m, row + x * p.in_ch + c0), flip)
                          : _mm512_castsi512_si128(pad);
    }
    return _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(lane[0]), lane[1], 1), lane[2], 2), lane[3], 3);
  }
}

// Natural → permuted order for one 64-channel block of int32 values: permuted vector j, 128-bit
// lane L holds natural vector L's lane j (a 4x4 transpose of 128-bit lanes).
VKRT_TARGET_AVX512 inline void permute_block(__m512i n0, __m512i n1, __m512i n2, __m512i n3, __m512i out[4]) {
  const __m512i t0 = _mm512_shuffle_i32x4(n0, n1, 0x44), t1 = _mm512_shuffle_i32x4(n0, n1, 0xEE);
  const __m512i t2 = _mm512_shuffle_i32x4(n2, n3, 0x44), t3 = _mm512_shuffle_i32x4(n2, n3, 0xEE);
  out[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
  out[1] = _mm512_shuffle_i32x4(t0, t2, 0xDD);
  out[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
  out[3] = _mm512_shuffle_i32x4(t1, t3, 0xDD);
}

// Per-lane constants of 16 channels (permuted order), prepared once per call. The output stage
// is requantize_value: with double rounding, arith::requantize (cortex-m-ops.md §3) with its two
// roundings merged into one 64-bit shift:
//   y = (x·M + 2^30) >> 31                           (SRDHM without saturation)
//   z = RDBPOT(y, r) = (y + 2^(r−1) − [y < 0]) >> r  (r > 0; z = y for r = 0)
// and since ⌊(⌊Q/2^31⌋ + c)/2^r⌋ = ⌊(Q + c·2^31)/2^(31+r)⌋ for integer c, with [y < 0] = [Q < 0]:
//   z = (x·M + 2^30 + 2^(r−1)·2^31 − [x·M + 2^30 < 0]·2^31) >> (31 + r)
// evaluated in 64 bits (|x·M| <= 2^62: no overflow). Equal to the 32-bit steps except when
// y = 2^31 (x = M = INT32_MIN), which the 32-bit code wraps: such multipliers are sent to the
// other path. `round`, `adjust` and `shift` are per 64-bit lane (even / odd channels).
struct LaneConstants {
  __m512i colterm, mult, mult_odd, round_even, round_odd, adjust_even, adjust_odd, shift_even, shift_odd, left;
};
static_assert(sizeof(LaneConstants) == kConstants * 64);

template <bool ShiftsLeft>
VKRT_TARGET_AVX512 inline __m512i requantize(__m512i v, const LaneConstants& k) {
  if (ShiftsLeft) v = _mm512_sllv_epi32(v, k.left);
  const __m512i minus_half = _mm512_set1_epi64(-(int64_t(1) << 30));
  const __m512i even = _mm512_mul_epi32(v, k.mult);
  const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), k.mult_odd);
  __m512i t_even = _mm512_add_epi64(even, k.round_even);
  __m512i t_odd = _mm512_add_epi64(odd, k.round_odd);
  t_even = _mm512_mask_sub_epi64(t_even, _mm512_cmplt_epi64_mask(even, minus_half), t_even, k.adjust_even);
  t_odd = _mm512_mask_sub_epi64(t_odd, _mm512_cmplt_epi64_mask(odd, minus_half), t_odd, k.adjust_odd);
  t_even = _mm512_srav_epi64(t_even, k.shift_even);
  t_odd = _mm512_srav_epi64(t_odd, k.shift_odd);
  // Low dword of each odd-channel qword into the odd dword positions.
  return _mm512_mask_shuffle_epi32(t_even, __mmask16(0xAAAA), t_odd, _MM_PERM_CCAA);
}

// Loads 16 int32 values from channel `c` of `values` (zero past `channels`; null gives zeros).
VKRT_TARGET_AVX512 inline __m512i load_channels(const int32_t* values, int32_t c, int32_t channels) {
  if (values == nullptr || c >= channels) return _mm512_setzero_si512();
  const int32_t left = channels - c;
  return _mm512_maskz_loadu_epi32(left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u), values + c);
}

// Weights W[g][kx][block][4 vectors] and the per-channel constants, both in permuted order.
// Returns whether any channel shifts left (the output loop skips that step otherwise).
VKRT_TARGET_AVX512VNNI bool prepare(const DepthwiseS8Params& p, const Layout& l, const int8_t* weight,
                                    const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                                    uint8_t* packed_weights, int32_t* constants) {
  const int32_t channels = p.in_ch;
  // Set 0: rows ky = 4g + t. Paired rows, set 1: ky = t − 1 (0, w0, w1, w2). Stride-2 quads,
  // set 1: ky = t − 2 (0, 0, w0, w1); set 2: ky = t + 2 (w2, 0, 0, 0).
  const int32_t set_row_offset[3] = {0, l.paired_rows ? -1 : -2, 2};
  for (int32_t set = 0; set < l.weight_sets; ++set)
    for (int32_t g = 0; g < l.groups; ++g)
      for (int32_t kx = 0; kx < p.kernel_w; ++kx)
        for (int32_t b = 0; b < l.blocks; ++b) {
          const __mmask64 m = channel_mask(channels, b);
          __m512i rows[4];
          for (int t = 0; t < 4; ++t) {
            const int32_t ky = 4 * g + t + set_row_offset[set];
            rows[t] = ky >= 0 && ky < p.kernel_h
                          ? _mm512_maskz_loadu_epi8(m, weight + (int64_t(ky) * p.kernel_w + kx) * channels + b * kBlock)
                          : _mm512_setzero_si512();
          }
          uint8_t* dst = packed_weights + size_t(set) * l.weight_set_bytes +
                         ((size_t(g) * p.kernel_w + kx) * l.blocks + b) * kBlockBytes;
          interleave4(rows[0], rows[1], rows[2], rows[3], dst);
          if (b == l.blocks - 1 && l.tail_pixels > 1) replicate_in_place(dst, 4, l.tail_lanes);
        }
  const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512(), max_shift = _mm512_set1_epi32(31);
  const __m512i one = _mm512_set1_epi32(1), low_dwords = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i correction = _mm512_set1_epi32(arith::wrap_add(p.input_offset, -128));
  __mmask16 any_left = 0;
  for (int32_t b = 0; b < l.blocks; ++b) {
    const int32_t c0 = b * kBlock;
    __m512i bias_v[4], mult_v[4], shift_v[4];
    permute_block(load_channels(bias, c0, channels), load_channels(bias, c0 + 16, channels),
                  load_channels(bias, c0 + 32, channels), load_channels(bias, c0 + 48, channels), bias_v);
    permute_block(load_channels(multiplier, c0, channels), load_channels(multiplier, c0 + 16, channels),
                  load_channels(multiplier, c0 + 32, channels), load_channels(multiplier, c0 + 48, channels), mult_v);
    permute_block(load_channels(shift, c0, channels), load_channels(shift, c0 + 16, channels),
                  load_channels(shift, c0 + 32, channels), load_channels(shift, c0 + 48, channels), shift_v);
    for (int j = 0; j < 4; ++j) {
      // Σ over all taps of the weights (already in permuted order): VPDPBUSD against ones.
      __m512i weight_sum = zero;
      for (int64_t tap = 0; tap < int64_t(l.groups) * p.kernel_w; ++tap)
        weight_sum = _mm512_dpbusd_epi32(weight_sum, ones,
                                         _mm512_loadu_si512(packed_weights + (size_t(tap) * l.blocks + b) * kBlockBytes + 64 * j));
      // The same shift clamping as arith::requantize and simd::split_shift.
      const __m512i left = _mm512_min_epi32(_mm512_max_epi32(shift_v[j], zero), max_shift);
      const __m512i right = _mm512_min_epi32(_mm512_max_epi32(_mm512_sub_epi32(zero, shift_v[j]), zero), max_shift);
      any_left |= _mm512_test_epi32_mask(left, left);
      const __mmask16 rounds = _mm512_test_epi32_mask(right, right);
      const __m512i half = _mm512_maskz_sllv_epi32(rounds, one, _mm512_sub_epi32(right, one));  // 2^(right−1) or 0
      // The single rounding (p.single_round, shifts -31..-1): ⌊(x·M + 2^(r−1)·2^31) / 2^(31+r)⌋, no
      // 2^30 and no adjustment, except that r = 0 keeps SRDHM's 2^30 (one rounding either way).
      const __m512i srdhm_round = p.single_round ? _mm512_maskz_mov_epi32(__mmask16(~rounds), _mm512_set1_epi32(1 << 30))
                                                 : _mm512_set1_epi32(1 << 30);
      const __m512i adjust = _mm512_maskz_mov_epi32(p.single_round ? __mmask16(0) : rounds, one);
      const __m512i total_shift = _mm512_add_epi32(right, _mm512_set1_epi32(31));
      LaneConstants k;
      k.colterm = _mm512_add_epi32(bias_v[j], _mm512_mullo_epi32(correction, weight_sum));
      k.mult = mult_v[j];
      k.mult_odd = _mm512_srli_epi64(mult_v[j], 32);
      k.round_even = _mm512_add_epi64(_mm512_slli_epi64(_mm512_and_si512(half, low_dwords), 31),
                                      _mm512_and_si512(srdhm_round, low_dwords));
      k.round_odd = _mm512_add_epi64(_mm512_slli_epi64(_mm512_srli_epi64(half, 32), 31), _mm512_srli_epi64(srdhm_round, 32));
      k.adjust_even = _mm512_slli_epi64(_mm512_and_si512(adjust, low_dwords), 31);
      k.adjust_odd = _mm512_slli_epi64(_mm512_srli_epi64(adjust, 32), 31);
      k.shift_even = _mm512_and_si512(total_shift, low_dwords);
      k.shift_odd = _mm512_srli_epi64(total_shift, 32);
      k.left = left;
      if (b == l.blocks - 1 && l.tail_pixels > 1)
        for (__m512i* member : {&k.colterm, &k.mult, &k.mult_odd, &k.round_even, &k.round_odd, &k.adjust_even,
                                &k.adjust_odd, &k.shift_even, &k.shift_odd, &k.left})
          *member = replicate_lanes(*member, l.tail_lanes);
      std::memcpy(constants + (size_t(b) * 4 + j) * kConstants * 16, &k, sizeof(k));
    }
  }
  return any_left != 0;
}

// Q for one chunk of columns: for each row group g, `count` columns from `first` (counted from
// ix = −pad_w) of the input rows first_row + (4g + t)·dilation_h, t < 4 (rows 4g + t >=
// rows_used and rows outside the image are padding), interleaved unsigned; padding taps hold
// 128 − in_off.
VKRT_TARGET_AVX512 void interleave_columns(const DepthwiseS8Params& p, const Layout& l, const int8_t* image,
                                           int64_t first_row, int32_t rows_used, int64_t first, int64_t count,
                                           uint8_t* q) {
  const int32_t channels = p.in_ch;
  const __m512i pad = _mm512_set1_epi8(int8_t(uint8_t(128 - p.input_offset)));
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80));
  const size_t column_bytes = size_t(l.blocks) * kBlockBytes;
  for (int32_t g = 0; g < l.groups; ++g) {
    const int8_t* rows[4];
    for (int t = 0; t < 4; ++t) {
      const int32_t ky = 4 * g + t;
      const int64_t iy = first_row + int64_t(ky) * p.dilation_h;
      rows[t] = (ky < rows_used && iy >= 0 && iy < p.in_h) ? image + iy * p.in_w * channels : nullptr;
    }
    uint8_t* group = q + size_t(g) * size_t(l.chunk_columns) * column_bytes;
    for (int64_t col = 0; col < count; ++col) {
      uint8_t* dst = group + size_t(col) * column_bytes;
      const int64_t ix = first + col - p.pad_w;
      const bool outside = ix < 0 || ix >= p.in_w;
      if (outside) {
        for (size_t i = 0; i < column_bytes; i += 64) _mm512_storeu_si512(dst + i, pad);
        if (l.tail_pixels == 1) continue;
      }
      for (int32_t b = outside ? l.blocks - 1 : 0; b < l.blocks; ++b) {
        // The tail block's other pixels read other columns, which may lie inside the image.
        if (b == l.blocks - 1 && l.tail_pixels > 1) {
          const int32_t c0 = b * kBlock;
          if (l.tail_lanes == 2)
            interleave4(tail_row<2>(p, rows[0], ix, c0, pad), tail_row<2>(p, rows[1], ix, c0, pad),
                        tail_row<2>(p, rows[2], ix, c0, pad), tail_row<2>(p, rows[3], ix, c0, pad),
                        dst + size_t(b) * kBlockBytes);
          else
            interleave4(tail_row<1>(p, rows[0], ix, c0, pad), tail_row<1>(p, rows[1], ix, c0, pad),
                        tail_row<1>(p, rows[2], ix, c0, pad), tail_row<1>(p, rows[3], ix, c0, pad),
                        dst + size_t(b) * kBlockBytes);
          continue;
        }
        const __mmask64 m = channel_mask(channels, b);
        __m512i r[4];
        for (int t = 0; t < 4; ++t)
          r[t] = rows[t] ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, rows[t] + ix * channels + b * kBlock), flip)
                         : pad;
        interleave4(r[0], r[1], r[2], r[3], dst + size_t(b) * kBlockBytes);
      }
    }
  }
}

// Stores the first `pixels` pixels of a tail-block result (see Layout::tail_pixels): pixel q is
// lanes [q·L, (q+1)·L), `channels` bytes of it, at out + q·pixel_stride.
VKRT_TARGET_AVX512 inline void store_tail_pixels(__m512i bytes, int32_t tail_lanes, int64_t pixels, int32_t channels,
                                                 int32_t pixel_stride, int8_t* out) {
  if (tail_lanes == 2) {
    const __mmask32 m = channels >= 32 ? ~__mmask32(0) : (__mmask32(1) << channels) - 1;
    _mm256_mask_storeu_epi8(out, m, _mm512_castsi512_si256(bytes));
    if (pixels > 1) _mm256_mask_storeu_epi8(out + pixel_stride, m, _mm512_extracti64x4_epi64(bytes, 1));
    return;
  }
  const __mmask16 m = channels >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << channels) - 1u);
  _mm_mask_storeu_epi8(out, m, _mm512_castsi512_si128(bytes));
  if (pixels > 1) _mm_mask_storeu_epi8(out + pixel_stride, m, _mm512_extracti32x4_epi32(bytes, 1));
  if (pixels > 2) _mm_mask_storeu_epi8(out + 2 * pixel_stride, m, _mm512_extracti32x4_epi32(bytes, 2));
  if (pixels > 3) _mm_mask_storeu_epi8(out + 3 * pixel_stride, m, _mm512_extracti32x4_epi32(bytes, 3));
}

// Int32 sums of one 64-channel block (permuted order) into channel order, the first
// `channels` of them.
VKRT_TARGET_AVX512 inline void store_sums(const __m512i acc[4], int32_t channels, int32_t* out) {
  __m512i natural[4];
  permute_block(acc[0], acc[1], acc[2], acc[3], natural);
  for (int m = 0; m < 4 && channels > 16 * m; ++m) {
    const int32_t left = channels - 16 * m;
    _mm512_mask_storeu_epi32(out + 16 * m, left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u), natural[m]);
  }
}

// The tail block's sums (Layout::tail_pixels): vector j, 128-bit lane λ holds pixel λ / L's
// channels 16·(λ % L) + 4j + (0..3), L = tail_lanes. The first `pixels` pixels, `channels` of
// each, at out + q·pixel_stride.
VKRT_TARGET_AVX512 inline void store_tail_sums(const __m512i acc[4], int32_t tail_lanes, int64_t pixels,
                                               int32_t channels, int32_t pixel_stride, int32_t* out) {
  alignas(64) int32_t lanes[4][16];
  for (int j = 0; j < 4; ++j) _mm512_store_si512(lanes[j], acc[j]);
  for (int64_t q = 0; q < pixels; ++q)
    for (int32_t cl = 0; cl < tail_lanes; ++cl)
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
          const int32_t c = 16 * cl + 4 * j + i;
          if (c < channels) out[q * pixel_stride + c] = lanes[j][4 * (q * tail_lanes + cl) + i];
        }
}

// One chunk of an output row (`count` pixels from ox0, Q from interleave_columns): for each
// 64-channel block, every pixel.
// A second source (q2, weights2), when not null, adds its products too (stride-2 quads).
// Output row r of the layer goes to `to`: requantized int8, or int32 sums when Sums.
template <int KernelW, bool ShiftsLeft, bool Sums>
VKRT_TARGET_AVX512VNNI void output_chunk(const DepthwiseS8Params& p, const Layout& l, const uint8_t* q,
                                         const uint8_t* packed_weights, const uint8_t* q2, const uint8_t* weights2,
                                         const int32_t* constants, int64_t ox0, int64_t count, int64_t r,
                                         const DepthwiseS8Output& to) {
  const int64_t row_elements = int64_t(p.out_w) * p.in_ch;
  const int32_t kernel_w = KernelW > 0 ? KernelW : p.kernel_w;
  const size_t column_bytes = size_t(l.blocks) * kBlockBytes;
  const size_t group_bytes = size_t(l.chunk_columns) * column_bytes;
  const __m512i out_offset = _mm512_set1_epi32(p.output_offset);
  const __m512i lo = _mm512_set1_epi8(int8_t(p.activation_min)), hi = _mm512_set1_epi8(int8_t(p.activation_max));
  for (int32_t b = 0; b < l.blocks; ++b) {
    LaneConstants k[4];
    std::memcpy(k, constants + size_t(b) * 4 * kConstants * 16, sizeof(k));
    const __mmask64 store_mask = channel_mask(p.in_ch, b);
    const uint8_t* q_block = q + size_t(b) * kBlockBytes;
    const uint8_t* w_block = packed_weights + size_t(b) * kBlockBytes;
    const uint8_t* q2_block = q2 ? q2 + size_t(b) * kBlockBytes : nullptr;
    const uint8_t* w2_block = q2 ? weights2 + size_t(b) * kBlockBytes : nullptr;
    // The tail block may carry several pixels per vector (Layout::tail_pixels).
    const int64_t step = b == l.blocks - 1 ? l.tail_pixels : 1;
    for (int64_t i = 0; i < count; i += step) {
      __m512i acc[4] = {k[0].colterm, k[1].colterm, k[2].colterm, k[3].colterm};
      for (int32_t g = 0; g < l.groups; ++g) {
        const uint8_t* q_pixel = q_block + size_t(g) * group_bytes + size_t(i) * p.stride_w * column_bytes;
        const uint8_t* w_group = w_block + size_t(g) * kernel_w * column_bytes;
        for (int32_t kx = 0; kx < kernel_w; ++kx) {
          const uint8_t* qa = q_pixel + size_t(kx) * p.dilation_w * column_bytes;
          const uint8_t* wa = w_group + size_t(kx) * column_bytes;
          for (int j = 0; j < 4; ++j)
            acc[j] = _mm512_dpbusd_epi32(acc[j], _mm512_loadu_si512(qa + 64 * j), _mm512_loadu_si512(wa + 64 * j));
        }
      }
      if (q2_block) {  // one row group (stride-2 quads have 3 kernel rows)
        const uint8_t* q_pixel = q2_block + size_t(i) * p.stride_w * column_bytes;
        for (int32_t kx = 0; kx < kernel_w; ++kx) {
          const uint8_t* qa = q_pixel + size_t(kx) * p.dilation_w * column_bytes;
          const uint8_t* wa = w2_block + size_t(kx) * column_bytes;
          for (int j = 0; j < 4; ++j)
            acc[j] = _mm512_dpbusd_epi32(acc[j], _mm512_loadu_si512(qa + 64 * j), _mm512_loadu_si512(wa + 64 * j));
        }
      }
      const int64_t first = r * row_elements + (ox0 + i) * p.in_ch + int64_t(b) * kBlock;
      if constexpr (Sums) {
        if (step == 1)
          store_sums(acc, p.in_ch - b * kBlock, to.s32 + first);
        else
          store_tail_sums(acc, l.tail_lanes, std::min<int64_t>(step, count - i), p.in_ch - b * kBlock, p.in_ch,
                          to.s32 + first);
        continue;
      }
      __m512i v[4];
      for (int j = 0; j < 4; ++j) v[j] = _mm512_add_epi32(requantize<ShiftsLeft>(acc[j], k[j]), out_offset);
      // Saturating in-lane packs restore channel order; clamping after them equals clamping
      // before, since [act_min, act_max] lies inside int8.
      __m512i bytes = _mm512_packs_epi16(_mm512_packs_epi32(v[0], v[1]), _mm512_packs_epi32(v[2], v[3]));
      bytes = _mm512_min_epi8(_mm512_max_epi8(bytes, lo), hi);
      int8_t* out = to.s8 + first;
      if (step == 1)
        _mm512_mask_storeu_epi8(out, store_mask, bytes);
      else
        store_tail_pixels(bytes, l.tail_lanes, std::min<int64_t>(step, count - i), p.in_ch - b * kBlock, p.in_ch, out);
    }
  }
}

}  // namespace

bool depthwise_vnni_usable(const DepthwiseS8Params& p, bool int32_sums) {
  if (!has(Isa::Avx512vnni) || p.ch_mult != 1) return false;
  if (p.input_offset < -127 || p.input_offset > 128) return false;
  if (!int32_sums && (p.activation_min < -128 || p.activation_max > 127)) return false;
  if (p.in_ch <= 0 || p.out_w <= 0) return false;
  // Bounds that keep every size computation of the layout far from overflow (scratch is then
  // at most a few GiB, and allocate_temp decides whether it exists).
  if (p.in_ch > (1 << 20) || p.kernel_h > 1024 || p.kernel_w > 1024 || p.out_w > (1 << 24) ||
      p.dilation_w > (1 << 20) || p.stride_w > (1 << 20))
    return false;
  // Columns the stride skips are still interleaved: allow at most about twice the useful ones.
  const Layout l = layout_of(p);
  return l.columns <= 2 * int64_t(p.out_w) * p.kernel_w + int64_t(p.kernel_w) * p.dilation_w;
}

size_t depthwise_vnni_scratch_bytes(const DepthwiseS8Params& p, int threads) {
  const Layout l = layout_of(p);
  return l.weight_bytes + l.constant_bytes + size_t(std::max(threads, 1)) * l.task_bytes + 64;
}

bool depthwise_vnni(const DepthwiseS8Params& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                    const DepthwiseS8Output& to, const Exec& exec, int threads) {
  // See LaneConstants: the merged rounding differs from the 32-bit steps only for INT32_MIN.
  if (to.s32 == nullptr)
    for (int32_t c = 0; c < p.in_ch; ++c)
      if (to.multiplier[c] == INT32_MIN) return false;
  const Layout l = layout_of(p);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  uint8_t* packed_weights = base;
  int32_t* constants = reinterpret_cast<int32_t*>(base + l.weight_bytes);
  uint8_t* task_base = base + l.weight_bytes + l.constant_bytes;
  const bool shifts_left = prepare(p, l, weight, bias, to.multiplier, to.shift, packed_weights, constants);
  const int64_t rows = int64_t(p.batches) * p.out_h;
  const int64_t image_bytes = int64_t(p.in_h) * p.in_w * p.in_ch;
  // Chunks of whole row pairs: both layouts that share an interleave do rows two at a time.
  exec.parallel_chunks(threads, (rows + 1) / 2, [&](int t, int64_t pair0, int64_t pair1) {
    uint8_t* q = task_base + size_t(t) * l.task_bytes;
    const int64_t r0 = 2 * pair0, r1 = std::min(rows, 2 * pair1);
    const uint8_t* set1 = packed_weights + l.weight_set_bytes;
    const uint8_t* set2 = packed_weights + 2 * l.weight_set_bytes;
    auto compute = [&](const uint8_t* q1, const uint8_t* weights, const uint8_t* q2, const uint8_t* weights2,
                       int64_t ox0, int64_t count, int64_t r) {
      if (to.s32 && p.kernel_w == 3)
        output_chunk<3, false, true>(p, l, q1, weights, q2, weights2, constants, ox0, count, r, to);
      else if (to.s32)
        output_chunk<0, false, true>(p, l, q1, weights, q2, weights2, constants, ox0, count, r, to);
      else if (p.kernel_w == 3 && !shifts_left)
        output_chunk<3, false, false>(p, l, q1, weights, q2, weights2, constants, ox0, count, r, to);
      else if (shifts_left)
        output_chunk<0, true, false>(p, l, q1, weights, q2, weights2, constants, ox0, count, r, to);
      else
        output_chunk<0, false, false>(p, l, q1, weights, q2, weights2, constants, ox0, count, r, to);
    };
    const int64_t span = int64_t(p.kernel_w - 1) * p.dilation_w + 1;
    const int32_t rows_used = l.paired_rows || l.stride2_quads ? 4 : p.kernel_h;
    if (l.stride2_quads) {
      // Column chunks outer, rows inner, so that quad m + 1 of a row pair is quad m of the next.
      for (int64_t ox0 = 0; ox0 < p.out_w; ox0 += l.chunk_pixels) {
        const int64_t count = std::min<int64_t>(l.chunk_pixels, p.out_w - ox0), columns = (count - 1) * p.stride_w + span;
        uint8_t *quad = q, *next = q + l.q_bytes;
        bool have_quad = false;
        for (int64_t r = r0; r < r1;) {
          const int64_t batch = r / p.out_h;
          const int32_t oy = int32_t(r % p.out_h);
          const int8_t* image = input + batch * image_bytes;
          const int64_t top = int64_t(oy) * 2 - p.pad_h;
          if (!have_quad) interleave_columns(p, l, image, top, 4, ox0 * p.stride_w, columns, quad);
          compute(quad, packed_weights, nullptr, nullptr, ox0, count, r);
          if (r + 1 < r1 && oy + 1 < p.out_h) {
            interleave_columns(p, l, image, top + 4, 4, ox0 * p.stride_w, columns, next);
            compute(quad, set1, next, set2, ox0, count, r + 1);
            std::swap(quad, next);
            have_quad = oy + 2 < p.out_h;  // the next pair's first quad, unless a new image starts
            r += 2;
          } else {
            have_quad = false;
            r += 1;
          }
        }
      }
      return;
    }
    for (int64_t r = r0; r < r1;) {
      const int64_t batch = r / p.out_h;
      const int32_t oy = int32_t(r % p.out_h);
      const bool pair = l.paired_rows && r + 1 < r1 && oy + 1 < p.out_h;
      for (int64_t ox0 = 0; ox0 < p.out_w; ox0 += l.chunk_pixels) {
        const int64_t count = std::min<int64_t>(l.chunk_pixels, p.out_w - ox0);
        interleave_columns(p, l, input + batch * image_bytes, int64_t(oy) * p.stride_h - p.pad_h, rows_used,
                           ox0 * p.stride_w, (count - 1) * p.stride_w + span, q);
        compute(q, packed_weights, nullptr, nullptr, ox0, count, r);
        if (pair) compute(q, set1, nullptr, nullptr, ox0, count, r + 1);
      }
      r += pair ? 2 : 1;
    }
  });
  return true;
}

#else  // no AVX-512 outside x86-64

bool depthwise_vnni_usable(const DepthwiseS8Params&, bool) { return false; }
size_t depthwise_vnni_scratch_bytes(const DepthwiseS8Params&, int) { return 0; }
bool depthwise_vnni(const DepthwiseS8Params&, const int8_t*, const int8_t*, const int32_t*, const DepthwiseS8Output&,
                    const Exec&, int) {
  return false;
}

#endif
}  // namespace vkrt::compute
