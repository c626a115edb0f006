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

// Protocol. state_ holds the generation (high 32 bits) and the next task index to hand out
// (low 32 bits). run() opens generation g in three steps: it closes the index (g, kClosed), so
// that no claim of an older generation can succeed any more; publishes task_ and count_
// (release); and opens (g, 0). A thread claims index i by a compare-exchange from (g, i) to
// (g, i + 1), only while i < count_, runs task i and counts it in done_. run() returns when
// done_ reaches count: a worker that wakes late, or never (a descheduled thread on a loaded
// machine), holds nothing up, since only the indices claimed are waited for. While an index of g
// is claimed and not done, run(g) has not returned, so task_ is g's task for as long as it runs.
// A worker that read (g, i) and then count_ of a later generation cannot claim: that count was
// published after the close, which its compare-exchange then sees.
//
// Sleeping without lost wake-ups: a worker increments sleepers_ and then re-reads state_ under
// sleep_mutex_; run() changes the generation and then reads sleepers_. Both are sequentially
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
  state_.store(((generation() + 1) << 32) | kClosed);
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::claim_and_run(uint64_t generation) {
  for (;;) {
    uint64_t s = state_.load(std::memory_order_acquire);
    if ((s >> 32) != generation) return;  // a later run: the caller's loop waits for it
    const uint32_t i = uint32_t(s);
    if (i == kClosed) {  // run() is between closing and opening this generation
      VKRT_CPU_RELAX();
      continue;
    }
    if (int64_t(i) >= int64_t(count_.load(std::memory_order_acquire))) return;  // all handed out
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) continue;
    (*task_.load(std::memory_order_acquire))(int(i));
    done_.fetch_add(1, std::memory_order_release);
  }
}

bool ThreadPool::wait_for_work(uint64_t seen, uint64_t* now) {
  // The generation is read before stop_: the destructor sets stop_ before it changes the
  // generation, so a shutdown's generation is never returned as a run's (the worker would wait
  // for it to open).
  const Clock::time_point start = Clock::now();
  for (int spins = 0;; ++spins) {
    if ((*now = generation()) != seen) return !stop_.load();
    polite_pause(spins, start);
    // Reading the clock costs ~20 ns; check it every 256 polls only.
    if ((spins & 255) == 255 && spun_too_long(start, kSpinMicros)) break;
  }
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  sleepers_.fetch_add(1);
  wake_.wait(lock, [&] { return (*now = generation()) != seen; });
  sleepers_.fetch_sub(1);
  return !stop_.load();
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    if (!wait_for_work(seen, &seen)) return;
    claim_and_run(seen);
  }
}

void ThreadPool::run(int count, const std::function<void(int)>& task) {
  if (workers_.empty() || count <= 1) {
    for (int i = 0; i < count; ++i) task(i);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  // Only run() writes the generation, and one run at a time.
  const uint64_t generation = this->generation() + 1;
  state_.store((generation << 32) | kClosed);
  done_.store(0, std::memory_order_relaxed);
  task_.store(&task, std::memory_order_release);
  count_.store(count, std::memory_order_release);
  state_.store(generation << 32);  // seq_cst: opens the generation and orders against sleepers_
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    wake_.notify_all();
  }
  claim_and_run(generation);
  // The caller has run out of indices; the tasks other threads claimed finish.
  const Clock::time_point start = Clock::now();
  for (int spins = 0; done_.load(std::memory_order_acquire) != count; ++spins) polite_pause(spins, start);
}

}  // namespace vkrt
