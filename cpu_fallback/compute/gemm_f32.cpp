// gemm_f32's blocking, packing and threads (gemm_f32.h has the contract; the register tiles
// are in gemm_f32_tile.h and the per-architecture files).
//
// Loop nest of one task (rows [m0, m1) × columns [n0, n1) of C):
//   for each depth block of kDepthBlock           (a B panel kc×nr stays in L1)
//     for each row block of kRowBlock rows        (packed A: [tile row][depth][mr], in L2)
//       for each panel of nr columns              (B packed to kc×nr, zero padded past n)
//         for each tile of mr rows                (the register tile)
// A task with a single tile row of A (m ≤ mr: a GEMV-like product) meets each part of B once,
// so it reads full panels of B in place, in short depth blocks (kDirectDepthBlock).
// The first depth block starts the chains from +0, later ones from what C holds: the same
// chain in depth order as an unblocked loop, so every blocking gives the same bits.
// Packing buffers are on the task's stack: nothing to allocate, nothing for the caller to size.
#include "compute/gemm_f32.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "compute/gemm_f32_tile.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"

namespace vkrt::compute {
namespace {

using detail::F32Kernel;
using detail::kF32MaxColumns;
using detail::kF32MaxRows;

constexpr int64_t kDepthBlock = 256;
// The depth block when B is read in place (one tile row): the rows of B one block spans are
// read front to back, panel after panel, so short blocks make B one sequential stream.
constexpr int64_t kDirectDepthBlock = 16;
constexpr int64_t kRowBlock = 72;  // a multiple of every mr (12, 6, 8, 4)
// One task per this many multiply-adds: below it a thread's wake-up costs more than it saves.
constexpr double kMacsPerTask = 1 << 20;

// ---- portable tile: 4×4, std::fma (the same chains as the vector paths) --------------------
// std::fma is a libm call where the compiler may not assume an FMA instruction: slow, but the
// same bits. It runs only when pinned, or on CPUs without AVX2 or NEON.
constexpr int kPortableRows = 4, kPortableColumns = 4;

template <int R>
void tile_portable(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc, bool load_c) {
  float acc[R][kPortableColumns];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < kPortableColumns; ++j) acc[r][j] = load_c ? c[r * ldc + j] : 0.0f;
  for (int64_t p = 0; p < kc; ++p, a += kPortableRows, b += ldb)
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < kPortableColumns; ++j) acc[r][j] = std::fma(a[r], b[j], acc[r][j]);
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < kPortableColumns; ++j) c[r * ldc + j] = acc[r][j];
}

template <int... R>
constexpr F32Kernel portable_kernel(std::integer_sequence<int, R...>) {
  return {"portable", kPortableRows, kPortableColumns, {nullptr, &tile_portable<R + 1>...}};
}
constexpr F32Kernel kPortable = portable_kernel(std::make_integer_sequence<int, kPortableRows>{});

// The tiles for the active ISA level.
const F32Kernel& active_kernel() {
#if defined(__x86_64__)
  if (has(Isa::Avx512bw)) return N_AVX3::f32_kernel();
  if (has(Isa::Avx2)) return N_AVX2::f32_kernel();  // the level includes FMA3 (isa.cpp)
#elif defined(__aarch64__)
  if (has(Isa::Neon)) return detail::f32_kernel_neon();
#endif
  return kPortable;
}

// Rows [i0, i0+rows) × depths [p0, p0+kc) of A into tile-row panels: depth p of row i0 + t·mr + r
// at dst[t·kc·mr + p·mr + r]; lanes past `rows` in the last panel are zero (a tile may load them
// with its vector, never stores what they give).
void pack_a(const GemmF32& g, int mr, int64_t i0, int64_t rows, int64_t p0, int64_t kc, float* dst) {
  for (int64_t t = 0; t * mr < rows; ++t) {
    float* panel = dst + t * kc * mr;
    const int64_t height = std::min<int64_t>(mr, rows - t * mr);
    if (height < mr) std::fill(panel, panel + kc * mr, 0.0f);
    for (int64_t r = 0; r < height; ++r) {
      const float* src = g.a + (i0 + t * mr + r) * g.lda + p0;
      for (int64_t p = 0; p < kc; ++p) panel[p * mr + r] = src[p];
    }
  }
}

// Depths [p0, p0+kc) × columns [j0, j0+cols) of B as kc rows of nr floats, zero past cols.
void pack_b(const GemmF32& g, int nr, int64_t p0, int64_t kc, int64_t j0, int64_t cols, float* dst) {
  for (int64_t p = 0; p < kc; ++p) {
    float* row = dst + p * nr;
    std::memcpy(row, g.b + (p0 + p) * g.ldb + j0, size_t(cols) * sizeof(float));
    std::fill(row + cols, row + nr, 0.0f);
  }
}

