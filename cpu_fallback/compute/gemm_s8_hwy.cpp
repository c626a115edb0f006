// gemm_s8 below VNNI on x86-64 (AVX2, AVX-512BW): one register tile written once with Highway,
// one copy per target (hwy_targets.h); gemm_s8.h has the formula, gemm_s8_tiled.h the driver.
//
// Neither level has an int8 dot product that is exact here: VPMADDUBSW saturates its int16 pair
// sums (255·128·2 > 32767). So A is widened to int16 with its offset added, a + a_offset in
// [-255, 255], and B is widened in registers from a packed int8 copy. ReorderWidenMulAccumulate
// (VPMADDWD on x86) multiplies a broadcast pair of A (depths 2i, 2i+1) by L columns' pairs of B
// and adds the two products, |sum| <= 2·255·128, exact in int32. B's offset is added per row:
//   Σ (a + ao)(b + bo) = Σ (a + ao)·b + bo·Σ (a + ao),
// all modulo 2^32 as the portable loop, so the same bytes.
//
// The tile is R rows × 2 vectors of L int32 lanes: 6 × 16 columns (one 16-column panel) on AVX2,
// 8 × 32 columns (two panels, each A broadcast used twice) on AVX3. Both read the same B layout
// (GemmS8Layout::Avx2), so weights packed at load serve either level. Six rows on AVX2 take 12 of
// its 16 registers for accumulators (two for B, one for A's broadcast) and share each B widening
// and each column's output scales among 6 rows rather than 4: `cortex_m_bench`'s 1x1 layers went
// 1.07-1.14x at avx2 on an Intel Xeon (docs/simd-choice.md). On AVX3, 12 rows measured level with 8.
//
// The small per-row loops are unrolled by pragma: as loops, GCC zeroes the accumulator arrays
// with a memset on the stack and keeps them there (docs/simd-choice.md, "Code generation").
#include "compute/hwy_targets.h"

#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "compute/gemm_s8_tiled.h"
#include "compute/isa.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/gemm_s8_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

using detail::TiledPanels;

struct TilePath {
  using AElem = int16_t;
  static constexpr int kDepthGroup = 2;
  static constexpr int kTileRows = HWY_MAX_BYTES >= 64 ? 8 : 6;
  // The tile's 2·L columns in 16-column panels: 1 on AVX2, 2 on AVX3.
  static constexpr int kPanelsPerTile = 2 * HWY_MAX_BYTES / int(sizeof(int32_t)) / 16;
  static constexpr GemmS8Layout kLayout = GemmS8Layout::Avx2;
  static constexpr bool kColumnSums = false;
  // Small weights packed ahead are int16 (TiledPanels::data16): the tile loads them as they are.
  static constexpr bool kWideB = true;

  // a + a_offset must fit int16 (the kernels accept offsets up to ±65536).
  static constexpr int32_t kAOffsetMin = -32640, kAOffsetMax = 32639;
  // A carries its offset, so the column term is the bias alone.
  static int32_t column_term(const GemmS8& g, int32_t j, int32_t) { return g.bias ? g.bias[j] : 0; }
  // bo·Σ(a + ao) over the row's k values.
  static int32_t row_term(const GemmS8& g, const int8_t* a) {
    if (g.b_offset == 0) return 0;
    int32_t sum = 0;
    for (int32_t t = 0; t < g.k; ++t) sum = arith::wrap_add(sum, int32_t(a[t]) + g.a_offset);
    return arith::wrap_mul(g.b_offset, sum);
  }

  // a + a_offset as int16, zero past k.
  static void pack_a_row(const GemmS8& g, const int8_t* src, int32_t kp, int16_t* dst) {
    const hn::ScalableTag<int16_t> d16;
    const hn::Rebind<int8_t, decltype(d16)> d8;
    const int32_t lanes = int32_t(hn::Lanes(d16));
    const auto offset = hn::Set(d16, int16_t(g.a_offset));
    int32_t i = 0;
    for (; i + lanes <= g.k; i += lanes) hn::StoreU(hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, src + i)), offset), d16, dst + i);
    // The rest, fewer than L depths, and the padding to kp (one more at most). On AVX3 as one
    // masked vector: the pointwise layers over 16 or 24 channels are all rest there (L = 32), and
    // their rows packed one value at a time took a fifth of such a layer's time (perf, 16→96).
    // On AVX2 one value at a time: a partial vector goes through the stack there, whose reloads
    // Intel cores do not forward (the 3x3 stem at k = 27 measured 1.18x slower).
