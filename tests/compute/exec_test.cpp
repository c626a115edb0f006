// compute::Exec::parallel_chunks, the one way the compute core and the TOSA kernels share work
// out: every index of the range is handed out exactly once, in ranges that cover it in order,
// each to a worker number below the workers asked for, whichever thread runs it; a worker that
// is slow takes fewer ranges; without threads it is one call with the whole range.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "compute/exec.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

struct Call {
  int worker;
  int64_t begin, end;
};

std::vector<Call> calls_of(const Exec& exec, int workers, int64_t total, int64_t chunks) {
  std::mutex m;
  std::vector<Call> calls;
  exec.parallel_chunks(workers, total, chunks, [&](int worker, int64_t begin, int64_t end) {
    std::lock_guard<std::mutex> lock(m);
    calls.push_back({worker, begin, end});
  });
  return calls;
}

TEST(ParallelChunks, EveryIndexOnceInTheChunksAsked) {
  ThreadPool pool(3);
  const Exec exec{{}, &pool};
  for (int64_t total : {1, 2, 7, 49, 1000})
    for (int64_t chunks : {1, 3, 8, 49, 5000})
      for (int workers : {1, 2, 3, 8}) {
        std::vector<Call> calls = calls_of(exec, workers, total, chunks);
        const int64_t want_chunks = workers == 1 ? 1 : std::min(chunks, total);
        ASSERT_EQ(int64_t(calls.size()), want_chunks) << total << " in " << chunks << " on " << workers;
        std::vector<int> seen(size_t(total), 0);
        std::set<int> workers_seen;
        for (const Call& c : calls) {
          EXPECT_GE(c.worker, 0);
          EXPECT_LT(c.worker, std::min<int64_t>(workers, want_chunks));
          EXPECT_LT(c.begin, c.end);
          // Nearly equal: no chunk is more than one index longer than the shortest.
          EXPECT_LE(c.end - c.begin, total / want_chunks + 1);
          for (int64_t i = c.begin; i < c.end; ++i) ++seen[size_t(i)];
          workers_seen.insert(c.worker);
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), total) << total << " in " << chunks << " on " << workers;
      }
  // Nothing to do: no call.
  EXPECT_TRUE(calls_of(exec, 3, 0, 4).empty());
}

TEST(ParallelChunks, WithoutThreadsOneCallWithTheWholeRange) {
  for (const Exec& exec : {Exec{}, Exec{{}, nullptr}}) {
    std::vector<Call> calls = calls_of(exec, 4, 100, 16);
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].worker, 0);
    EXPECT_EQ(calls[0].begin, 0);
    EXPECT_EQ(calls[0].end, 100);
  }
  ThreadPool one(1);
  EXPECT_EQ(calls_of(Exec{{}, &one}, 4, 100, 16).size(), 1u);
}

// A worker held up (as on a vCPU another guest is using) leaves its share to the other: the
// chunks are claimed, not dealt out in advance. Worker numbers index per-worker scratch, so
// no two calls at the same time share one.
TEST(ParallelChunks, ASlowWorkerTakesFewerChunksAndWorkersNeverOverlap) {
  ThreadPool pool(2);
  if (pool.num_threads() < 2) GTEST_SKIP() << "the pool started " << pool.num_threads() << " threads";
  const Exec exec{{}, &pool};
  std::atomic<int> busy[2] = {0, 0};
  std::atomic<bool> overlap{false}, other_ran{false};
  std::atomic<int> chunks_of[2] = {0, 0};
  std::atomic<int> slow_worker{-1};
  exec.parallel_chunks(2, 64, 64, [&](int worker, int64_t, int64_t) {
    if (busy[worker].fetch_add(1) != 0) overlap = true;
    ++chunks_of[worker];
    int expected = -1;
    // The first worker to start is the slow one: its first chunk lasts until the other has
    // taken 40 chunks (or 5 s, should the pool run both workers on one thread in turn).
    if (slow_worker.compare_exchange_strong(expected, worker)) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (chunks_of[1 - worker] < 40 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      other_ran = chunks_of[1 - worker] >= 40;
    }
    busy[worker].fetch_sub(1);
  });
  EXPECT_FALSE(overlap);
  EXPECT_EQ(chunks_of[0] + chunks_of[1], 64);
  if (!other_ran) GTEST_SKIP() << "the second worker did not run while the first waited";
  // With a fixed split each would have 32.
  EXPECT_LE(chunks_of[slow_worker.load()].load(), 64 - 40);
}

}  // namespace
}  // namespace vkrt::compute
