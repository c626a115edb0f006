#include "compute/gemm_s8.h"

#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "compute/gemm_s8_tiled.h"
#include "compute/gemv_small_s8.h"
#include "compute/simd_avx512.h"

namespace vkrt::compute {
namespace {

using arith::wrap_add;
using arith::wrap_mul;

inline const int8_t* row_of(const GemmS8& g, int64_t r, int8_t* tmp) {
  return g.a_row ? g.a_row(g.a_ctx, r, tmp) : g.a + r * g.a_stride;
}

// Rows handled by one VNNI micro-tile and the row block packed at a time.
constexpr int kTileRows = 8;
constexpr int kBlockRows = 32;
// GEMV path below this many rows (packing B would cost as much as the product).
constexpr int64_t kGemvMaxRows = 4;

[[maybe_unused]] int32_t padded_k4(int32_t k) { return (k + 3) / 4 * 4; }
[[maybe_unused]] int32_t padded_k64(int32_t k) { return (k + 63) / 64 * 64; }
[[maybe_unused]] int32_t panels_of(int32_t n) { return (n + 15) / 16; }

}  // namespace

size_t gemm_s8_min_scratch_bytes(const GemmS8& g) { return g.a_row ? size_t(g.k) : 0; }

void gemm_s8_portable(const GemmS8& g, std::span<uint8_t> scratch) {
  int8_t* tmp = reinterpret_cast<int8_t*>(scratch.data());
  int32_t acc_stack[64];
  for (int64_t r = 0; r < g.m; ++r) {
    const int8_t* a = row_of(g, r, tmp);

    for (int32_t j0 = 0; j0 < g.n; j0 += 64) {
      const int32_t count = std::min<int32_t>(64, g.n - j0);
      for (int32_t jj = 0; jj < count; ++jj) {
        const int8_t* b = g.b + int64_t(j0 + jj) * g.b_stride;
        int32_t acc = g.bias ? g.bias[j0 + jj] : 0;
        for (int32_t i = 0; i < g.k; ++i) {
          acc = wrap_add(acc, wrap_mul(int32_t(a[i]) + g.a_offset, int32_t(b[i]) + g.b_offset));
        }
        acc_stack[jj] = acc;
      }
      if (g.c32)
        std::memcpy(g.c32 + r * g.c_stride + j0, acc_stack, size_t(count) * sizeof(int32_t));
      else
        requantize_row_s8(g.out, acc_stack, j0, count, g.c + r * g.c_stride + j0);
    }
  }
}

#if defined(__x86_64__)
namespace {

// ---- packed GEMM (m > kGemvMaxRows) -------------------------------------------------------
// Scratch layout: [packed B][column terms][per-task: packed A block, row sums, row buffer].
struct PackedLayout {
  int32_t kp, panels;
  size_t b_bytes, colterm_bytes, task_bytes, total;
};

// With `b_in_scratch` false (B packed ahead), the scratch holds only the per-task buffers.
PackedLayout packed_layout(const GemmS8& g, int tasks, bool b_in_scratch = true) {
  PackedLayout l{};
  l.kp = padded_k4(g.k);
  l.panels = panels_of(g.n);
  l.b_bytes = b_in_scratch ? align_up(size_t(l.panels) * 16 * size_t(l.kp)) : 0;
  l.colterm_bytes = b_in_scratch ? align_up(size_t(l.panels) * 16 * 4 * 3) : 0;  // colterm, multiplier, shift
  l.task_bytes = align_up(size_t(kBlockRows) * size_t(l.kp)) + align_up(kBlockRows * 4) +
                 align_up(size_t(g.k));
  l.total = l.b_bytes + l.colterm_bytes + size_t(std::max(tasks, 1)) * l.task_bytes + 64;
  return l;
}

// B panel p: [kp/4][16 columns][4 bytes]; pads with zeros. Also the column terms:
// colterm[j] = bias[j] + (a_offset - 128)·Σ_k B[j][k] + k·a_offset·b_offset  (wrapping).
void pack_b(const GemmS8& g, const PackedLayout& l, int32_t panel, uint8_t* packed_b,
            int32_t* colterm, int32_t* mult, int32_t* shift) {
  uint8_t* dst = packed_b + size_t(panel) * 16 * l.kp;
  std::memset(dst, 0, size_t(16) * l.kp);
  for (int32_t jj = 0; jj < 16; ++jj) {
    const int32_t j = panel * 16 + jj;
    if (j >= g.n) {  // padding: the last column's scales (out_multiplier)
      colterm[j] = 0;
      mult[j] = out_multiplier(g, g.n - 1);
      shift[j] = out_shift(g, g.n - 1);
      continue;
    }
    const int8_t* b = g.b + int64_t(j) * g.b_stride;
    int32_t sum = 0;
    for (int32_t i = 0; i < g.k; ++i) {
      dst[size_t(i / 4) * 64 + jj * 4 + (i % 4)] = uint8_t(b[i]);
      sum = wrap_add(sum, b[i]);
    }
    int32_t term = g.bias ? g.bias[j] : 0;
    term = wrap_add(term, wrap_mul(wrap_add(g.a_offset, -128), sum));
    term = wrap_add(term, wrap_mul(wrap_mul(g.k, g.a_offset), g.b_offset));
    colterm[j] = term;
    mult[j] = out_multiplier(g, j);
    shift[j] = out_shift(g, j);
  }
}

// The same packing with one masked gather per group of 4 depths (16 columns at once) and the
// column sums from VPDPBUSD against ones; the depth tail (k % 4) is packed by the loop above's rule.
VKRT_TARGET_AVX512VNNI void pack_b_gather(const GemmS8& g, const PackedLayout& l, int32_t panel, uint8_t* packed_b,
                                          int32_t* colterm, int32_t* mult, int32_t* shift) {
  uint8_t* dst = packed_b + size_t(panel) * 16 * l.kp;
  const int32_t j0 = panel * 16;
  const int cols = std::min<int32_t>(16, g.n - j0);
  const __mmask16 valid = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1u);
  const __m512i column_offsets =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(int32_t(g.b_stride)));
  const int8_t* base = g.b + int64_t(j0) * g.b_stride;
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sums = _mm512_setzero_si512();
  const int32_t full = g.k / 4 * 4;
  for (int32_t i = 0; i < full; i += 4) {
    const __m512i words = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), valid,
                                                      _mm512_add_epi32(column_offsets, _mm512_set1_epi32(i)), base, 1);
    _mm512_storeu_si512(dst + size_t(i) * 16, words);
    sums = _mm512_dpbusd_epi32(sums, ones, words);
  }
  if (full < l.kp) {  // depth tail: zero padded
    alignas(64) uint8_t tail[64] = {};
    for (int jj = 0; jj < cols; ++jj)
      for (int32_t i = full; i < g.k; ++i) tail[jj * 4 + (i - full)] = uint8_t(base[int64_t(jj) * g.b_stride + i]);
    const __m512i words = _mm512_load_si512(tail);
    _mm512_storeu_si512(dst + size_t(full) * 16, words);
    sums = _mm512_dpbusd_epi32(sums, ones, words);
  }
  alignas(64) int32_t column_sums[16];
  _mm512_store_si512(column_sums, sums);
  for (int jj = 0; jj < 16; ++jj) {
    const int32_t j = j0 + jj;
    if (j >= g.n) {  // padding: the last column's scales (out_multiplier)
      colterm[j] = 0;
      mult[j] = out_multiplier(g, g.n - 1);
      shift[j] = out_shift(g, g.n - 1);
      continue;
    }
    int32_t term = g.bias ? g.bias[j] : 0;
    term = wrap_add(term, wrap_mul(wrap_add(g.a_offset, -128), column_sums[jj]));
    term = wrap_add(term, wrap_mul(wrap_mul(g.k, g.a_offset), g.b_offset));
    colterm[j] = term;
    mult[j] = out_multiplier(g, j);
    shift[j] = out_shift(g, j);
  }
}

