// mobilenet_v2_bench: MobileNetV2 224 int8 timed two ways in one run, one table:
//   vkrt    - the sample program mobilenet_v2_int8_vgf.pte through the runtime, its VgfBackend
//             segment on the CPU executor (as `executor_runner X.pte --vgf_executor cpu`);
//   XNNPACK - the same layers from XNNPACK's operators (xnnpack_mobilenet_v2.h).
// For each thread count both are loaded and set up first; then each side is warmed up and timed
// in turn (not alternating run by run: see time_side).
//
//   mobilenet_v2_bench build/samples/mobilenet_v2_int8_vgf.pte [--runs N] [--warmup N] [--threads 1,2]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compute/isa.h"
#include "executor_runner/run_stats.h"
#include "vkrt/module.h"
#include "xnnpack_isa.h"

#if VKRT_BENCH_XNNPACK
#include <xnnpack.h>

#include "xnnpack_mobilenet_v2.h"
#endif

namespace vkrt::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxThreads = 1024;  // executor_runner's limit

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// "1,2" -> {1, 2}; empty and *error set on a bad list.
std::vector<int> parse_threads(const std::string& text, std::string* error) {
  std::vector<int> threads;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || n < 1 || n > kMaxThreads) {
      *error = "--threads: '" + text + "' is not a comma-separated list of thread counts from 1 to " +
               std::to_string(kMaxThreads);
      return {};
    }
    threads.push_back(n);
  }
  if (threads.empty()) *error = "--threads: empty list";
  return threads;
}

// The sample loaded for one thread count, its input set once (a fixed ramp).
struct VkrtModel {
  std::unique_ptr<Module> module;
  Method* method = nullptr;
  std::vector<int8_t> input;
  Tensor input_tensor;
};

Status load_vkrt(const std::string& path, int threads, VkrtModel& model) {
  LoadOptions options;
  options.num_threads = threads;
  options.backend_options.set("VgfBackend.executor", "cpu");
  VKRT_ASSIGN_OR_RETURN(model.module, Module::load(path, options));
  if (model.module->method_names().empty()) return Status(Error::InvalidProgram, "the program has no method");
  VKRT_ASSIGN_OR_RETURN(model.method, model.module->load_method(model.module->method_names().front()));
  // Only the MobileNetV2 224 int8 VGF sample makes the comparison mean anything.
  const MethodMeta& meta = model.method->meta();
  const bool vgf = std::find(meta.backends.begin(), meta.backends.end(), "VgfBackend") != meta.backends.end();
  if (!vgf || meta.inputs.size() != 1 || meta.inputs[0].tag != Tag::Tensor || meta.inputs[0].dtype != ScalarType::Char ||
      meta.inputs[0].sizes != std::vector<int32_t>{1, 224, 224, 3})
    return Status(Error::InvalidArgument,
                  "not the MobileNetV2 224 int8 VGF sample (expected one int8 [1,224,224,3] input and VgfBackend)");
  const std::vector<int32_t> sizes = meta.inputs[0].sizes;
  model.input.resize(size_t(224) * 224 * 3);
  // The same ramp as XNNPACK's input (and vkrt_bench's): small signed integers.
  for (size_t i = 0; i < model.input.size(); ++i) model.input[i] = int8_t(int(i * 37 % 251) - 125);
  VKRT_ASSIGN_OR_RETURN(model.input_tensor,
                        Tensor::make(ScalarType::Char, sizes, meta.inputs[0].dim_order, model.input.data()));
  return model.method->set_input(0, EValue::from_tensor(&model.input_tensor));
}

