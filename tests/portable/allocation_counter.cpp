// Counts heap allocations so that KernelCall can check that a successful kernel call
// allocates nothing (kernels run on the execute path, which must not allocate).
// Replaces the global operator new/delete of this test binary with malloc/free wrappers.
#include <cstdlib>
#include <new>

#include "allocation_counter.h"

namespace vkrt::portable::testing {
std::atomic<long> g_heap_allocations{0};
}  // namespace vkrt::portable::testing

namespace {
void* counted_alloc(std::size_t size) {
  vkrt::portable::testing::g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size); }
void* operator new[](std::size_t size) { return counted_alloc(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (the runtime allocates with new (std::nothrow)): every form this binary
// can call must pair with the deletes above, or sanitizers report a new/free mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  vkrt::portable::testing::g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  vkrt::portable::testing::g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