// Packed B as the multiply loops read it: from the scratch (packed by this call) or from a
// GemmS8PackedB (packed once, ahead).
struct BPanels {
  const uint8_t* data;  // panel p at data + p·16·kp
  const int32_t* colterm;
  const int32_t* mult;
  const int32_t* shift;
};

// The output stage for 16 columns of one row: acc + colterm (+ b_offset·Σa), requantized,
// offset, clamped and stored (cols ≤ 16 bytes). With colterm_in_acc the accumulators started
// from the column terms.
VKRT_TARGET_AVX512 inline void store_columns(const GemmS8& g, const BPanels& b, __m512i acc, int32_t row_sum,
                                             int64_t row, int32_t col, bool colterm_in_acc = false) {
  __m512i v = colterm_in_acc ? acc : _mm512_add_epi32(acc, _mm512_loadu_si512(b.colterm + col));
  if (g.b_offset != 0) v = _mm512_add_epi32(v, _mm512_set1_epi32(wrap_mul(g.b_offset, row_sum)));
  detail::store_c_x16(g, v, b.mult, b.shift, row, col);
}

// 8 rows x (16·P) columns over packed A rows (kp bytes each, unsigned) and P B panels.
template <int P>
VKRT_TARGET_AVX512VNNI void tile_8xP(const uint8_t* a_pack, int32_t kp, const int32_t* row_sums,
                                     const uint8_t* b_panels, const BPanels& bp, const GemmS8& g,
                                     int64_t row0, int rows, int32_t col0) {
  // The accumulators start from the column terms: with a shallow depth (a 1x1 layer over 16
  // channels is 4 VPDPBUSD per accumulator) adding them at the store would cost a fifth more.
  __m512i acc[kTileRows][P];
  for (int p = 0; p < P; ++p) {
    const __m512i colterm = _mm512_loadu_si512(bp.colterm + col0 + p * 16);
    for (int r = 0; r < kTileRows; ++r) acc[r][p] = colterm;
  }
  const size_t panel_stride = size_t(16) * kp;
  for (int32_t kk = 0; kk < kp; kk += 4) {
    __m512i b[P];
    for (int p = 0; p < P; ++p)
      b[p] = _mm512_loadu_si512(b_panels + p * panel_stride + size_t(kk) * 16);
    for (int r = 0; r < kTileRows; ++r) {
      int32_t a4;
      std::memcpy(&a4, a_pack + size_t(r) * kp + kk, 4);
      const __m512i a = _mm512_set1_epi32(a4);
      for (int p = 0; p < P; ++p) acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], a, b[p]);
    }
  }
  for (int p = 0; p < P; ++p) {
    const int32_t col = col0 + p * 16;
    if (g.c32) {
      for (int r = 0; r < rows; ++r) store_columns(g, bp, acc[r][p], row_sums[r], row0 + r, col, true);
      continue;
    }
    // int8 C: the columns' scales once for the tile's rows, the double rounding folded into one
    // divide where it can be (simd::split_shift_folded).
    const __m512i mult = _mm512_loadu_si512(bp.mult + col);
    const simd::Shifts16 scales = simd::split_shift_folded(_mm512_loadu_si512(bp.shift + col), mult, g.out.single_round);
    const __m512i offset = _mm512_set1_epi32(g.out.output_offset), lo = _mm512_set1_epi32(g.out.activation_min),
                  hi = _mm512_set1_epi32(g.out.activation_max);
    const int cols = std::min<int32_t>(16, g.n - col);
    for (int r = 0; r < rows; ++r) {
      __m512i v = acc[r][p];
      if (g.b_offset != 0) v = _mm512_add_epi32(v, _mm512_set1_epi32(wrap_mul(g.b_offset, row_sums[r])));
      simd::store_s8x16(g.c + (row0 + r) * g.c_stride + col, simd::requantize_x16(v, mult, scales), offset, lo, hi, cols);
    }
  }
}

