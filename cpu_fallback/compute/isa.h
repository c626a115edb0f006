// The instruction-set levels the CPU kernels have paths for, and the one place that chooses
// among them.
//
// Levels form one chain per architecture; a path for a level runs on every higher level:
//   x86-64 : portable < avx2 < avx512bw < avx512vnni
//   aarch64: portable < neon < dotprod < i8mm
// The active level is the highest the CPU has, unless pinned lower: by the environment variable
// VKRT_CPU_ISA (read once, at start-up), by executor_runner's --cpu_isa, or by tests and
// benchmarks through pin_isa(). Every level gives the same bytes; pinning only picks the path.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace vkrt::compute {

enum class Isa : int {
  Portable = 0,
  // x86-64
  Avx2 = 10,        // with fma, bmi, bmi2, f16c (Highway's AVX2 target)
  Avx512bw = 11,    // with avx512f, avx512vl, avx512dq
  Avx512vnni = 12,  // VPDPBUSD on zmm
  // aarch64
  Neon = 20,
  Dotprod = 21,  // SDOT/UDOT
  I8mm = 22,     // SMMLA
};

// "portable", "avx2", "avx512bw", "avx512vnni", "neon", "dotprod", "i8mm".
const char* isa_name(Isa isa);
// The level a name stands for; false for an unknown name.
bool parse_isa(std::string_view name, Isa* isa);

// The highest level this CPU has (ignores any pin).
Isa detected_isa();
// Every level this CPU can run, portable first (what tests loop over).
std::span<const Isa> available_isas();
// The CPU's model name ("model name" in /proc/cpuinfo, else "unknown CPU"), for benchmark reports.
std::string cpu_model_name();

namespace detail {
// Read inline: kernels of a few dozen nanoseconds ask on every call. Zero (portable) until the
// static initializer in isa.cpp has run, so a kernel called from another translation unit's
// static initializer takes the portable path: the same results.
extern Isa active;
}  // namespace detail

// The level the kernels use now.
inline Isa active_isa() { return detail::active; }
// Whether the active level includes `level`: same architecture chain, at or above it.
// has(Isa::Portable) is always true.
inline bool has(Isa level) {
  const int a = int(detail::active), l = int(level);
  return l == 0 || (a / 10 == l / 10 && a >= l);
}

// Pins the active level. Fails (returns false, changes nothing) for a level this CPU lacks.
bool pin_isa(Isa level);
// Pins by name (VKRT_CPU_ISA, --cpu_isa); returns "" or an error naming the problem: an unknown
// name (with the accepted ones) or a level this CPU lacks (with what it has).
std::string pin_isa(std::string_view name);
// The error from VKRT_CPU_ISA at start-up, or "" (the variable unset or valid). The level is
// then left at the detected one; runners report this and exit instead of running.
const std::string& isa_environment_error();

// Pins a level for a scope and restores the previous one (tests, benchmarks).
class ScopedIsa {
 public:
  explicit ScopedIsa(Isa level) : previous_(active_isa()) { ok_ = pin_isa(level); }
  ~ScopedIsa() { detail::active = previous_; }
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;
  bool ok() const { return ok_; }

 private:
  Isa previous_;
  bool ok_ = false;
};

}  // namespace vkrt::compute

// Compiles a plain loop for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the baseline, picked at
// load time by the ifunc resolver (GCC target_clones). Empty on other architectures.
// These clones follow the CPU, not a pinned level.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VKRT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VKRT_CLONES
#endif
