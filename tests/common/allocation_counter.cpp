// Replaces the global operator new/delete of the test binary with counting malloc/free wrappers
// (see allocation_counter.h). Every form is replaced, so that each new pairs with a delete of this
// file: sanitizers report a mismatch when, say, a nothrow new[] of the library meets this free.
#include "allocation_counter.h"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace vkrt::test_heap {
std::atomic<long> g_heap_allocations{0};
namespace {
std::atomic<long> g_fail_at{0};
std::atomic<bool> g_failed{false};
}  // namespace

void fail_allocation_number(long number) {
  if (number != 0) g_failed.store(false);  // disarming keeps the answer for injected_failure_happened
  g_fail_at.store(number);
}
bool injected_failure_happened() { return g_failed.load(); }
}  // namespace vkrt::test_heap

namespace {
using vkrt::test_heap::g_fail_at;
using vkrt::test_heap::g_failed;
using vkrt::test_heap::g_heap_allocations;

// nullptr when this allocation is the one to fail (or malloc fails).
void* counted_alloc(std::size_t size, std::size_t alignment) noexcept {
  const long number = g_heap_allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  if (number == g_fail_at.load(std::memory_order_relaxed)) {
    g_failed.store(true);
    return nullptr;
  }
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
void* counted_alloc_or_throw(std::size_t size, std::size_t alignment) {
  if (void* p = counted_alloc(size, alignment)) return p;
  throw std::bad_alloc();
}
std::size_t alignment_of(std::align_val_t a) { return static_cast<std::size_t>(a); }
}  // namespace

// Throwing forms.
void* operator new(std::size_t size) { return counted_alloc_or_throw(size, 0); }
void* operator new[](std::size_t size) { return counted_alloc_or_throw(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) { return counted_alloc_or_throw(size, alignment_of(a)); }
void* operator new[](std::size_t size, std::align_val_t a) { return counted_alloc_or_throw(size, alignment_of(a)); }
// Nothrow forms (the runtime allocates its large buffers with new (std::nothrow)).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_alloc(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_alloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(size, alignment_of(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(size, alignment_of(a));
}

// Every delete form frees with free (malloc and aligned_alloc memory alike).
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
