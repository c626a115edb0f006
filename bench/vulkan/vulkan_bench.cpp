// Vulkan executor benchmarks (Google Benchmark; not a test).
//
//   vulkan_bench [--gemm_sizes=128,256,512|MxNxK,...|mnv2] [--mnv2_res=224] [--mnv2_batches=1]
//                [--torch=python3 [--torch_script=bench/vulkan/torch_gemm.py]] [benchmark flags]
//
// * GEMM throughput (MATMUL through the IR and the executor): int8 (int32 accumulate), fp32,
//   fp16 (fp16 storage, fp32 accumulate). Counters: GOP/s from wall time (upload + submit +
//   wait + download inside the timed region) and gpu_GOPs from GPU timestamps. A size is a
//   cube (4096) or MxNxK; `mnv2` stands for the 1x1 convolutions of MobileNetV2 as GEMMs
//   (M = output pixels, N = output channels, K = input channels).
// * --torch: afterwards runs torch_gemm.py (PyTorch int8 _int_mm and fp16 matmul on CUDA) on the
//   same shapes and prints our int8/fp16 GPU throughput next to PyTorch's, with the ratio.
// * An int8 MobileNetV2-shaped graph: latency per inference, op count vs dispatch count (with
//   and without fusion), arena / constant / peak-live memory, the device memory allocated for
//   them (device_MB) and, where a GPU driver counts heap usage (VK_EXT_memory_budget), all that
//   the executor added to the device-local heaps (heap_delta_MB: pipelines and pools too).
// * Init: cold (empty pipeline cache directory) vs warm (cache file from a previous init), with
//   the Vulkan device already created (main holds it, as an app that loads a second model does;
//   device_ms shows ~0). first_ms is the first iteration alone: a driver that keeps compiled
//   shaders in memory makes later cold iterations faster than a cold process start (on NVIDIA
//   also set __GL_SHADER_DISK_CACHE=0, or its disk cache does the same). executor_runner's
//   "Model loaded in" line is init in a fresh process, device creation included.
// Defaults are small because lavapipe (the CPU Vulkan device) is slow; on a GPU pass
// --gemm_sizes=4096 --mnv2_batches=1,16.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_io.h"
#include "mobilenet_v2_graph.h"
#include "torch_peer.h"
#include "vgf/vulkan/vulkan_executor.h"

