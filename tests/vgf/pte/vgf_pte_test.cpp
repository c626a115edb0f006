// A .pte program shaped like the VGF INT8 recipe's output: cortex_m::quantize_per_tensor, a
// VgfBackend delegate holding a multi-op int8 TOSA graph (CONV2D 3x3 -> RESCALE -> CLAMP ->
// MAX_POOL2D), cortex_m::dequantize_per_tensor. Built with the pte writer, loaded with the
// Module API, compared with a reference computed here from the TOSA/cortex-m formulas
// (tosa.md §4-§7, cortex-m-ops.md quantize/dequantize).
#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <set>

#include "common/etdump_checks.h"
#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/graph_vgf_writer.h"
#ifdef VKRT_HAVE_VGF_SAMPLES
#include "common/run_command.h"
#include "vgf_samples.h"
#endif
#include "vkrt/etdump.h"
#include "vkrt/memory_budget.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"
#include "vkrt/thread_pool.h"

namespace vkrt::vgf {
namespace {

constexpr int H = 8, W = 8, C = 4, OC = 6, K = 3;
constexpr float kInScale = 0.05f, kOutScale = 0.1f;
constexpr int kInZp = 3, kOutZp = -2;

std::vector<int8_t> weights() {
  std::vector<int8_t> w(OC * K * K * C);
  for (size_t i = 0; i < w.size(); ++i) w[i] = int8_t(int(i * 29 % 200) - 100);
  return w;
}
std::vector<int32_t> bias() { return {1000, -2000, 0, 500, -750, 3000}; }
std::vector<int32_t> multipliers() { return {1200000000, 1300000000, 1400000000, 1500000000, 1600000000, 1700000000}; }
std::vector<int8_t> shifts() { return {40, 41, 40, 39, 40, 41}; }

TensorId add(Graph& g, DType t, std::vector<int64_t> shape, const char* name) {
  TensorInfo info;
  info.name = name;
  info.dtype = t;
  info.shape = std::move(shape);
  return g.add_tensor(std::move(info));
}

Graph int8_network() {
  Graph g;
  g.name = "graph_partition_0";
  TensorId x = add(g, DType::Int8, {1, H, W, C}, "q");
  g.inputs.push_back({x, "q", 0, 0});
  auto w = weights();
  auto b = bias();
  TensorId wt = add(g, DType::Int8, {OC, K, K, C}, "w");
  g.tensors[wt].is_constant = true;
  g.tensors[wt].owned.assign(reinterpret_cast<uint8_t*>(w.data()), reinterpret_cast<uint8_t*>(w.data()) + w.size());
  TensorId bt = add(g, DType::Int32, {OC}, "b");
  g.tensors[bt].is_constant = true;
  g.tensors[bt].owned.resize(b.size() * 4);
  std::memcpy(g.tensors[bt].owned.data(), b.data(), b.size() * 4);
  TensorId acc = add(g, DType::Int32, {1, H, W, OC}, "acc");
  ConvAttr ca;
  ca.pad = {1, 1, 1, 1, 0, 0};
  ca.input_zp = kInZp;
  g.ops.push_back(Op{OpKind::CONV2D, {x, wt, bt}, {acc}, ca, "conv"});
  TensorId r = add(g, DType::Int8, {1, H, W, OC}, "r");
  RescaleAttr ra;
  ra.rounding_mode = RoundingMode::DoubleRound;
  ra.per_channel = true;
  ra.multiplier = multipliers();
  ra.shift = shifts();
  ra.output_zp = kOutZp;
  g.ops.push_back(Op{OpKind::RESCALE, {acc}, {r}, ra, "rescale"});
  TensorId c = add(g, DType::Int8, {1, H, W, OC}, "relu");
  ClampAttr cl;
  cl.min_int = kOutZp;  // ReLU in the quantized domain
  cl.max_int = 127;
  cl.min_fp = kOutZp;
  cl.max_fp = 127;
  g.ops.push_back(Op{OpKind::CLAMP, {r}, {c}, cl, "clamp"});
  TensorId p = add(g, DType::Int8, {1, H / 2, W / 2, OC}, "pool");
  PoolAttr pa;
  pa.kernel = {2, 2};
  pa.stride = {2, 2};
  g.ops.push_back(Op{OpKind::MAX_POOL2D, {c}, {p}, pa, "pool"});
  g.outputs.push_back({p, "y", 1, 0});
  return g;
}

// Reference, written from the formulas (not from the kernels).
int32_t apply_scale_32(int32_t v, int32_t m, int s) {
  int64_t round = int64_t(1) << (s - 1);
  if (s > 31) round += v >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  return int32_t((int64_t(v) * m + round) >> s);
}

std::vector<float> reference(const std::vector<float>& x) {
  std::vector<int8_t> q(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float inv = 1.0f / kInScale;
    int32_t v = kInZp + int32_t(std::nearbyint(inv * x[i]));
    q[i] = int8_t(std::clamp(v, -128, 127));
  }
  auto w = weights();
  auto b = bias();
  auto m = multipliers();
  auto s = shifts();
  std::vector<int8_t> relu(H * W * OC);
  for (int oy = 0; oy < H; ++oy)
    for (int ox = 0; ox < W; ++ox)
      for (int oc = 0; oc < OC; ++oc) {
        int32_t acc = b[size_t(oc)];
        for (int ky = 0; ky < K; ++ky)
          for (int kx = 0; kx < K; ++kx) {
            int iy = oy - 1 + ky, ix = ox - 1 + kx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int ic = 0; ic < C; ++ic)
              acc += (q[size_t((iy * W + ix) * C + ic)] - kInZp) * w[size_t(((oc * K + ky) * K + kx) * C + ic)];
          }
        int32_t r = apply_scale_32(acc, m[size_t(oc)], s[size_t(oc)]) + kOutZp;
        r = std::clamp(r, -128, 127);
        relu[size_t((oy * W + ox) * OC + oc)] = int8_t(std::max(r, kOutZp));
      }
  std::vector<float> out((H / 2) * (W / 2) * OC);
  for (int oy = 0; oy < H / 2; ++oy)
    for (int ox = 0; ox < W / 2; ++ox)
      for (int oc = 0; oc < OC; ++oc) {
        int v = -128;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) v = std::max(v, int(relu[size_t(((2 * oy + dy) * W + 2 * ox + dx) * OC + oc)]));
        out[size_t((oy * (W / 2) + ox) * OC + oc)] = float(v - kOutZp) * kOutScale;
      }
  return out;
}