struct Row {
  int threads = 1;
  runner::RunStats vkrt, xnnpack;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

int run_main(int argc, char** argv) {
  std::string pte, threads_text = "1,2";
  uint32_t runs = 30, warmup = 5;
  CLI::App app{"MobileNetV2 224 int8: vkrt (the VGF sample on the CPU executor) vs the same layers in XNNPACK,\n"
               "at each thread count; prints p50/min per side and XNNPACK_time / vkrt_time (>= 1: vkrt faster)"};
  app.footer("Environment: VKRT_CPU_ISA pins vkrt's ISA level (portable, avx2, avx512bw, avx512vnni, ...);\n"
             "VKRT_XNNPACK_ISA=avx2 caps XNNPACK's kernels at AVX2, for like-for-like figures on an AVX-512 host.");
  app.add_option("pte", pte, "mobilenet_v2_int8_vgf.pte (build/examples/make_sample_programs <dir> writes it)")
      ->required();
  app.add_option("--runs", runs, "Timed runs per side and thread count (default 30)");
  app.add_option("--warmup", warmup, "Untimed runs per side first: the first runs page-fault (default 5)");
  app.add_option("--threads", threads_text, "Comma-separated thread counts (default 1,2)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return fail(what + " (see --help)");
  }
  if (runs == 0) return fail("--runs 0: time at least one run");
  std::string error;
  const std::vector<int> thread_counts = parse_threads(threads_text, &error);
  if (thread_counts.empty()) return fail(error);
  if (!compute::isa_environment_error().empty()) return fail(compute::isa_environment_error());  // VKRT_CPU_ISA

  const std::string xnnpack_level = cap_xnnpack_isa(&error);
  if (!error.empty()) return fail(error);
#if VKRT_BENCH_XNNPACK
  if (xnn_initialize(nullptr) != xnn_status_success) return fail("xnn_initialize failed (CPU not supported by XNNPACK?)");
#endif

  std::vector<Row> rows;
  std::string placement, network;
  for (int threads : thread_counts) {
    Row row;
    row.threads = threads;
    VkrtModel vkrt;
    Status s = load_vkrt(pte, threads, vkrt);
    if (!s.is_ok()) return fail("cannot load " + pte + ": " + s.to_string());
    if (placement.empty() && !vkrt.method->placements().empty()) placement = vkrt.method->placements().front();
#if VKRT_BENCH_XNNPACK
    std::unique_ptr<XnnpackMobileNetV2> xnn = XnnpackMobileNetV2::create(threads, &error);
    if (!xnn) return fail(error);
    if (network.empty()) {
      char macs[32];
      std::snprintf(macs, sizeof macs, "; %.1f M MACs", xnn->macs() / 1e6);
      network = xnn->summary() + macs;
    }
    auto run_xnnpack = [&]() { return xnn->run(&error); };
#else
    auto run_xnnpack = [&]() { return true; };
#endif
    auto run_vkrt = [&]() {
      Status st = vkrt.method->execute();
      if (!st.is_ok()) error = "vkrt: " + st.to_string();
      return st.is_ok();
    };
    // One side after the other, each warmed up just before it is timed: run by run alternation
    // would time each side while the other's thread pool still spins on the cores (XNNPACK's
    // pthreadpool busy-waits after a job), which on a two-core machine halves the second side.
    auto time_side = [&](auto run_side, runner::RunStats& stats) {
      for (uint32_t i = 0; i < warmup; ++i)
        if (!run_side()) return false;
      for (uint32_t i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        if (!run_side()) return false;
        stats.add(ms_since(t0));
      }
      return true;
    };
    if (!time_side(run_vkrt, row.vkrt)) return fail(error);
#if VKRT_BENCH_XNNPACK
    if (!time_side(run_xnnpack, row.xnnpack)) return fail(error);
#endif
    rows.push_back(std::move(row));
  }

  std::printf("MobileNetV2 224 int8, batch 1: vkrt vs XNNPACK\n");
  std::printf("CPU: %s; vkrt CPU kernels at ISA level %s\n", compute::cpu_model_name().c_str(),
              compute::isa_name(compute::active_isa()));
  std::printf("vkrt:    %s (%s)\n", pte.c_str(), placement.empty() ? "VgfBackend on the CPU executor" : placement.c_str());
#if VKRT_BENCH_XNNPACK
  std::printf("XNNPACK: the sample's layers as QC8/QS8 operators: %s; ISA level: %s\n", network.c_str(),
              xnnpack_level.c_str());
#else
  std::printf("XNNPACK: not built (xnnpack.h, libXNNPACK or pthreadpool not found at configure time): n/a\n");
#endif
  std::printf("%u timed runs after %u warm-up runs per side, one side after the other; times in ms\n\n", runs, warmup);
  std::printf("threads   vkrt p50   vkrt min   XNNPACK p50   XNNPACK min   XNNPACK/vkrt p50   XNNPACK/vkrt min\n");
  for (const Row& r : rows) {
    const double v50 = r.vkrt.percentile(0.5);
    std::printf("%7d %10.2f %10.2f", r.threads, v50, r.vkrt.min());
    if (r.xnnpack.count() == 0) {
      std::printf(" %13s %13s %18s %18s\n", "n/a", "n/a", "n/a", "n/a");
      continue;
    }
    const double x50 = r.xnnpack.percentile(0.5);
    std::printf(" %13.2f %13.2f %18.2f %18.2f\n", x50, r.xnnpack.min(), x50 / v50, r.xnnpack.min() / r.vkrt.min());
  }
  // The min ratio too: on a loaded machine the p50s measure the load as much as the code.
  std::printf("\nXNNPACK/vkrt: XNNPACK's time over vkrt's (p50 over p50, min over min); >= 1 means vkrt is faster.\n");
  return 0;
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) { return vkrt::bench::run_main(argc, argv); }
