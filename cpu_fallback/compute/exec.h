// Where a compute function (the GEMM here, the cortex_m kernels) gets its scratch memory and
// its threads.
//
// Compute functions take an Exec instead of a KernelContext so that tests and benchmarks can
// call them directly: the kernel wrappers build one from the KernelContext (scratch from
// allocate_temp, threads from parallel_for), tests and benchmarks from a buffer and a runner.
// Nothing here allocates: parallel_for wraps the task in a std::function that captures one
// reference, which fits the small-object buffer.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "vkrt/kernel.h"

namespace vkrt::compute {

// Splits [0, total) into `parts` nearly equal chunks; returns chunk `index` as [begin, end).
inline void split_range(int64_t total, int64_t parts, int64_t index, int64_t* begin, int64_t* end) {
  const int64_t base = total / parts, extra = total % parts;
  *begin = index * base + (index < extra ? index : extra);
  *end = *begin + base + (index < extra ? 1 : 0);
}

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

  // body(worker, begin, end) over [0, total) cut into `chunks` nearly equal ranges (clamped to
  // [1, total]), on up to `workers` workers; `worker` (< workers) indexes per-worker scratch.
  // Workers claim the ranges one at a time from a shared counter rather than taking a fixed
  // share each: a worker that wakes late, or whose core is busy with another process (a shared
  // vCPU runs at half speed for seconds at a time), takes fewer, where a fixed split would leave
  // the other waiting for it. One worker gets one call with the whole range.
  template <typename Body>
  void parallel_chunks(int workers, int64_t total, int64_t chunks, const Body& body) const {
    if (total <= 0) return;
    chunks = std::clamp<int64_t>(chunks, 1, total);
    workers = int(std::min<int64_t>(std::max(workers, 1), chunks));
    if (workers == 1 || runner == nullptr || runner->num_threads() <= 1) {
      body(0, int64_t(0), total);
      return;
    }
    std::atomic<int64_t> next{0};
    parallel_for(workers, [&](int worker) {
      for (int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < chunks;
           c = next.fetch_add(1, std::memory_order_relaxed)) {
        int64_t begin, end;
        split_range(total, chunks, c, &begin, &end);
        body(worker, begin, end);
      }
    });
  }
  // The same with kChunksPerWorker chunks per worker: fine enough to even out a slow worker,
  // coarse enough that a claim (one atomic add) costs nothing next to a chunk.
  static constexpr int kChunksPerWorker = 4;
  template <typename Body>
  void parallel_chunks(int workers, int64_t total, const Body& body) const {
    parallel_chunks(workers, total, int64_t(workers) * kChunksPerWorker, body);
  }
};

// Aligns a scratch offset.
constexpr size_t align_up(size_t v, size_t a = 64) { return (v + a - 1) / a * a; }

}  // namespace vkrt::compute