// The program: cortex_m quantize -> VgfBackend(int8 graph) -> cortex_m dequantize.
Result<std::vector<uint8_t>> build_program() {
  VKRT_ASSIGN_OR_RETURN(auto vgf, write_graph_vgf(int8_network()));

  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {1, H, W, C});
  int32_t q = m.add_planned_tensor(ScalarType::Char, {1, H, W, C});
  int32_t y8 = m.add_planned_tensor(ScalarType::Char, {1, H / 2, W / 2, OC});
  int32_t y = m.add_planned_tensor(ScalarType::Float, {1, H / 2, W / 2, OC});
  int32_t in_scale = m.add_double(kInScale), in_zp = m.add_int(kInZp);
  int32_t out_scale = m.add_double(kOutScale), out_zp = m.add_int(kOutZp);
  int32_t qmin = m.add_int(-128), qmax = m.add_int(127), dtype = m.add_int(int(ScalarType::Char));
  m.add_kernel_call("cortex_m::quantize_per_tensor.out", {x, in_scale, in_zp, qmin, qmax, dtype, q, q});
  int32_t delegate = m.add_delegate("VgfBackend", vgf);
  m.add_delegate_call(delegate, {q, y8});
  m.add_kernel_call("cortex_m::dequantize_per_tensor.out", {y8, out_scale, out_zp, qmin, qmax, dtype, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  return program.build();
}

std::vector<float> test_input() {
  std::vector<float> input(H * W * C);
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(int(i * 37 % 101) - 50) * 0.07f;
  return input;
}

TEST(VgfPte, QuantizeDelegateDequantizeProgram) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();

  LoadOptions options;
  options.backend_options.set("VgfBackend.executor", "cpu");
  auto module = Module::load_from_buffer(*bytes, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();

  std::vector<float> input = test_input();
  const int32_t sizes[4] = {1, H, W, C};
  auto t = Tensor::make(ScalarType::Float, sizes, input.data());
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&*t)).is_ok());
  Status st = (*method)->execute();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  const Tensor& out = (*method)->output(0).to_tensor();
  ASSERT_EQ(out.numel(), H / 2 * W / 2 * OC);
  std::vector<float> expected = reference(input);
  int nonzero = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_FLOAT_EQ(out.data_as<float>()[i], expected[i]) << "element " << i;
    nonzero += expected[i] != 0.0f;
  }
  EXPECT_GT(nonzero, 10);  // the reference exercises more than the ReLU floor
}

// VgfBackend parses its options once at init (parse_vgf_options): an unknown VgfBackend.* key
// or a malformed value fails the load naming it; other backends' keys are not its business.
TEST(VgfPte, BackendOptionsAreCheckedAtInit) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto load = [&](const std::string& key, const std::string& value) -> Status {
    LoadOptions options;
    options.backend_options.set("VgfBackend.executor", "cpu");
    options.backend_options.set("EthosUBackend.some_option", "anything");
    options.backend_options.set(key, value);
    auto module = Module::load_from_buffer(*bytes, options);
    if (!module.ok()) return module.status();
    auto method = (*module)->load_method("forward");
    return method.ok() ? Status::ok() : method.status();
  };
  EXPECT_TRUE(load("VgfBackend.profile", "on").is_ok());
  Status unknown = load("VgfBackend.profle", "1");
  EXPECT_EQ(unknown.code(), Error::InvalidArgument) << unknown.to_string();
  EXPECT_NE(unknown.message().find("VgfBackend.profle"), std::string::npos) << unknown.message();
  Status malformed = load("VgfBackend.fusion", "yes");
  EXPECT_EQ(malformed.code(), Error::InvalidArgument) << malformed.to_string();
  EXPECT_NE(malformed.message().find("VgfBackend.fusion=\"yes\""), std::string::npos) << malformed.message();
}

