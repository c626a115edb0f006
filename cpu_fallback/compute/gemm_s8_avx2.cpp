// gemm_s8 on AVX2 without VNNI (gemm_s8.h has the formula; gemm_s8_tiled.h the driver).
//
// AVX2 has no int8 dot product that is exact here: VPMADDUBSW saturates its int16 pair sums
// (255·128·2 > 32767). So A is widened to int16 with its offset added, a + a_offset in
// [-255, 255], and B is widened in registers (VPMOVSXBW) from a packed int8 copy: VPMADDWD
// multiplies a broadcast pair of A (depths 2i, 2i+1) by 8 columns' pairs of B and adds the two
// products, |sum| <= 2·255·128, exact in int32. B's offset is added per row:
//   Σ (a + ao)(b + bo) = Σ (a + ao)·b + bo·Σ (a + ao),
// all modulo 2^32 as the portable loop, so the same bytes.
//
// Register tile: 4 rows × 16 columns = 8 accumulators, 2 B vectors and one A broadcast of the
// 16 ymm registers.
//
// AVX-512BW without VNNI (Skylake-SP and its kind) takes the same arithmetic, packing and B
// layout on zmm: one VPMOVSXBW widens a panel's depth pair for all 16 columns and one VPMADDWD
// covers 16 columns, so a tile is 8 rows × 32 columns (two panels) in 16 accumulators, each A
// broadcast used twice: half the instructions per multiply-add of the AVX2 tile.
#include "compute/gemm_s8_tiled.h"

#if defined(__x86_64__)
#include "compute/isa.h"
#include "compute/simd_avx2.h"

namespace vkrt::compute::detail {
namespace {

using arith::wrap_add;
using arith::wrap_mul;

VKRT_TARGET_AVX2 inline __m256i load8(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// The output stage for 16 columns of one row: acc + colterm + row term, requantized, offset,
// clamped and stored (the columns before n); or only summed and stored, for an int32 C.
VKRT_TARGET_AVX2 inline void store_columns(const GemmS8& g, const TiledPanels& b, __m256i lo, __m256i hi,
                                           int32_t row_term, int64_t row, int32_t col) {
  const int cols = std::min<int32_t>(16, g.n - col);
  const __m256i term = _mm256_set1_epi32(row_term);
  lo = _mm256_add_epi32(_mm256_add_epi32(lo, load8(b.colterm + col)), term);
  hi = _mm256_add_epi32(_mm256_add_epi32(hi, load8(b.colterm + col + 8)), term);
  if (g.c32) {
    int32_t* out = g.c32 + row * g.c_stride + col;
    if (cols == 16) {  // the common case: two stores, not a library memcpy per tile row
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), lo);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), hi);
      return;
    }
    alignas(32) int32_t sums[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums + 8), hi);
    std::memcpy(out, sums, size_t(cols) * sizeof(int32_t));
    return;
  }
  lo = simd::requantize_x8(lo, load8(b.mult + col), load8(b.shift + col));
  hi = simd::requantize_x8(hi, load8(b.mult + col + 8), load8(b.shift + col + 8));
  const __m128i bytes = simd::narrow_s8x16(lo, hi, _mm256_set1_epi32(g.out.output_offset),
                                           _mm256_set1_epi32(g.out.activation_min),
                                           _mm256_set1_epi32(g.out.activation_max));
  int8_t* out = g.c + row * g.c_stride + col;
  if (cols == 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
  } else {
    alignas(16) int8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
    std::memcpy(out, tmp, size_t(cols));
  }
}

struct Avx2Path {
  using AElem = int16_t;
  static constexpr int kDepthGroup = 2;
  static constexpr int kTileRows = 4;
  static constexpr GemmS8Layout kLayout = GemmS8Layout::Avx2;
  static constexpr bool kColumnSums = false;

