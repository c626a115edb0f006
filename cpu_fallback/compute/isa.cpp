#include "compute/isa.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace vkrt::compute {
namespace {

constexpr struct {
  Isa isa;
  const char* name;
} kNames[] = {
    {Isa::Portable, "portable"}, {Isa::Avx2, "avx2"}, {Isa::Avx512bw, "avx512bw"}, {Isa::Avx512vnni, "avx512vnni"},
    {Isa::Neon, "neon"},         {Isa::Dotprod, "dotprod"}, {Isa::I8mm, "i8mm"},
};

Isa detect() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // The avx2 level is what Highway's AVX2 target is compiled for (the *_hwy.cpp kernels): AVX2
  // with FMA3, BMI1/2 and F16C, which every AVX2 CPU made has, but a virtual machine may hide.
  // (clang's __builtin_cpu_supports has no "f16c": CPUID leaf 1, ECX bit 29, asked directly.)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") || !__builtin_cpu_supports("bmi") ||
      !__builtin_cpu_supports("bmi2") || !f16c)
    return Isa::Portable;
  const bool bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (!bw) return Isa::Avx2;
  return __builtin_cpu_supports("avx512vnni") ? Isa::Avx512vnni : Isa::Avx512bw;
#elif defined(__aarch64__) && defined(__linux__)
  // Linux's hwcap bits (asm/hwcap.h): ASIMD is bit 1 of AT_HWCAP, ASIMDDP bit 20, I8MM bit 13
  // of AT_HWCAP2. Named here so that old headers without the macros still build.
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  if (!(hwcap & (1ul << 1))) return Isa::Portable;
  if (!(hwcap & (1ul << 20))) return Isa::Neon;
  return (hwcap2 & (1ul << 13)) ? Isa::I8mm : Isa::Dotprod;
#else
  return Isa::Portable;
#endif
}

bool cpu_has(Isa level) {
  const int d = int(detect()), l = int(level);
  return l == 0 || (d / 10 == l / 10 && d >= l);
}

std::string accepted_names() {
  std::string s;
  for (const auto& n : kNames) s += std::string(s.empty() ? "" : ", ") + n.name;
  return s;
}

std::string available_names() {
  std::string s;
  for (Isa isa : available_isas()) s += std::string(s.empty() ? "" : ", ") + isa_name(isa);
  return s;
}

std::string& environment_error() {
  static std::string error;
  return error;
}

// The start-up choice: the detected level, or VKRT_CPU_ISA's when it is valid for this CPU.
Isa initial_level() {
  detail::active = detect();
  if (const char* env = std::getenv("VKRT_CPU_ISA"); env != nullptr && *env != '\0') {
    const std::string error = pin_isa(std::string_view(env));
    if (!error.empty()) environment_error() = "VKRT_CPU_ISA: " + error;
  }
  return detail::active;
}

}  // namespace

namespace detail {
Isa active = initial_level();
}  // namespace detail

const char* isa_name(Isa isa) {
  for (const auto& n : kNames)
    if (n.isa == isa) return n.name;
  return "unknown";
}

bool parse_isa(std::string_view name, Isa* isa) {
  for (const auto& n : kNames)
    if (name == n.name) {
      *isa = n.isa;
      return true;
    }
  return false;
}

Isa detected_isa() { return detect(); }

std::span<const Isa> available_isas() {
  static const std::vector<Isa> levels = [] {
    std::vector<Isa> v;
    for (const auto& n : kNames)
      if (cpu_has(n.isa)) v.push_back(n.isa);
    return v;
  }();
  return levels;
}

bool pin_isa(Isa level) {
  if (!cpu_has(level)) return false;
  detail::active = level;
  return true;
}

std::string pin_isa(std::string_view name) {
  Isa level;
  if (!parse_isa(name, &level))
    return "unknown ISA level '" + std::string(name.substr(0, 64)) + "' (accepted: " + accepted_names() + ")";
  if (!pin_isa(level))
    return std::string("this CPU has no ") + isa_name(level) + " (it runs: " + available_names() + ")";
  return "";
}

const std::string& isa_environment_error() { return environment_error(); }

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(std::min(line.size(), colon + 2));
  }
  return "unknown CPU";
}

}  // namespace vkrt::compute
