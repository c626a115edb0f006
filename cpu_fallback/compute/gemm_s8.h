// The int8 matrix engine behind convolution (1x1, im2col, grouped), fully connected and
// batch matmul:
//
//   C[r][j] = clamp(requantize(bias[j] + Σ_k (A[r][k] + a_offset)·(B[j][k] + b_offset),
//                              mult[j], shift[j]) + out_offset, act_min, act_max)
//
// int32 accumulation wraps modulo 2^32, as on the device (CMSIS-NN's MVE form folds the
// offsets into the bias and is equal to the DSP/scalar form modulo 2^32, cortex-m-ops.md §4.1),
// so every path here gives the same bytes: the portable loop, the AVX-512 VNNI path (A is fed
// as unsigned a^0x80 to VPDPBUSD and the offsets are folded into per-column terms), and the
// tiled paths of gemm_s8_tiled.h: AVX2 and AVX-512BW (gemm_s8_hwy.cpp, one Highway tile: A
// widened to int16 with its offset, VPMADDWD against B's pairs) and aarch64 NEON and dotprod (gemm_s8_neon.cpp: SMULL/SADALP or
// SDOT on the signed bytes, offsets in per-column and per-row terms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "compute/exec.h"
#include "compute/requantize_row.h"

namespace vkrt::compute {

struct GemmS8PackedB;

struct GemmS8 {
  int64_t m = 0;  // rows of A and C
  int32_t n = 0;  // rows of B = columns of C
  int32_t k = 0;  // depth
  // Row r of A: `a + r * a_stride` (k contiguous bytes), unless a_row is set: then a_row(a_ctx, r,
  // tmp) returns a pointer to the row, possibly written into `tmp` (k bytes), e.g. by im2col.
  const int8_t* a = nullptr;
  int64_t a_stride = 0;
  const int8_t* (*a_row)(const void* a_ctx, int64_t r, int8_t* tmp) = nullptr;
  const void* a_ctx = nullptr;
  const int8_t* b = nullptr;  // row j at b + j * b_stride
  int64_t b_stride = 0;
  const int32_t* bias = nullptr;  // [n] or null
  int32_t a_offset = 0;
  int32_t b_offset = 0;
  RequantizeRow out;  // per_channel: indexed by column j
  int8_t* c = nullptr;
  // Set instead of c: C is the int32 accumulators themselves, bias included, with no output
  // stage (TOSA's CONV2D; `out` is not read and its multiplier may be null).
  int32_t* c32 = nullptr;
  int64_t c_stride = 0;  // elements between rows of C
  // B already packed (gemm_s8_pack_b, once per loaded method for constant weights). Used only
  // when it was built from this product's B, bias, offsets and output scales; else ignored.
  const GemmS8PackedB* packed_b = nullptr;
};

// Column j's requantization multiplier and shift (0 where C is int32: no output stage).
// The packed paths give a panel's padding columns (j >= n) column n − 1's: their outputs are
// never stored, but a tile chooses a vector's rounding form from all its lanes, and a zero shift
// there would turn the one-divide fold (output_stage_hwy-inl.h) off for the real columns too.
inline int32_t out_multiplier(const GemmS8& g, int32_t j) {
  return g.out.multiplier == nullptr ? 0 : g.out.multiplier[g.out.per_channel ? j : 0];
}
inline int32_t out_shift(const GemmS8& g, int32_t j) {
  return g.out.shift == nullptr ? 0 : g.out.shift[g.out.per_channel ? j : 0];
}

// Which path's layout a packed B is in: the one for the ISA level active when it was packed.
enum class GemmS8Layout : uint8_t {
  Vnni,  // panels [kp/4][16 columns][4 depths], uint8 view; colterm with the offsets folded in
  Avx2,     // panels [kp/2][16 columns][2 depths], int8; colterm = bias (A carries its offset)
  Neon,     // panels [kp/2][16 columns][2 depths], int8; colterm with the offsets folded in
  Dotprod,  // panels [kp/4][16 columns][4 depths], int8; colterm with the offsets folded in
  I8mm,     // panels [kp/8][16 columns][8 depths], int8; colterm with the offsets folded in
};

// B in the layout its path reads (16-column panels) with its per-column terms, and a record of
// what it was built from. Lives in caller-owned memory.
struct GemmS8PackedB {
  // Built from (checked by gemm_s8 before use):
  const int8_t* b;
  int64_t b_stride;
  int32_t n, k;
  const int32_t* bias;
  int32_t a_offset, b_offset;
  bool per_channel;
  const int32_t* multiplier;  // the per-channel arrays, or
  int32_t multiplier0, shift0;  // the per-tensor values
  const int32_t* shift;
  // The packed form:
  GemmS8Layout layout;
  // Avx2 layout only: the panels hold B widened to int16 (small weights, gemm_s8_tiled.h's
  // kWideBMaxBytes), so that the depth loop reads them without widening each time.
  bool b_int16;
  int32_t kp, panels;         // kp: k padded to the layout's depth group
  const uint8_t* panel_data;  // panel p at panel_data + p·16·kp elements
  const int32_t* colterm;     // [panels·16] bias + offset terms
  const int32_t* column_multiplier;
  const int32_t* column_shift;
  // Avx2 layout with int8 panels at the AVX2 level: [panels·16] Σ_k B[j][k], which the one-row
  // kernel needs (its A is a + 128); else null.
  const int32_t* column_sum = nullptr;
};

// Bytes gemm_s8_pack_b needs for g's B (g.a and g.c are not read), or 0 when the active ISA
// level has no packed path (portable) or the product is one gemm_s8 runs without packing.
size_t gemm_s8_packed_b_bytes(const GemmS8& g);
// Packs g's B into `memory` (at least gemm_s8_packed_b_bytes(g) bytes); returns the header,
// placed at the start of `memory`, or null when there is nothing to pack or it does not fit.
const GemmS8PackedB* gemm_s8_pack_b(const GemmS8& g, std::span<uint8_t> memory);

// Scratch that gemm_s8 needs for its fastest path with `threads` workers.
size_t gemm_s8_scratch_bytes(const GemmS8& g, int threads);
// Scratch without which gemm_s8 cannot run at all: k bytes (one row) when a_row is set, else 0.
size_t gemm_s8_min_scratch_bytes(const GemmS8& g);
// Computes C: the AVX-512 VNNI path or a tiled path, as the active ISA level allows, when
// exec.scratch holds gemm_s8_scratch_bytes(g, exec.num_threads()); else the portable loop (serial).
// Precondition: exec.scratch.size() >= gemm_s8_min_scratch_bytes(g).
void gemm_s8(const GemmS8& g, const Exec& exec);
// The portable loop only (tests compare the paths); same precondition on scratch.
void gemm_s8_portable(const GemmS8& g, std::span<uint8_t> scratch);

}  // namespace vkrt::compute
