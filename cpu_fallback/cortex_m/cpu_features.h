// Run-time CPU feature detection for the optimized x86 paths. Every optimized path has a
// portable fallback; the choice is made once per process (and can be forced off for tests).
#pragma once

namespace vkrt::cortex_m {

struct CpuFeatures {
  bool avx2 = false;
  bool avx512bw = false;    // with avx512f/vl
  bool avx512vnni = false;  // VPDPBUSD on zmm
};

namespace detail {
// Set during static initialization (cpu_features.cpp) and by force_portable_paths(); read
// inline because kernels of a few dozen nanoseconds ask on every call. Read before it is set
// (from another translation unit's static initializer) it says "no features": the portable
// paths, same results.
extern CpuFeatures detected_features;
}  // namespace detail

// Detected features, masked by force_portable_paths().
inline const CpuFeatures& cpu_features() { return detail::detected_features; }
// Tests and benchmarks: true disables every optimized path (the environment variable
// VKRT_CORTEX_M_PORTABLE=1 does the same at start-up).
void force_portable_paths(bool portable);

}  // namespace vkrt::cortex_m

// Compiles a plain loop for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the baseline, picked at
// load time by the ifunc resolver (GCC target_clones). Empty on other architectures.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VKRT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VKRT_CLONES
#endif