// The cpu executor counts what it allocates at prepare in the load's memory budget, before it
// allocates it: the CONV2D's weights packed for the GEMM, then the kernel scratch sized for the
// method's threads. A budget that covers everything but the packed weights fails the load with
// MemoryAllocationFailed naming them; the exact budget loads and runs with the outputs of the
// default one; the method's load stats count both.
TEST(VgfPte, CpuExecutorCountsPackedWeightsAndScratchInTheBudget) {
  // What the executor reserves, measured on a budget of its own (the intermediates are the
  // ModelRunner's to count, not the executor's).
  const Graph graph = int8_network();
  const Op& conv = graph.ops[0];
  ASSERT_EQ(conv.kind, OpKind::CONV2D);
  auto constant = [&](TensorId t) {
    const TensorInfo& info = graph.tensors[t];
    return tosa::TensorRef{info.dtype, info.shape, const_cast<uint8_t*>(info.constant_bytes().data())};
  };
  const uint64_t packed =
      tosa::conv2d_packed_weights_bytes(constant(conv.inputs[1]), constant(conv.inputs[2]), std::get<ConvAttr>(conv.attr));
  MemoryBudget own(UINT64_MAX);
  ExecutorOptions eo;
  eo.memory_budget = &own;
  std::unique_ptr<GraphExecutor> exec = make_cpu_executor();
  ASSERT_TRUE(exec->prepare(graph, eo).is_ok());
  ASSERT_GE(own.used(), packed);
  const uint64_t scratch = own.used() - packed;
  EXPECT_GT(scratch, 0u);  // the fused CONV2D -> RESCALE -> CLAMP bands
  // A static graph's run allocates nothing more.
  std::vector<int8_t> x(H * W * C, 5), y(H / 2 * W / 2 * OC);
  const int32_t in_sizes[4] = {1, H, W, C}, out_sizes[4] = {1, H / 2, W / 2, OC};
  Tensor xt = *Tensor::make(ScalarType::Char, in_sizes, x.data()), yt = *Tensor::make(ScalarType::Char, out_sizes, y.data());
  const Tensor* ins[] = {&xt};
  Tensor* outs[] = {&yt};
  const uint64_t after_prepare = own.used();
  ASSERT_TRUE(exec->run(ins, outs, nullptr).is_ok());
  EXPECT_EQ(own.used(), after_prepare);
  if (packed > 0) {
    MemoryBudget short_of_weights(packed - 1);
    eo.memory_budget = &short_of_weights;
    Status s = make_cpu_executor()->prepare(graph, eo);
    EXPECT_EQ(s.code(), Error::MemoryAllocationFailed) << s.to_string();
    EXPECT_NE(s.message().find("VGF cpu executor: op 0 (CONV2D) packed weights"), std::string::npos) << s.message();
    EXPECT_EQ(short_of_weights.used(), 0u);
  }
  MemoryBudget short_of_scratch(packed + scratch - 1);
  eo.memory_budget = &short_of_scratch;
  Status s = make_cpu_executor()->prepare(graph, eo);
  EXPECT_EQ(s.code(), Error::MemoryAllocationFailed) << s.to_string();
  EXPECT_NE(s.message().find("VGF cpu executor: kernel scratch (1 thread)"), std::string::npos) << s.message();

  // The program, through a method's budget.
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  struct Loaded {
    Status status;
    uint64_t budgeted = 0;
    std::vector<float> output;
  };
  auto load_and_run = [&](uint64_t budget) {
    Loaded r;
    LoadOptions options;
    options.backend_options.set("VgfBackend.executor", "cpu");
    options.memory_budget_bytes = budget;
    auto module = Module::load_from_buffer(*bytes, options);
    if (!module.ok()) {
      r.status = module.status();
      return r;
    }
    auto method = (*module)->load_method("forward");
    if (!method.ok()) {
      r.status = method.status();
      return r;
    }
    r.budgeted = (*method)->load_stats().budgeted_bytes;
    std::vector<float> input = test_input();
    const int32_t sizes[4] = {1, H, W, C};
    auto t = Tensor::make(ScalarType::Float, sizes, input.data());
    r.status = (*method)->set_input(0, EValue::from_tensor(&*t));
    if (r.status.is_ok()) r.status = (*method)->execute();
    if (!r.status.is_ok()) return r;
    const Tensor& out = (*method)->output(0).to_tensor();
    r.output.assign(out.data_as<float>(), out.data_as<float>() + out.numel());
    return r;
  };
  const Loaded by_default = load_and_run(0);
  ASSERT_TRUE(by_default.status.is_ok()) << by_default.status.to_string();
  EXPECT_EQ(by_default.output.size(), size_t(H / 2 * W / 2 * OC));
  const uint64_t total = by_default.budgeted;
  EXPECT_GE(total, packed + scratch + uint64_t(H * W * OC * 4));  // and the segment's intermediates
  const Loaded exact = load_and_run(total);
  ASSERT_TRUE(exact.status.is_ok()) << exact.status.to_string();
  EXPECT_EQ(exact.budgeted, total);
  EXPECT_EQ(exact.output, by_default.output);
  const Loaded no_scratch = load_and_run(total - 1);
  EXPECT_EQ(no_scratch.status.code(), Error::MemoryAllocationFailed) << no_scratch.status.to_string();
  EXPECT_NE(no_scratch.status.message().find("VGF cpu executor: kernel scratch"), std::string::npos)
      << no_scratch.status.message();
  if (packed == 0) GTEST_SKIP() << "no packed form of int8 weights at this CPU's ISA level";
  const Loaded no_weights = load_and_run(total - scratch - 1);  // everything but one byte of the packed weights
  EXPECT_EQ(no_weights.status.code(), Error::MemoryAllocationFailed) << no_weights.status.to_string();
  EXPECT_NE(no_weights.status.message().find("VGF cpu executor: op 0 (CONV2D) packed weights"), std::string::npos)
      << no_weights.status.message();
}

