// gemm_s8 on aarch64 (gemm_s8.h has the formula; gemm_s8_tiled.h the driver). Both paths
// multiply A and B as they are (signed int8, exact products) and add the offsets afterwards:
//   Σ (a + ao)(b + bo) = Σ a·b + ao·Σb + bo·Σa + k·ao·bo,
// the column terms (bias + ao·Σb + k·ao·bo) packed with B, the row terms (bo·Σa) with A; all
// modulo 2^32 as the portable loop, so the same bytes.
//   * i8mm (SMMLA): B panels [kp/8][16 columns][8 depths]; one SMMLA multiplies two rows' 8
//     depths by two columns' 8 depths into a 2x2 block of int32 sums, 32 multiply-adds where SDOT
//     does 16. Tile: 4 rows (two pairs) × 16 columns (eight pairs) = 16 accumulators, each a 2x2
//     block, unzipped into rows at the end.
//   * dotprod (SDOT): B panels [kp/4][16 columns][4 depths]; one SDOT by element multiplies 4
//     columns' 4 depths by a row's 4 depths. Tile: 4 rows × 16 columns = 16 accumulators.
//   * NEON: B panels [kp/2][16 columns][2 depths]; SMULL multiplies 4 columns' depth pairs by a
//     row's pair (int16 products, at most 2^14 in magnitude), SADALP adds each pair into int32.
#include "compute/gemm_s8_tiled.h"

#if defined(__aarch64__)
#include "compute/isa.h"
#include "compute/simd_neon.h"

#define VKRT_TARGET_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))
#define VKRT_TARGET_I8MM __attribute__((target("arch=armv8.2-a+dotprod+i8mm")))

namespace vkrt::compute::detail {
namespace {

using arith::wrap_add;
using arith::wrap_mul;

// The output stage for 16 columns of one row.
inline void store_columns(const GemmS8& g, const TiledPanels& b, int32x4_t acc[4], int32_t row_term, int64_t row,
                          int32_t col) {
  const int cols = std::min<int32_t>(16, g.n - col);
  const int32x4_t term = vdupq_n_s32(row_term);
  for (int q = 0; q < 4; ++q) acc[q] = vaddq_s32(vaddq_s32(acc[q], vld1q_s32(b.colterm + col + 4 * q)), term);
  if (g.c32) {  // an int32 C: no output stage
    int32_t sums[16];
    for (int q = 0; q < 4; ++q) vst1q_s32(sums + 4 * q, acc[q]);
    std::memcpy(g.c32 + row * g.c_stride + col, sums, size_t(cols) * sizeof(int32_t));
    return;
  }
  for (int q = 0; q < 4; ++q)
    acc[q] = simd::requantize_x4(acc[q], vld1q_s32(b.mult + col + 4 * q), vld1q_s32(b.shift + col + 4 * q),
                                  g.out.single_round);
  const int8x16_t bytes = simd::narrow_s8x16(acc, vdupq_n_s32(g.out.output_offset), vdupq_n_s32(g.out.activation_min),
                                             vdupq_n_s32(g.out.activation_max));
  int8_t* out = g.c + row * g.c_stride + col;
  if (cols == 16) {
    vst1q_s8(out, bytes);
  } else {
    int8_t tmp[16];
    vst1q_s8(tmp, bytes);
    std::memcpy(out, tmp, size_t(cols));
  }
}

// What both paths share: A packed as it is, the offsets in the column and row terms.
struct SignedProducts {
  using AElem = int8_t;
  static constexpr int kTileRows = 4;
  static constexpr bool kColumnSums = true;
  // Any offset: they are added as int32 terms.
  static constexpr int32_t kAOffsetMin = INT32_MIN, kAOffsetMax = INT32_MAX;

  static int32_t column_term(const GemmS8& g, int32_t j, int32_t column_sum) {
    int32_t term = g.bias ? g.bias[j] : 0;
    term = wrap_add(term, wrap_mul(g.a_offset, column_sum));
    return wrap_add(term, wrap_mul(wrap_mul(g.k, g.a_offset), g.b_offset));
  }
  static int32_t row_term(const GemmS8& g, const int8_t* a) {
    if (g.b_offset == 0) return 0;
    int32_t sum = 0;
    for (int32_t t = 0; t < g.k; ++t) sum = wrap_add(sum, a[t]);
    return wrap_mul(g.b_offset, sum);
  }
  static void pack_a_row(const GemmS8& g, const int8_t* src, int32_t kp, int8_t* dst) {
    std::memcpy(dst, src, size_t(g.k));
    std::memset(dst + g.k, 0, size_t(kp - g.k));
  }
};

struct DotprodPath : SignedProducts {
  static constexpr int kDepthGroup = 4;
  static constexpr GemmS8Layout kLayout = GemmS8Layout::Dotprod;