// Packs rows [r0, r0+rows) of A as unsigned (a ^ 0x80), kp bytes each, zero padded, and
// their signed sums; pads to a multiple of kTileRows rows.
// (pad_rows false: exactly `rows` rows.)
VKRT_TARGET_AVX512 void pack_a_block(const GemmS8& g, int64_t r0, int rows, int32_t kp,
                                     uint8_t* a_pack, int32_t* row_sums, int8_t* row_tmp, bool pad_rows = true) {
  const int padded_rows = pad_rows ? (rows + kTileRows - 1) / kTileRows * kTileRows : rows;
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80));
  for (int r = 0; r < padded_rows; ++r) {
    uint8_t* dst = a_pack + size_t(r) * kp;
    if (r >= rows) {
      std::memset(dst, 0, size_t(kp));
      row_sums[r] = 0;
      continue;
    }
    const int8_t* src = row_of(g, r0 + r, row_tmp);
    int32_t sum = 0;
    // Bytes past k (up to kp) meet zero weights; they are written (as 0x80) but never matter.
    for (int32_t i = 0; i < kp; i += 64) {
      const int32_t in_k = std::min<int32_t>(64, g.k - i), in_kp = std::min<int32_t>(64, kp - i);
      const __mmask64 load = in_k >= 64 ? ~__mmask64(0) : (__mmask64(1) << in_k) - 1;
      const __mmask64 store = in_kp >= 64 ? ~__mmask64(0) : (__mmask64(1) << in_kp) - 1;
      const __m512i v = _mm512_maskz_loadu_epi8(load, src + i);
      _mm512_mask_storeu_epi8(dst + i, store, _mm512_xor_si512(v, flip));
    }
    if (g.b_offset != 0)
      for (int32_t t = 0; t < g.k; ++t) sum = wrap_add(sum, src[t]);
    row_sums[r] = sum;
  }
}

// Workers for a product of `macs` multiply-adds: threads only pay off from ~1M MACs each.
int useful_tasks(const Exec& exec, double macs) {
  return std::max(1, std::min(exec.num_threads(), int(macs / 1048576.0) + 1));
}

// Packs B panels [p0, p1) (and their column terms).
void pack_b_panels(const GemmS8& g, const PackedLayout& l, int32_t p0, int32_t p1, uint8_t* packed_b,
                   int32_t* colterm, int32_t* mult, int32_t* shift) {
  // Gather offsets are int32: 15 rows of B must stay below 2^31 bytes.
  const bool gather = g.b_stride > 0 && g.b_stride <= (int64_t(1) << 26);
  for (int32_t p = p0; p < p1; ++p) {
    if (gather)
      pack_b_gather(g, l, p, packed_b, colterm, mult, shift);
    else
      pack_b(g, l, p, packed_b, colterm, mult, shift);
  }
}

// Rows [r0, r0 + rows) of A (packed in a_pack) times B panels [p0, p1), p0 even.
void multiply_block(const GemmS8& g, const PackedLayout& l, const uint8_t* a_pack, const int32_t* row_sums,
                    int64_t r0, int rows, int32_t p0, int32_t p1, const BPanels& b) {
  for (int32_t p = p0; p < p1; p += 2) {
    const uint8_t* panel = b.data + size_t(p) * 16 * l.kp;
    for (int r = 0; r < rows; r += kTileRows) {
      const int tile_rows = std::min(kTileRows, rows - r);
      const uint8_t* a = a_pack + size_t(r) * l.kp;
      if (p + 1 < p1)
        tile_8xP<2>(a, l.kp, row_sums + r, panel, b, g, r0 + r, tile_rows, p * 16);
      else
        tile_8xP<1>(a, l.kp, row_sums + r, panel, b, g, r0 + r, tile_rows, p * 16);
    }
  }
}

