// gemm_s8 on AVX2 without VNNI (gemm_s8.h has the formula).
//
// AVX2 has no int8 dot product that is exact here: VPMADDUBSW saturates its int16 pair sums
// (255·128·2 > 32767). So A is widened to int16 with its offset added, a + a_offset in
// [-255, 255], and B is widened in registers (VPMOVSXBW) from a packed int8 copy: VPMADDWD
// multiplies a broadcast pair of A (depths 2i, 2i+1) by 8 columns' pairs of B and adds the two
// products, |sum| <= 2·255·128, exact in int32. B's offset is folded in per row:
//   Σ (a + ao)(b + bo) = Σ (a + ao)·b + bo·Σ (a + ao),
// all modulo 2^32 as the portable loop, so the same bytes.
//
// Register tile: 4 rows × 16 columns = 8 accumulators, 2 B vectors and one A broadcast of the
// 16 ymm registers.
#include "cortex_m/gemm_s8_avx2.h"

#if defined(__x86_64__)
#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "cortex_m/simd_avx2.h"

namespace vkrt::cortex_m::detail {
namespace {

using arith::wrap_add;
using arith::wrap_mul;

constexpr int kTileRows = 4;    // rows of one register tile
constexpr int kBlockRows = 64;  // rows of A packed at a time (64·kp·2 bytes: 32 KiB at kp = 256)
constexpr int kPanel = 16;      // columns of one B panel

int32_t padded_k2(int32_t k) { return (k + 1) / 2 * 2; }
int32_t panels_of(int32_t n) { return (n + kPanel - 1) / kPanel; }

// Scratch: [packed B, column terms (unless packed ahead)][per task: A block, row sums, row buffer].
struct Layout {
  int32_t kp, panels;
  size_t b_bytes, colterm_bytes, task_bytes, total;
};

Layout layout_of(const GemmS8& g, int tasks, bool b_in_scratch) {
  Layout l{};
  l.kp = padded_k2(g.k);
  l.panels = panels_of(g.n);
  l.b_bytes = b_in_scratch ? align_up(size_t(l.panels) * kPanel * size_t(l.kp)) : 0;
  l.colterm_bytes = b_in_scratch ? align_up(size_t(l.panels) * kPanel * 4 * 3) : 0;  // colterm, multiplier, shift
  l.task_bytes = align_up(size_t(kBlockRows) * size_t(l.kp) * 2) + align_up(kBlockRows * 4) + align_up(size_t(g.k));
  l.total = l.b_bytes + l.colterm_bytes + size_t(std::max(tasks, 1)) * l.task_bytes + 64;
  return l;
}

// Packed B as the tiles read it.
struct Panels {
  const int8_t* data;  // panel p at data + p·16·kp: [kp/2][16 columns][2 depths]
  const int32_t* colterm;
  const int32_t* mult;
  const int32_t* shift;
};

// Packs B panel p (zero padded past n and k) and its columns' bias, multiplier and shift.
void pack_b_panel(const GemmS8& g, int32_t kp, int32_t p, int8_t* panels, int32_t* colterm, int32_t* mult,
                  int32_t* shift) {
  int8_t* dst = panels + size_t(p) * kPanel * kp;
  std::memset(dst, 0, size_t(kPanel) * kp);
  for (int32_t jj = 0; jj < kPanel; ++jj) {
    const int32_t j = p * kPanel + jj;
    if (j >= g.n) {
      colterm[j] = mult[j] = shift[j] = 0;
      continue;
    }
    const int8_t* b = g.b + int64_t(j) * g.b_stride;
    for (int32_t i = 0; i < g.k; ++i) dst[size_t(i / 2) * 2 * kPanel + jj * 2 + (i % 2)] = b[i];
    colterm[j] = g.bias ? g.bias[j] : 0;
    mult[j] = g.out.per_channel ? g.out.multiplier[j] : g.out.multiplier[0];
    shift[j] = g.out.per_channel ? g.out.shift[j] : g.out.shift[0];
  }
}

// Packs rows [r0, r0 + rows) of A as int16 a + a_offset, kp per row (zero past k), and their
// sums when B has an offset; rows up to the next multiple of kTileRows are zero.
VKRT_TARGET_AVX2 void pack_a_block(const GemmS8& g, int64_t r0, int rows, int32_t kp, int16_t* a_pack,
                                   int32_t* row_sums, int8_t* row_tmp) {
  const int padded_rows = (rows + kTileRows - 1) / kTileRows * kTileRows;
  const __m256i offset = _mm256_set1_epi16(int16_t(g.a_offset));
  for (int r = 0; r < padded_rows; ++r) {
    int16_t* dst = a_pack + size_t(r) * kp;
    row_sums[r] = 0;
    if (r >= rows) {
      std::memset(dst, 0, size_t(kp) * 2);
      continue;
    }
    const int8_t* src = g.a_row ? g.a_row(g.a_ctx, r0 + r, row_tmp) : g.a + (r0 + r) * g.a_stride;
    int32_t i = 0;
    for (; i + 16 <= g.k; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_add_epi16(_mm256_cvtepi8_epi16(bytes), offset));
    }
    for (; i < g.k; ++i) dst[i] = int16_t(src[i] + g.a_offset);
    for (; i < kp; ++i) dst[i] = 0;
    if (g.b_offset != 0) {
      int32_t sum = 0;
      for (int32_t t = 0; t < g.k; ++t) sum = wrap_add(sum, dst[t]);
      row_sums[r] = sum;
    }
  }
}

VKRT_TARGET_AVX2 inline __m256i load(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The output stage for 16 columns of one row: acc + colterm + b_offset·Σ(a + ao), requantized,
// offset, clamped and stored (the columns before n).
VKRT_TARGET_AVX2 inline void store_columns(const GemmS8& g, const Panels& b, __m256i lo, __m256i hi, int32_t row_sum,
                                           int64_t row, int32_t col) {
  const int cols = std::min<int32_t>(kPanel, g.n - col);
  lo = _mm256_add_epi32(lo, load(b.colterm + col));
  hi = _mm256_add_epi32(hi, load(b.colterm + col + 8));
  if (g.b_offset != 0) {
    const __m256i row_term = _mm256_set1_epi32(wrap_mul(g.b_offset, row_sum));
    lo = _mm256_add_epi32(lo, row_term);
    hi = _mm256_add_epi32(hi, row_term);
  }
  lo = simd::requantize_x8(lo, load(b.mult + col), load(b.shift + col));
  hi = simd::requantize_x8(hi, load(b.mult + col + 8), load(b.shift + col + 8));
  const __m128i bytes = simd::narrow_s8x16(lo, hi, _mm256_set1_epi32(g.out.output_offset),
                                           _mm256_set1_epi32(g.out.activation_min),
                                           _mm256_set1_epi32(g.out.activation_max));
  int8_t* out = g.c + row * g.c_stride + col;
  if (cols == kPanel) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
  } else {
    alignas(16) int8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
    std::memcpy(out, tmp, size_t(cols));
  }
}

// R rows (packed, kp int16 each) times one B panel, stored through the output stage.
template <int R>
VKRT_TARGET_AVX2 void tile(const GemmS8& g, const Panels& b, const int16_t* a_pack, int32_t kp,
                           const int32_t* row_sums, int64_t row0, int rows, int32_t panel) {
  __m256i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  const int8_t* bp = b.data + size_t(panel) * kPanel * kp;
  for (int32_t kk = 0; kk < kp; kk += 2, bp += 2 * kPanel) {
    const __m256i b_lo = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bp)));
    const __m256i b_hi = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bp + 16)));
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a_pack + size_t(r) * kp + kk, sizeof(pair));
      const __m256i a = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(a, b_lo));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(a, b_hi));
    }
  }
  for (int r = 0; r < rows; ++r) store_columns(g, b, acc[r][0], acc[r][1], row_sums[r], row0 + r, panel * kPanel);
}

