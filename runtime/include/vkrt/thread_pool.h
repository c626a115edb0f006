// A small fixed thread pool implementing ParallelRunner: run(count, task) hands task indices
// out to the workers and the calling thread and returns when all are done. No allocation per run.
//
// Kernels call run() back to back (one or two calls per layer, layers microseconds apart), so
// the cost that matters is the hand-off, not throughput. A condition-variable wake-up costs
// tens of microseconds on a virtual machine, more than a whole small layer; so, like
// pthreadpool and OpenMP runtimes, workers spin on an atomic generation counter for a while
// after each run before they go to sleep, and the caller spins for the tasks to finish. run()
// waits for the tasks only, never for an idle worker to check in: with more threads than free
// cores (a shared machine, --num_threads above the CPU count) a worker the scheduler has not
// run yet would otherwise hold up every call for a time slice.
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
  static constexpr uint32_t kClosed = 0xFFFFFFFFu;  // state_'s index while run() publishes a task

  uint64_t generation() const { return state_.load() >> 32; }
  void worker_loop();
  // Waits (spinning, then sleeping) until the generation differs from `seen`, and stores the
  // one it saw in `now`; false on shutdown.
  bool wait_for_work(uint64_t seen, uint64_t* now);
  // Claims and runs the generation's task indices until none is left or a later run began.
  void claim_and_run(uint64_t generation);

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> state_{0};  // generation << 32 | next index to hand out (thread_pool.cpp)
  // Published by run() between closing and opening a generation.
  std::atomic<const std::function<void(int)>*> task_{nullptr};
  std::atomic<int> count_{0};
  std::atomic<int> done_{0};  // tasks of this generation finished
  std::atomic<bool> stop_{false};

  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  std::mutex run_mutex_;
};

}  // namespace vkrt
