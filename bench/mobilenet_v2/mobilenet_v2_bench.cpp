// mobilenet_v2_bench: MobileNetV2 224 int8 timed two ways in one run, one table:
//   vkrt    - the sample program mobilenet_v2_int8_vgf.pte through the runtime, its VgfBackend
//             segment on the CPU executor (as `executor_runner X.pte --vgf_executor cpu`);
//   XNNPACK - the same layers from XNNPACK's operators (xnnpack_mobilenet_v2.h).
// For each thread count both are loaded and set up first; then each side is warmed up and timed
// in turn (not alternating run by run: see time_side).
//
// With --layers, a second table per thread count puts each XNNPACK operator beside the CPU
// executor's steps that do the same work (its profile: a fused convolution chain per
// convolution, the RESCALEs and ADD of each residual add), p50 per layer over the runs.
//
//   mobilenet_v2_bench build/samples/mobilenet_v2_int8_vgf.pte [--runs N] [--warmup N] [--threads 1,2] [--layers]
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

// `profile`: the CPU executor times each of its steps (Method::profile()'s delegate_steps).
Status load_vkrt(const std::string& path, int threads, bool profile, VkrtModel& model) {
  LoadOptions options;
  options.num_threads = threads;
  options.backend_options.set("VgfBackend.executor", "cpu");
  if (profile) options.backend_options.set("VgfBackend.profile", "1");
  VKRT_ASSIGN_OR_RETURN(model.module, Module::load(path, options));
  if (model.module->method_names().empty()) return Status(Error::InvalidProgram, "the program has no method");
  VKRT_ASSIGN_OR_RETURN(model.method, model.module->load_method(model.module->method_names().front()));
  model.method->set_profiling(profile);
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

#if VKRT_BENCH_XNNPACK
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The CPU executor's steps (their profile names, in run order) lined up with XNNPACK's layers:
// layer i did the work of steps [first[i], first[i + 1]). A convolution, depthwise, fully
// connected or pooling layer is one step (its fused chain: "CONV2D+RESCALE+CLAMP [cpu]"); a
// residual add is its fused step ("RESCALE+RESCALE+ADD+RESCALE [cpu]") or, unfused
// (VKRT_CPU_FUSION=0), the run of RESCALE and ADD steps around the ADD; steps left at the end
// (the classifier's RESHAPE) go to the last layer. Empty, with *error, where they do not line up.
std::vector<size_t> line_up(const std::vector<std::string>& steps,
                            const std::vector<XnnpackMobileNetV2::LayerInfo>& layers, std::string* error) {
  std::vector<size_t> first;
  size_t s = 0;
  for (const auto& layer : layers) {
    first.push_back(s);
    if (layer.kind == "add") {
      bool has_add = false;
      while (s < steps.size() && (starts_with(steps[s], "RESCALE") || starts_with(steps[s], "ADD")))
        has_add |= steps[s++].find("ADD") != std::string::npos;
      if (has_add) continue;
    } else {
      const char* op = layer.kind == "depthwise" ? "DEPTHWISE_CONV2D" : layer.kind == "global_avgpool" ? "AVG_POOL2D" : "CONV2D";
      if (s < steps.size() && starts_with(steps[s], op)) {
        ++s;
        continue;
      }
    }
    *error = "the program's steps do not line up with XNNPACK's layers at layer " + std::to_string(first.size() - 1) +
             " (" + layer.kind + "): step " + std::to_string(s) + " is " + (s < steps.size() ? steps[s] : "missing");
    return {};
  }
  first.push_back(steps.size());
  return first;
}

// The per-layer table for one thread count (--layers): each side warmed up, then `runs` runs
// timed step by step (vkrt: the CPU executor's own step times; XNNPACK: each operator).
int print_layer_table(const std::string& pte, int threads, uint32_t runs, uint32_t warmup) {
  std::string error;
  VkrtModel vkrt;
  Status s = load_vkrt(pte, threads, true, vkrt);
  if (!s.is_ok()) return fail("cannot load " + pte + ": " + s.to_string());
  std::unique_ptr<XnnpackMobileNetV2> xnn = XnnpackMobileNetV2::create(threads, &error);
  if (!xnn) return fail(error);

  std::vector<std::string> step_names;
  std::vector<std::vector<double>> step_ms;  // [step][run]
  for (uint32_t i = 0; i < warmup + runs; ++i) {
    s = vkrt.method->execute();
    if (!s.is_ok()) return fail("vkrt: " + s.to_string());
    if (i < warmup) continue;
    std::vector<std::string> names;
    std::vector<double> times;
    for (const auto& instruction : vkrt.method->profile())
      for (const auto& step : instruction.delegate_steps) {
        names.push_back(step.name);
        times.push_back(step.time_ms);
      }
    if (step_names.empty()) {
      step_names = names;
      step_ms.resize(names.size());
    }
    if (names != step_names) return fail("vkrt: the CPU executor's steps changed between runs");
    for (size_t k = 0; k < times.size(); ++k) step_ms[k].push_back(times[k]);
  }
  const auto layers = xnn->layers();
  std::vector<std::vector<double>> layer_ms(layers.size());  // [layer][run]
  std::vector<double> one_run;
  for (uint32_t i = 0; i < warmup + runs; ++i) {
    if (!xnn->run_timed(&one_run, &error)) return fail(error);
    if (i < warmup) continue;
    for (size_t k = 0; k < layers.size(); ++k) layer_ms[k].push_back(one_run[k]);
  }

  const std::vector<size_t> first = line_up(step_names, layers, &error);
  if (first.empty()) return fail("--layers: " + error);
  std::printf("\nPer layer, %d thread%s: p50 over %u runs in ms (vkrt: the CPU executor's step times; XNNPACK: each operator)\n",
              threads, threads == 1 ? "" : "s", runs);
  std::printf("%-5s %-16s %-22s %9s %9s %8s  %s\n", "layer", "kind", "shape", "vkrt", "XNNPACK", "XNN/vkrt", "vkrt steps");
  double vkrt_total = 0, xnn_total = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    double v = 0;
    std::string ops;
    for (size_t k = first[i]; k < first[i + 1]; ++k) {
      v += median(step_ms[k]);
      std::string name = step_names[k].substr(0, step_names[k].find(' '));
      ops += (ops.empty() ? "" : ", ") + name;
    }
    const double x = median(layer_ms[i]);
    vkrt_total += v;
    xnn_total += x;
    std::printf("%-5zu %-16s %-22s %9.3f %9.3f %8.2f  %s\n", i, layers[i].kind.c_str(), layers[i].shape.c_str(), v, x,
                v > 0 ? x / v : 0.0, ops.c_str());
  }
  std::printf("%-5s %-16s %-22s %9.3f %9.3f %8.2f\n", "sum", "", "", vkrt_total, xnn_total,
              vkrt_total > 0 ? xnn_total / vkrt_total : 0.0);
  return 0;
}
#endif

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
  bool layers = false;
  app.add_flag("--layers", layers,
               "Then, per thread count, a table of each layer's p50: XNNPACK's operator beside the CPU executor's steps\n"
               "for the same work (a fused convolution chain; a residual add's RESCALEs and ADD)");
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
    Status s = load_vkrt(pte, threads, false, vkrt);
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
  if (layers) {
#if VKRT_BENCH_XNNPACK
    for (int threads : thread_counts)
      if (int rc = print_layer_table(pte, threads, runs, warmup); rc != 0) return rc;
#else
    return fail("--layers: XNNPACK was not built");
#endif
  }
  return 0;
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) { return vkrt::bench::run_main(argc, argv); }