  // a + a_offset must fit int16 (the kernels accept offsets up to ±65536).
  static bool usable(const GemmS8& g) { return g.a_offset >= -32640 && g.a_offset <= 32639; }
  // A carries its offset, so the column term is the bias alone.
  static int32_t column_term(const GemmS8& g, int32_t j, int32_t) { return g.bias ? g.bias[j] : 0; }
  // bo·Σ(a + ao) over the row's k packed values.
  static int32_t row_term(const GemmS8& g, const int8_t* a) {
    if (g.b_offset == 0) return 0;
    int32_t sum = 0;
    for (int32_t t = 0; t < g.k; ++t) sum = wrap_add(sum, int32_t(a[t]) + g.a_offset);
    return wrap_mul(g.b_offset, sum);
  }
  // a + a_offset as int16, zero past k.
  VKRT_TARGET_AVX2 static void pack_a_row(const GemmS8& g, const int8_t* src, int32_t kp, int16_t* dst) {
    const __m256i offset = _mm256_set1_epi16(int16_t(g.a_offset));
    int32_t i = 0;
    for (; i + 16 <= g.k; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_add_epi16(_mm256_cvtepi8_epi16(bytes), offset));
    }
    for (; i < g.k; ++i) dst[i] = int16_t(src[i] + g.a_offset);
    for (; i < kp; ++i) dst[i] = 0;
  }
  // R rows × one 16-column panel.
  template <int R>
  VKRT_TARGET_AVX2 static void tile(const GemmS8& g, const TiledPanels& b, const int16_t* a_pack, int32_t kp,
                                    const int32_t* row_terms, int64_t row0, int rows, int32_t panel) {
    __m256i acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const int8_t* bp = b.data + size_t(panel) * 16 * kp;
    for (int32_t kk = 0; kk < kp; kk += 2, bp += 32) {
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
    for (int r = 0; r < rows; ++r) store_columns(g, b, acc[r][0], acc[r][1], row_terms[r], row0 + r, panel * 16);
  }
};

// The AVX-512BW output stage: store_columns above on one zmm of 16 columns.
VKRT_TARGET_AVX512 inline void store_columns_x16(const GemmS8& g, const TiledPanels& b, __m512i acc, int32_t row_term,
                                                 int64_t row, int32_t col) {
  acc = _mm512_add_epi32(_mm512_add_epi32(acc, _mm512_loadu_si512(b.colterm + col)), _mm512_set1_epi32(row_term));
  store_c_x16(g, acc, b.mult, b.shift, row, col);
}

struct Avx512bwPath : Avx2Path {
  static constexpr int kTileRows = 8;
  static constexpr int kPanelsPerTile = 2;  // 8 rows x 32 columns: 16 accumulators, each A broadcast used twice
  // R rows × P 16-column panels from `panel`.
  template <int R, int P>
  VKRT_TARGET_AVX512 static void tile_panels(const GemmS8& g, const TiledPanels& b, const int16_t* a_pack, int32_t kp,
                                             const int32_t* row_terms, int64_t row0, int rows, int32_t panel) {
    __m512i acc[R][P];
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < P; ++q) acc[r][q] = _mm512_setzero_si512();
    const int8_t* bp = b.data + size_t(panel) * 16 * kp;
    const size_t panel_stride = size_t(16) * kp;
    for (int32_t kk = 0; kk < kp; kk += 2, bp += 32) {
      __m512i bv[P];
      for (int q = 0; q < P; ++q)
        bv[q] = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + q * panel_stride)));
      for (int r = 0; r < R; ++r) {
        int32_t pair;
        std::memcpy(&pair, a_pack + size_t(r) * kp + kk, sizeof(pair));
        const __m512i a = _mm512_set1_epi32(pair);
        for (int q = 0; q < P; ++q) acc[r][q] = _mm512_add_epi32(acc[r][q], _mm512_madd_epi16(a, bv[q]));
      }
    }
    for (int q = 0; q < P; ++q)
      for (int r = 0; r < rows; ++r) store_columns_x16(g, b, acc[r][q], row_terms[r], row0 + r, (panel + q) * 16);
  }
  template <int R>
  static void tile(const GemmS8& g, const TiledPanels& b, const int16_t* a_pack, int32_t kp, const int32_t* row_terms,
                   int64_t row0, int rows, int32_t panel, int panels) {
    if (panels == 2)
      tile_panels<R, 2>(g, b, a_pack, kp, row_terms, row0, rows, panel);
    else
      tile_panels<R, 1>(g, b, a_pack, kp, row_terms, row0, rows, panel);
  }
};

constexpr TiledGemmPath kAvx2 = tiled_gemm_path_of<Avx2Path>();
constexpr TiledGemmPath kAvx512bw = tiled_gemm_path_of<Avx512bwPath>();

}  // namespace

const TiledGemmPath* tiled_gemm_path() {
  // VNNI has its own paths in gemm_s8.cpp.
  if (compute::has(compute::Isa::Avx512vnni) || !compute::has(compute::Isa::Avx2)) return nullptr;
  return compute::has(compute::Isa::Avx512bw) ? &kAvx512bw : &kAvx2;
}

}  // namespace vkrt::compute::detail
#endif  // __x86_64__
