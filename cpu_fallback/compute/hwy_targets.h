// The compute-core kernels written once with Google Highway (the *_hwy.cpp files, x86-64 only),
// as the rest of the core calls them: one function per Highway target, chosen by the caller
// through compute::has() like any other path (docs/simd-choice.md).
//
// Each *_hwy.cpp includes itself once per target through hwy/foreach_target.h. The targets are
// AVX2 (namespace N_AVX2, our avx2 level) and AVX3 (N_AVX3: AVX-512 F/BW/DQ/VL, our avx512bw
// level and the avx512vnni level where no VNNI kernel applies). Highway also compiles its
// baseline target (HWY_SCALAR here), where the kernels are left out: below avx2 the portable
// loops run. Highway's own dispatch (HWY_DYNAMIC_DISPATCH, libhwy.so) is not used, so isa.h stays
// the one place that chooses a level, VKRT_CPU_ISA and --cpu_isa pin these paths too, and Highway
// is header-only here.
#pragma once

#if defined(__x86_64__)
#include <cstdint>

#include "compute/requantize_row.h"

// Define before any Highway header: no SSSE3/SSE4 copies (the portable loops serve below AVX2),
// no AVX3_DL copy (it compiles to the same code as AVX3 for these kernels).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif
// Highway's debug checks (on under sanitizers and without NDEBUG) call hwy::Abort in libhwy.so,
// which this header-only use does not link; the tests check the kernels' results instead.
#ifndef HWY_IS_DEBUG_BUILD
#define HWY_IS_DEBUG_BUILD 0
#endif

namespace vkrt::compute {
namespace detail {
struct TiledGemmPath;
struct F32Kernel;
struct DepthwiseS16Window;
struct S16StageFacts;
}
struct DepthwiseS8Params;
struct DepthwiseS8Output;
struct ResidualAddS8;
struct PoolWindows;
struct PoolOutput;
struct S16Output;

// The most taps (kernel_h · kernel_w) depthwise_rows_s8 takes: a window's taps are listed on the
// stack (8x8; larger kernels take the portable row).
inline constexpr int kDepthwiseRowTaps = 64;

#define VKRT_HWY_TARGET_FUNCTIONS                                                                     \
  /* requantize_row_s8 (requantize_row.h) on whole vectors of the target. */                          \
  void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count, \
                         int8_t* out);                                                                \
  /* The int8 GEMM tile path below VNNI (gemm_s8_tiled.h): A widened to int16, VPMADDWD. */          \
  const detail::TiledGemmPath* tiled_gemm_path();                                                     \
  /* gemm_f32's register tiles (gemm_f32_tile.h): 6x16 on AVX2, 12x32 on AVX3. */                      \
  const detail::F32Kernel& f32_kernel();                                                              \
  /* Output rows [first_row, last_row) (of all batches: row = b·out_h + oy) of depthwise_s8         */ \
  /* (depthwise_s8.h) for ch_mult 1, input_offset in [-127, 128] and at most kDepthwiseRowTaps     */ \
  /* taps: two taps per VPMADDWD. Only part `part` of `parts` of the channel blocks (threads that  */ \
  /* share out a layer by channels, depthwise_s8.cpp; 0 of 1: all channels).                       */ \
  void depthwise_rows_s8(const DepthwiseS8Params& p, int64_t first_row, int64_t last_row, int part,   \
                         int parts, const int8_t* input, const int8_t* weight, const int32_t* bias,   \
                         const DepthwiseS8Output& to);                                                \
  /* residual_add_s8 (residual_add_s8.h): the int8 residual add with its RESCALEs. */                  \
  void residual_add_s8(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count); \
  /* Output rows [first_row, last_row) (row = b·out_h + oy) of the int8 pools (pool.h): the average */ \
  /* (either rounding) and the maximum. */                                                            \
  void avg_pool_rows_s8(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output,   \
                        int64_t first_row, int64_t last_row);                                         \
  void max_pool_rows_s8(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output,   \
                        int64_t first_row, int64_t last_row);                                         \
  /* conv_s16 (conv_s16.h): sums[r·sums_stride + j] = Σ_{i<k} a[r][i]·(b[j·b_stride + i] − b_zero_point) */ \
  /* in int64, for rows r < rows (<= detail::kConvS16Rows) and columns j < n; k a multiple of      */ \
  /* detail::kConvS16DepthAlign; VPMADDWD. */                                                         \
  void conv_s16_sums(const int16_t* const* a, int rows, const int8_t* b, int64_t b_stride, int32_t n,    \
                     int32_t k, int32_t b_zero_point, int64_t* sums, int64_t sums_stride);            \
  /* conv_s16's panel form: sums[r·sums_stride + c] for rows r < rows (<= kConvS16Rows) and the  */ \
  /* 16·panel_count columns of `panels`, [panel][kp/2][16][2] int16 weights less their zero point; */ \
  /* kp even. */                                                                                      \
  void conv_s16_panel_sums(const int16_t* const* a, int rows, const int16_t* panels, int32_t panel_count, \
                           int32_t kp, int64_t* sums, int64_t sums_stride);                           \
  /* depthwise_s16 for ch_mult 1: sums[c] = Σ over the window's taps of x[c]·(w[c] − zero point), */   \
  /* c < channels, in int64. */                                                                       \
  void depthwise_s16_sums(const detail::DepthwiseS16Window& win, int32_t channels, int32_t w_zero_point, \
                          int64_t* sums);                                                             \
  /* The same with two taps a VPMADDWD, for whole blocks of depthwise_s16_pair_block() channels   */ \
  /* (a vector of int16). depthwise_s16_pack_pairs packs `taps` taps' weights (tap t at weight +    */ \
  /* t·tap_stride) for `channels` channels, less the zero point, as [block][tap pair][2 vectors]:  */ \
  /* (taps + 1) / 2 · 2 · channels int16. depthwise_s16_pair_sums sums every tap of a window, tap t */ \
  /* read from tap_inputs[t] (zeros for a tap in the padding); taps <= 2·kS16Int32Pairs.          */ \
  int32_t depthwise_s16_pair_block();                                                                 \
  void depthwise_s16_pack_pairs(const int8_t* weight, int64_t tap_stride, int32_t taps, int32_t channels, \
                                int32_t zp, int16_t* packed);                                         \
  void depthwise_s16_pair_sums(const int16_t* const* tap_inputs, int32_t taps, const int16_t* packed,  \
                               int32_t channels, int64_t* sums);                                      \
  /* The A16W8 output stage (conv_s16.h) for channels [first, first + count) of `rows` pixels    */ \
  /* (outputs from out_index, out_stride apart; sums[r·sums_stride] channel first's), on whole     */ \
  /* vectors, each vector's channel constants derived once for the rows: returns how many        */ \
  /* channels it did (the rest: the scalar stage). `facts`: what the call's bounds prove. */          \
  int32_t finish_s16_vectors(const S16Output& o, int64_t out_index, int64_t out_stride, int32_t first,      \
                             const int64_t* sums, int64_t sums_stride, int rows, int32_t count,        \
                             const detail::S16StageFacts& facts);

namespace N_AVX2 {
VKRT_HWY_TARGET_FUNCTIONS
}
namespace N_AVX3 {
VKRT_HWY_TARGET_FUNCTIONS
}

#undef VKRT_HWY_TARGET_FUNCTIONS

}  // namespace vkrt::compute
#endif  // __x86_64__
