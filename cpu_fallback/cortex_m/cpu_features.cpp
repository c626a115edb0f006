#include "cortex_m/cpu_features.h"

#include <cstdlib>

namespace vkrt::cortex_m {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.avx512bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
  f.avx512vnni = f.avx512bw && __builtin_cpu_supports("avx512vnni");
#endif
  const char* env = std::getenv("VKRT_CORTEX_M_PORTABLE");
  if (env && env[0] == '1') f = CpuFeatures{};
  return f;
}

}  // namespace

namespace detail {
CpuFeatures detected_features = detect();
}  // namespace detail

void force_portable_paths(bool portable) { detail::detected_features = portable ? CpuFeatures{} : detect(); }

}  // namespace vkrt::cortex_m
