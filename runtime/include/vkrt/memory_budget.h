// The memory budget: how much a method may allocate on behalf of the file it loads.
//
// A 1 KB program can ask for a 64 GiB planned buffer, a Vela stream for a 4 GiB scratch region,
// a VGF graph for terabyte intermediates. Every load-time allocation whose size a file sets
// (planned buffers, the temp pool, kernels' prepared state, delegate and driver buffers: a VGF
// graph's intermediates, the VGF CPU executor's packed weights and kernel scratch) is counted
// here before it is made, so that such a file fails at load with MemoryAllocationFailed naming
// what asked and how much, instead of exhausting the machine. One budget per loaded method;
// LoadOptions::memory_budget_bytes sets its size. A delegate that must grow a buffer at execute
// (the VGF CPU executor's scratch, for more threads than it was told of at init or a dynamic
// graph's larger shapes) counts the growth then; execute fails with MemoryAllocationFailed
// when the budget refuses it.
#pragma once

#include <cstdint>
#include <string_view>

#include "vkrt/error.h"

namespace vkrt {

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}

  // Counts `bytes` for `what` ("planned buffer 0", "EthosUBackend region 1 (scratch)"), or
  // fails with MemoryAllocationFailed naming it, its size and what is left; nothing is counted
  // then. Call before allocating.
  Status reserve(uint64_t bytes, std::string_view what);

  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_; }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
};

// The default budget: half of the machine's physical memory (1 GiB if it cannot be read).
uint64_t default_memory_budget_bytes();

// Reads a byte count such as "4096", "512K", "64M", "2G" (binary multiples; "KiB", "MiB",
// "GiB" and lowercase also accepted). InvalidArgument naming `what` for anything else or a
// value past 2^64.
Result<uint64_t> parse_byte_count(std::string_view text, std::string_view what);

}  // namespace vkrt
