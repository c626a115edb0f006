// Heap allocations made so far by this test binary (see allocation_counter.cpp).
#pragma once

#include <atomic>

namespace vkrt::portable::testing {
extern std::atomic<long> g_heap_allocations;
}  // namespace vkrt::portable::testing
