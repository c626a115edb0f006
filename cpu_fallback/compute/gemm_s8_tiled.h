// Private to the gemm_s8 paths: the driver shared by the tiled paths below AVX-512 VNNI (AVX2,
// AVX-512BW, NEON, NEON dotprod). Each path supplies its B panel layout, its A packing and its register
// tile; the driver does the rest the same way for all of them: B packed once ahead (a loaded
// method) or per call into the scratch, rows of A packed a block at a time, the work shared out
// by row tiles or, when there are few rows, by B panels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "arith/fixed_point.h"
#include "compute/gemm_s8.h"
#include "compute/simd_avx512.h"

namespace vkrt::compute::detail {

// One tiled path as gemm_s8.cpp calls it.
struct TiledGemmPath {
  GemmS8Layout layout;
  // The path is exact for A offsets in [a_offset_min, a_offset_max] (any B offset).
  int32_t a_offset_min, a_offset_max;
  bool usable(const GemmS8& g) const { return g.a_offset >= a_offset_min && g.a_offset <= a_offset_max; }
  size_t (*packed_b_bytes)(const GemmS8& g);
  const GemmS8PackedB* (*pack_b)(const GemmS8& g, std::span<uint8_t> memory);
  // Scratch for g (B packed ahead when g.packed_b is set, else packed in the scratch).
  size_t (*scratch_bytes)(const GemmS8& g, int threads);
  // Precondition: usable(g), g.k > 0, g.packed_b null or of this layout, and exec.scratch holds
  // scratch_bytes.
  void (*run)(const GemmS8& g, const Exec& exec);
  // run's serial work without its scratch or threads, for a product small enough that run would
  // take one task and whose A rows fit on the stack (a fully connected layer's few rows over
  // weights packed at load); returns false, computing nothing, for any other product (or one
  // run could not take: not usable, k = 0).
  // Precondition: g.packed_b null or built from g (gemm_s8 checks).
  bool (*run_small)(const GemmS8& g);
};

// The path for the active ISA level (AVX2 below VNNI on x86-64; NEON or dotprod on aarch64),
// or null (portable, or VNNI, which gemm_s8.cpp runs itself).
const TiledGemmPath* tiled_gemm_path();

// Packed B as a tile reads it.
struct TiledPanels {
  const int8_t* data;  // panel p at data + p·16·kp; null where data16 holds the panels
  const int32_t* colterm;
  const int32_t* mult;
  const int32_t* shift;
  const int16_t* data16 = nullptr;  // the panels widened to int16 (kWideB paths, small weights packed ahead)
  const int32_t* colsum = nullptr;  // Σ_k B[j][k] per column, on paths with row_panels (else null)
};

// B packed ahead as a tile reads it.
inline TiledPanels tiled_panels_of(const GemmS8PackedB& ahead) {
  const bool wide = ahead.b_int16;
  return TiledPanels{wide ? nullptr : reinterpret_cast<const int8_t*>(ahead.panel_data), ahead.colterm,
                     ahead.column_multiplier, ahead.column_shift,
                     wide ? reinterpret_cast<const int16_t*>(ahead.panel_data) : nullptr, ahead.column_sum};
}

// What a path supplies (see gemm_s8_hwy.cpp, gemm_s8_neon.cpp):
//   using AElem = int16_t or int8_t;           packed A element
//   static constexpr int kDepthGroup;          D: B panels are [kp/D][16 columns][D depths], int8
//   static constexpr int kTileRows;            rows of one register tile (4; 8 on AVX-512BW)
//   static constexpr GemmS8Layout kLayout;
//   static constexpr bool kColumnSums;         whether column_term needs Σ_k B[j][k]
//   static constexpr int32_t kAOffsetMin, kAOffsetMax;  the A offsets its arithmetic is exact for
//   static int32_t column_term(const GemmS8&, int32_t j, int32_t column_sum);  bias and offsets
//   static int32_t row_term(const GemmS8&, const AElem* row);                   added per row
//   static void pack_a_row(const GemmS8&, const int8_t* src, int32_t kp, AElem* dst);
//   template <int R> static void tile(const GemmS8&, const TiledPanels&, const AElem* a, int32_t kp,
//                                     const int32_t* row_terms, int64_t row0, int rows, int32_t panel);
//   optionally static constexpr int kPanelsPerTile (> 1): the tile then covers panels
//                                     [panel, panel + panels) and takes `int panels` last.
//   optionally static bool run_row(const GemmS8&, const GemmS8PackedB&): one row of A
//                                     (g.m = 1) over B packed ahead, or false, computing nothing.
//   optionally static bool row_panels(const GemmS8&, const TiledPanels&, const int8_t* a_row,
//                                     int32_t row_term, int32_t p0, int32_t p1): one row of A (g.m
//                                     = 1) by int8 panels [p0, p1), or false, computing nothing.
//                                     The column sums (TiledPanels::colsum) are then packed too.
//   optionally static constexpr bool kWideB = true: the tile also reads panels widened to int16
//                                     (TiledPanels::data16), which weights packed ahead then are
//                                     where they are small (kWideBMaxBytes).
template <class Path>
struct TiledGemm {
  using AElem = typename Path::AElem;
  static constexpr int kPanel = 16;
  // Rows of A packed at a time: about 64, whole register tiles.
  static constexpr int kBlockRows = 64 / Path::kTileRows * Path::kTileRows;