#if HWY_MEM_OPS_MIGHT_FAULT
    // Half a vector first where that many remain (k = 24: the 56x56 24→144 layer's rows had 8
    // values one at a time, 6% of its time).
    const hn::Half<decltype(d16)> h16;
    const hn::Rebind<int8_t, decltype(h16)> h8;
    if (i + int32_t(hn::Lanes(h16)) <= g.k) {
      hn::StoreU(hn::Add(hn::PromoteTo(h16, hn::LoadU(h8, src + i)), hn::Set(h16, int16_t(g.a_offset))), h16, dst + i);
      i += int32_t(hn::Lanes(h16));
    }
    for (; i < g.k; ++i) dst[i] = int16_t(src[i] + g.a_offset);
    for (; i < kp; ++i) dst[i] = 0;
#else
    if (i < kp) {
      const auto real = hn::FirstN(d16, size_t(g.k - i));
      const auto x = hn::Add(hn::PromoteTo(d16, LoadPartial(d8, src + i, g.k - i)), offset);
      StorePartial(d16, hn::IfThenElseZero(real, x), dst + i, kp - i);
    }
#endif
  }

  // R rows × V vectors of L columns from panel `panel`, B's panels of BElem (int8_t, or int16_t
  // widened ahead). Vector q's columns start at c = panel·16 + q·L, within panel c/16 at pair
  // offset c%16; a depth pair of one panel is 16 columns × 2 elements.
  template <int R, int V, class BElem>
  static HWY_NOINLINE void tile_vectors(const GemmS8& g, const TiledPanels& b, const int16_t* a_pack, int32_t kp,
                                        const int32_t* row_terms, int64_t row0, int32_t panel) {
    const hn::ScalableTag<int16_t> d16;
    const hn::Rebind<int8_t, decltype(d16)> d8;
    const hn::Repartition<int32_t, decltype(d16)> d32;
    using V32 = hn::Vec<decltype(d32)>;
    const int32_t lanes32 = int32_t(hn::Lanes(d32));
    const BElem* data;
    if constexpr (sizeof(BElem) == 2)
      data = b.data16;
    else
      data = b.data;
    // Offsets from the tile's first panel, constants on each target: on AVX2 the second vector
    // lies 16 elements into the same panel, so one pointer serves both.
    const BElem* tile_panel = data + size_t(panel) * 16 * kp;
    const BElem* bq[V];
#pragma GCC unroll 2
    for (int q = 0; q < V; ++q) {
      const size_t c = size_t(q) * size_t(lanes32);  // the vector's first column, from the tile's
      bq[q] = tile_panel + c / 16 * 16 * size_t(kp) + c % 16 * 2;
    }
    // C chains of accumulators take turns over the depth pairs. A tile of one or two rows has
    // too few accumulators to hide VPMADDWD's latency: with one chain, a fully connected layer's
    // single row waits ~6 cycles per depth pair; with four, the loads bound it.
    constexpr int C = R == 1 ? 4 : R == 2 ? 2 : 1;
    V32 acc[C][R][V], odd[C][R][V];  // odd: ReorderWidenMulAccumulate's second sums (unused on x86)
    // The first chain starts from the column terms, which saves adding them to each row later.
    V32 colterm[V];
#pragma GCC unroll 2
    for (int q = 0; q < V; ++q) colterm[q] = hn::LoadU(d32, b.colterm + panel * 16 + q * lanes32);
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int q = 0; q < V; ++q) {
          acc[c][r][q] = c == 0 ? colterm[q] : hn::Zero(d32);
          odd[c][r][q] = hn::Zero(d32);
        }
    // Depth pair kk into chain c.
    auto step = [&](int c, int32_t kk) HWY_ATTR {
      hn::Vec<decltype(d16)> bv[V];
#pragma GCC unroll 2
      for (int q = 0; q < V; ++q) {
        if constexpr (sizeof(BElem) == 2)
          bv[q] = hn::LoadU(d16, bq[q] + size_t(kk) * 16);
        else
          bv[q] = hn::PromoteTo(d16, hn::LoadU(d8, bq[q] + size_t(kk) * 16));
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        int32_t pair;
        std::memcpy(&pair, a_pack + size_t(r) * kp + kk, sizeof(pair));
        const auto a = hn::BitCast(d16, hn::Set(d32, pair));
#pragma GCC unroll 2
        for (int q = 0; q < V; ++q)
          acc[c][r][q] = hn::ReorderWidenMulAccumulate(d32, a, bv[q], acc[c][r][q], odd[c][r][q]);
      }
    };
    int32_t kk = 0;
    for (; kk + 2 * C <= kp; kk += 2 * C)
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) step(c, kk + 2 * c);
    for (; kk < kp; kk += 2) step(0, kk);
