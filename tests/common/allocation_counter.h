// Counts the heap allocations a test binary makes, and can make one of them fail.
//
// A binary that links allocation_counter.cpp (as a source: it replaces the global operator
// new/delete, so it must not sit in a library every test links) gets every form of operator
// new counted: plain, array, nothrow, aligned, and their combinations.
#pragma once

#include <atomic>

namespace vkrt::test_heap {

// Allocations made so far through operator new.
extern std::atomic<long> g_heap_allocations;

// Makes the allocation that brings g_heap_allocations to `number` fail: the throwing forms throw
// std::bad_alloc, the nothrow forms return nullptr. Every other allocation succeeds. 0 disarms.
void fail_allocation_number(long number);
// Whether the failure armed last has happened (disarming with 0 does not clear the answer).
bool injected_failure_happened();

}  // namespace vkrt::test_heap
