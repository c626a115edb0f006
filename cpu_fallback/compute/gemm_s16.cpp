// int16 × int16 products (gemm_s16.h): the int64 loops, and at avx2 and above B split into its
// high and low bytes on conv_s16's panel form.
#include "compute/gemm_s16.h"

#include <algorithm>

#include "compute/isa.h"
#if defined(__x86_64__)
#include "compute/hwy_targets.h"
#endif

namespace vkrt::compute {
namespace {

// |A[r][i]·B[j][i]| <= 2^30: what the output stage's facts (conv_s16.h) bound the sums by.
constexpr double kProductMax = 32768.0 * 32768.0;
// Columns the int64 loops sum before each output stage call.
constexpr int32_t kColumnsAtOnce = 256;
// Multiply-adds from which a product is shared out over threads (a hand-off costs microseconds).
constexpr double kMacsPerWorker = 262144.0;

detail::S16StageFacts facts_of(const GemmS16& g) { return detail::s16_stage_facts(g.out, g.k, g.n, kProductMax); }

int16_t b_at(const GemmS16& g, int32_t j, int32_t i) { return g.b[j * g.b_column_stride + i * g.b_depth_stride]; }

// Rows [r0, r1) with int64 sums (no product of two int16 and no sum of 2^31 of them leaves
// int64), reading B along its rows: a column of depth at a time where the depth is contiguous
// (cortex_m's transposed RHS), else each depth's row of columns scaled into the sums (TOSA's B).
void rows_portable(const GemmS16& g, const detail::S16StageFacts& facts, int64_t r0, int64_t r1) {
  int64_t sums[kColumnsAtOnce];
  for (int64_t r = r0; r < r1; ++r) {
    const int16_t* a = g.a + r * g.a_stride;
    for (int32_t j0 = 0; j0 < g.n; j0 += kColumnsAtOnce) {
      const int32_t count = std::min(kColumnsAtOnce, g.n - j0);
      if (g.b_depth_stride == 1) {
        for (int32_t j = 0; j < count; ++j) {
          const int16_t* column = g.b + (j0 + j) * g.b_column_stride;
          int64_t sum = 0;
          for (int32_t i = 0; i < g.k; ++i) sum += int32_t(a[i]) * int32_t(column[i]);
          sums[j] = sum;
        }
      } else {
        std::fill_n(sums, count, int64_t(0));
        for (int32_t i = 0; i < g.k; ++i) {
          const int32_t x = a[i];
          for (int32_t j = 0; j < count; ++j) sums[j] += x * int32_t(b_at(g, j0 + j, i));
        }
      }
      detail::finish_s16_rows(g.out, r * g.n, 0, j0, sums, 0, 1, count, facts);
    }
  }
}

#if defined(__x86_64__)
using PanelFn = decltype(&N_AVX2::conv_s16_panel_sums);
PanelFn panel_fn() {
  if (!has(Isa::Avx2)) return nullptr;
  return has(Isa::Avx512bw) ? N_AVX3::conv_s16_panel_sums : N_AVX2::conv_s16_panel_sums;
}

constexpr int32_t kPanel = 16;  // columns of a panel
constexpr int R = detail::kConvS16Rows;

// The scratch: B's two byte halves as panels, [panel][kp/2][16][2] int16 each; then per worker R
// rows of A padded to kp (where k is odd) and the two halves' sums.
struct Layout {
  int32_t kp, panels;
  int64_t sums_stride;
  size_t half_bytes, rows_bytes, sums_bytes;
  explicit Layout(const GemmS16& g)
      : kp((g.k + 1) / 2 * 2),
        panels((g.n + kPanel - 1) / kPanel),
        sums_stride(int64_t(panels) * kPanel),
        half_bytes(align_up(size_t(panels) * kPanel * size_t(kp) * 2)),
        rows_bytes(align_up(size_t(R) * size_t(kp) * 2)),
        sums_bytes(align_up(size_t(R) * size_t(sums_stride) * 8)) {}
  size_t per_worker() const { return rows_bytes + 2 * sums_bytes; }
  size_t total(int workers) const { return 2 * half_bytes + per_worker() * size_t(std::max(workers, 1)) + 64; }
};

// B = 256·hi + lo with hi = B >> 8 (signed) and lo = B & 255, into the panels.
void pack_halves(const GemmS16& g, const Layout& l, int16_t* hi, int16_t* lo) {
  const size_t count = size_t(l.panels) * kPanel * size_t(l.kp);
  std::fill_n(hi, count, int16_t(0));
  std::fill_n(lo, count, int16_t(0));
  for (int32_t j = 0; j < g.n; ++j)
    for (int32_t i = 0; i < g.k; ++i) {
      const int16_t v = b_at(g, j, i);
      const size_t at = size_t(j / kPanel) * kPanel * size_t(l.kp) + size_t(i / 2) * 2 * kPanel + size_t(j % kPanel) * 2 + size_t(i % 2);
      hi[at] = int16_t(v >> 8);
      lo[at] = int16_t(v & 0xFF);
    }
}

// Rows [r0, r1) on the panels, R at a time: each half's sums, combined, then the output stage.
void rows_panels(PanelFn panel, const GemmS16& g, const Layout& l, const detail::S16StageFacts& facts,
                 const int16_t* hi, const int16_t* lo, uint8_t* mine, int64_t r0, int64_t r1) {
  auto* padded = reinterpret_cast<int16_t*>(mine);
  auto* sums = reinterpret_cast<int64_t*>(mine + l.rows_bytes);
  auto* low_sums = reinterpret_cast<int64_t*>(mine + l.rows_bytes + l.sums_bytes);
  for (int64_t r = r0; r < r1; r += R) {
    const int n = int(std::min<int64_t>(R, r1 - r));
    const int16_t* a[R];
    for (int t = 0; t < n; ++t) {
      a[t] = g.a + (r + t) * g.a_stride;
      if (l.kp != g.k) {  // an odd depth: the panels read kp, past A's last row (B's panels are zeros there)
        int16_t* row = padded + size_t(t) * l.kp;
        std::copy_n(a[t], g.k, row);
        row[g.k] = 0;
        a[t] = row;
      }
    }
    panel(a, n, hi, l.panels, l.kp, sums, l.sums_stride);
    panel(a, n, lo, l.panels, l.kp, low_sums, l.sums_stride);
    for (int t = 0; t < n; ++t)
      for (int32_t j = 0; j < g.n; ++j) {
        int64_t& s = sums[t * l.sums_stride + j];
        s = s * 256 + low_sums[t * l.sums_stride + j];
      }
    detail::finish_s16_rows(g.out, r * g.n, g.n, 0, sums, l.sums_stride, n, g.n, facts);
  }
}
#endif  // __x86_64__

}  // namespace

size_t gemm_s16_scratch_bytes(const GemmS16& g, int threads) {
#if defined(__x86_64__)
  if (panel_fn() != nullptr && g.n > 0 && g.k > 0) return Layout(g).total(threads);
#endif
  (void)g, (void)threads;
  return 0;
}

void gemm_s16_portable(const GemmS16& g) {
  if (g.m > 0 && g.n > 0) rows_portable(g, facts_of(g), 0, g.m);
}

void gemm_s16(const GemmS16& g, const Exec& exec) {
  if (g.m <= 0 || g.n <= 0) return;
  const detail::S16StageFacts facts = facts_of(g);
#if defined(__x86_64__)
  const double macs = double(g.m) * g.n * g.k;
  const int64_t tiles = (g.m + R - 1) / R;
  const int workers = int(std::clamp<int64_t>(std::min<int64_t>(exec.num_threads(), int64_t(macs / kMacsPerWorker) + 1), 1, tiles));
  // Fewer rows than a tile: packing B's halves costs more than the loops' products (a one-row
  // 512x512 at avx2: 0.94 GMAC/s packed, 6.0 by the loops).
  if (const PanelFn panel = panel_fn();
      panel && g.m >= R && g.k > 0 && exec.scratch.size() >= gemm_s16_scratch_bytes(g, workers)) {
    const Layout l(g);
    uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
    auto* hi = reinterpret_cast<int16_t*>(base);
    auto* lo = reinterpret_cast<int16_t*>(base + l.half_bytes);
    pack_halves(g, l, hi, lo);
    uint8_t* workers_base = base + 2 * l.half_bytes;
    if (workers == 1) return rows_panels(panel, g, l, facts, hi, lo, workers_base, 0, g.m);
    exec.parallel_chunks(workers, tiles, [&](int worker, int64_t t0, int64_t t1) {
      rows_panels(panel, g, l, facts, hi, lo, workers_base + size_t(worker) * l.per_worker(), t0 * R,
                  std::min(g.m, t1 * R));
    });
    return;
  }
#endif
  rows_portable(g, facts, 0, g.m);
}

}  // namespace vkrt::compute
