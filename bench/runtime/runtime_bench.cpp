// Runtime-core benchmarks (not tests):
//   BM_LoadProgram/<MiB>: Module::load + load_method of a program whose constant segment holds
//     <MiB> of weights. Files are memory-mapped and constants used in place, so the time should
//     not grow with the size (compare the 1, 10 and 100 MiB rows).
//   BM_InstructionOverhead/<kernel>: execute() of a 1,000-instruction method of trivial kernels;
//     the time_per_instruction counter is the executor's cost per instruction (target < 500 ns).
// Run: build/bench/runtime/runtime_bench
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "vkrt/kernel.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace {

using namespace vkrt;

// A kernel that does nothing: measures the executor alone.
Status noop_kernel(KernelContext&, std::span<EValue* const>) { return Status::ok(); }
VKRT_REGISTER_KERNEL("vkrt_bench::noop.out", noop_kernel);

// A one-element float add: a trivial kernel with real argument checks.
Status tiny_add_kernel(KernelContext&, std::span<EValue* const> args) {
  float* out = args[2]->to_tensor().data_as<float>();
  *out = *args[0]->to_tensor().data_as<float>() + *args[1]->to_tensor().data_as<float>();
  return Status::ok();
}
VKRT_REGISTER_KERNEL("vkrt_bench::tiny_add.out", tiny_add_kernel);

std::string temp_path(const std::string& name) { return "/tmp/vkrt_bench_" + std::to_string(getpid()) + "_" + name; }

std::string write_program_with_constant(size_t mib) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<float> weights(mib * (1 << 20) / sizeof(float), 0.5f);
  int32_t w = m.add_constant_tensor<float>({int32_t(weights.size())}, weights);
  int32_t x = m.add_planned_tensor(ScalarType::Float, {1});
  int32_t out = m.add_planned_tensor(ScalarType::Float, {1});
  m.add_kernel_call("vkrt_bench::tiny_add.out", {x, x, out, out});
  (void)w;
  m.set_inputs({x});
  m.set_outputs({out});
  std::string path = temp_path(std::to_string(mib) + "mib.pte");
  Status s = program.write_file(path);
  if (!s.is_ok()) fprintf(stderr, "%s\n", s.to_string().c_str());
  return path;
}

void BM_LoadProgram(benchmark::State& state) {
  const size_t mib = size_t(state.range(0));
  std::string path = write_program_with_constant(mib);
  for (auto _ : state) {
    auto module = Module::load(path);
    if (!module.ok()) {
      state.SkipWithError(module.status().to_string().c_str());
      break;
    }
    auto method = (*module)->load_method("forward");
    benchmark::DoNotOptimize(method.ok());
  }
  state.counters["file_MiB"] = double(mib);
  unlink(path.c_str());
}
BENCHMARK(BM_LoadProgram)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond);

void BM_InstructionOverhead(benchmark::State& state) {
  const bool real_kernel = state.range(0) == 1;
  constexpr int kInstructions = 1000;
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t a = m.add_planned_tensor(ScalarType::Float, {1});
  int32_t b = m.add_planned_tensor(ScalarType::Float, {1});
  for (int i = 0; i < kInstructions; ++i)
    m.add_kernel_call(real_kernel ? "vkrt_bench::tiny_add.out" : "vkrt_bench::noop.out", {a, a, b, b});
  m.set_inputs({a});
  m.set_outputs({b});
  auto bytes = program.build();
  if (!bytes.ok()) {
    state.SkipWithError(bytes.status().to_string().c_str());
    return;
  }
  auto module = Module::load_from_buffer(*bytes);
  auto method = (*module)->load_method("forward");
  if (!method.ok()) {
    state.SkipWithError(method.status().to_string().c_str());
    return;
  }
  Method& mm = **method;
  (void)mm.set_input(0, mm.input(0));
  for (auto _ : state) {
    Status s = mm.execute();
    benchmark::DoNotOptimize(s.is_ok());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * kInstructions);
  // Seconds per instruction, printed with an SI suffix (e.g. "21.5n" = 21.5 ns).
  state.counters["time_per_instruction"] = benchmark::Counter(
      kInstructions, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetLabel(real_kernel ? "tiny_add kernel" : "noop kernel");
}
BENCHMARK(BM_InstructionOverhead)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
