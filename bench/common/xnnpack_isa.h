// The ISA level of XNNPACK's kernels in a benchmark, capped by VKRT_XNNPACK_ISA, so that vkrt
// pinned to a level (VKRT_CPU_ISA) can be compared with XNNPACK at the same level on one machine:
// an AVX-512 host then stands in for an AVX2-only one, side by side in one run.
//
// XNNPACK picks its kernels once, in xnn_initialize, from libcpuinfo's cpuinfo_isa flags.
// Clearing flags there first makes it choose as it would on a CPU without them. Call
// cap_xnnpack_isa() before xnn_initialize(). Built only where cpuinfo.h (Debian libcpuinfo-dev)
// was found (VKRT_BENCH_CPUINFO); elsewhere any value but "native" is an error.
#pragma once

#include <cstdlib>
#include <string>

#if VKRT_BENCH_CPUINFO
#include <cpuinfo.h>
#endif

namespace vkrt::bench {

// Reads VKRT_XNNPACK_ISA: unset, "" or "native" (XNNPACK's own choice), or "avx2" (no
// AVX-512 kernels). Returns the level XNNPACK runs at, for the benchmark's header; on a bad
// value or a missing libcpuinfo, returns "" and sets *error.
inline std::string cap_xnnpack_isa(std::string* error) {
  const char* env = std::getenv("VKRT_XNNPACK_ISA");
  const std::string level = env ? env : "";
  if (level.empty() || level == "native") return "its own choice (VKRT_XNNPACK_ISA=avx2 caps it)";
  if (level != "avx2") {
    *error = "VKRT_XNNPACK_ISA=" + level + ": expected native or avx2";
    return "";
  }
#if VKRT_BENCH_CPUINFO
  if (!cpuinfo_initialize()) {
    *error = "VKRT_XNNPACK_ISA=avx2: cpuinfo_initialize failed";
    return "";
  }
  if (!cpuinfo_isa.avx2) {
    *error = "VKRT_XNNPACK_ISA=avx2: this CPU has no AVX2";
    return "";
  }
  // Every flag XNNPACK's x86 kernel selection tests for AVX-512 (avx512skx needs F, CD, BW, DQ
  // and VL; later builds add VNNI and VBMI kernels).
  cpuinfo_isa.avx512f = cpuinfo_isa.avx512cd = cpuinfo_isa.avx512bw = cpuinfo_isa.avx512dq = false;
  cpuinfo_isa.avx512vl = cpuinfo_isa.avx512vnni = cpuinfo_isa.avx512vbmi = cpuinfo_isa.avx512vbmi2 = false;
  cpuinfo_isa.avx512ifma = cpuinfo_isa.avx512bf16 = cpuinfo_isa.avx512bitalg = false;
  cpuinfo_isa.avx512vpopcntdq = false;
  return "avx2 (VKRT_XNNPACK_ISA)";
#else
  *error = "VKRT_XNNPACK_ISA=avx2 needs cpuinfo.h at configure time (Debian libcpuinfo-dev)";
  return "";
#endif
}

}  // namespace vkrt::bench