#pragma GCC unroll 4
    for (int c = 1; c < C; ++c)
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int q = 0; q < V; ++q) {
          acc[0][r][q] = hn::Add(acc[0][r][q], acc[c][r][q]);
          odd[0][r][q] = hn::Add(odd[0][r][q], odd[c][r][q]);
        }
    V32 sums[R][V];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int q = 0; q < V; ++q) sums[r][q] = hn::RearrangeToOddPlusEven(acc[0][r][q], odd[0][r][q]);
    store_tile<R, V>(g, b, sums, row_terms, row0, panel * 16);
  }

  // The tile's sums of R rows × V vectors from column `col`, the column terms included, with the
  // row terms added (none where B's offset is 0), stored as int32 or through the output stage.
  // Not inlined: inlined, it changed how GCC 12 allocates the depth loop's registers, and an
  // accumulator went through the stack on every depth pair (0.85x on AVX2 at k = 384 and 960).
  template <int R, int V, class V32>
  static HWY_NOINLINE void store_tile(const GemmS8& g, const TiledPanels& b, const V32 (&sums)[R][V],
                                      const int32_t* row_terms, int64_t row0, int32_t col) {
    // A one-row tile's rounding form is chosen here rather than in Requantize: with it known,
    // GCC drops the other form's terms, which it otherwise zeroed and kept on the stack.
    if constexpr (R == 1) {
      if (!g.c32 && g.out.single_round) return store_tile_as<R, V, Rounding::kSingle>(g, b, sums, row_terms, row0, col);
      if (!g.c32) return store_tile_as<R, V, Rounding::kDouble>(g, b, sums, row_terms, row0, col);
    }
    store_tile_as<R, V, Rounding::kEither>(g, b, sums, row_terms, row0, col);
  }

  enum class Rounding { kEither, kSingle, kDouble };  // g.out.single_round: read, or known true or false

  template <int R, int V, Rounding kRounding, class V32>
  static HWY_INLINE void store_tile_as(const GemmS8& g, const TiledPanels& b, const V32 (&sums)[R][V],
                                       const int32_t* row_terms, int64_t row0, int32_t col) {
    const hn::ScalableTag<int32_t> d32;
    const bool single_round = kRounding == Rounding::kEither ? g.out.single_round : kRounding == Rounding::kSingle;
    const int32_t lanes32 = int32_t(hn::Lanes(d32));
    // The columns' output scales once for the R rows; each row's vectors narrowed together where
    // it has more than L columns. A one-row tile uses its scales once, and the one divide's terms
    // cost what they save there (MakeScales): the two steps (DS-CNN's 64→12 classifier 57 → 51 ns
    // a call at avx2, Intel Xeon, with the linear wrapper's struct no longer zeroed by rep stosq).
    RequantizeScales<hn::ScalableTag<int32_t>> scales[V];
#pragma GCC unroll 2
    for (int q = 0; q < V; ++q)
      if (!g.c32)
        scales[q] = MakeScales(d32, hn::LoadU(d32, b.mult + col + q * lanes32), hn::LoadU(d32, b.shift + col + q * lanes32),
                               single_round, /*fold_double=*/R > 1);
    const bool row_terms_zero = g.b_offset == 0;
    const bool int8_range = g.out.activation_min == -128 && g.out.activation_max == 127;  // no activation
    const V32 offset = hn::Set(d32, g.out.output_offset), lo = hn::Set(d32, g.out.activation_min),
              hi = hn::Set(d32, g.out.activation_max);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      V32 v[V];
#pragma GCC unroll 2
      for (int q = 0; q < V; ++q) v[q] = row_terms_zero ? sums[r][q] : hn::Add(sums[r][q], hn::Set(d32, row_terms[r]));
      const int64_t row = row0 + r;
      if (g.c32) {
#pragma GCC unroll 2
        for (int q = 0; q < V; ++q) StorePartial(d32, v[q], g.c32 + row * g.c_stride + col + q * lanes32, g.n - col - q * lanes32);
        continue;
      }
      int8_t* out = g.c + row * g.c_stride + col;
      if constexpr (V == 2) {
        const int32_t cols = g.n - col;  // > L: tile() takes V = 1 for fewer
        const V32 v0 = Requantize(d32, v[0], scales[0]), v1 = Requantize(d32, v[1], scales[1]);
        if (int8_range)
          StoreS8x2<false>(d32, v0, v1, offset, lo, hi, out, cols);
        else
          StoreS8x2(d32, v0, v1, offset, lo, hi, out, cols);
        continue;
      }
#pragma GCC unroll 2
      for (int q = 0; q < V; ++q)
        StoreS8(d32, Requantize(d32, v[q], scales[q]), offset, lo, hi, out + q * lanes32, g.n - col - q * lanes32);
    }
  }

  // One row of A against weights packed ahead and widened (TiledPanels::data16): a fully
  // connected layer's single input. For DS-CNN's 64→12 classifier the blocked driver's set-up
  // (A packed into its blocks, each tile chosen) cost as much as the 768 multiply-adds; here A
  // is widened on the stack and each pair of vectors of columns is multiplied straight through
  // (row_vectors). False, computing nothing, for weights left int8 or a row past kRowMaxDepth.
  static constexpr int32_t kRowMaxDepth = 2048;

  static bool run_row(const GemmS8& g, const GemmS8PackedB& ahead) {
    const int32_t kp = ahead.kp;
    if (!ahead.b_int16 || kp > kRowMaxDepth) return false;
    const TiledPanels b{nullptr, ahead.colterm, ahead.column_multiplier, ahead.column_shift,
                        reinterpret_cast<const int16_t*>(ahead.panel_data)};
    const hn::ScalableTag<int16_t> d16;
    const hn::Rebind<int8_t, decltype(d16)> d8;
    const int32_t lanes16 = int32_t(hn::Lanes(d16)), lanes32 = lanes16 / 2;
    alignas(64) int16_t a[kRowMaxDepth];
    const auto offset = hn::Set(d16, int16_t(g.a_offset));
    int32_t i = 0;
    for (; i + lanes16 <= g.k; i += lanes16) hn::Store(hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, g.a + i)), offset), d16, a + i);
    for (; i < g.k; ++i) a[i] = int16_t(g.a[i] + g.a_offset);
    if (i < kp) a[i] = 0;  // kp is k rounded up to a depth pair
    const int32_t row_term = TilePath::row_term(g, g.a);
    // Columns [col, col + 2·L) (AVX2: one panel; AVX3: two), or [col, col + L) where no more remain.
    for (int32_t col = 0; col < g.n; col += 2 * lanes32) {
      if (g.n - col > lanes32)
        row_vectors<2>(g, b, a, kp, row_term, col);
      else
        row_vectors<1>(g, b, a, kp, row_term, col);
    }
    return true;
  }

  // Columns [col, col + V·L) of the row: tile_vectors<1, V>'s sums, from named chains of
  // accumulators (as arrays, GCC 12 kept them in memory here).
  template <int V>
  static HWY_NOINLINE void row_vectors(const GemmS8& g, const TiledPanels& b, const int16_t* a, int32_t kp,
                                       int32_t row_term, int32_t col) {
    const hn::ScalableTag<int16_t> d16;
    const hn::Repartition<int32_t, decltype(d16)> d32;
    using V32 = hn::Vec<decltype(d32)>;
    const uint32_t lanes32 = uint32_t(hn::Lanes(d32));
    // Vector q's columns start at col + q·L: panel (col + q·L)/16, pair offset (col + q·L)%16.
    const int16_t* bq[V];
    for (int q = 0; q < V; ++q) {
      const uint32_t c = uint32_t(col) + q * lanes32;
      bq[q] = b.data16 + size_t(c / 16) * 16 * size_t(kp) + (c % 16) * 2;
    }
    // Two chains per vector take turns over the depth pairs (each vector's own chains hide
    // VPMADDWD's latency between them; the loop is bound by its loads and multiply-adds).
    const V32 zero = hn::Zero(d32);
    V32 x0 = hn::LoadU(d32, b.colterm + col), x1 = zero;
    V32 y0 = V == 2 ? hn::LoadU(d32, b.colterm + col + lanes32) : zero, y1 = zero, unused;
    // Depth pair kk into chains x (first vector) and y (second).
    auto step = [&](V32& x, V32& y, int32_t kk) HWY_ATTR {
      int32_t pair;
      std::memcpy(&pair, a + kk, sizeof(pair));
      const auto av = hn::BitCast(d16, hn::Set(d32, pair));
      x = hn::ReorderWidenMulAccumulate(d32, av, hn::LoadU(d16, bq[0] + size_t(kk) * 16), x, unused);
      if constexpr (V == 2) y = hn::ReorderWidenMulAccumulate(d32, av, hn::LoadU(d16, bq[1] + size_t(kk) * 16), y, unused);
    };
    int32_t kk = 0;
    for (; kk + 16 <= kp; kk += 16) {
      step(x0, y0, kk);
      step(x1, y1, kk + 2);
      step(x0, y0, kk + 4);
      step(x1, y1, kk + 6);
      step(x0, y0, kk + 8);
      step(x1, y1, kk + 10);
      step(x0, y0, kk + 12);
      step(x1, y1, kk + 14);
    }
    for (; kk < kp; kk += 2) step(x0, y0, kk);
    V32 sums[1][V];
    sums[0][0] = hn::Add(x0, x1);
    if constexpr (V == 2) sums[0][V - 1] = hn::Add(y0, y1);
    store_tile<1, V>(g, b, sums, &row_term, 0, col);
  }