void gemm_packed(const GemmS8& g, const Exec& exec) {
  const int tasks = useful_tasks(exec, double(g.m) * g.n * g.k);
  const GemmS8PackedB* ahead = g.packed_b;  // gemm_s8 has checked that it matches
  const PackedLayout l = packed_layout(g, tasks, ahead == nullptr);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  uint8_t* packed_b = base;
  int32_t* colterm = reinterpret_cast<int32_t*>(base + l.b_bytes);
  int32_t* mult = colterm + l.panels * 16;
  int32_t* shift = mult + l.panels * 16;
  const BPanels b = ahead ? BPanels{ahead->panel_data, ahead->colterm, ahead->column_multiplier, ahead->column_shift}
                          : BPanels{packed_b, colterm, mult, shift};
  uint8_t* task_base = base + l.b_bytes + l.colterm_bytes;
  struct TaskBuffers {
    uint8_t* a_pack;
    int32_t* row_sums;
    int8_t* row_tmp;
  };
  auto buffers_of = [&](int t) {
    uint8_t* mine = task_base + size_t(t) * l.task_bytes;
    int32_t* row_sums = reinterpret_cast<int32_t*>(mine + align_up(size_t(kBlockRows) * l.kp));
    int8_t* row_tmp = reinterpret_cast<int8_t*>(reinterpret_cast<uint8_t*>(row_sums) + align_up(kBlockRows * 4));
    return TaskBuffers{mine, row_sums, row_tmp};
  };

  // Few rows, many columns (a 7x7 or 14x14 pointwise layer): each task takes its own pairs of
  // B panels (packing them here unless B was packed ahead) and multiplies every row by them,
  // in one pass with no barrier between packing B and using it. Every task packs A (M x K,
  // small next to K x N here).
  const int32_t pairs = (l.panels + 1) / 2;
  const int64_t blocks = (g.m + kBlockRows - 1) / kBlockRows;
  const int64_t tiles = (g.m + kTileRows - 1) / kTileRows;
  bool by_columns = pairs >= 2 * tasks && blocks < 4 * tasks;
  if (ahead) {
    // No packing step to share out: take the cut whose busiest task has the fewest tiles
    // (8 rows x 2 panels) to multiply. 25x5 276→276: 9 panel pairs split 5/4 against 16 row
    // tiles split 8/8, so rows win.
    const int64_t by_column_tiles = (pairs + tasks - 1) / tasks * tiles;
    const int64_t by_row_tiles = (tiles + tasks - 1) / tasks * pairs;
    by_columns = by_column_tiles <= by_row_tiles;
  }
  if (tasks > 1 && by_columns) {
    exec.parallel_chunks(tasks, pairs, [&](int t, int64_t q0, int64_t q1) {
      const int32_t p0 = int32_t(2 * q0), p1 = int32_t(std::min<int64_t>(2 * q1, l.panels));
      if (!ahead) pack_b_panels(g, l, p0, p1, packed_b, colterm, mult, shift);
      const TaskBuffers mine = buffers_of(t);
      for (int64_t r0 = 0; r0 < g.m; r0 += kBlockRows) {
        const int rows = int(std::min<int64_t>(kBlockRows, g.m - r0));
        pack_a_block(g, r0, rows, l.kp, mine.a_pack, mine.row_sums, mine.row_tmp);
        multiply_block(g, l, mine.a_pack, mine.row_sums, r0, rows, p0, p1, b);
      }
    });
    return;
  }

  // Otherwise B is packed by all tasks first (unless packed ahead), then the rows are shared
  // out in chunks of 8-row tiles (not of whole 32-row blocks: 49 rows would split 32/17 and
  // cap two threads at 1.5x).
  if (!ahead) {
    exec.parallel_chunks(tasks, l.panels, [&](int, int64_t p0, int64_t p1) {
      pack_b_panels(g, l, int32_t(p0), int32_t(p1), packed_b, colterm, mult, shift);
    });
  }
  exec.parallel_chunks(tasks, tiles, [&](int t, int64_t t0, int64_t t1) {
    const TaskBuffers mine = buffers_of(t);
    const int64_t row_end = std::min(g.m, t1 * kTileRows);
    for (int64_t r0 = t0 * kTileRows; r0 < row_end; r0 += kBlockRows) {
      const int rows = int(std::min<int64_t>(kBlockRows, row_end - r0));
      pack_a_block(g, r0, rows, l.kp, mine.a_pack, mine.row_sums, mine.row_tmp);
      multiply_block(g, l, mine.a_pack, mine.row_sums, r0, rows, 0, l.panels, b);
    }
  });
}

