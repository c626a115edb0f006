// Private to gemm_s8.cpp: the AVX2 path of gemm_s8 (gemm_s8_avx2.cpp). Callers check
// compute::has(Isa::Avx2) and, for a packed B, that its layout is GemmS8Layout::Avx2.
#pragma once

#include <cstddef>
#include <span>

#include "cortex_m/gemm_s8.h"

namespace vkrt::cortex_m::detail {

size_t gemm_s8_avx2_packed_b_bytes(const GemmS8& g);
const GemmS8PackedB* gemm_s8_avx2_pack_b(const GemmS8& g, std::span<uint8_t> memory);
// Scratch for g (B packed ahead when g.packed_b is set, else packed in the scratch).
size_t gemm_s8_avx2_scratch_bytes(const GemmS8& g, int threads);
// Precondition: g.k > 0 and exec.scratch holds gemm_s8_avx2_scratch_bytes(g, exec.num_threads()).
void gemm_s8_avx2(const GemmS8& g, const Exec& exec);

}  // namespace vkrt::cortex_m::detail
