// Operator kernels: the function type, the context they run in, and the registry.
//
// A kernel is registered under its full name "namespace::op.overload" (e.g. "aten::add.out",
// "cortex_m::quantized_conv2d.out"). It receives the instruction's arguments in schema order
// (ExecuTorch's KernelCall convention: every schema argument including the out tensor(s),
// then one trailing return slot), and reports failure by returning an error Status that
// names the op and the argument. Kernels must not allocate from the heap: scratch comes
// from KernelContext::allocate_temp, which is reset after every instruction.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/evalue.h"

namespace vkrt {

// Runs `count` independent tasks, possibly on several threads. Tasks must not throw.
class ParallelRunner {
 public:
  virtual ~ParallelRunner() = default;
  virtual int num_threads() const = 0;
  virtual void run(int count, const std::function<void(int task)>& task) = 0;
};

// A bump allocator over caller-owned memory; reset() frees everything at once.
class TempAllocator {
 public:
  TempAllocator() = default;
  TempAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  // Returns null when the request does not fit (or size overflows).
  void* allocate(size_t bytes, size_t alignment = 16);
  void reset() { used_ = 0; }
  size_t used() const { return used_; }
  size_t capacity() const { return size_; }
  size_t high_water() const { return high_water_; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
  size_t high_water_ = 0;
};

class KernelContext {
 public:
  KernelContext(TempAllocator* temp, ParallelRunner* parallel, const void* prepared_state = nullptr)
      : temp_(temp), parallel_(parallel), prepared_state_(prepared_state) {}

  // What this instruction's prepare function (if any) left at load time; null when none ran
  // or it prepared nothing. Kernels must give the same results without it.
  const void* prepared_state() const { return prepared_state_; }

  // Scratch memory valid until the kernel returns. MemoryAllocationFailed when the method's
  // temp pool (LoadOptions::temp_pool_bytes) is too small.
  Result<void*> allocate_temp(size_t bytes, size_t alignment = 16);
  // The same, null when the pool is too small, without building an error (no heap allocation):
  // for kernels that have a path without the scratch.
  void* try_allocate_temp(size_t bytes, size_t alignment = 16);

  // Runs task(0..count-1); serially when no runner is attached.
  void parallel_for(int count, const std::function<void(int)>& task) const;
  int num_threads() const { return parallel_ ? parallel_->num_threads() : 1; }

 private:
  TempAllocator* temp_;
  ParallelRunner* parallel_;
  const void* prepared_state_;
};

// Load-time preparation of one instruction (TFLite Micro's Prepare step). A kernel may register
// a prepare function; a method calls it once per instruction when it is loaded, with the
// arguments as they will be at execute time (constants hold their data, activations may not
// yet). It may build state from constant arguments, such as weights repacked into the layout
// the kernel reads fastest, in memory the method owns, and hand it to every later call through
// KernelContext::prepared_state(), such as the call's parsed arguments, so that execute trusts
// what load checked. It returns an error when memory runs out, or when an argument check that
// depends only on constants and static shapes fails: the load then fails naming the instruction.
// It returns ok without preparing anything when the arguments do not suit it (execute then
// checks them, e.g. against the shapes a DYNAMIC_BOUND tensor has at that time).
class KernelPrepareContext {
 public:
  virtual ~KernelPrepareContext() = default;
  // Memory that lives as long as the method; null when it cannot be had.
  virtual void* allocate_persistent(size_t bytes, size_t alignment = 64) = 0;
  // True when `value` is a constant of the program: its data never changes while the method lives.
  virtual bool is_constant(const EValue* value) const = 0;
  virtual int num_threads() const = 0;

  void set_state(const void* state) { state_ = state; }
  const void* state() const { return state_; }

 private:
  const void* state_ = nullptr;
};

using KernelFunction = Status (*)(KernelContext& ctx, std::span<EValue* const> args);
using KernelPrepareFunction = Status (*)(KernelPrepareContext& ctx, std::span<EValue* const> args);

struct KernelEntry {
  std::string name;  // "aten::add.out"
  KernelFunction fn;
  KernelPrepareFunction prepare = nullptr;  // optional
};

// Name -> kernel. Registration normally happens from static initialisers (VKRT_REGISTER_KERNEL)
// in the kernel libraries; linking a library registers its kernels.
class KernelRegistry {
 public:
  static KernelRegistry& global();

  // RegistrationAlreadyRegistered if the name is taken.
  Status add(std::string_view name, KernelFunction fn, KernelPrepareFunction prepare = nullptr);
  // nullptr when absent.
  KernelFunction find(std::string_view name) const;
  // The kernel's prepare function; nullptr when absent or the kernel has none.
  KernelPrepareFunction find_prepare(std::string_view name) const;
  std::vector<std::string> names() const;  // sorted

 private:
  const KernelEntry* entry(std::string_view name) const;
  std::vector<KernelEntry> entries_;  // sorted by name
};

namespace detail {
struct KernelRegistrar {
  KernelRegistrar(const char* name, KernelFunction fn, KernelPrepareFunction prepare = nullptr);
};
}  // namespace detail

}  // namespace vkrt

#define VKRT_REGISTER_KERNEL(name, fn) \
  static ::vkrt::detail::KernelRegistrar VKRT_CONCAT(vkrt_kernel_registrar_, __LINE__)(name, fn)
// A kernel with a load-time prepare function (KernelPrepareContext).
#define VKRT_REGISTER_KERNEL_WITH_PREPARE(name, fn, prepare) \
  static ::vkrt::detail::KernelRegistrar VKRT_CONCAT(vkrt_kernel_registrar_, __LINE__)(name, fn, prepare)