  struct Layout {
    int32_t kp, panels;
    size_t b_bytes, colterm_bytes, task_bytes, total;
  };

  static Layout layout_of(const GemmS8& g, int tasks, bool b_in_scratch) {
    Layout l{};
    l.kp = (g.k + Path::kDepthGroup - 1) / Path::kDepthGroup * Path::kDepthGroup;
    l.panels = (g.n + kPanel - 1) / kPanel;
    l.b_bytes = b_in_scratch ? align_up(size_t(l.panels) * kPanel * size_t(l.kp)) : 0;
    // colterm, multiplier, shift, and the column sums where the path reads them
    l.colterm_bytes = b_in_scratch ? align_up(size_t(l.panels) * kPanel * 4 * (has_row_panels() ? 4 : 3)) : 0;
    l.task_bytes = align_up(size_t(kBlockRows) * size_t(l.kp) * sizeof(AElem)) + align_up(kBlockRows * 4) +
                   align_up(size_t(g.k));
    l.total = l.b_bytes + l.colterm_bytes + size_t(std::max(tasks, 1)) * l.task_bytes + 64;
    return l;
  }

  static constexpr bool has_row_panels() {
    return requires(const GemmS8& g, const TiledPanels& b) { Path::row_panels(g, b, g.a, 0, 0, 0); };
  }

  // Weights packed ahead are widened to int16 where they then take at most this much, on a path
  // whose tile reads that (kWideB): a tile of few rows is bound by widening B (VPMOVSXBW, one
  // port on Intel), one of many rows saves a little. 256 KiB, the smallest L2 of recent x86
  // cores, holds the widened panels of the 1x1 layers up to 276→276 (159 KiB; 1.02-1.08x at
  // avx2, DS-CNN-S's 64→12 classifier 1.12x, docs/simd-choice.md). Larger weights stay int8: a
  // fully connected layer's 1280x1000 widened would be read from L3 where int8 fits L2, and
  // every large layer's packed weights would double in memory.
  static constexpr size_t kWideBMaxBytes = 262144;
  static constexpr bool wide_b_supported() {
    if constexpr (requires { Path::kWideB; }) return Path::kWideB;
    return false;
  }
  static bool wide_b(const Layout& l) {
    return wide_b_supported() && size_t(l.panels) * kPanel * size_t(l.kp) * sizeof(int16_t) <= kWideBMaxBytes;
  }