namespace vkrt::bench {
namespace {

using samples::build_mobilenet_v2;
using samples::MobileNetV2Options;
using vulkan::Context;
using vulkan::ContextOptions;
using vulkan::VulkanExecutor;

std::vector<GemmShape> g_gemm_shapes{{128, 128, 128}, {256, 256, 256}, {512, 512, 512}};
std::vector<GemmFigure> g_our_gemm;  // last GPU throughput per (dtype, shape), for --torch
std::vector<int64_t> g_mnv2_batches{1};
int64_t g_mnv2_res = 224;

struct Prepared {
  std::unique_ptr<VulkanExecutor> executor;
  std::vector<HostBuffer> inputs, outputs;
  std::vector<const Tensor*> in_ptrs;
  std::vector<Tensor*> out_ptrs;
};

Result<Prepared> prepare(const vgf::Graph& g, const BackendOptions& options) {
  Prepared p;
  p.executor = std::make_unique<VulkanExecutor>();
  VKRT_ASSIGN_OR_RETURN(VgfOptions vo, parse_vgf_options(options));
  vgf::ExecutorOptions eo{&vo};
  VKRT_RETURN_IF_ERROR(p.executor->prepare(g, eo));
  std::mt19937 rng(3);
  for (const auto& io : g.inputs) p.inputs.push_back(host_buffer(g, io.tensor, rng));
  for (const auto& io : g.outputs) p.outputs.push_back(host_buffer(g, io.tensor, rng));
  for (auto& h : p.inputs) p.in_ptrs.push_back(&h.tensor);
  for (auto& h : p.outputs) p.out_ptrs.push_back(&h.tensor);
  return p;
}

vgf::Graph gemm_graph(vgf::DType t, int64_t m, int64_t k, int64_t n) {
  vgf::Graph g;
  auto add = [&](vgf::DType dt, vgf::Shape s) {
    vgf::TensorInfo info;
    info.name = "t" + std::to_string(g.tensors.size());
    info.dtype = dt;
    info.shape = std::move(s);
    return g.add_tensor(std::move(info));
  };
  vgf::TensorId a = add(t, {1, m, k});
  vgf::TensorId b = add(t, {1, k, n});
  vgf::DType acc = t == vgf::DType::Int8 ? vgf::DType::Int32 : t;
  vgf::TensorId c = add(acc, {1, m, n});
  vgf::Op op;
  op.kind = vgf::OpKind::MATMUL;
  op.inputs = {a, b};
  op.outputs = {c};
  op.attr = vgf::MatmulAttr{};
  g.ops.push_back(op);
  g.inputs = {{a, "a", 0, 0}, {b, "b", 1, 0}};
  g.outputs = {{c, "c", 2, 0}};
  return g;
}

BackendOptions base_options() {
  BackendOptions o;
  o.set("VgfBackend.profile", "1");
  return o;
}

double gpu_seconds(const VulkanExecutor& ex) {
  double ns = 0;
  for (const auto& t : ex.last_profile()) ns += t.gpu_ns;
  return ns * 1e-9;
}

// The benchmark loop: one run per iteration, GPU time summed into *gpu_total. False (and the
// benchmark marked as failed) when a run fails.
bool run_timed(benchmark::State& state, Prepared& p, double* gpu_total) {
  for (auto _ : state) {
    Status s = p.executor->run(p.in_ptrs, p.out_ptrs, nullptr);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      return false;
    }
    *gpu_total += gpu_seconds(*p.executor);
  }
  return true;
}

// The 1x1 convolutions of MobileNetV2 (224x224) as GEMMs: M = H*W, N = Cout, K = Cin.
const std::vector<GemmShape> kMobileNetV2Gemms = {
    {112 * 112, 16, 32}, {56 * 56, 144, 24}, {28 * 28, 32, 192}, {14 * 14, 576, 96}, {7 * 7, 1280, 320}};

bool parse_gemm_list(const std::string& text, std::vector<GemmShape>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item == "mnv2") {
      out->insert(out->end(), kMobileNetV2Gemms.begin(), kMobileNetV2Gemms.end());
      continue;
    }
    GemmShape shape;
    if (!parse_gemm_shape(item, &shape)) return false;
    out->push_back(shape);
  }
  return true;
}

void record_gemm_figure(vgf::DType t, const GemmShape& shape, double gops) {
  const char* name = t == vgf::DType::Int8 ? "int8" : t == vgf::DType::Fp16 ? "fp16" : nullptr;
  if (name == nullptr) return;  // PyTorch is compared on int8 and fp16 only
  for (GemmFigure& f : g_our_gemm) {
    if (f.dtype == name && f.shape == shape) {
      f.gops = gops;
      return;
    }
  }
  g_our_gemm.push_back({name, shape, gops, {}});
}

void BM_Gemm(benchmark::State& state, vgf::DType t, GemmShape shape) {
  vgf::Graph g = gemm_graph(t, shape.m, shape.k, shape.n);
  auto p = prepare(g, base_options());
  if (!p.ok()) {
    state.SkipWithError(p.status().message().c_str());
    return;
  }
  double gpu = 0;
  if (!run_timed(state, *p, &gpu)) return;
  const double ops = 2.0 * double(shape.m) * double(shape.n) * double(shape.k);
  if (gpu > 0) record_gemm_figure(t, shape, ops * 1e-9 * double(state.iterations()) / gpu);
  const auto& shaders = p->executor->stats().dispatch_shaders;
  state.SetLabel(shaders.size() == 1 ? shaders[0] : std::to_string(shaders.size()) + " dispatches");
  state.counters["GOP/s"] = benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gpu_GOP/s"] = gpu > 0 ? ops * 1e-9 * double(state.iterations()) / gpu : 0.0;
  state.counters["gpu_ms"] = gpu > 0 ? 1e3 * gpu / double(state.iterations()) : 0.0;
}