#if HWY_TARGET == HWY_AVX2
  // One row of A by int8 panels [p0, p1) (a fully connected layer's weights too large to be
  // packed as int16): tile_vectors<1, 2, int8_t> is bound by widening B, one VPMOVSXBW per 16
  // multiply-adds on the one shuffle port, as XNNPACK's AVX2 kernel is. Here B is not widened:
  // VPMADDUBSW multiplies its bytes as they lie by unsigned bytes of A and adds pairs into
  // int16. That saturates for whole bytes (255·128·2 > 32767), so A is taken as a' = a + 128 in
  // [0, 255] split into nibbles, a' = 16·hi + lo: each pair sum is at most 2·15·128 = 3840, and
  // 8 depth pairs of them add up in int16 without overflow before they are widened, lo + 16·hi,
  // by VPMADDWD. Σ (a + ao)·b = Σ a'·b + (ao − 128)·Σ b, the column sums packed with B.
  // About 4.75 vector instructions per 32 multiply-adds, against 6.
  static constexpr int32_t kRowPanelsMaxDepth = 4096;

  // Σ a'·b for P panels from `panels` (P·16 columns): panel q's columns 0-3 and 8-11 in low[q],
  // 4-7 and 12-15 in high[q] (VPUNPCK*WD's order within 128 bits). Depth pairs in groups of 8, the
  // most int16 sums hold.
  template <int P>
  static HWY_INLINE void row_panel_dots(const int8_t* panels, int32_t kp, int32_t pairs, const uint32_t* lo_pairs,
                                        const uint32_t* hi_pairs, __m256i (&low)[2], __m256i (&high)[2]) {
    const __m256i lo_and_16hi = _mm256_set1_epi32(0x00100001);  // int16 (1, 16)
    for (int q = 0; q < P; ++q) low[q] = high[q] = _mm256_setzero_si256();
    auto group = [&](int32_t i, auto steps) HWY_ATTR {
      __m256i lo16[P], hi16[P];
      for (int q = 0; q < P; ++q) lo16[q] = hi16[q] = _mm256_setzero_si256();
#pragma GCC unroll 8
      for (int32_t s = 0; s < steps(); ++s) {
        const __m256i lo = _mm256_set1_epi32(int32_t(lo_pairs[i + s])), hi = _mm256_set1_epi32(int32_t(hi_pairs[i + s]));
#pragma GCC unroll 2
        for (int q = 0; q < P; ++q) {
          __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panels + size_t(q) * 16 * size_t(kp) + size_t(i + s) * 32));
          __asm__("" : "+x"(bv));  // one load for both products (GCC would fold it into each)
          lo16[q] = _mm256_add_epi16(lo16[q], _mm256_maddubs_epi16(lo, bv));
          hi16[q] = _mm256_add_epi16(hi16[q], _mm256_maddubs_epi16(hi, bv));
          // Added in turn: reassociated, GCC 12 computed all products first and spilled them.
          __asm__("" : "+x"(lo16[q]), "+x"(hi16[q]));
        }
      }
      for (int q = 0; q < P; ++q) {
        low[q] = _mm256_add_epi32(low[q], _mm256_madd_epi16(_mm256_unpacklo_epi16(lo16[q], hi16[q]), lo_and_16hi));
        high[q] = _mm256_add_epi32(high[q], _mm256_madd_epi16(_mm256_unpackhi_epi16(lo16[q], hi16[q]), lo_and_16hi));
      }
    };
    int32_t i = 0;
    for (; i + 8 <= pairs; i += 8) group(i, [] { return 8; });
    const int32_t rest = pairs - i;
    if (rest > 0) group(i, [rest] { return rest; });
  }

  static bool row_panels(const GemmS8& g, const TiledPanels& b, const int8_t* a, int32_t row_term, int32_t p0,
                         int32_t p1) {
    const int32_t kp = (g.k + 1) / 2 * 2;
    if (kp > kRowPanelsMaxDepth || b.data == nullptr || b.colsum == nullptr) return false;
    // Each depth pair's nibbles as 4 bytes (the pair twice), for a broadcast straight from memory.
    alignas(32) uint8_t row[kRowPanelsMaxDepth];
    alignas(32) uint32_t lo_pairs[kRowPanelsMaxDepth / 2], hi_pairs[kRowPanelsMaxDepth / 2];
    const int32_t k16 = (g.k + 15) / 16 * 16;
    std::memcpy(row, a, size_t(g.k));
    std::memset(row + g.k, 0, size_t(k16 - g.k));  // B is zero past k
    const __m128i nibble = _mm_set1_epi8(0x0F), flip = _mm_set1_epi8(int8_t(0x80));
    for (int32_t i = 0; i < k16; i += 16) {
      const __m128i x = _mm_xor_si128(_mm_load_si128(reinterpret_cast<const __m128i*>(row + i)), flip);  // a + 128
      const __m128i lo = _mm_and_si128(x, nibble), hi = _mm_and_si128(_mm_srli_epi16(x, 4), nibble);
      _mm_store_si128(reinterpret_cast<__m128i*>(lo_pairs + i / 2), _mm_unpacklo_epi16(lo, lo));
      _mm_store_si128(reinterpret_cast<__m128i*>(lo_pairs + i / 2 + 4), _mm_unpackhi_epi16(lo, lo));
      _mm_store_si128(reinterpret_cast<__m128i*>(hi_pairs + i / 2), _mm_unpacklo_epi16(hi, hi));
      _mm_store_si128(reinterpret_cast<__m128i*>(hi_pairs + i / 2 + 4), _mm_unpackhi_epi16(hi, hi));
    }
    const int32_t pairs = kp / 2;
    const __m256i offset_less_128 = _mm256_set1_epi32(g.a_offset - 128);
    for (int32_t p = p0; p < p1; p += 2) {
      // Two panels at a time share each broadcast of A.
      __m256i low[2], high[2];
      if (p + 1 < p1)
        row_panel_dots<2>(b.data + size_t(p) * 16 * size_t(kp), kp, pairs, lo_pairs, hi_pairs, low, high);
      else
        row_panel_dots<1>(b.data + size_t(p) * 16 * size_t(kp), kp, pairs, lo_pairs, hi_pairs, low, high);
      for (int32_t q = p; q < std::min(p + 2, p1); ++q) {
        const int32_t col = q * 16;
        hn::Vec<hn::Full256<int32_t>> sums[1][2];
        // Columns 0-7 from the low halves, 8-15 from the high halves.
        const __m256i dots[2] = {_mm256_permute2x128_si256(low[q - p], high[q - p], 0x20),
                                 _mm256_permute2x128_si256(low[q - p], high[q - p], 0x31)};
        for (int v = 0; v < 2; ++v) {
          const __m256i dot = dots[v];
          const __m256i colsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.colsum + col + 8 * v));
          const __m256i terms = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.colterm + col + 8 * v)),
                                                 _mm256_mullo_epi32(offset_less_128, colsum));
          sums[0][v].raw = _mm256_add_epi32(dot, terms);
        }
        if (g.n - col > 8) {
          store_tile<1, 2>(g, b, sums, &row_term, 0, col);
        } else {
          const hn::Vec<hn::Full256<int32_t>> first[1][1] = {{sums[0][0]}};
          store_tile<1, 1>(g, b, first, &row_term, 0, col);
        }
      }
    }
    return true;
  }
