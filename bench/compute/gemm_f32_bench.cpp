// GFLOP/s (2·m·n·k per product) of gemm_f32 at every ISA level this CPU has and of OpenBLAS's
// cblas_sgemm, at one and two threads, on square 256³ and 1024³ products and a one-row
// 1×1024×1024 (a linear layer on one token). All operands row-major and contiguous.
// Prints the CPU, the paths, and a summary per shape and thread count. On a shared machine run
// with --benchmark_repetitions=N (without *_aggregates_only): the summary keeps the best
// repetition, as noise only ever slows a run down.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "compute/exec.h"
#include "compute/gemm_f32.h"
#include "compute/isa.h"
#include "vkrt/thread_pool.h"

#if VKRT_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace {

using namespace vkrt::compute;

struct Shape {
  const char* name;
  int64_t m, n, k;
};
constexpr Shape kShapes[] = {{"256x256x256", 256, 256, 256}, {"1024x1024x1024", 1024, 1024, 1024},
                             {"1x1024x1024", 1, 1024, 1024}};

struct Operands {
  std::vector<float> a, b, c;
  explicit Operands(const Shape& s) : a(size_t(s.m * s.k)), b(size_t(s.k * s.n)), c(size_t(s.m * s.n)) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float& v : a) v = value(rng);
    for (float& v : b) v = value(rng);
  }
};

void set_rate(benchmark::State& state, const Shape& s) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void bench_ours(benchmark::State& state, const Shape* s, Isa isa, int threads) {
  ScopedIsa pin(isa);
  vkrt::ThreadPool pool(threads);
  const Exec exec{{}, threads > 1 ? &pool : nullptr};
  Operands x(*s);
  GemmF32 g;
  g.m = s->m, g.n = s->n, g.k = s->k;
  g.a = x.a.data(), g.lda = s->k;
  g.b = x.b.data(), g.ldb = s->n;
  g.c = x.c.data(), g.ldc = s->n;
  state.SetLabel(gemm_f32_path_name());
  for (auto _ : state) {
    gemm_f32(g, exec);
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, *s);
}

#if VKRT_BENCH_OPENBLAS
void bench_openblas(benchmark::State& state, const Shape* s, int threads) {
  openblas_set_num_threads(threads);
  Operands x(*s);
  state.SetLabel(openblas_get_corename());
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s->m), int(s->n), int(s->k), 1.0f, x.a.data(),
                int(s->k), x.b.data(), int(s->n), 0.0f, x.c.data(), int(s->n));
    benchmark::DoNotOptimize(x.c.data());
    benchmark::ClobberMemory();
  }
  set_rate(state, *s);
}
#endif

// Keeps each benchmark's best GFLOP/s for the summary.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const auto it = r.counters.find("GFLOP/s");
      if (it != r.counters.end() && !r.error_occurred && r.run_type == Run::RT_Iteration)
        rates[r.run_name.function_name] = std::max(rates[r.run_name.function_name], it->second.value);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rates;
};

std::string name_of(const Shape& s, const std::string& who, int threads) {
  return std::string(s.name) + "/" + who + "/threads:" + std::to_string(threads);
}

// One line per shape and thread count: ours at every vector level, OpenBLAS, and the ratio of
// the best level to OpenBLAS.
void print_summary(const std::map<std::string, double>& rates) {
  std::vector<Isa> levels;
  for (Isa isa : available_isas())
    if (isa != Isa::Portable) levels.push_back(isa);
  if (levels.empty()) levels.push_back(Isa::Portable);
  std::printf("\nSummary (GFLOP/s, best repetition):\n%-16s %7s", "shape", "threads");
  for (Isa isa : levels) std::printf(" %11s", isa_name(isa));
  std::printf(" %9s %11s\n", "openblas", "best/blas");
  auto rate = [&](const std::string& name) {
    const auto it = rates.find(name);
    return it == rates.end() ? 0.0 : it->second;
  };
  for (const Shape& s : kShapes) {
    for (int threads : {1, 2}) {
      const double blas = rate(name_of(s, "openblas", threads));
      const double best = rate(name_of(s, std::string("ours_") + isa_name(levels.back()), threads));
      if (best == 0 && blas == 0) continue;  // filtered out
      std::printf("%-16s %7d", s.name, threads);
      for (Isa isa : levels) std::printf(" %11.1f", rate(name_of(s, std::string("ours_") + isa_name(isa), threads)));
      if (blas > 0)
        std::printf(" %9.1f %10.2fx\n", blas, best / blas);
      else
        std::printf(" %9s %11s\n", "-", "-");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("cpu", cpu_model_name());
  benchmark::AddCustomContext("isa", isa_name(detected_isa()));
  benchmark::AddCustomContext("gemm_f32 path", gemm_f32_path_name());
#if VKRT_BENCH_OPENBLAS
  benchmark::AddCustomContext("openblas", std::string(openblas_get_config()) + ", core " + openblas_get_corename());
#endif
  for (const Shape& s : kShapes) {
    for (int threads : {1, 2}) {
      for (Isa isa : available_isas()) {
        // The portable tiles call fmaf per product: a 1024³ product takes seconds.
        if (isa == Isa::Portable && s.m * s.n * s.k > (int64_t(1) << 24)) continue;
        benchmark::RegisterBenchmark(name_of(s, std::string("ours_") + isa_name(isa), threads).c_str(), bench_ours, &s,
                                     isa, threads)
            ->UseRealTime();
      }
#if VKRT_BENCH_OPENBLAS
      benchmark::RegisterBenchmark(name_of(s, "openblas", threads).c_str(), bench_openblas, &s, threads)
          ->UseRealTime();
#endif
    }
  }
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary(reporter.rates);
  benchmark::Shutdown();
  return 0;
}
