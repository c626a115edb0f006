// What the cortex_m kernels' optimized x86 paths may use, as the compute layer's active ISA
// level says (compute/isa.h: detected once, pinned by VKRT_CPU_ISA, --cpu_isa or a test).
// Every optimized path has a portable fallback with the same results.
#pragma once

#include "compute/isa.h"

namespace vkrt::cortex_m {

struct CpuFeatures {
  bool avx2 = false;
  bool avx512bw = false;    // with avx512f/vl/dq
  bool avx512vnni = false;  // VPDPBUSD on zmm
};

inline CpuFeatures cpu_features() {
  using compute::Isa;
  return {compute::has(Isa::Avx2), compute::has(Isa::Avx512bw), compute::has(Isa::Avx512vnni)};
}

}  // namespace vkrt::cortex_m
// VKRT_CLONES (target_clones loops) comes from compute/isa.h.