// ---- GEMV over B packed ahead (m <= kGemvMaxRows) -------------------------------------------
// R rows against panels [p0, p1): the depth is cut into four interleaved chains of
// accumulators so that one row does not wait on VPDPBUSD's latency at every step.
template <int R>
VKRT_TARGET_AVX512VNNI void gemv_packed_rows(const GemmS8& g, const BPanels& b, int32_t kp, const uint8_t* a_pack,
                                             const int32_t* row_sums, int32_t p0, int32_t p1) {
  for (int32_t p = p0; p < p1; ++p) {
    const uint8_t* panel = b.data + size_t(p) * 16 * kp;
    __m512i acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < 4; ++c) acc[r][c] = _mm512_setzero_si512();
    int32_t kk = 0;
    for (; kk + 16 <= kp; kk += 16) {
      for (int c = 0; c < 4; ++c) {
        const __m512i bv = _mm512_loadu_si512(panel + size_t(kk + 4 * c) * 16);
        for (int r = 0; r < R; ++r) {
          int32_t a4;
          std::memcpy(&a4, a_pack + size_t(r) * kp + kk + 4 * c, 4);
          acc[r][c] = _mm512_dpbusd_epi32(acc[r][c], _mm512_set1_epi32(a4), bv);
        }
      }
    }
    for (int c = 0; kk < kp; kk += 4, ++c) {
      const __m512i bv = _mm512_loadu_si512(panel + size_t(kk) * 16);
      for (int r = 0; r < R; ++r) {
        int32_t a4;
        std::memcpy(&a4, a_pack + size_t(r) * kp + kk, 4);
        acc[r][c] = _mm512_dpbusd_epi32(acc[r][c], _mm512_set1_epi32(a4), bv);
      }
    }
    for (int r = 0; r < R; ++r) {
      const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(acc[r][0], acc[r][1]), _mm512_add_epi32(acc[r][2], acc[r][3]));
      store_columns(g, b, sum, row_sums[r], r, p * 16);
    }
  }
}

// acc + 4 unsigned bytes (one int32) of A times 16 columns' 4 bytes of B.
VKRT_TARGET_AVX512VNNI inline __m512i dot_step(__m512i acc, int32_t a4, const uint8_t* b) {
  return _mm512_dpbusd_epi32(acc, _mm512_set1_epi32(a4), _mm512_loadu_si512(b));
}

// One row of A against B packed ahead, with no scratch and no threads: for classifier-sized
// products (DS-CNN's 64→12), where any set-up costs as much as the arithmetic. A is made
// unsigned 64 bytes at a time in a stack buffer; bytes past k meet B's zero padding.
VKRT_TARGET_AVX512VNNI void gemv_packed_row(const GemmS8& g, const GemmS8PackedB& pb, int64_t r) {
  const int8_t* a = g.a + r * g.a_stride;
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80));
  const BPanels b{pb.panel_data, pb.colterm, pb.column_multiplier, pb.column_shift};
  int32_t row_sum = 0;
  if (g.b_offset != 0)
    for (int32_t i = 0; i < g.k; ++i) row_sum = wrap_add(row_sum, a[i]);
  alignas(64) int32_t a_unsigned[16];
  for (int32_t p = 0; p < pb.panels; ++p) {
    const uint8_t* panel = pb.panel_data + size_t(p) * 16 * pb.kp;
    // Four accumulators in turn (named, so that they stay in registers).
    __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (int32_t i = 0; i < g.k; i += 64) {
      const int32_t left = g.k - i;
      const __mmask64 m = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
      _mm512_store_si512(a_unsigned, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + i), flip));
      // Read the words back from memory: broadcast loads (folded into VPDPBUSD) cost no shuffle,
      // where extracting each word from the register costs two.
      asm volatile("" ::: "memory");
      const int steps = std::min<int32_t>(16, (pb.kp - i) / 4);
      int s = 0;
      const uint8_t* rows = panel + size_t(i / 4) * 64;  // 64 bytes per group of 4 depths
      for (; s + 4 <= steps; s += 4) {
        acc0 = dot_step(acc0, a_unsigned[s], rows + s * 64);
        acc1 = dot_step(acc1, a_unsigned[s + 1], rows + (s + 1) * 64);
        acc2 = dot_step(acc2, a_unsigned[s + 2], rows + (s + 2) * 64);
        acc3 = dot_step(acc3, a_unsigned[s + 3], rows + (s + 3) * 64);
      }
      for (; s < steps; ++s) acc0 = dot_step(acc0, a_unsigned[s], rows + s * 64);
    }
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(acc0, acc1), _mm512_add_epi32(acc2, acc3));
    store_columns(g, b, sum, row_sum, r, p * 16);
  }
}

size_t gemv_packed_scratch_bytes(const GemmS8& g) {
  return align_up(size_t(kGemvMaxRows) * size_t(padded_k4(g.k))) + align_up(size_t(g.k)) + 64;
}


