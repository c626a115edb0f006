// Fused elementwise chains (vgf/vulkan/elementwise_fusion.h): the same elementwise-heavy
// graphs with chain fusion on and off (Google Benchmark; not a test).
//
//   vulkan_fusion_bench [--res=56] [--channels=64] [--blocks=8] [benchmark flags]
//
// Graphs (shape [1, res, res, channels]):
//  * int8 "residual + activation" blocks: RESCALE(x), RESCALE(skip) to int32, ADD, RESCALE to
//    int8, CLAMP, TABLE (an activation lookup) — 6 ops per block, the block output feeding the next;
//  * fp32 SiLU-style blocks: MUL by a per-channel scale, ADD a per-channel bias, SIGMOID, MUL by
//    the pre-activation, CLAMP, ADD the skip input — 6 ops per block.
// Counters: ops, dispatches, barriers, arena bytes, prepare time (ms) and, for the fused run,
// glslang compile time (ms); gpu_ms is the sum of the per-dispatch GPU timestamps of one
// profiled run (wall time per iteration includes upload, submit, wait and download).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "vgf/vulkan/vulkan_executor.h"

namespace vkrt::bench {
namespace {

using vgf::DType;
using vgf::OpKind;
using vgf::TensorId;

int64_t g_res = 56;
int64_t g_channels = 64;
int64_t g_blocks = 8;

struct Builder {
  vgf::Graph g;
  TensorId tensor(DType t, vgf::Shape s, bool input = false) {
    vgf::TensorInfo info;
    info.name = "t" + std::to_string(g.tensors.size());
    info.dtype = t;
    info.shape = std::move(s);
    TensorId id = g.add_tensor(std::move(info));
    if (input) g.inputs.push_back({id, "in" + std::to_string(g.inputs.size()), uint32_t(g.inputs.size()), 0});
    return id;
  }
  TensorId constant(DType t, vgf::Shape s, std::vector<uint8_t> bytes) {
    TensorId id = tensor(t, std::move(s));
    g.tensors[id].is_constant = true;
    g.tensors[id].owned = std::move(bytes);
    return id;
  }
  void op(OpKind k, std::vector<TensorId> in, TensorId out, vgf::OpAttributes attr = vgf::NoAttr{}) {
    g.add_op(k, std::move(in), out, std::move(attr));
  }
};

vgf::RescaleAttr rescale(int32_t in_zp, int32_t out_zp, int32_t multiplier, int shift) {
  vgf::RescaleAttr a;
  a.rounding_mode = vgf::RoundingMode::DoubleRound;
  a.input_zp = in_zp;
  a.output_zp = out_zp;
  a.multiplier = {multiplier};
  a.shift = {int8_t(shift)};
  return a;
}

vgf::Graph int8_blocks() {
  Builder b;
  vgf::Shape s{1, g_res, g_res, g_channels};
  TensorId x = b.tensor(DType::Int8, s, true), skip = b.tensor(DType::Int8, s, true);
  vgf::TableAttr act;  // a hard-swish-like curve
  for (int i = -128; i < 128; ++i) act.table.push_back(int16_t(i < -40 ? -40 : i > 0 ? i : i * (i + 40) / 40));
  vgf::ClampAttr clamp;
  clamp.min_int = -100;
  clamp.max_int = 100;
  TensorId cur = x;
  for (int64_t k = 0; k < g_blocks; ++k) {
    TensorId a = b.tensor(DType::Int32, s), c = b.tensor(DType::Int32, s), sum = b.tensor(DType::Int32, s);
    TensorId q = b.tensor(DType::Int8, s), cl = b.tensor(DType::Int8, s), out = b.tensor(DType::Int8, s);
    b.op(OpKind::RESCALE, {cur}, a, rescale(-3, 0, 1 << 30, 20));
    b.op(OpKind::RESCALE, {skip}, c, rescale(5, 0, 1518500250, 20));
    b.op(OpKind::ADD, {a, c}, sum);
    b.op(OpKind::RESCALE, {sum}, q, rescale(0, 2, 1 << 30, 31));
    b.op(OpKind::CLAMP, {q}, cl, clamp);
    b.op(OpKind::TABLE, {cl}, out, act);
    cur = out;
  }
  b.g.outputs.push_back({cur, "out", 0, 0});
  return std::move(b.g);
}

vgf::Graph fp32_blocks() {
  Builder b;
  vgf::Shape s{1, g_res, g_res, g_channels}, per_channel{1, 1, 1, g_channels};
  TensorId x = b.tensor(DType::Fp32, s, true), skip = b.tensor(DType::Fp32, s, true);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random_bytes = [&] {
    std::vector<float> v(static_cast<size_t>(g_channels));
    for (float& f : v) f = dist(rng);
    std::vector<uint8_t> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
  };
  vgf::ClampAttr clamp;
  clamp.min_fp = -6.0;
  clamp.max_fp = 6.0;
  TensorId cur = x;
  for (int64_t k = 0; k < g_blocks; ++k) {
    TensorId scaled = b.tensor(DType::Fp32, s), pre = b.tensor(DType::Fp32, s), sg = b.tensor(DType::Fp32, s);
    TensorId silu = b.tensor(DType::Fp32, s), cl = b.tensor(DType::Fp32, s), out = b.tensor(DType::Fp32, s);
    b.op(OpKind::MUL, {cur, b.constant(DType::Fp32, per_channel, random_bytes())}, scaled, vgf::MulAttr{});
    b.op(OpKind::ADD, {scaled, b.constant(DType::Fp32, per_channel, random_bytes())}, pre);
    b.op(OpKind::SIGMOID, {pre}, sg);
    b.op(OpKind::MUL, {sg, pre}, silu, vgf::MulAttr{});
    b.op(OpKind::CLAMP, {silu}, cl, clamp);
    b.op(OpKind::ADD, {cl, skip}, out);
    cur = out;
  }
  b.g.outputs.push_back({cur, "out", 0, 0});
  return std::move(b.g);
}

struct Prepared {
  vgf::Graph graph;
  std::unique_ptr<vulkan::VulkanExecutor> executor;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<std::vector<int32_t>> sizes;
  std::vector<Tensor> tensors;
  std::vector<const Tensor*> in_ptrs;
  std::vector<Tensor*> out_ptrs;
};

Status prepare(Prepared& p, bool fuse, bool profile) {
  BackendOptions o;
  o.set("VgfBackend.pipeline_cache_dir", "off");
  o.set("VgfBackend.fuse_elementwise", fuse ? "1" : "0");
  if (profile) o.set("VgfBackend.profile", "1");
  VKRT_ASSIGN_OR_RETURN(VgfOptions vo, parse_vgf_options(o));
  vgf::ExecutorOptions eo{&vo};
  p.executor = std::make_unique<vulkan::VulkanExecutor>();
  VKRT_RETURN_IF_ERROR(p.executor->prepare(p.graph, eo));
  std::vector<vgf::TensorId> io;
  for (const auto& i : p.graph.inputs) io.push_back(i.tensor);
  for (const auto& o2 : p.graph.outputs) io.push_back(o2.tensor);
  std::mt19937 rng(1);
  p.bytes.resize(io.size());
  p.sizes.resize(io.size());
  for (size_t k = 0; k < io.size(); ++k) {
    const auto& info = p.graph.tensor(io[k]);
    int64_t n = 1;
    for (int64_t d : info.shape) {
      n *= d;
      p.sizes[k].push_back(int32_t(d));
    }
    p.bytes[k].resize(size_t(n) * vgf::dtype_storage_bytes(info.dtype));
    if (info.dtype == DType::Fp32) {
      std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
      for (int64_t e = 0; e < n; ++e) {
        float f = dist(rng);
        std::memcpy(p.bytes[k].data() + e * 4, &f, 4);
      }
    } else {
      for (auto& byte : p.bytes[k]) byte = uint8_t(rng());
    }
    auto t = Tensor::make(vgf::dtype_to_scalar_type(info.dtype), p.sizes[k], p.bytes[k].data());
    VKRT_RETURN_IF_ERROR(t.status());
    p.tensors.push_back(*t);
  }
  for (size_t k = 0; k < io.size(); ++k) {
    if (k < p.graph.inputs.size()) {
      p.in_ptrs.push_back(&p.tensors[k]);
    } else {
      p.out_ptrs.push_back(&p.tensors[k]);
    }
  }
  return Status::ok();
}

void BM_Chains(benchmark::State& state, bool fp32) {
  const bool fuse = state.range(0) != 0;
  // GPU time: one profiled executor (timestamps around every dispatch), run twice.
  double gpu_ms = 0.0;
  {
    Prepared prof;
    prof.graph = fp32 ? fp32_blocks() : int8_blocks();
    Status s = prepare(prof, fuse, true);
    for (int i = 0; s.is_ok() && i < 2; ++i) s = prof.executor->run(prof.in_ptrs, prof.out_ptrs, nullptr);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
    for (const auto& t : prof.executor->last_profile()) gpu_ms += t.gpu_ns * 1e-6;
  }
  Prepared p;
  p.graph = fp32 ? fp32_blocks() : int8_blocks();
  Status s = prepare(p, fuse, false);
  if (!s.is_ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  for (auto _ : state) {
    s = p.executor->run(p.in_ptrs, p.out_ptrs, nullptr);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
  }
  const auto& st = p.executor->stats();
  state.counters["ops"] = double(st.op_count);
  state.counters["dispatches"] = double(st.dispatch_count);
  state.counters["barriers"] = double(st.barrier_count);
  state.counters["arena_MB"] = double(st.arena_bytes) / 1e6;
  state.counters["prepare_ms"] = st.prepare_seconds * 1e3;
  state.counters["glslang_ms"] = st.chain_compile_seconds * 1e3;
  state.counters["gpu_ms"] = gpu_ms;
  state.SetLabel(st.device);
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--res=", 6) == 0) {
      vkrt::bench::g_res = std::atoll(argv[i] + 6);
    } else if (std::strncmp(argv[i], "--channels=", 11) == 0) {
      vkrt::bench::g_channels = std::atoll(argv[i] + 11);
    } else if (std::strncmp(argv[i], "--blocks=", 9) == 0) {
      vkrt::bench::g_blocks = std::atoll(argv[i] + 9);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = int(rest.size());
  benchmark::RegisterBenchmark("int8_residual_blocks", vkrt::bench::BM_Chains, false)
      ->ArgName("fused")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("fp32_silu_blocks", vkrt::bench::BM_Chains, true)
      ->ArgName("fused")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