// Rows [r0, r0 + rows) (packed in a_pack) times panels [p0, p1).
void multiply_block(const GemmS8& g, const Panels& b, int32_t kp, const int16_t* a_pack, const int32_t* row_sums,
                    int64_t r0, int rows, int32_t p0, int32_t p1) {
  for (int32_t p = p0; p < p1; ++p)
    for (int r = 0; r < rows; r += kTileRows) {
      const int tile_rows = std::min(kTileRows, rows - r);
      const int16_t* a = a_pack + size_t(r) * kp;
      switch (tile_rows) {
        case 1: tile<1>(g, b, a, kp, row_sums + r, r0 + r, 1, p); break;
        case 2: tile<2>(g, b, a, kp, row_sums + r, r0 + r, 2, p); break;
        case 3: tile<3>(g, b, a, kp, row_sums + r, r0 + r, 3, p); break;
        default: tile<4>(g, b, a, kp, row_sums + r, r0 + r, 4, p); break;
      }
    }
}

// Workers for a product of `macs` multiply-adds: threads only pay off from ~1M MACs each.
int useful_tasks(const Exec& exec, double macs) {
  return std::max(1, std::min(exec.num_threads(), int(macs / 1048576.0) + 1));
}

}  // namespace

size_t gemm_s8_avx2_packed_b_bytes(const GemmS8& g) {
  if (g.n <= 0 || g.k <= 0 || g.b == nullptr) return 0;
  const Layout l = layout_of(g, 1, true);
  return align_up(sizeof(GemmS8PackedB)) + l.b_bytes + l.colterm_bytes + 64;
}