void BM_MobileNetV2Int8(benchmark::State& state, bool fusion) {
  MobileNetV2Options mo;
  mo.batch = state.range(0);
  mo.resolution = g_mnv2_res;
  vgf::Graph g = build_mobilenet_v2(mo);
  BackendOptions options = base_options();
  if (!fusion) options.set("VgfBackend.fusion", "0");
  // Device-local heap usage as the driver counts it (VK_EXT_memory_budget), before the
  // executor exists: the delta after the runs is all it holds (buffers, pipelines, pools).
  auto ctx = Context::shared(vulkan::context_options(parse_vgf_options(base_options()).value()));
  const uint64_t heap_before = ctx.ok() ? (*ctx)->device_local_heap_usage() : 0;
  auto p = prepare(g, options);
  if (!p.ok()) {
    state.SkipWithError(p.status().message().c_str());
    return;
  }
  double gpu = 0;
  if (!run_timed(state, *p, &gpu)) return;
  const auto& st = p->executor->stats();
  state.counters["ops"] = double(st.op_count);
  state.counters["dispatches"] = double(st.dispatch_count);
  state.counters["barriers"] = double(st.barrier_count);
  state.counters["gpu_ms"] = 1e3 * gpu / double(std::max<int64_t>(1, state.iterations()));
  state.counters["arena_MB"] = double(st.arena_bytes) / 1e6;
  state.counters["peak_live_MB"] = double(st.peak_live_bytes) / 1e6;
  state.counters["consts_MB"] = double(st.constant_bytes) / 1e6;
  state.counters["device_MB"] = double(st.device_memory_bytes) / 1e6;  // arena + constants, as allocated
  if (ctx.ok() && (*ctx)->features().memory_budget && !(*ctx)->features().cpu_device) {  // see jit_test
    state.counters["heap_delta_MB"] = (double((*ctx)->device_local_heap_usage()) - double(heap_before)) / 1e6;
  }
}

// Init (prepare) time with the pipeline cache cold (fresh directory) or warm (file present).
void BM_Init(benchmark::State& state, bool warm) {
  MobileNetV2Options mo;
  mo.resolution = 32;  // init cost is per pipeline and per op, not per pixel
  vgf::Graph g = build_mobilenet_v2(mo);
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("vkrt-bench-cache-" + std::to_string(::getpid()));
  BackendOptions options;
  options.set("VgfBackend.pipeline_cache_dir", dir.string());
  const VgfOptions vo = parse_vgf_options(options).value();
  if (warm) {  // populate once
    VulkanExecutor ex;
    vgf::ExecutorOptions eo{&vo};
    (void)ex.prepare(g, eo);
  }
  double pipeline_s = 0, chain_s = 0, device_s = 0, first_s = -1;
  vulkan::CacheLoadResult cache = vulkan::CacheLoadResult::Disabled;
  for (auto _ : state) {
    if (!warm) {
      state.PauseTiming();
      std::filesystem::remove_all(dir);
      state.ResumeTiming();
    }
    VulkanExecutor ex;
    vgf::ExecutorOptions eo{&vo};
    Status s = ex.prepare(g, eo);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
    if (first_s < 0) first_s = ex.stats().prepare_seconds;
    device_s += ex.stats().context_seconds;
    pipeline_s += ex.stats().pipeline_seconds;
    chain_s += ex.stats().chain_compile_seconds;
    cache = ex.stats().cache;
  }
  std::filesystem::remove_all(dir);
  state.counters["first_ms"] = 1e3 * std::max(0.0, first_s);
  // Instance and device creation (0 while main holds the device), untouched by any cache.
  state.counters["device_ms"] = 1e3 * device_s / double(std::max<int64_t>(1, state.iterations()));
  state.counters["pipeline_ms"] = 1e3 * pipeline_s / double(std::max<int64_t>(1, state.iterations()));
  // glslang for the fused elementwise chains (cold), or reading their SPIR-V back (warm).
  state.counters["chain_shader_ms"] = 1e3 * chain_s / double(std::max<int64_t>(1, state.iterations()));
  state.SetLabel(std::string("cache ") + vulkan::cache_load_result_name(cache));
}

