// A small persistent thread pool implementing vkrt::ParallelRunner for tests and benchmarks that
// call the cortex_m compute functions directly (the runtime's pool is private to runtime/).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "vkrt/kernel.h"

namespace vkrt::testing {

class ThreadRunner final : public ParallelRunner {
 public:
  explicit ThreadRunner(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~ThreadRunner() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int num_threads() const override { return int(workers_.size()) + 1; }
  void run(int count, const std::function<void(int)>& task) override {
    if (workers_.empty() || count <= 1) {
      for (int i = 0; i < count; ++i) task(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_ = 0;
      pending_ = int(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
    drain(task, count);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
  }

 private:
  void drain(const std::function<void(int)>& task, int count) {
    for (int i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) task(i);
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* task;
      int count;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        task = task_;
        count = count_;
      }
      drain(*task, count);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int count_ = 0, pending_ = 0;
  std::atomic<int> next_{0};
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace vkrt::testing