// Scratch a run needs past what prepare sized for (here three threads where prepare was told of
// one) is counted when it grows; a budget without room for it fails that run, naming it. Told of
// the three threads at prepare, the executor sizes it then and the run adds nothing.
TEST(VgfPte, CpuExecutorCountsScratchGrowthAtRun) {
  Graph graph = int8_network();
  for (TensorInfo& t : graph.tensors) {
    // 128x128: the convolution's 16384 output pixels are 16 bands of 1024 (its sums' cache size)
    // on one thread or three: no fewer than four bands per thread, so the bands do not shrink
    // when there are more threads, and each thread's scratch adds to the total.
    if (!t.is_constant) t.shape[1] *= 16, t.shape[2] *= 16;
  }
  ThreadPool pool(3);
  if (pool.num_threads() < 3) GTEST_SKIP() << "the pool started " << pool.num_threads() << " threads";
  KernelContext three_threads(nullptr, &pool);
  std::vector<int8_t> x(size_t(128 * 128 * C), 5), y(size_t(64 * 64 * OC));
  const int32_t in_sizes[4] = {1, 128, 128, C}, out_sizes[4] = {1, 64, 64, OC};
  Tensor xt = *Tensor::make(ScalarType::Char, in_sizes, x.data()), yt = *Tensor::make(ScalarType::Char, out_sizes, y.data());
  const Tensor* ins[] = {&xt};
  Tensor* outs[] = {&yt};
  auto prepare = [&](MemoryBudget& budget, int threads) {
    ExecutorOptions eo;
    eo.memory_budget = &budget;
    eo.num_threads = threads;
    std::unique_ptr<GraphExecutor> exec = make_cpu_executor();
    EXPECT_TRUE(exec->prepare(graph, eo).is_ok());
    return exec;
  };

  MemoryBudget told_of_three(UINT64_MAX);
  auto exec = prepare(told_of_three, 3);
  const uint64_t for_three = told_of_three.used();
  ASSERT_TRUE(exec->run(ins, outs, &three_threads).is_ok());
  EXPECT_EQ(told_of_three.used(), for_three);
  const std::vector<int8_t> want = y;

  MemoryBudget told_of_one(UINT64_MAX);
  exec = prepare(told_of_one, 1);
  const uint64_t for_one = told_of_one.used();
  EXPECT_LT(for_one, for_three);  // a band's sums and GEMM scratch per thread
  std::fill(y.begin(), y.end(), int8_t(0));
  ASSERT_TRUE(exec->run(ins, outs, &three_threads).is_ok());
  EXPECT_EQ(told_of_one.used(), for_three);  // the growth, counted at the run
  EXPECT_EQ(y, want);

  MemoryBudget no_room(for_one);
  exec = prepare(no_room, 1);
  Status s = exec->run(ins, outs, &three_threads);
  EXPECT_EQ(s.code(), Error::MemoryAllocationFailed) << s.to_string();
  EXPECT_NE(s.message().find("VGF cpu executor: kernel scratch (3 threads)"), std::string::npos) << s.message();
  ASSERT_TRUE(exec->run(ins, outs, nullptr).is_ok());  // one thread: what prepare sized
  EXPECT_EQ(y, want);
}

#ifdef VKRT_EXECUTOR_RUNNER
// executor_runner as the build made it, or as VKRT_TEST_EXECUTOR_RUNNER names it (scripts/gpu-kit.sh).
const std::string kRunner = testing::tool_command(VKRT_EXECUTOR_RUNNER, "VKRT_TEST_EXECUTOR_RUNNER");

// The same program as a file through executor_runner, as a user runs it, on the CPU executor
// and on the Vulkan executor when a device exists (lavapipe in CI): both must give exactly the
// bytes of the reference network.
TEST(VgfPte, ExecutorRunnerCpuAndVulkanMatchReference) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string dir = ::testing::TempDir();
  const std::string pte = dir + "vkrt_vgf_int8.pte", in = dir + "vkrt_vgf_int8_in.bin";
  ASSERT_TRUE(write_bytes_to_file(pte, *bytes).is_ok());
  std::vector<float> input = test_input();
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size() * 4));
  std::vector<float> expected = reference(input);
  for (const char* executor : {"cpu", "vulkan"}) {
    const std::string out = dir + "vkrt_vgf_int8_out_" + executor;
    const testing::CommandResult run = testing::run_command(kRunner + " " + pte + " --inputs " +
                                                            in + " --output_file " + out + " --vgf_executor " + executor +
                                                            " --profile");
    const std::string& log = run.out;
    if (std::string(executor) == "vulkan" && testing::vulkan_unavailable(log)) {
      GTEST_LOG_(INFO) << "no Vulkan device; skipping the Vulkan run: " << log;
      continue;
    }
    ASSERT_EQ(run.exit_code, 0) << executor << ": " << log;
    if (std::string(executor) == "vulkan") {  // --profile lists the fused GPU dispatches with their device times
      EXPECT_NE(log.find("CONV2D+RESCALE+CLAMP"), std::string::npos) << log;
    } else {  // and the CPU executor's kernel calls: the CONV2D chain fused, the rest one by one
      EXPECT_NE(log.find("CONV2D+RESCALE"), std::string::npos) << log;
      EXPECT_NE(log.find("MAX_POOL2D [cpu]"), std::string::npos) << log;
    }
    std::ifstream result(out + "-0.bin", std::ios::binary);
    std::vector<float> got(expected.size());
    result.read(reinterpret_cast<char*>(got.data()), std::streamsize(got.size() * 4));
    ASSERT_EQ(result.gcount(), std::streamsize(got.size() * 4)) << executor;
    EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * 4), 0) << executor << " differs from the reference";
  }
}