const GemmS8PackedB* gemm_s8_avx2_pack_b(const GemmS8& g, std::span<uint8_t> memory) {
  const size_t need = gemm_s8_avx2_packed_b_bytes(g);
  if (need == 0 || memory.size() < need) return nullptr;
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(memory.data())));
  const Layout l = layout_of(g, 1, true);
  auto* header = reinterpret_cast<GemmS8PackedB*>(base);
  int8_t* panels = reinterpret_cast<int8_t*>(base + align_up(sizeof(GemmS8PackedB)));
  int32_t* colterm = reinterpret_cast<int32_t*>(reinterpret_cast<uint8_t*>(panels) + l.b_bytes);
  int32_t* mult = colterm + l.panels * kPanel;
  int32_t* shift = mult + l.panels * kPanel;
  for (int32_t p = 0; p < l.panels; ++p) pack_b_panel(g, l.kp, p, panels, colterm, mult, shift);
  *header = GemmS8PackedB{g.b, g.b_stride, g.n, g.k, g.bias, g.a_offset, g.b_offset, g.out.per_channel,
                          g.out.per_channel ? g.out.multiplier : nullptr, g.out.multiplier[0], g.out.shift[0],
                          g.out.per_channel ? g.out.shift : nullptr, GemmS8Layout::Avx2, l.kp, l.panels,
                          reinterpret_cast<const uint8_t*>(panels), colterm, mult, shift};
  return header;
}

size_t gemm_s8_avx2_scratch_bytes(const GemmS8& g, int threads) {
  return layout_of(g, std::max(threads, 1), g.packed_b == nullptr).total;
}