#endif

  // R rows × `panels` (1 or kPanelsPerTile) panels from `panel`.
  template <int R>
  static void tile(const GemmS8& g, const TiledPanels& b, const int16_t* a_pack, int32_t kp, const int32_t* row_terms,
                   int64_t row0, int /*rows: R*/, int32_t panel, int panels = 1) {
    // A tile is 2 vectors; a single panel on AVX3 is one, and so is the last panel on AVX2 when
    // it has no more than one vector's columns (n = 24: the second panel's 8 columns would
    // otherwise cost as much as 16).
    const int lanes = int(hn::Lanes(hn::ScalableTag<int32_t>()));
    const bool two = panels * 16 >= 2 * lanes && g.n - panel * 16 > lanes;
    if (b.data16 && two)
      tile_vectors<R, 2, int16_t>(g, b, a_pack, kp, row_terms, row0, panel);
    else if (b.data16)
      tile_vectors<R, 1, int16_t>(g, b, a_pack, kp, row_terms, row0, panel);
    else if (two)
      tile_vectors<R, 2, int8_t>(g, b, a_pack, kp, row_terms, row0, panel);
    else
      tile_vectors<R, 1, int8_t>(g, b, a_pack, kp, row_terms, row0, panel);
  }
};

constexpr detail::TiledGemmPath kTilePath = detail::tiled_gemm_path_of<TilePath>();

const detail::TiledGemmPath* tiled_gemm_path() { return &kTilePath; }

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vkrt::compute {

const detail::TiledGemmPath* detail::tiled_gemm_path() {
  // VNNI has its own paths in gemm_s8.cpp.
  if (has(Isa::Avx512vnni) || !has(Isa::Avx2)) return nullptr;
  return has(Isa::Avx512bw) ? N_AVX3::tiled_gemm_path() : N_AVX2::tiled_gemm_path();
}

}  // namespace vkrt::compute
#endif  // HWY_ONCE
