// Helpers shared by the cortex_m tests that call the compute functions directly: random data
// and an Exec (scratch plus the runtime's thread pool) sized per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compute/isa.h"
#include "cortex_m/compute_core.h"
#include "cortex_m/support/thread_runner.h"

namespace vkrt::cortex_m::testing_support {

// n values drawn uniformly from [lo, hi].
template <typename T>
std::vector<T> random_values(size_t n, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(rng));
  return v;
}

// One of `values`, uniformly.
inline int pick(std::mt19937& rng, std::initializer_list<int> values) {
  return *(values.begin() + rng() % values.size());
}

// An Exec over `threads` workers whose scratch is refilled (0xA5, so that nothing may rely on
// zeroed scratch) and sized for each call.
struct TestExec {
  explicit TestExec(int threads = 2) : runner(threads) {}
  vkrt::testing::ThreadRunner runner;
  std::vector<uint8_t> scratch;
  Exec make(size_t bytes) {
    scratch.assign(bytes + 64, 0xA5);
    Exec e;
    e.scratch = scratch;
    e.runner = &runner;
    return e;
  }
};

// Runs `body` once at every ISA level this CPU has, pinned (compute/isa.h), each failure naming
// the level; stops at the first level with a fatal failure.
template <typename Body>
void at_every_isa_level(Body&& body) {
  for (compute::Isa isa : compute::available_isas()) {
    compute::ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + compute::isa_name(isa));
    body();
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace vkrt::cortex_m::testing_support