// One tile into C at (i, j), `cols` ≤ nr columns wide: a short tile goes through a buffer so
// that nothing past column n is read or written.
void run_tile(const F32Kernel& kern, int rows, int64_t kc, const float* a, const float* b, int64_t ldb, float* c,
              int64_t ldc, int64_t cols, bool load_c) {
  if (cols == kern.nr) {
    kern.tile[rows](kc, a, b, ldb, c, ldc, load_c);
    return;
  }
  alignas(64) float buffer[kF32MaxRows * kF32MaxColumns] = {};
  if (load_c)
    for (int r = 0; r < rows; ++r) std::memcpy(buffer + r * kern.nr, c + r * ldc, size_t(cols) * sizeof(float));
  kern.tile[rows](kc, a, b, kern.nr, buffer, kern.nr, load_c);
  for (int r = 0; r < rows; ++r) std::memcpy(c + r * ldc, buffer + r * kern.nr, size_t(cols) * sizeof(float));
}

// Rows [m0, m1) × columns [n0, n1) of C, on this thread.
void run_block(const GemmF32& g, const F32Kernel& kern, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  alignas(64) float a_pack[kRowBlock * kDepthBlock];
  alignas(64) float b_pack[kDepthBlock * kF32MaxColumns];
  // A block of one tile row meets each B panel once: read B in place (but for a short panel)
  // instead of copying it.
  const bool copy_b = m1 - m0 > kern.mr;
  const int64_t depth_block = copy_b ? kDepthBlock : kDirectDepthBlock;
  for (int64_t p0 = 0; p0 < g.k; p0 += depth_block) {
    const int64_t kc = std::min(depth_block, g.k - p0);
    for (int64_t i0 = m0; i0 < m1; i0 += kRowBlock) {
      const int64_t rows = std::min(kRowBlock, m1 - i0);
      pack_a(g, kern.mr, i0, rows, p0, kc, a_pack);
      for (int64_t j0 = n0; j0 < n1; j0 += kern.nr) {
        const int64_t cols = std::min<int64_t>(kern.nr, n1 - j0);
        const float* b = g.b + p0 * g.ldb + j0;
        int64_t ldb = g.ldb;
        if (copy_b || cols < kern.nr) {
          pack_b(g, kern.nr, p0, kc, j0, cols, b_pack);
          b = b_pack;
          ldb = kern.nr;
        }
        for (int64_t t = 0; t * kern.mr < rows; ++t) {
          const int height = int(std::min<int64_t>(kern.mr, rows - t * kern.mr));
          float* c = g.c + (i0 + t * kern.mr) * g.ldc + j0;
          run_tile(kern, height, kc, a_pack + t * kc * kern.mr, b, ldb, c, g.ldc, cols, p0 > 0);
        }
      }
    }
  }
}

void run(const GemmF32& g, const Exec& exec, const F32Kernel& kern) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0) {
    for (int64_t i = 0; i < g.m; ++i) std::fill(g.c + i * g.ldc, g.c + i * g.ldc + g.n, 0.0f);
    return;
  }
  // Chunks of whole row tiles when there are enough of them, else of whole column panels; each
  // C element belongs to one chunk, so threads do not change a bit.
  const int64_t row_tiles = (g.m + kern.mr - 1) / kern.mr, panels = (g.n + kern.nr - 1) / kern.nr;
  const double macs = double(g.m) * double(g.n) * double(g.k);
  int tasks = int(std::min<double>(exec.num_threads(), macs / kMacsPerTask + 1));
  const bool split_rows = row_tiles >= tasks;
  tasks = int(std::max<int64_t>(1, std::min<int64_t>(tasks, split_rows ? row_tiles : panels)));
  exec.parallel_chunks(tasks, split_rows ? row_tiles : panels, [&](int, int64_t b0, int64_t b1) {
    if (split_rows)
      run_block(g, kern, b0 * kern.mr, std::min(g.m, b1 * kern.mr), 0, g.n);
    else
      run_block(g, kern, 0, g.m, b0 * kern.nr, std::min(g.n, b1 * kern.nr));
  });
}

}  // namespace

void gemm_f32(const GemmF32& g, const Exec& exec) { run(g, exec, active_kernel()); }

void gemm_f32_portable(const GemmF32& g, const Exec& exec) { run(g, exec, kPortable); }

const char* gemm_f32_path_name() { return active_kernel().name; }

}  // namespace vkrt::compute