  // Panel p and its columns' terms, multipliers and shifts (past n: no term, column n − 1's
  // scales), and their sums into colsum where it is not null. BElem: int8_t, or int16_t for
  // panels widened ahead (wide_b).
  template <class BElem>
  static void pack_panel(const GemmS8& g, int32_t kp, int32_t p, BElem* panels, int32_t* colterm, int32_t* mult,
                         int32_t* shift, int32_t* colsum) {
    constexpr int D = Path::kDepthGroup;
    BElem* dst = panels + size_t(p) * kPanel * kp;
    std::memset(dst, 0, size_t(kPanel) * kp * sizeof(BElem));
    const int32_t full = g.k / D * D;
    for (int32_t jj = 0; jj < kPanel && p * kPanel + jj < g.n; ++jj) {
      const int8_t* b = g.b + int64_t(p * kPanel + jj) * g.b_stride;
      if constexpr (sizeof(BElem) == 1) {
        // D bytes at a time (one 2- or 4-byte move each): per-call packing's speed matters.
        for (int32_t i = 0; i < full; i += D) std::memcpy(dst + size_t(i) * kPanel + jj * D, b + i, D);
      } else {
        for (int32_t i = 0; i < full; ++i) dst[size_t(i / D * D) * kPanel + jj * D + i % D] = b[i];
      }
      for (int32_t i = full; i < g.k; ++i) dst[size_t(full) * kPanel + jj * D + (i - full)] = b[i];
    }
    for (int32_t jj = 0; jj < kPanel; ++jj) {
      const int32_t j = p * kPanel + jj;
      if (j >= g.n) {  // padding: the last column's scales (out_multiplier)
        colterm[j] = 0;
        if (colsum) colsum[j] = 0;
        mult[j] = out_multiplier(g, g.n - 1);
        shift[j] = out_shift(g, g.n - 1);
        continue;
      }
      int32_t sum = 0;
      if (Path::kColumnSums || colsum) {
        const int8_t* b = g.b + int64_t(j) * g.b_stride;
        for (int32_t i = 0; i < g.k; ++i) sum = arith::wrap_add(sum, b[i]);
      }
      if (colsum) colsum[j] = sum;
      colterm[j] = Path::column_term(g, j, sum);
      mult[j] = out_multiplier(g, j);
      shift[j] = out_shift(g, j);
    }
  }

  // Rows [r0, r0 + rows) of A, packed, with their row terms.
  static void pack_a_block(const GemmS8& g, int64_t r0, int rows, int32_t kp, AElem* a_pack, int32_t* row_terms,
                           int8_t* row_tmp) {
    for (int r = 0; r < rows; ++r) {
      const int8_t* src = g.a_row ? g.a_row(g.a_ctx, r0 + r, row_tmp) : g.a + (r0 + r) * g.a_stride;
      AElem* dst = a_pack + size_t(r) * kp;
      Path::pack_a_row(g, src, kp, dst);
      row_terms[r] = Path::row_term(g, src);
    }
  }

  // Panels one tile covers: Path::kPanelsPerTile where the path has it (its tile then takes the
  // count, the last tile of a range having fewer), else 1.
  static constexpr int panels_per_tile() {
    if constexpr (requires { Path::kPanelsPerTile; }) return Path::kPanelsPerTile;
    return 1;
  }

  static void multiply_block(const GemmS8& g, const TiledPanels& b, int32_t kp, const AElem* a_pack,
                             const int32_t* row_terms, int64_t r0, int rows, int32_t p0, int32_t p1) {
    constexpr int T = Path::kTileRows, P = panels_per_tile();
    for (int32_t p = p0; p < p1; p += P)
      for (int r = 0; r < rows; r += T) {
        const int n = std::min(T, rows - r);
        const AElem* a = a_pack + size_t(r) * kp;
        // A short last tile is a whole tile of fewer rows.
        tile_of<T>(n, g, b, a, kp, row_terms + r, r0 + r, p, std::min<int32_t>(P, p1 - p));
      }
  }

