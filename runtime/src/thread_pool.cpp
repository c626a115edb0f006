#include "vkrt/thread_pool.h"

#include <exception>

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VKRT_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define VKRT_CPU_RELAX() asm volatile("yield")
#else
#define VKRT_CPU_RELAX() ((void)0)
#endif

namespace vkrt {

// Protocol. run() publishes (task_, count_), resets next_ and pending_workers_, then bumps
// generation_ (release). Every worker takes part in every generation: it sees the bump
// (acquire), drains task indices from next_ (possibly none), and decrements pending_workers_
// (release). run() returns only when pending_workers_ is 0, so task_ stays valid for as long as
// any worker may read it, and the next run cannot overwrite it early.
//
// Sleeping without lost wake-ups: a worker increments sleepers_ and then re-reads generation_
// under sleep_mutex_; run() bumps generation_ and then reads sleepers_. Both are sequentially
// consistent, so either the worker sees the new generation or run() sees the sleeper and
// notifies under the mutex.

namespace {

using Clock = std::chrono::steady_clock;

bool spun_too_long(Clock::time_point start, int64_t micros) {
  return Clock::now() - start > std::chrono::microseconds(micros);
}

// Busy-polls for the first ~50 us (a hand-off between running threads takes well under that),
// then yields the core on every poll: when there are more threads than cores (a loaded
// machine, a pool larger than the CPU count) the thread being waited for may need this core.
void polite_pause(int spins, Clock::time_point start) {
  static constexpr int64_t kBusyMicros = 50;
  if (spins < 256 || !spun_too_long(start, kBusyMicros))
    VKRT_CPU_RELAX();
  else
    std::this_thread::yield();
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  // A worker the system cannot start (EAGAIN under a thread or memory limit) is left out: the
  // pool runs with the workers it has (num_threads() says how many) instead of letting
  // std::system_error escape, which would destroy running threads and abort the process.
  try {
    workers_.reserve(size_t(num_threads > 1 ? num_threads - 1 : 0));
    for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (const std::exception&) {
  }
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(const std::function<void(int)>& task, int count) {
  for (int i = next_.fetch_add(1, std::memory_order_relaxed); i < count;
       i = next_.fetch_add(1, std::memory_order_relaxed))
    task(i);
}

bool ThreadPool::wait_for_work(uint64_t seen) {
  const Clock::time_point start = Clock::now();
  for (int spins = 0;; ++spins) {
    if (generation_.load(std::memory_order_acquire) != seen) return !stop_.load();
    polite_pause(spins, start);
    // Reading the clock costs ~20 ns; check it every 256 polls only.
    if ((spins & 255) == 255 && spun_too_long(start, kSpinMicros)) break;
  }
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  sleepers_.fetch_add(1);
  wake_.wait(lock, [&] { return generation_.load() != seen; });
  sleepers_.fetch_sub(1);
  return !stop_.load();
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    if (!wait_for_work(seen)) return;
    seen = generation_.load(std::memory_order_acquire);
    drain(*task_, count_);
    pending_workers_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::run(int count, const std::function<void(int)>& task) {
  if (workers_.empty() || count <= 1) {
    for (int i = 0; i < count; ++i) task(i);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  task_ = &task;
  count_ = count;
  next_.store(0, std::memory_order_relaxed);
  pending_workers_.store(int(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1);  // seq_cst: publishes the above and orders against sleepers_
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    wake_.notify_all();
  }
  drain(task, count);
  // The caller has run out of indices; the workers finish theirs (or wake late and find none).
  const Clock::time_point start = Clock::now();
  for (int spins = 0; pending_workers_.load(std::memory_order_acquire) != 0; ++spins)
    polite_pause(spins, start);
}

}  // namespace vkrt