// The output of `cmd` (stdout and stderr), its exit status in *exit_code.
std::string run_command(const std::string& cmd, int* exit_code) {
  testing::CommandResult r = testing::run_command(cmd);
  *exit_code = r.exit_code;
  return r.out;
}

// With no Vulkan driver at all (the loader pointed at a missing ICD file), the default "auto"
// runs the delegate on the CPU executor with one line saying so, and "vulkan" is an error.
TEST(VgfPte, NoVulkanDeviceRunsOnTheCpuWithANotice) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string pte = ::testing::TempDir() + "vkrt_vgf_int8_nodevice.pte";
  ASSERT_TRUE(write_bytes_to_file(pte, *bytes).is_ok());
  const std::string no_driver = "VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json ";
  int code = -1;
  std::string demanded = run_command(no_driver + kRunner + " " + pte + " --vgf_executor vulkan", &code);
  if (demanded.find("no Vulkan driver") == std::string::npos &&
      demanded.find("Vulkan loader (libvulkan.so.1) not found") == std::string::npos)
    GTEST_SKIP() << "executor_runner has no Vulkan executor: " << demanded;
  EXPECT_EQ(code, 1) << demanded;
  std::string automatic = run_command(no_driver + kRunner + " " + pte, &code);
  EXPECT_EQ(code, 0) << automatic;
  // One line names the executor that ran the segment, and why auto chose it.
  EXPECT_NE(automatic.find("vkrt: VgfBackend segment 'graph_segment_0' (GRAPH): cpu (no usable Vulkan device: "),
            std::string::npos)
      << automatic;
  EXPECT_NE(automatic.find("Model executed successfully"), std::string::npos) << automatic;
}

// --vgf_executor auto (the default) does what --help says: where the only Vulkan device is a CPU
// implementation (lavapipe), the segment runs on the CPU executor, unless --device names that
// device; --vgf_executor vulkan runs it there. One stderr line per segment says which.
TEST(VgfPte, AutoPrefersTheCpuExecutorOverACpuVulkanDevice) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string pte = ::testing::TempDir() + "vkrt_vgf_int8_auto.pte";
  ASSERT_TRUE(write_bytes_to_file(pte, *bytes).is_ok());
  int code = -1;
  const std::string runner = kRunner + " " + pte + " --print_output none";
  const std::string on_vulkan = run_command(runner + " --vgf_executor vulkan", &code);
  const std::string marker = "vkrt: VgfBackend segment 'graph_segment_0' (GRAPH): vulkan on ";
  const size_t at = on_vulkan.find(marker);
  if (code != 0 || at == std::string::npos) GTEST_SKIP() << "no Vulkan device here: " << on_vulkan;
  const std::string device = on_vulkan.substr(at + marker.size(), on_vulkan.find('\n', at) - at - marker.size());
  const bool cpu_device = device.find("llvmpipe") != std::string::npos;

  // VKRT_VULKAN_DEVICE names a device as --device does (the GPU kit's rehearsal on lavapipe sets
  // it), so the automatic choice runs without it.
  const std::string automatic = run_command("env -u VKRT_VULKAN_DEVICE " + runner, &code);
  EXPECT_EQ(code, 0) << automatic;
  if (cpu_device) {
    EXPECT_NE(automatic.find("vkrt: VgfBackend segment 'graph_segment_0' (GRAPH): cpu (the Vulkan device, " + device +
                             ", is a CPU implementation"),
              std::string::npos)
        << automatic;
    const std::string named = run_command(runner + " --device llvmpipe", &code);
    EXPECT_EQ(code, 0) << named;
    EXPECT_NE(named.find(marker + device), std::string::npos) << named;
  } else {
    EXPECT_NE(automatic.find(marker + device), std::string::npos) << automatic;
  }
}

// --compare_with_cpu runs the program a second time with the segment on the CPU executor and
// compares: on Vulkan (lavapipe in CI) the int8 network's dequantized outputs must be the same
// floats, with zero tolerance; where no device exists both runs are on the CPU and agree too.
TEST(VgfPte, ExecutorRunnerComparesWithTheCpuExecutor) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string pte = ::testing::TempDir() + "vkrt_vgf_int8_compare.pte";
  ASSERT_TRUE(write_bytes_to_file(pte, *bytes).is_ok());
  int code = -1;
  const std::string command = kRunner + " " + pte +
                              " --compare_with_cpu --bundleio_rtol 0 --bundleio_atol 0 --print_output none";
  // On Vulkan where a device exists (auto would choose the CPU executor on lavapipe).
  std::string log = run_command(command + " --vgf_executor vulkan", &code);
  if (code != 0 && log.find("Compared with the CPU executor") == std::string::npos) {
    std::printf("no Vulkan device: comparing the CPU executor with itself (%s)\n", log.c_str());
    log = run_command(command, &code);
  } else {
    EXPECT_NE(log.find("(GRAPH): vulkan on "), std::string::npos) << log;
  }
  EXPECT_EQ(code, 0) << log;
  EXPECT_NE(log.find("Compared with the CPU executor (VgfBackend.executor=cpu; floats within atol 0 + rtol 0):\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Output 0: same values (" + std::to_string(reference(test_input()).size()) + " elements)\n"),
            std::string::npos)
      << log;
}