  template <int R>
  VKRT_TARGET_DOTPROD static void tile(const GemmS8& g, const TiledPanels& b, const int8_t* a_pack, int32_t kp,
                                       const int32_t* row_terms, int64_t row0, int rows, int32_t panel) {
    int32x4_t acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 4; ++q) acc[r][q] = vdupq_n_s32(0);
    const int8_t* bp = b.data + size_t(panel) * 16 * kp;
    for (int32_t kk = 0; kk < kp; kk += 4, bp += 64) {
      const int8x16_t b0 = vld1q_s8(bp), b1 = vld1q_s8(bp + 16), b2 = vld1q_s8(bp + 32), b3 = vld1q_s8(bp + 48);
      for (int r = 0; r < R; ++r) {
        int32_t quad;
        std::memcpy(&quad, a_pack + size_t(r) * kp + kk, sizeof(quad));
        const int8x16_t a = vreinterpretq_s8_s32(vdupq_n_s32(quad));
        acc[r][0] = vdotq_s32(acc[r][0], b0, a);
        acc[r][1] = vdotq_s32(acc[r][1], b1, a);
        acc[r][2] = vdotq_s32(acc[r][2], b2, a);
        acc[r][3] = vdotq_s32(acc[r][3], b3, a);
      }
    }
    for (int r = 0; r < rows; ++r) store_columns(g, b, acc[r], row_terms[r], row0 + r, panel * 16);
  }
};

struct I8mmPath : SignedProducts {
  static constexpr int kDepthGroup = 8;
  static constexpr GemmS8Layout kLayout = GemmS8Layout::I8mm;

  template <int R>
  VKRT_TARGET_I8MM static void tile(const GemmS8& g, const TiledPanels& b, const int8_t* a_pack, int32_t kp,
                                    const int32_t* row_terms, int64_t row0, int rows, int32_t panel) {
    constexpr int kPairs = (R + 1) / 2;
    // acc[p][c]: rows 2p, 2p + 1 by columns 2c, 2c + 1, as [r0·c0, r0·c1, r1·c0, r1·c1].
    int32x4_t acc[kPairs][8];
    for (int p = 0; p < kPairs; ++p)
      for (int c = 0; c < 8; ++c) acc[p][c] = vdupq_n_s32(0);
    const int8_t* bp = b.data + size_t(panel) * 16 * kp;
    for (int32_t kk = 0; kk < kp; kk += 8, bp += 128) {
      int8x16_t bc[8];  // column pair c: column 2c's 8 depths, then column 2c + 1's
      for (int c = 0; c < 8; ++c) bc[c] = vld1q_s8(bp + 16 * c);
      for (int p = 0; p < kPairs; ++p) {
        const int8_t* first = a_pack + size_t(2 * p) * kp + kk;
        // An odd last row pairs with itself; that half of the sums is not stored.
        const int8_t* second = 2 * p + 1 < R ? first + kp : first;
        const int8x16_t a = vcombine_s8(vld1_s8(first), vld1_s8(second));
        for (int c = 0; c < 8; ++c) acc[p][c] = vmmlaq_s32(acc[p][c], a, bc[c]);
      }
    }
    for (int r = 0; r < rows; ++r) {
      // Row r's 16 columns: the low (r even) or high (r odd) halves of its pair's blocks.
      int32x4_t sums[4];
      for (int q = 0; q < 4; ++q) {
        const int64x2_t lo = vreinterpretq_s64_s32(acc[r / 2][2 * q]), hi = vreinterpretq_s64_s32(acc[r / 2][2 * q + 1]);
        sums[q] = vreinterpretq_s32_s64(r % 2 == 0 ? vzip1q_s64(lo, hi) : vzip2q_s64(lo, hi));
      }
      store_columns(g, b, sums, row_terms[r], row0 + r, panel * 16);
    }
  }
};

struct NeonPath : SignedProducts {
  static constexpr int kDepthGroup = 2;
  static constexpr GemmS8Layout kLayout = GemmS8Layout::Neon;

  template <int R>
  static void tile(const GemmS8& g, const TiledPanels& b, const int8_t* a_pack, int32_t kp, const int32_t* row_terms,
                   int64_t row0, int rows, int32_t panel) {
    int32x4_t acc[R][4];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 4; ++q) acc[r][q] = vdupq_n_s32(0);
    const int8_t* bp = b.data + size_t(panel) * 16 * kp;
    for (int32_t kk = 0; kk < kp; kk += 2, bp += 32) {
      const int8x16_t b01 = vld1q_s8(bp), b23 = vld1q_s8(bp + 16);  // columns 0-7, 8-15, two depths each
      for (int r = 0; r < R; ++r) {
        int16_t pair;
        std::memcpy(&pair, a_pack + size_t(r) * kp + kk, sizeof(pair));
        const int8x16_t a = vreinterpretq_s8_s16(vdupq_n_s16(pair));
        acc[r][0] = vpadalq_s16(acc[r][0], vmull_s8(vget_low_s8(b01), vget_low_s8(a)));
        acc[r][1] = vpadalq_s16(acc[r][1], vmull_high_s8(b01, a));
        acc[r][2] = vpadalq_s16(acc[r][2], vmull_s8(vget_low_s8(b23), vget_low_s8(a)));
        acc[r][3] = vpadalq_s16(acc[r][3], vmull_high_s8(b23, a));
      }
    }
    for (int r = 0; r < rows; ++r) store_columns(g, b, acc[r], row_terms[r], row0 + r, panel * 16);
  }
};

constexpr TiledGemmPath kI8mm = tiled_gemm_path_of<I8mmPath>();
constexpr TiledGemmPath kDotprod = tiled_gemm_path_of<DotprodPath>();
constexpr TiledGemmPath kNeon = tiled_gemm_path_of<NeonPath>();

}  // namespace

const TiledGemmPath* tiled_gemm_path() {
  if (compute::has(compute::Isa::I8mm)) return &kI8mm;
  if (compute::has(compute::Isa::Dotprod)) return &kDotprod;
  if (compute::has(compute::Isa::Neon)) return &kNeon;
  return nullptr;
}

}  // namespace vkrt::compute::detail
#endif  // __aarch64__
