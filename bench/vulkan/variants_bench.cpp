// Portable vs fast shader variants side by side (Google Benchmark; not a test).
//
//   vulkan_variants_bench [--gemm_sizes=128,256] [--conv_res=28] [benchmark flags]
//
// Runs the same int8 graph twice on the Vulkan executor, once with VKRT_VULKAN_VARIANTS=portable
// and once with =dot (packed int8 dot products, docs/vulkan-executor.md "Fast variants"), and
// prints GPU time (timestamps around the dispatch) per variant and the ratio portable/dot:
//   * GEMM int8: MATMUL [1,n,n] x [1,n,n] -> int32, B constant (a layer's weights, packed at
//     upload) and B a graph input (packed in the shader from strided bytes);
//   * CONV2D int8 3x3 and 1x1, [1,res,res,64] -> 64 channels, fused RESCALE to int8.
// The dot variant needs shaderIntegerDotProduct; without it the benchmark is skipped. On lavapipe
// the dot product is emulated (not accelerated), so ratios there are only indicative.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_io.h"
#include "vgf/vulkan/vulkan_executor.h"

namespace vkrt::bench {
namespace {

using vulkan::VulkanExecutor;

std::vector<int64_t> g_gemm_sizes{128, 256};
int64_t g_conv_res = 28;

// GPU milliseconds per run, by "<case>" then variant policy.
std::map<std::string, std::map<std::string, double>> g_gpu_ms;
std::string g_device;

vgf::TensorId add_tensor(vgf::Graph& g, vgf::DType t, vgf::Shape s, std::mt19937* constant_rng = nullptr) {
  vgf::TensorInfo info;
  info.name = "t" + std::to_string(g.tensors.size());
  info.dtype = t;
  info.shape = std::move(s);
  if (constant_rng) {
    info.is_constant = true;
    int64_t n = 1;
    for (int64_t d : info.shape) n *= d;
    info.owned.resize(size_t(n) * vgf::dtype_storage_bytes(t));
    for (auto& b : info.owned) b = uint8_t((*constant_rng)());
  }
  return g.add_tensor(std::move(info));
}

vgf::Graph gemm_graph(int64_t n, bool constant_b) {
  std::mt19937 rng(5);
  vgf::Graph g;
  vgf::TensorId a = add_tensor(g, vgf::DType::Int8, {1, n, n});
  vgf::TensorId b = add_tensor(g, vgf::DType::Int8, {1, n, n}, constant_b ? &rng : nullptr);
  vgf::TensorId c = add_tensor(g, vgf::DType::Int32, {1, n, n});
  vgf::Op op;
  op.kind = vgf::OpKind::MATMUL;
  op.inputs = {a, b};
  op.outputs = {c};
  vgf::MatmulAttr attr;
  attr.a_zp = -128;  // asymmetric activations, as in real int8 programs
  op.attr = attr;
  g.ops.push_back(op);
  g.inputs = {{a, "a", 0, 0}};
  if (!constant_b) g.inputs.push_back({b, "b", 1, 0});
  g.outputs = {{c, "c", uint32_t(g.inputs.size()), 0}};
  return g;
}

vgf::Graph conv_graph(int64_t res, int64_t k) {
  const int64_t channels = 64;
  std::mt19937 rng(6);
  vgf::Graph g;
  vgf::TensorId x = add_tensor(g, vgf::DType::Int8, {1, res, res, channels});
  vgf::TensorId w = add_tensor(g, vgf::DType::Int8, {channels, k, k, channels}, &rng);
  vgf::TensorId bias = add_tensor(g, vgf::DType::Int32, {channels}, &rng);
  vgf::TensorId acc = add_tensor(g, vgf::DType::Int32, {1, res, res, channels});
  vgf::TensorId q = add_tensor(g, vgf::DType::Int8, {1, res, res, channels});
  vgf::Op conv;
  conv.kind = vgf::OpKind::CONV2D;
  conv.inputs = {x, w, bias};
  conv.outputs = {acc};
  vgf::ConvAttr ca;
  const int32_t pad = int32_t(k / 2);
  ca.pad = {pad, pad, pad, pad, 0, 0};
  ca.input_zp = -128;
  conv.attr = ca;
  vgf::Op rescale;
  rescale.kind = vgf::OpKind::RESCALE;
  rescale.inputs = {acc};
  rescale.outputs = {q};
  vgf::RescaleAttr ra;
  ra.scale32 = true;
  ra.per_channel = true;
  ra.multiplier.assign(size_t(channels), 1 << 30);
  ra.shift.assign(size_t(channels), 40);
  rescale.attr = ra;
  g.ops = {conv, rescale};
  g.inputs = {{x, "x", 0, 0}};
  g.outputs = {{q, "q", 1, 0}};
  return g;
}

void BM_Variant(benchmark::State& state, const vgf::Graph& g, std::string name, std::string policy,
                double ops) {
  BackendOptions options;
  options.set("VgfBackend.variants", policy);
  options.set("VgfBackend.profile", "1");
  options.set("VgfBackend.pipeline_cache_dir", "off");
  auto vo = parse_vgf_options(options);
  VulkanExecutor ex;
  vgf::ExecutorOptions eo{vo.ok() ? &*vo : nullptr};
  Status s = vo.ok() ? ex.prepare(g, eo) : Status(vo.status());
  if (!s.is_ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  if (policy == "dot" && !ex.context()->features().integer_dot_product) {
    state.SkipWithError("device lacks shaderIntegerDotProduct");
    return;
  }
  std::mt19937 rng(3);
  std::vector<HostBuffer> ins, outs;
  for (const auto& io : g.inputs) ins.push_back(host_buffer(g, io.tensor, rng));
  for (const auto& io : g.outputs) outs.push_back(host_buffer(g, io.tensor, rng));
  std::vector<const Tensor*> in_ptrs;
  std::vector<Tensor*> out_ptrs;
  for (auto& h : ins) in_ptrs.push_back(&h.tensor);
  for (auto& h : outs) out_ptrs.push_back(&h.tensor);
  double gpu_ns = 0;
  for (auto _ : state) {
    Status r = ex.run(in_ptrs, out_ptrs, nullptr);
    if (!r.is_ok()) {
      state.SkipWithError(r.message().c_str());
      return;
    }
    for (const auto& t : ex.last_profile()) gpu_ns += t.gpu_ns;
  }
  const double gpu_s = gpu_ns * 1e-9;
  const double iters = double(std::max<int64_t>(1, state.iterations()));
  state.counters["gpu_ms"] = 1e3 * gpu_s / iters;
  state.counters["gpu_GOP/s"] = gpu_s > 0 ? ops * 1e-9 * iters / gpu_s : 0.0;
  g_device = ex.stats().device;
  g_gpu_ms[name][policy] = 1e3 * gpu_s / iters;
}

void register_pair(const std::string& name, vgf::Graph graph, double ops) {
  auto shared = std::make_shared<vgf::Graph>(std::move(graph));
  for (const char* policy : {"portable", "dot"}) {
    benchmark::RegisterBenchmark((name + "/" + policy).c_str(),
                                 [shared, name, policy, ops](benchmark::State& st) {
                                   BM_Variant(st, *shared, name, policy, ops);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

void register_benchmarks() {
  for (int64_t n : g_gemm_sizes) {
    const double ops = 2.0 * double(n) * double(n) * double(n);
    register_pair("GemmInt8/B_const/" + std::to_string(n), gemm_graph(n, true), ops);
    register_pair("GemmInt8/B_input/" + std::to_string(n), gemm_graph(n, false), ops);
  }
  for (int64_t k : {int64_t(3), int64_t(1)}) {
    const double ops = 2.0 * double(g_conv_res * g_conv_res) * 64.0 * 64.0 * double(k * k);
    register_pair("Conv" + std::to_string(k) + "x" + std::to_string(k) + "Int8/" + std::to_string(g_conv_res),
                  conv_graph(g_conv_res, k), ops);
  }
}

void print_ratios() {
  std::printf("\ndevice: %s\n", g_device.c_str());
  std::printf("%-28s %14s %14s %18s\n", "case", "portable_ms", "dot_ms", "portable/dot");
  for (const auto& [name, by_policy] : g_gpu_ms) {
    auto p = by_policy.find("portable");
    auto d = by_policy.find("dot");
    if (p == by_policy.end() || d == by_policy.end() || d->second <= 0) continue;
    std::printf("%-28s %14.3f %14.3f %17.2fx\n", name.c_str(), p->second, d->second, p->second / d->second);
  }
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) {
  using namespace vkrt::bench;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--gemm_sizes=", 0) == 0) {
      g_gemm_sizes = parse_list(argv[i] + 13);
    } else if (a.rfind("--conv_res=", 0) == 0) {
      g_conv_res = std::stoll(a.substr(11));
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = int(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  print_ratios();
  benchmark::Shutdown();
  return 0;
}