  // Path::tile<n> for 1 <= n <= N.
  template <int N>
  static void tile_of(int n, const GemmS8& g, const TiledPanels& b, const AElem* a, int32_t kp,
                      const int32_t* row_terms, int64_t row0, int32_t panel, int panels) {
    if (n == N) {
      if constexpr (panels_per_tile() > 1)
        Path::template tile<N>(g, b, a, kp, row_terms, row0, N, panel, panels);
      else
        Path::template tile<N>(g, b, a, kp, row_terms, row0, N, panel);
      return;
    }
    if constexpr (N > 1) tile_of<N - 1>(n, g, b, a, kp, row_terms, row0, panel, panels);
  }

  static size_t packed_b_bytes(const GemmS8& g) {
    if (g.n <= 0 || g.k <= 0 || g.b == nullptr) return 0;
    const Layout l = layout_of(g, 1, true);
    return align_up(sizeof(GemmS8PackedB)) + l.b_bytes * (wide_b(l) ? 2 : 1) + l.colterm_bytes + 64;
  }

  static const GemmS8PackedB* pack_b(const GemmS8& g, std::span<uint8_t> memory, GemmS8Layout layout) {
    const size_t need = packed_b_bytes(g);
    if (need == 0 || memory.size() < need) return nullptr;
    uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(memory.data())));
    const Layout l = layout_of(g, 1, true);
    const bool wide = wide_b(l);
    auto* header = reinterpret_cast<GemmS8PackedB*>(base);
    uint8_t* panels = base + align_up(sizeof(GemmS8PackedB));
    int32_t* colterm = reinterpret_cast<int32_t*>(panels + l.b_bytes * (wide ? 2 : 1));
    int32_t* mult = colterm + l.panels * kPanel;
    int32_t* shift = mult + l.panels * kPanel;
    int32_t* colsum = has_row_panels() && !wide ? shift + l.panels * kPanel : nullptr;  // row_panels reads int8
    for (int32_t p = 0; p < l.panels; ++p) {
      if (wide)
        pack_panel(g, l.kp, p, reinterpret_cast<int16_t*>(panels), colterm, mult, shift, colsum);
      else
        pack_panel(g, l.kp, p, reinterpret_cast<int8_t*>(panels), colterm, mult, shift, colsum);
    }
    *header = GemmS8PackedB{g.b, g.b_stride, g.n, g.k, g.bias, g.a_offset, g.b_offset, g.out.per_channel,
                            g.out.per_channel ? g.out.multiplier : nullptr, out_multiplier(g, 0), out_shift(g, 0),
                            g.out.per_channel ? g.out.shift : nullptr, layout, wide, l.kp, l.panels, panels,
                            colterm, mult, shift, colsum};
    return header;
  }

  // Multiply-adds per task from which run shares a product out: ~256k, about 5 us at AVX2's
  // 50 GMAC/s. The pool's workers poll between runs, so a hand-off costs far less: DS-CNN's
  // 25x5 64→64 pointwise layer (512k) went 1.53x faster at two threads when this fell from 1M.
  // run_small takes products under one task's worth with A's packed rows in kSmallABytes of stack
  // (or a single row through Path::run_row where the path has one).
  static constexpr double kMacsPerTask = 262144.0;
  static constexpr size_t kSmallABytes = 8192;

  static bool run_small(const GemmS8& g) {
    const GemmS8PackedB* ahead = g.packed_b;
    if (ahead == nullptr || g.a_row != nullptr || g.k <= 0 || g.a_offset < Path::kAOffsetMin ||
        g.a_offset > Path::kAOffsetMax)
      return false;
    // A fully connected layer's one row first: for DS-CNN's 64→12 classifier the set-up of the
    // blocked path below costs as much as the 768 multiply-adds. Weights widened ahead go to
    // run_row, int8 ones to row_panels.
    if (g.m == 1 && int64_t(g.n) * g.k < int64_t(kMacsPerTask)) {
      if constexpr (requires { Path::run_row(g, *ahead); })
        if (Path::run_row(g, *ahead)) return true;
      if constexpr (has_row_panels())
        if (Path::row_panels(g, tiled_panels_of(*ahead), g.a, Path::row_term(g, g.a), 0, ahead->panels)) return true;
    }
    if (double(g.m) * g.n * g.k >= kMacsPerTask) return false;
    return run_small_rows(g, *ahead);
  }

  // run_small's rows packed into one block on the stack, then multiplied tile by tile. Not
  // inlined: its stack frame would otherwise be set up for the one-row calls too.
  static __attribute__((noinline)) bool run_small_rows(const GemmS8& g, const GemmS8PackedB& ahead) {
    if (g.m > kBlockRows || size_t(g.m) * size_t(ahead.kp) * sizeof(AElem) > kSmallABytes) return false;
    alignas(64) AElem a_pack[kSmallABytes / sizeof(AElem)];
    int32_t row_terms[kBlockRows];
    const int rows = int(g.m);
    pack_a_block(g, 0, rows, ahead.kp, a_pack, row_terms, nullptr);
    multiply_block(g, tiled_panels_of(ahead), ahead.kp, a_pack, row_terms, 0, rows, 0, ahead.panels);
    return true;
  }

  static size_t scratch_bytes(const GemmS8& g, int threads) {
    return layout_of(g, std::max(threads, 1), g.packed_b == nullptr).total;
  }

  static void run(const GemmS8& g, const Exec& exec) {
    const int tasks = std::max(1, std::min(exec.num_threads(), int(double(g.m) * g.n * g.k / kMacsPerTask) + 1));
    const GemmS8PackedB* ahead = g.packed_b;
    const Layout l = layout_of(g, tasks, ahead == nullptr);
    uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
    int8_t* packed_b = reinterpret_cast<int8_t*>(base);
    int32_t* colterm = reinterpret_cast<int32_t*>(base + l.b_bytes);
    int32_t* mult = colterm + l.panels * kPanel;
    int32_t* shift = mult + l.panels * kPanel;
    // Column sums only where row_panels will read them (one row): for more rows they would be
    // an unused pass over B on every call.
    int32_t* colsum = has_row_panels() && g.m == 1 ? shift + l.panels * kPanel : nullptr;
    const TiledPanels b =
        ahead ? tiled_panels_of(*ahead) : TiledPanels{packed_b, colterm, mult, shift, nullptr, colsum};
    uint8_t* task_base = base + l.b_bytes + l.colterm_bytes;
    struct TaskBuffers {
      AElem* a_pack;
      int32_t* row_terms;
      int8_t* row_tmp;
    };
    auto buffers_of = [&](int t) {
      uint8_t* mine = task_base + size_t(t) * l.task_bytes;
      uint8_t* terms = mine + align_up(size_t(kBlockRows) * l.kp * sizeof(AElem));
      return TaskBuffers{reinterpret_cast<AElem*>(mine), reinterpret_cast<int32_t*>(terms),
                         reinterpret_cast<int8_t*>(terms + align_up(kBlockRows * 4))};
    };
    auto pack_panels = [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) pack_panel(g, l.kp, int32_t(p), packed_b, colterm, mult, shift, colsum);
    };
    auto multiply_rows = [&](const TaskBuffers& mine, int64_t row_begin, int64_t row_end, int32_t p0, int32_t p1) {
      // A fully connected layer's one row over int8 panels: its own kernel, A not packed.
      if constexpr (has_row_panels()) {
        if (g.m == 1 && b.data && b.colsum) {
          const int8_t* row = g.a_row ? g.a_row(g.a_ctx, 0, mine.row_tmp) : g.a;
          if (Path::row_panels(g, b, row, Path::row_term(g, row), p0, p1)) return;
        }
      }
      for (int64_t r0 = row_begin; r0 < row_end; r0 += kBlockRows) {
        const int rows = int(std::min<int64_t>(kBlockRows, row_end - r0));
        pack_a_block(g, r0, rows, l.kp, mine.a_pack, mine.row_terms, mine.row_tmp);
        multiply_block(g, b, l.kp, mine.a_pack, mine.row_terms, r0, rows, p0, p1);
      }
    };

    // The work is shared out by column panels where A is one block of rows and that leaves the
    // busiest task fewer tiles than sharing out row tiles (a fully connected layer; a 7x7
    // pointwise one: its 9 row tiles on two tasks are 5 against 4, its 80 panels 40 against 40).
    // Each task then takes its own panels, packs them (unless packed ahead) and multiplies every
    // row by them, no barrier. Chunks are of whole tiles (panels_per_tile() panels), so that no
    // chunk edge halves a tile. With more rows, each chunk of panels would pack A again, and by
    // panels measured 0.85-0.90x by rows at 125 to 784 rows on AVX2 even where it has fewer tiles.
    constexpr int P = panels_per_tile();
    const int64_t tiles = (g.m + Path::kTileRows - 1) / Path::kTileRows;
    const int64_t tile_columns = (l.panels + P - 1) / P;
    const auto busiest = [tasks](int64_t shared, int64_t each) { return (shared + tasks - 1) / tasks * each; };
    if (tasks > 1 && g.m <= kBlockRows && busiest(tile_columns, tiles) < busiest(tiles, tile_columns)) {
      exec.parallel_chunks(tasks, tile_columns, [&](int t, int64_t c0, int64_t c1) {
        const int64_t p0 = c0 * P, p1 = std::min<int64_t>(c1 * P, l.panels);
        if (!ahead) pack_panels(p0, p1);
        multiply_rows(buffers_of(t), 0, g.m, int32_t(p0), int32_t(p1));
      });
      return;
    }
    // Otherwise all tasks pack B first (unless packed ahead), then share out the row tiles.
    if (!ahead) {
      exec.parallel_chunks(tasks, l.panels, [&](int, int64_t p0, int64_t p1) { pack_panels(p0, p1); });
    }
    exec.parallel_chunks(tasks, tiles, [&](int t, int64_t t0, int64_t t1) {
      multiply_rows(buffers_of(t), t0 * Path::kTileRows, std::min(g.m, t1 * Path::kTileRows), 0, l.panels);
    });
  }
};