// --etdump_path on each executor: the delegate call's own steps are in the ETDump between the
// cortex_m kernels' events, with their ids: the CPU executor's TOSA ops one by one, the Vulkan
// executor's fused dispatches with their shader variant (docs/etdump.md).
TEST(VgfPte, EtdumpOnEachExecutor) {
  auto bytes = build_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string pte = ::testing::TempDir() + "vkrt_vgf_int8_etdump.pte";
  ASSERT_TRUE(write_bytes_to_file(pte, *bytes).is_ok());
  for (const char* executor : {"cpu", "vulkan"}) {
    const std::string etdp = ::testing::TempDir() + "vkrt_vgf_int8_" + executor + ".etdp";
    int code = -1;
    std::string log = run_command(kRunner + " " + pte + " --vgf_executor " + executor +
                                      " --etdump_path " + etdp + " --print_output none",
                                  &code);
    if (std::string(executor) == "vulkan" && code != 0 && testing::vulkan_unavailable(log)) {
      GTEST_LOG_(INFO) << "no Vulkan device; skipping the Vulkan run: " << log;
      continue;
    }
    ASSERT_EQ(code, 0) << executor << ": " << log;
    Etdump etdump = testing::read_etdump_file(etdp);
    ASSERT_EQ(etdump.runs.size(), 2u) << executor;
    testing::expect_load_run(etdump.runs[0]);
    const EtdumpRun& exec = etdump.runs[1];
    testing::expect_execute_run(exec);
    EXPECT_EQ(testing::runtime_event_names(exec),
              (std::vector<std::string>{"native_call_quantize_per_tensor.out", "OPERATOR_CALL", "DELEGATE_CALL",
                                        "native_call_dequantize_per_tensor.out", "OPERATOR_CALL",
                                        "Method::execute"}))
        << executor;
    std::vector<std::string> steps;
    for (const EtdumpEvent* e : testing::delegate_events(exec)) {
      EXPECT_EQ(e->instruction_id, 1);
      EXPECT_TRUE(e->name.empty()) << e->name;
      EXPECT_GT(e->end_time, e->start_time) << e->delegate_debug_id_str;
      steps.push_back(e->delegate_debug_id_str);
    }
    const auto has = [&](const std::string& what) {
      return std::any_of(steps.begin(), steps.end(), [&](const std::string& s) { return s.find(what) == 0; });
    };
    if (std::string(executor) == "cpu") {
      EXPECT_TRUE(has("CONV2D+RESCALE") && has("MAX_POOL2D [cpu]")) << log;
    } else {
      EXPECT_TRUE(has("CONV2D+RESCALE+CLAMP [")) << log;  // a fused dispatch, with its shader variant
      EXPECT_EQ(steps.front(), "VGF_COPY_INPUTS");         // and the host steps, as upstream names them
      ASSERT_GE(steps.size(), 4u);
      EXPECT_EQ(steps[steps.size() - 2], "VGF_QUEUE_SUBMIT_AND_WAIT_FENCE");
      EXPECT_EQ(steps.back(), "VGF_COPY_OUTPUTS");
    }
    const std::string json = testing::flatc_json(etdp);  // and flatc with the transcribed schema
    EXPECT_NE(json.find("\"name\": \"DELEGATE_CALL\""), std::string::npos) << json;
    EXPECT_NE(json.find(std::string("\"delegate_debug_id_str\": \"") +
                        (std::string(executor) == "cpu" ? "CONV2D+RESCALE" : "VGF_COPY_INPUTS")),
              std::string::npos)
        << json;
  }
}
#endif

#ifdef VKRT_HAVE_VGF_SAMPLES
// The sample programs make_sample_programs writes (examples/vgf_samples.h), at 32x32 so the CPU
// executor is quick: they load, run on the CPU executor, and where a Vulkan device exists give
// the same results there. The input is a fixed ramp in the input's own type (int8, int16 from
// 0, float around 0); the output comes back as its bytes.
struct SampleOutput {
  ScalarType dtype = ScalarType::Char;
  int64_t numel = 0;
  std::vector<uint8_t> bytes;
  template <typename T>
  std::vector<T> as() const {
    std::vector<T> v(static_cast<size_t>(numel));
    if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
};

// `steps`: the delegate's profile step names of the run ("CONV2D+RESCALE [cpu]", ...).
SampleOutput run_sample(const std::vector<uint8_t>& pte, const char* executor, std::string* skip, int threads = 1,
                        std::vector<std::string>* steps = nullptr) {
  LoadOptions options;
  options.backend_options.set("VgfBackend.executor", executor);
  if (steps) options.backend_options.set("VgfBackend.profile", "1");
  options.num_threads = threads;
  auto module = Module::load_from_buffer(pte, options);
  if (!module.ok()) {
    *skip = module.status().to_string();
    return {};
  }
  auto method = (*module)->load_method("forward");
  if (!method.ok()) {
    *skip = method.status().to_string();
    return {};
  }
  const ValueInfo& in = (*method)->meta().inputs.at(0);
  Tensor t = *Tensor::make(in.dtype, in.sizes, nullptr);
  std::vector<uint8_t> input(t.nbytes());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int ramp = int(i * 37 % 251) - 125;
    if (in.dtype == ScalarType::Char) reinterpret_cast<int8_t*>(input.data())[i] = int8_t(ramp);
    if (in.dtype == ScalarType::Short) reinterpret_cast<int16_t*>(input.data())[i] = int16_t((ramp + 125) * 4);
    if (in.dtype == ScalarType::Float) reinterpret_cast<float*>(input.data())[i] = float(ramp) / 64.0f;
  }
  t = *Tensor::make(in.dtype, in.sizes, input.data());
  EXPECT_TRUE((*method)->set_input(0, EValue::from_tensor(&t)).is_ok());
  (*method)->set_profiling(steps != nullptr);
  Status st = (*method)->execute();
  EXPECT_TRUE(st.is_ok()) << executor << ": " << st.to_string();
  if (steps)
    for (const auto& instruction : (*method)->profile())
      for (const auto& step : instruction.delegate_steps) steps->push_back(step.name);
  const Tensor& out = (*method)->output(0).to_tensor();
  EXPECT_EQ(out.sizes().size(), 2u);
  const auto* data = static_cast<const uint8_t*>(out.data());
  return {out.dtype(), out.numel(), std::vector<uint8_t>(data, data + out.nbytes())};
}

