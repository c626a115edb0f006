// Three kernels of the CPU compute core written once with Google Highway 1.0.3 (hwy_kernels.cpp),
// for highway_bench only: each gives the same bytes as ours (the bench checks that before it
// times anything). Compiled by foreach_target for Highway's dynamic dispatch (AVX3_DL, AVX3,
// AVX2 and the scalar fallback); select_target() restricts the dispatch to one target, so that
// each can be timed against our path at the same ISA level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/gemm_s8.h"
#include "compute/requantize_row.h"
#include "cortex_m/depthwise_conv2d.h"

namespace vkrt::bench_hwy {

// Highway's target bits (hwy/detect_targets.h) for the levels compared.
int64_t target_avx3_dl();
int64_t target_avx3();
int64_t target_avx2();
// Whether this CPU has the target (hwy::SupportedTargets before any restriction).
bool cpu_has_target(int64_t target);
// Restricts HWY_DYNAMIC_DISPATCH to `target` (hwy::SetSupportedTargetsForTest; 0 lifts the
// restriction) and returns the name of the target the kernels below now run, as reported by
// a dispatched function compiled for it ("AVX2", "AVX3", "AVX3_DL").
std::string select_target(int64_t target);

// compute::requantize_row_s8, the same contract.
void requantize_row_s8(const compute::RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out);

// cortex_m::depthwise_conv2d_s8 for channel multiplier 1 and input offsets in [-127, 128] (the
// layers our AVX-512BW / AVX2 rows take), on one thread: one Highway row per output row.
void depthwise_conv2d_s8(const cortex_m::DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output);

// compute::gemm_s8 for an int8 C (c set, c32 null, a_row null, a + a_offset within int16), on one
// thread. B is packed once ahead as by a loaded method: panels of 2·L columns (L = int32 lanes of
// the target: 16 columns on AVX2, 32 on AVX3), [kp/2][2·L columns][2 depths] int8, with the bias
// per column; A is widened to int16 with its offset, 64 rows at a time, and multiplied with
// ReorderWidenMulAccumulate (VPMADDWD). Highway 1.0.3 has no int8 dot product (no
// SumOfMulQuadAccumulate: VPDPBUSD / SDOT), so this is the AVX2 method of ours at any width.
struct PackedB {
  int32_t n = 0, k = 0, kp = 0, panel_columns = 0, panels = 0;
  std::vector<int8_t> data;                     // panel p at data + p·panel_columns·kp
  std::vector<int32_t> colterm, mult, shift;    // [panels·panel_columns], zero past n
};
// Packs g's B for the target selected now (the GEMM must run on the same target).
void gemm_s8_pack_b(const compute::GemmS8& g, PackedB* packed);
// Scratch for gemm_s8 (packed A block and row terms).
size_t gemm_s8_scratch_bytes(const compute::GemmS8& g);
// Returns false (and writes nothing) when `packed` was built for another panel width.
bool gemm_s8(const compute::GemmS8& g, const PackedB& packed, uint8_t* scratch);

}  // namespace vkrt::bench_hwy