void gemv_packed(const GemmS8& g, const Exec& exec) {
  const int32_t kp = padded_k4(g.k);
  uint8_t* a_pack = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  int8_t* row_tmp = reinterpret_cast<int8_t*>(a_pack + align_up(size_t(kGemvMaxRows) * kp));
  int32_t row_sums[kGemvMaxRows] = {};
  const int rows = int(g.m);
  pack_a_block(g, 0, rows, kp, a_pack, row_sums, row_tmp, /*pad_rows=*/false);
  const GemmS8PackedB& ahead = *g.packed_b;
  const BPanels b{ahead.panel_data, ahead.colterm, ahead.column_multiplier, ahead.column_shift};
  const int32_t panels = panels_of(g.n);
  const int tasks = std::max(1, std::min(useful_tasks(exec, double(g.m) * g.n * g.k), int(panels)));
  exec.parallel_chunks(tasks, panels, [&](int, int64_t q0, int64_t q1) {
    switch (rows) {
      case 1: gemv_packed_rows<1>(g, b, kp, a_pack, row_sums, int32_t(q0), int32_t(q1)); break;
      case 2: gemv_packed_rows<2>(g, b, kp, a_pack, row_sums, int32_t(q0), int32_t(q1)); break;
      case 3: gemv_packed_rows<3>(g, b, kp, a_pack, row_sums, int32_t(q0), int32_t(q1)); break;
      default: gemv_packed_rows<4>(g, b, kp, a_pack, row_sums, int32_t(q0), int32_t(q1)); break;
    }
  });
}

// ---- GEMV (m <= kGemvMaxRows): B read in place, four columns at a time ----------------------
size_t gemv_scratch_bytes(const GemmS8& g) {
  return align_up(size_t(kGemvMaxRows) * padded_k64(g.k)) + align_up(size_t(g.k)) + 64;
}

// Four int32 horizontal sums at once: lanes 0..3 = Σ a, Σ b, Σ c, Σ d.
VKRT_TARGET_AVX512 inline __m128i sum_to_128(__m512i v) {
  const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}
VKRT_TARGET_AVX512 inline __m128i reduce4(__m512i a, __m512i b, __m512i c, __m512i d) {
  const __m128i qa = sum_to_128(a), qb = sum_to_128(b), qc = sum_to_128(c), qd = sum_to_128(d);
  return _mm_hadd_epi32(_mm_hadd_epi32(qa, qb), _mm_hadd_epi32(qc, qd));
}