TEST(VgfPte, MobileNetV2SampleSameOnCpuAndVulkan) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 32);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  SampleOutput cpu = run_sample(*pte, "cpu", &why);
  ASSERT_EQ(cpu.numel, 1000) << why;
  const std::vector<int8_t> logits = cpu.as<int8_t>();
  EXPECT_GT(std::set<int8_t>(logits.begin(), logits.end()).size(), 10u);  // not a constant output
  SampleOutput gpu = run_sample(*pte, "vulkan", &why);
  if (gpu.bytes.empty()) GTEST_SKIP() << "no Vulkan executor here: " << why;
  EXPECT_EQ(gpu.bytes, cpu.bytes);
}

// The VGF FP32 recipe's sample: finite, varied logits, the same within float tolerance on both
// executors (their summation orders differ).
TEST(VgfPte, MobileNetV2Fp32SampleOnCpuAndVulkan) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 32, samples::Precision::Fp32);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  SampleOutput cpu = run_sample(*pte, "cpu", &why);
  ASSERT_EQ(cpu.numel, 1000) << why;
  ASSERT_EQ(cpu.dtype, ScalarType::Float);
  const std::vector<float> logits = cpu.as<float>();
  float largest = 0;
  for (float v : logits) {
    ASSERT_TRUE(std::isfinite(v));
    largest = std::max(largest, std::fabs(v));
  }
  EXPECT_GT(std::set<float>(logits.begin(), logits.end()).size(), 900u);
  EXPECT_GT(largest, 1e-3f);
  EXPECT_LT(largest, 1e6f);
  SampleOutput gpu = run_sample(*pte, "vulkan", &why);
  if (gpu.bytes.empty()) GTEST_SKIP() << "no Vulkan executor here: " << why;
  const std::vector<float> on_gpu = gpu.as<float>();
  for (size_t i = 0; i < logits.size(); ++i)
    EXPECT_NEAR(on_gpu[i], logits[i], 1e-3f * largest) << "logit " << i;
}

// The TOSA A16W8 recipe's sample (int16 activations, int8 weights, int48 accumulators): varied,
// unsaturated logits, bit for bit the same on both executors.
TEST(VgfPte, SmallCnnA16W8SampleSameOnCpuAndVulkan) {
  auto pte = samples::small_cnn_vgf_program(samples::Precision::A16W8);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  SampleOutput cpu = run_sample(*pte, "cpu", &why);
  ASSERT_EQ(cpu.numel, 10) << why;
  ASSERT_EQ(cpu.dtype, ScalarType::Short);
  const std::vector<int16_t> logits = cpu.as<int16_t>();
  EXPECT_GT(std::set<int16_t>(logits.begin(), logits.end()).size(), 5u);
  for (int16_t v : logits) EXPECT_TRUE(v > INT16_MIN && v < INT16_MAX) << "saturated logit " << v;
  SampleOutput gpu = run_sample(*pte, "vulkan", &why);
  if (gpu.bytes.empty()) GTEST_SKIP() << "no Vulkan executor here: " << why;
  EXPECT_EQ(gpu.bytes, cpu.bytes);
}

// At 96x96 the larger convolutions and requantizations are split over the method's threads
// (LoadOptions::num_threads): the same bytes as on one thread.
TEST(VgfPte, MobileNetV2SampleSameOnOneAndThreeCpuThreads) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 96);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  SampleOutput one = run_sample(*pte, "cpu", &why, 1);
  ASSERT_EQ(one.numel, 1000) << why;
  const std::vector<int8_t> logits = one.as<int8_t>();
  EXPECT_GT(std::set<int8_t>(logits.begin(), logits.end()).size(), 10u);
  EXPECT_EQ(run_sample(*pte, "cpu", &why, 3).bytes, one.bytes) << why;
}