// The TiledGemmPath of a Path.
template <class Path>
constexpr TiledGemmPath tiled_gemm_path_of() {
  return TiledGemmPath{Path::kLayout, Path::kAOffsetMin, Path::kAOffsetMax, &TiledGemm<Path>::packed_b_bytes,
                       [](const GemmS8& g, std::span<uint8_t> m) { return TiledGemm<Path>::pack_b(g, m, Path::kLayout); },
                       &TiledGemm<Path>::scratch_bytes, &TiledGemm<Path>::run, &TiledGemm<Path>::run_small};
}

#if defined(__x86_64__)
// The AVX-512 paths' (VNNI, AVX-512BW) last step for 16 columns of one row of C, the accumulators
// `v` carrying every term: stored as they are (an int32 C), or requantized with the columns'
// multipliers and shifts, offset, clamped and stored as int8 (cols <= 16 of them).
VKRT_TARGET_AVX512 inline void store_c_x16(const GemmS8& g, __m512i v, const int32_t* mult, const int32_t* shift,
                                          int64_t row, int32_t col) {
  const int cols = std::min<int32_t>(16, g.n - col);
  if (g.c32) {
    const __mmask16 m = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1u);
    _mm512_mask_storeu_epi32(g.c32 + row * g.c_stride + col, m, v);
    return;
  }
  v = simd::requantize_x16(v, _mm512_loadu_si512(mult + col),
                           simd::split_shift(_mm512_loadu_si512(shift + col), g.out.single_round));
  simd::store_s8x16(g.c + row * g.c_stride + col, v, _mm512_set1_epi32(g.out.output_offset),
                    _mm512_set1_epi32(g.out.activation_min), _mm512_set1_epi32(g.out.activation_max), cols);
}
#endif

}  // namespace vkrt::compute::detail
