// Where a compute function (the GEMM here, the cortex_m kernels) gets its scratch memory and
// its threads.
//
// Compute functions take an Exec instead of a KernelContext so that tests and benchmarks can
// call them directly: the kernel wrappers build one from the KernelContext (scratch from
// allocate_temp, threads from parallel_for), tests and benchmarks from a buffer and a runner.
// Nothing here allocates: parallel_for wraps the task in a std::function that captures one
// reference, which fits the small-object buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "vkrt/kernel.h"

namespace vkrt::compute {

struct Exec {
  // Workspace for the optimized paths; a compute function that finds it smaller than its
  // *_scratch_bytes() takes its scratch-free path instead (same results).
  std::span<uint8_t> scratch;
  // Null: run serially.
  ParallelRunner* runner = nullptr;

  int num_threads() const { return runner ? runner->num_threads() : 1; }

  template <typename Task>
  void parallel_for(int count, const Task& task) const {
    if (count <= 0) return;
    if (runner == nullptr || count == 1 || runner->num_threads() <= 1) {
      for (int i = 0; i < count; ++i) task(i);
      return;
    }
    const std::function<void(int)> fn = [&task](int i) { task(i); };
    runner->run(count, fn);
  }
};

// Splits [0, total) into `parts` nearly equal chunks; returns chunk `index` as [begin, end).
inline void split_range(int64_t total, int parts, int index, int64_t* begin, int64_t* end) {
  const int64_t base = total / parts, extra = total % parts;
  *begin = index * base + (index < extra ? index : extra);
  *end = *begin + base + (index < extra ? 1 : 0);
}

// Aligns a scratch offset.
constexpr size_t align_up(size_t v, size_t a = 64) { return (v + a - 1) / a * a; }

}  // namespace vkrt::compute