void gemm_s8_avx2(const GemmS8& g, const Exec& exec) {
  const int tasks = useful_tasks(exec, double(g.m) * g.n * g.k);
  const GemmS8PackedB* ahead = g.packed_b;  // gemm_s8 has checked that it matches
  const Layout l = layout_of(g, tasks, ahead == nullptr);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  int8_t* packed_b = reinterpret_cast<int8_t*>(base);
  int32_t* colterm = reinterpret_cast<int32_t*>(base + l.b_bytes);
  int32_t* mult = colterm + l.panels * kPanel;
  int32_t* shift = mult + l.panels * kPanel;
  const Panels b = ahead ? Panels{reinterpret_cast<const int8_t*>(ahead->panel_data), ahead->colterm,
                                  ahead->column_multiplier, ahead->column_shift}
                         : Panels{packed_b, colterm, mult, shift};
  uint8_t* task_base = base + l.b_bytes + l.colterm_bytes;
  struct TaskBuffers {
    int16_t* a_pack;
    int32_t* row_sums;
    int8_t* row_tmp;
  };
  auto buffers_of = [&](int t) {
    uint8_t* mine = task_base + size_t(t) * l.task_bytes;
    uint8_t* sums = mine + align_up(size_t(kBlockRows) * l.kp * 2);
    return TaskBuffers{reinterpret_cast<int16_t*>(mine), reinterpret_cast<int32_t*>(sums),
                       reinterpret_cast<int8_t*>(sums + align_up(kBlockRows * 4))};
  };
  auto pack_panels = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) pack_b_panel(g, l.kp, int32_t(p), packed_b, colterm, mult, shift);
  };

  // Few row tiles (a fully connected layer, a 7x7 pointwise one): each task takes its own
  // panels, packs them (unless packed ahead) and multiplies every row by them, with no barrier.
  const int64_t tiles = (g.m + kTileRows - 1) / kTileRows;
  if (tasks > 1 && tiles < 2 * tasks && l.panels >= tasks) {
    exec.parallel_for(tasks, [&](int t) {
      int64_t p0, p1;
      split_range(l.panels, tasks, t, &p0, &p1);
      if (!ahead) pack_panels(p0, p1);
      const TaskBuffers mine = buffers_of(t);
      for (int64_t r0 = 0; r0 < g.m; r0 += kBlockRows) {
        const int rows = int(std::min<int64_t>(kBlockRows, g.m - r0));
        pack_a_block(g, r0, rows, l.kp, mine.a_pack, mine.row_sums, mine.row_tmp);
        multiply_block(g, b, l.kp, mine.a_pack, mine.row_sums, r0, rows, int32_t(p0), int32_t(p1));
      }
    });
    return;
  }
  // Otherwise all tasks pack B first (unless packed ahead), then share out the row tiles.
  if (!ahead) {
    exec.parallel_for(tasks, [&](int t) {
      int64_t p0, p1;
      split_range(l.panels, tasks, t, &p0, &p1);
      pack_panels(p0, p1);
    });
  }
  exec.parallel_for(tasks, [&](int t) {
    int64_t t0, t1;
    split_range(tiles, tasks, t, &t0, &t1);
    const TaskBuffers mine = buffers_of(t);
    const int64_t row_end = std::min(g.m, t1 * kTileRows);
    for (int64_t r0 = t0 * kTileRows; r0 < row_end; r0 += kBlockRows) {
      const int rows = int(std::min<int64_t>(kBlockRows, row_end - r0));
      pack_a_block(g, r0, rows, l.kp, mine.a_pack, mine.row_sums, mine.row_tmp);
      multiply_block(g, b, l.kp, mine.a_pack, mine.row_sums, r0, rows, 0, l.panels);
    }
  });
}

}  // namespace vkrt::cortex_m::detail

#else  // not x86-64: never called (compute::has(Isa::Avx2) is false)
namespace vkrt::cortex_m::detail {
size_t gemm_s8_avx2_packed_b_bytes(const GemmS8&) { return 0; }
const GemmS8PackedB* gemm_s8_avx2_pack_b(const GemmS8&, std::span<uint8_t>) { return nullptr; }
size_t gemm_s8_avx2_scratch_bytes(const GemmS8&, int) { return 0; }
void gemm_s8_avx2(const GemmS8&, const Exec&) {}
}  // namespace vkrt::cortex_m::detail
#endif