// R rows of A (packed unsigned, kp64 bytes each) against columns [j0, j1) of B read in place,
// four columns at a time; results are requantized 16 columns at a time.
// acc = Σ a_u·b + colterm, colterm = bias + (a_offset − 128)·Σb + k·a_offset·b_offset + b_offset·Σa.
// Σb is only accumulated when a_offset != 128 (the common zero point −128 folds it away).
template <int R>
VKRT_TARGET_AVX512VNNI void gemv_rows(const GemmS8& g, const uint8_t* a_pack, int32_t kp64,
                                      const int32_t* row_sums, int32_t j0, int32_t j1) {
  const __m512i ones = _mm512_set1_epi8(1);
  const bool need_bsum = g.a_offset != 128;
  const int32_t k_term = wrap_mul(wrap_mul(g.k, g.a_offset), g.b_offset);
  alignas(64) int32_t results[R][16];
  for (int32_t jb = j0; jb < j1; jb += 16) {
    const int32_t block = std::min<int32_t>(16, j1 - jb);
    for (int32_t j = jb; j < jb + block; j += 4) {
      const int cols = std::min<int32_t>(4, jb + block - j);
      __m512i acc[R][4], bsum[4];
      for (int c = 0; c < 4; ++c) {
        bsum[c] = _mm512_setzero_si512();
        for (int r = 0; r < R; ++r) acc[r][c] = _mm512_setzero_si512();
      }
      const int8_t* bcol[4];
      for (int c = 0; c < 4; ++c) bcol[c] = g.b + int64_t(j + (c < cols ? c : 0)) * g.b_stride;
      for (int32_t i = 0; i < g.k; i += 64) {
        const int left = g.k - i;
        const __mmask64 m = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
        __m512i a[R];
        for (int r = 0; r < R; ++r) a[r] = _mm512_load_si512(a_pack + size_t(r) * kp64 + i);
        for (int c = 0; c < 4; ++c) {
          const __m512i b = _mm512_maskz_loadu_epi8(m, bcol[c] + i);
          if (need_bsum) bsum[c] = _mm512_dpbusd_epi32(bsum[c], ones, b);
          for (int r = 0; r < R; ++r) acc[r][c] = _mm512_dpbusd_epi32(acc[r][c], a[r], b);
        }
      }
      alignas(16) int32_t sum_b[4] = {0, 0, 0, 0};
      if (need_bsum) _mm_store_si128(reinterpret_cast<__m128i*>(sum_b), reduce4(bsum[0], bsum[1], bsum[2], bsum[3]));
      for (int r = 0; r < R; ++r) {
        alignas(16) int32_t dot[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(dot), reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        for (int c = 0; c < cols; ++c) {
          int32_t v = wrap_add(dot[c], g.bias ? g.bias[j + c] : 0);
          v = wrap_add(v, wrap_mul(wrap_add(g.a_offset, -128), sum_b[c]));
          v = wrap_add(v, wrap_add(k_term, wrap_mul(g.b_offset, row_sums[r])));
          results[r][j - jb + c] = v;
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      if (g.c32)
        std::memcpy(g.c32 + r * g.c_stride + jb, results[r], size_t(block) * sizeof(int32_t));
      else
        requantize_row_s8(g.out, results[r], jb, block, g.c + r * g.c_stride + jb);
    }
  }
}

VKRT_TARGET_AVX512 void gemv(const GemmS8& g, const Exec& exec) {
  const int32_t kp64 = padded_k64(g.k);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  uint8_t* a_pack = base;
  int8_t* row_tmp = reinterpret_cast<int8_t*>(base + align_up(size_t(kGemvMaxRows) * kp64));
  int32_t row_sums[kGemvMaxRows] = {};
  const int rows = int(g.m);
  const __m512i flip = _mm512_set1_epi8(int8_t(0x80));
  for (int r = 0; r < rows; ++r) {
    const int8_t* src = row_of(g, r, row_tmp);
    uint8_t* dst = a_pack + size_t(r) * kp64;
    // Unsigned copy (a ^ 0x80); bytes past k meet zero-masked weights, their value is irrelevant.
    for (int32_t i = 0; i < kp64; i += 64) {
      const int32_t in_k = std::min<int32_t>(64, g.k - i);
      const __mmask64 load = in_k >= 64 ? ~__mmask64(0) : in_k <= 0 ? __mmask64(0) : (__mmask64(1) << in_k) - 1;
      _mm512_storeu_si512(dst + i, _mm512_xor_si512(_mm512_maskz_loadu_epi8(load, src + i), flip));
    }
    int32_t sum = 0;
    if (g.b_offset != 0)
      for (int32_t i = 0; i < g.k; ++i) sum = wrap_add(sum, src[i]);
    row_sums[r] = sum;
  }
  // Column blocks of 64 (a multiple of 4) spread over the workers.
  const int32_t blocks = (g.n + 63) / 64;
  const int tasks = std::max(1, std::min(useful_tasks(exec, double(g.m) * g.n * g.k), int(blocks)));
  exec.parallel_chunks(tasks, blocks, [&](int, int64_t b0, int64_t b1) {
    const int32_t j0 = int32_t(b0 * 64), j1 = int32_t(std::min<int64_t>(b1 * 64, g.n));
    switch (rows) {
      case 1: gemv_rows<1>(g, a_pack, kp64, row_sums, j0, j1); break;
      case 2: gemv_rows<2>(g, a_pack, kp64, row_sums, j0, j1); break;
      case 3: gemv_rows<3>(g, a_pack, kp64, row_sums, j0, j1); break;
      default: gemv_rows<4>(g, a_pack, kp64, row_sums, j0, j1); break;
    }
  });
}

}  // namespace
#endif  // __x86_64__

namespace {
// The packed layout the active ISA level's path reads, or false when it has none.
bool active_layout(GemmS8Layout* layout) {
  if (has(Isa::Avx512vnni)) return *layout = GemmS8Layout::Vnni, true;
  if (const detail::TiledGemmPath* path = detail::tiled_gemm_path()) return *layout = path->layout, true;
  return false;
}

// Whether g.packed_b was built from exactly this product's B and constants, in `layout`, the
// active level's (a test or --cpu_isa may pin another level after packing).
bool packed_b_matches(const GemmS8& g, GemmS8Layout layout) {
  const GemmS8PackedB* pb = g.packed_b;
  if (pb == nullptr || pb->layout != layout || pb->b != g.b || pb->b_stride != g.b_stride ||
      pb->n != g.n || pb->k != g.k || pb->bias != g.bias || pb->a_offset != g.a_offset || pb->b_offset != g.b_offset ||
      pb->per_channel != g.out.per_channel)
    return false;
  if (g.out.per_channel) return pb->multiplier == g.out.multiplier && pb->shift == g.out.shift;
  return pb->multiplier0 == out_multiplier(g, 0) && pb->shift0 == out_shift(g, 0);
}

bool packed_b_matches(const GemmS8& g) {
  GemmS8Layout layout;
  return g.packed_b && active_layout(&layout) && packed_b_matches(g, layout);
}

// g without its packed B when that B is not this product's (an older method's, a changed weight).
GemmS8 with_checked_packed_b(const GemmS8& g) {
  GemmS8 checked = g;
  if (checked.packed_b && !packed_b_matches(checked)) checked.packed_b = nullptr;
  return checked;
}
}  // namespace

size_t gemm_s8_packed_b_bytes(const GemmS8& g) {
  if (const detail::TiledGemmPath* path = detail::tiled_gemm_path()) return path->packed_b_bytes(g);
#if defined(__x86_64__)
  if (!has(Isa::Avx512vnni) || g.n <= 0 || g.k <= 0 || g.b == nullptr) return 0;
  const int32_t kp = padded_k4(g.k), panels = panels_of(g.n);
  return align_up(sizeof(GemmS8PackedB)) + align_up(size_t(panels) * 16 * size_t(kp)) +
         align_up(size_t(panels) * 16 * 4 * 3) + 64;
#else
  (void)g;
  return 0;
#endif
}

const GemmS8PackedB* gemm_s8_pack_b(const GemmS8& g, std::span<uint8_t> memory) {
  if (const detail::TiledGemmPath* path = detail::tiled_gemm_path()) return path->pack_b(g, memory);
#if defined(__x86_64__)
  const size_t need = gemm_s8_packed_b_bytes(g);
  if (need == 0 || memory.size() < need) return nullptr;
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(memory.data())));
  const PackedLayout l = packed_layout(g, 1);
  auto* header = reinterpret_cast<GemmS8PackedB*>(base);
  uint8_t* panels = base + align_up(sizeof(GemmS8PackedB));
  int32_t* colterm = reinterpret_cast<int32_t*>(panels + l.b_bytes);
  int32_t* mult = colterm + l.panels * 16;
  int32_t* shift = mult + l.panels * 16;
  pack_b_panels(g, l, 0, l.panels, panels, colterm, mult, shift);
  *header = GemmS8PackedB{g.b, g.b_stride, g.n, g.k, g.bias, g.a_offset, g.b_offset, g.out.per_channel,
                          g.out.per_channel ? g.out.multiplier : nullptr, out_multiplier(g, 0), out_shift(g, 0),
                          g.out.per_channel ? g.out.shift : nullptr, GemmS8Layout::Vnni, false, l.kp, l.panels, panels,
                          colterm, mult, shift};
  return header;
#else
  (void)g, (void)memory;
  return nullptr;
#endif
}

