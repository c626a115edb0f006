#include "thread_pool.h"

namespace vkrt {

// Protocol: run() publishes (task, count) under the mutex and bumps the generation. A worker
// that wakes copies them under the mutex and counts itself busy; run() clears the task only
// after every busy worker has finished, so a worker that wakes late sees no task and goes
// back to sleep. Task indices are handed out through the atomic counter.

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(const std::function<void(int)>& task, int count) {
  for (int i = next_.fetch_add(1); i < count; i = next_.fetch_add(1)) task(i);
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* task = nullptr;
    int count = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!task_) continue;
      task = task_;
      count = count_;
      ++busy_;
    }
    drain(*task, count);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
}

void ThreadPool::run(int count, const std::function<void(int)>& task) {
  if (workers_.empty() || count <= 1) {
    for (int i = 0; i < count; ++i) task(i);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    count_ = count;
    next_.store(0);
    ++generation_;
  }
  wake_.notify_all();
  drain(task, count);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0; });
  task_ = nullptr;
}

}  // namespace vkrt
