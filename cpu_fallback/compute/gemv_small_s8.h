// Small matrix-vector products (fully connected layers of a few thousand MACs, e.g. DS-CNN's
// 64→12 classifier) on AVX-512 VNNI without packing, scratch or threads: at that size the
// per-call setup of the packed GEMM costs more than the product. Internal to gemm_s8.
#pragma once

#include <cstdint>

#include "compute/gemm_s8.h"

namespace vkrt::compute {

// True when this CPU has AVX-512 VNNI, C is int8 and g is small enough for the direct path: at most 4 rows
// of A read in place (no a_row callback) and at most kGemvSmallMaxMacs multiply-adds.
bool gemv_small_usable(const GemmS8& g);
// Computes C for such a product (same bytes as gemm_s8_portable). Precondition: gemv_small_usable(g).
void gemv_small(const GemmS8& g);

inline constexpr int64_t kGemvSmallMaxMacs = 65536;

}  // namespace vkrt::compute
