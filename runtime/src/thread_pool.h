// A small fixed thread pool implementing ParallelRunner: run(count, task) splits task indices
// over the workers and the calling thread and returns when all are done. No allocation per run.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "vkrt/kernel.h"

namespace vkrt {

class ThreadPool : public ParallelRunner {
 public:
  // num_threads includes the calling thread; 1 means everything runs inline.
  explicit ThreadPool(int num_threads);
  ~ThreadPool() override;
  int num_threads() const override { return int(workers_.size()) + 1; }
  void run(int count, const std::function<void(int)>& task) override;

 private:
  void worker_loop();
  void drain(const std::function<void(int)>& task, int count);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;  // guarded by mutex_
  int count_ = 0;                                   // guarded by mutex_
  std::atomic<int> next_{0};
  int busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::mutex run_mutex_;  // one run at a time
};

}  // namespace vkrt
