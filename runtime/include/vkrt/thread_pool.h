// A small fixed thread pool implementing ParallelRunner: run(count, task) hands task indices
// out to the workers and the calling thread and returns when all are done. No allocation per run.
//
// Kernels call run() back to back (one or two calls per layer, layers microseconds apart), so
// the cost that matters is the hand-off, not throughput. A condition-variable wake-up costs
// tens of microseconds on a virtual machine, more than a whole small layer; so, like
// pthreadpool and OpenMP runtimes, workers spin on an atomic generation counter for a while
// after each run before they go to sleep, and the caller spins for the workers to finish.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "vkrt/kernel.h"

namespace vkrt {

class ThreadPool final : public ParallelRunner {
 public:
  // num_threads includes the calling thread; 1 means everything runs inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const override { return int(workers_.size()) + 1; }
  // One run at a time: concurrent callers are serialised.
  void run(int count, const std::function<void(int)>& task) override;

  // How long an idle worker polls for the next run before it sleeps.
  static constexpr int64_t kSpinMicros = 2000;

 private:
  void worker_loop();
  // Waits (spinning, then sleeping) until generation_ differs from `seen`; false on shutdown.
  bool wait_for_work(uint64_t seen);
  void drain(const std::function<void(int)>& task, int count);

  std::vector<std::thread> workers_;
  // Published by run() before generation_ is bumped; read by workers after they see the bump.
  const std::function<void(int)>* task_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};            // next task index to hand out
  std::atomic<int> pending_workers_{0};  // workers that have not finished this generation
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};

  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  std::mutex run_mutex_;
};

}  // namespace vkrt