// The CPU executor runs (DEPTHWISE_)CONV2D -> RESCALE (-> CLAMP) as one kernel unless VKRT_CPU_FUSION=0: the
// same bytes either way, on one thread and on three; a value other than 0 or 1 is refused.
TEST(VgfPte, MobileNetV2SampleSameFusedAndUnfused) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 96);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  const SampleOutput fused = run_sample(*pte, "cpu", &why, 1);
  ASSERT_EQ(fused.numel, 1000) << why;
  ::setenv("VKRT_CPU_FUSION", "0", 1);
  const SampleOutput unfused = run_sample(*pte, "cpu", &why, 1), unfused3 = run_sample(*pte, "cpu", &why, 3);
  ::setenv("VKRT_CPU_FUSION", "yes", 1);
  std::string refused;
  const SampleOutput bad = run_sample(*pte, "cpu", &refused, 1);
  ::unsetenv("VKRT_CPU_FUSION");
  EXPECT_EQ(unfused.bytes, fused.bytes) << why;
  EXPECT_EQ(unfused3.bytes, fused.bytes) << why;
  EXPECT_TRUE(bad.bytes.empty());
  EXPECT_NE(refused.find("VKRT_CPU_FUSION must be 0 or 1"), std::string::npos) << refused;
}

// The network with single-rounding RESCALEs (ExecuTorch's Arm backend's form): each convolution's
// RESCALE is then the engine's one-rounding output stage; the same bytes as the ops in turn
// (VKRT_CPU_FUSION=0, the reference RESCALE), on one thread and three, and as the Vulkan
// executor's where there is one.
TEST(VgfPte, MobileNetV2SingleRoundingSampleSameFusedUnfusedAndOnVulkan) {
  samples::MobileNetV2Options options;
  options.resolution = 64;
  options.single_round = true;
  auto pte = samples::mobilenet_v2_vgf_program(options);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  const SampleOutput fused = run_sample(*pte, "cpu", &why, 1), fused3 = run_sample(*pte, "cpu", &why, 3);
  ASSERT_EQ(fused.numel, 1000) << why;
  const std::vector<int8_t> logits = fused.as<int8_t>();
  EXPECT_GT(std::set<int8_t>(logits.begin(), logits.end()).size(), 10u);
  ::setenv("VKRT_CPU_FUSION", "0", 1);
  const SampleOutput unfused = run_sample(*pte, "cpu", &why, 1);
  ::unsetenv("VKRT_CPU_FUSION");
  EXPECT_EQ(unfused.bytes, fused.bytes) << why;
  EXPECT_EQ(fused3.bytes, fused.bytes) << why;
  // Not the double-rounding network's bytes: the rounding reached the outputs.
  EXPECT_NE(run_sample(*samples::mobilenet_v2_vgf_program(1, 64), "cpu", &why, 1).bytes, fused.bytes);
  SampleOutput gpu = run_sample(*pte, "vulkan", &why);
  if (gpu.bytes.empty()) GTEST_SKIP() << "no Vulkan executor here: " << why;
  EXPECT_EQ(gpu.bytes, fused.bytes);
}

// The sample's ten residual adds (RESCALE, RESCALE -> ADD -> RESCALE each) run as one kernel each on
// the CPU executor, and as their thirty RESCALEs and ten ADDs with VKRT_CPU_FUSION=0 (the bytes are
// compared in the test above).
TEST(VgfPte, MobileNetV2SampleFusesItsResidualAdds) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 64);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  auto count = [](const std::vector<std::string>& steps, const std::string& name) {
    return std::count(steps.begin(), steps.end(), name);
  };
  std::vector<std::string> fused, unfused;
  ASSERT_EQ(run_sample(*pte, "cpu", &why, 1, &fused).numel, 1000) << why;
  ::setenv("VKRT_CPU_FUSION", "0", 1);
  ASSERT_EQ(run_sample(*pte, "cpu", &why, 1, &unfused).numel, 1000) << why;
  ::unsetenv("VKRT_CPU_FUSION");
  EXPECT_EQ(count(fused, "RESCALE+RESCALE+ADD+RESCALE [cpu]"), 10);
  EXPECT_EQ(count(fused, "RESCALE [cpu]") + count(fused, "ADD [cpu]"), 0);
  EXPECT_EQ(count(unfused, "RESCALE [cpu]"), 53 + 30);  // the 52 convolutions', the classifier's, the adds'
  EXPECT_EQ(count(unfused, "ADD [cpu]"), 10);
}

// The fp32 network's convolutions and their ReLU6 CLAMPs (CONV2D+CLAMP, DEPTHWISE_CONV2D+CLAMP):
// fused, the same bytes as the kernels one after the other, on one thread and on three.
TEST(VgfPte, MobileNetV2Fp32SampleSameFusedAndUnfused) {
  auto pte = samples::mobilenet_v2_vgf_program(1, 64, samples::Precision::Fp32);
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  std::string why;
  const SampleOutput fused = run_sample(*pte, "cpu", &why, 1), fused3 = run_sample(*pte, "cpu", &why, 3);
  ASSERT_EQ(fused.numel, 1000) << why;
  ::setenv("VKRT_CPU_FUSION", "0", 1);
  const SampleOutput unfused = run_sample(*pte, "cpu", &why, 1);
  ::unsetenv("VKRT_CPU_FUSION");
  EXPECT_EQ(unfused.bytes, fused.bytes) << why;
  EXPECT_EQ(fused3.bytes, fused.bytes) << why;
}
#endif

}  // namespace
}  // namespace vkrt::vgf