void register_benchmarks() {
  for (const GemmShape& shape : g_gemm_shapes) {
    const std::string suffix = "/" + shape.text();
    for (auto [name, t] : {std::pair{"GemmInt8", vgf::DType::Int8}, std::pair{"GemmFp16", vgf::DType::Fp16},
                           std::pair{"GemmFp32", vgf::DType::Fp32}})
      benchmark::RegisterBenchmark((name + suffix).c_str(), BM_Gemm, t, shape)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  for (int64_t b : g_mnv2_batches) {
    benchmark::RegisterBenchmark("MobileNetV2Int8/fused", BM_MobileNetV2Int8, true)
        ->Arg(b)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
    benchmark::RegisterBenchmark("MobileNetV2Int8/unfused", BM_MobileNetV2Int8, false)
        ->Arg(b)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
  }
  benchmark::RegisterBenchmark("InitCold", BM_Init, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
  benchmark::RegisterBenchmark("InitWarm", BM_Init, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) {
  using namespace vkrt::bench;
  std::vector<char*> rest;
  std::string torch_python, torch_script = VKRT_TORCH_GEMM_SCRIPT;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--gemm_sizes=", 0) == 0) {
      if (!parse_gemm_list(a.substr(13), &g_gemm_shapes)) {
        std::fprintf(stderr, "--gemm_sizes: expected a comma-separated list of N, MxNxK or mnv2, got '%s'\n",
                     a.c_str() + 13);
        return 1;
      }
    } else if (a.rfind("--torch=", 0) == 0) {
      torch_python = a.substr(8);
    } else if (a.rfind("--torch_script=", 0) == 0) {
      torch_script = a.substr(15);
    } else if (a.rfind("--mnv2_batches=", 0) == 0) {
      g_mnv2_batches = parse_list(argv[i] + 15);
    } else if (a.rfind("--mnv2_res=", 0) == 0) {
      g_mnv2_res = std::stoll(a.substr(11));
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = int(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  auto env_options = vkrt::parse_vgf_options({});
  if (!env_options.ok()) {
    std::fprintf(stderr, "%s\n", env_options.status().message().c_str());
    return 1;
  }
  auto ctx = vkrt::vulkan::Context::shared(vkrt::vulkan::context_options(*env_options));
  if (!ctx.ok()) {
    std::fprintf(stderr, "no Vulkan device: %s\n", ctx.status().message().c_str());
    return 1;
  }
  std::printf("device: %s\n", (*ctx)->describe().c_str());
  std::printf("timed region: copy-in + submit + wait + copy-out per iteration; gpu_* counters from timestamps\n");
  if ((*ctx)->info().type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    std::printf("note: CPU Vulkan implementation (lavapipe): figures show overheads, not GPU speed\n");
  }
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  if (!torch_python.empty()) {
    std::vector<GemmShape> shapes;
    for (const GemmFigure& f : g_our_gemm) {
      if (std::find(shapes.begin(), shapes.end(), f.shape) == shapes.end()) shapes.push_back(f.shape);
    }
    print_peer_table(g_our_gemm, run_torch_peer(torch_python, torch_script, shapes));
  }
  benchmark::Shutdown();
  return 0;
}