size_t gemm_s8_scratch_bytes(const GemmS8& given, int threads) {
  const GemmS8 g = with_checked_packed_b(given);
  const detail::TiledGemmPath* path = detail::tiled_gemm_path();
  if (path && g.k > 0) return path->scratch_bytes(g, threads);
#if defined(__x86_64__)
  if (g.packed_b) {
    if (g.m <= kGemvMaxRows) return gemv_packed_scratch_bytes(g);
    return packed_layout(g, std::max(threads, 1), /*b_in_scratch=*/false).total;
  }
#endif
  if (gemv_small_usable(g)) return gemm_s8_min_scratch_bytes(g);
#if defined(__x86_64__)
  if (g.m <= kGemvMaxRows) return gemv_scratch_bytes(g);
  return packed_layout(g, std::max(threads, 1)).total;
#else
  return gemm_s8_min_scratch_bytes(g);
#endif
}

namespace {
// gemm_s8 below VNNI, but for the classifier-sized products run_small takes: the tiled path (null
// where there is none) or portable. Not inlined, so that those small products do not pay for
// this one's stack frame (the copy of g).
__attribute__((noinline)) void gemm_s8_tiled(const GemmS8& given, const Exec& exec, const detail::TiledGemmPath* path,
                                             bool packed_matches) {
  GemmS8 g = given;
  if (!packed_matches) g.packed_b = nullptr;
  if (path && path->usable(g) && g.k > 0 && exec.scratch.size() >= path->scratch_bytes(g, exec.num_threads()))
    path->run(g, exec);
  else
    gemm_s8_portable(g, exec.scratch);
}

// gemm_s8 at VNNI (x86-64 only: has(Isa::Avx512vnni); elsewhere this is gemm_s8_portable).
__attribute__((noinline)) void gemm_s8_vnni(const GemmS8& given, const Exec& exec) {
#if defined(__x86_64__)
  // Classifier-sized products over B packed ahead: straight to the arithmetic.
  if (given.packed_b && given.a_row == nullptr && given.m <= kGemvMaxRows &&
      given.m * int64_t(given.n) * given.k <= kGemvSmallMaxMacs && packed_b_matches(given)) {
    for (int64_t r = 0; r < given.m; ++r) gemv_packed_row(given, *given.packed_b, r);
    return;
  }
#endif
  const GemmS8 g = with_checked_packed_b(given);
#if defined(__x86_64__)
  if (g.packed_b && exec.scratch.size() >= gemm_s8_scratch_bytes(g, exec.num_threads())) {
    if (g.m <= kGemvMaxRows)
      gemv_packed(g, exec);
    else
      gemm_packed(g, exec);
    return;
  }
#endif
  if (gemv_small_usable(g)) {  // a few thousand MACs: no packing, no scratch, no threads
    gemv_small(g);
    return;
  }
#if defined(__x86_64__)
  if (g.k > 0 && exec.scratch.size() >= gemm_s8_scratch_bytes(g, exec.num_threads())) {
    GemmS8 unpacked = g;
    unpacked.packed_b = nullptr;  // scratch was sized for packing here
    if (g.m <= kGemvMaxRows)
      gemv(unpacked, exec);
    else
      gemm_packed(unpacked, exec);
    return;
  }
#endif
  gemm_s8_portable(g, exec.scratch);
}
}  // namespace

void gemm_s8(const GemmS8& given, const Exec& exec) {
  if (given.m <= 0 || given.n <= 0) return;
  if (has(Isa::Avx512vnni)) return gemm_s8_vnni(given, exec);
  // A tiled path or portable.
  const detail::TiledGemmPath* path = detail::tiled_gemm_path();
  const bool packed_matches = path && packed_b_matches(given, path->layout);  // checked once
  // Classifier-sized products over B packed ahead: straight to the tiles, no copy of g.
  if (packed_matches && path->run_small(given)) return;
  gemm_s8_tiled(given, exec, path, packed_matches);
}

#if !defined(__x86_64__) && !defined(__aarch64__)
// No tiled path on other architectures (gemm_s8_hwy.cpp, gemm_s8_neon.cpp).
const detail::TiledGemmPath* detail::tiled_gemm_path() { return nullptr; }
#endif

}  // namespace vkrt::compute
