// The end-to-end VGF sample: its SPIR-V graph reads into the IR described by its .spvasm text,
// and running it (CPU executor directly, and VgfBackend through the backend registry) on
// `_input_0.bin` reproduces `_expected_output_0.bin` byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <variant>

#include "common/conformance.h"
#include "vkrt/vgf.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/graph_vgf_writer.h"
#include "vgf/segment_graph.h"
#include "vgf/spirv/spirv_graph_reader.h"
#include "vkrt/backend.h"

namespace vkrt::vgf {
namespace {

using vkrt::testing::read_file;

struct Sample {
  std::vector<uint8_t> vgf, input, expected;
};

bool load_sample(Sample& s) {
  std::string dir = vkrt::testing::conformance_path("vgf/end-to-end");
  if (dir.empty()) return false;
  s.vgf = read_file(dir + "/conv2d_rescale_qi8.vgf");
  s.input = read_file(dir + "/conv2d_rescale_qi8_input_0.bin");
  s.expected = read_file(dir + "/conv2d_rescale_qi8_expected_output_0.bin");
  return !s.vgf.empty() && s.input.size() == 8192 && s.expected.size() == 16384;
}

TEST(VgfEndToEnd, SpirvGraphMatchesItsAssemblyText) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  auto file = decode_vgf(s.vgf);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto graph = build_segment_graph(*file, 0);
  ASSERT_TRUE(graph.ok()) << graph.status().to_string();
  const Graph& g = *graph;
  EXPECT_EQ(g.name, "graph_partition_0");
  ASSERT_EQ(g.ops.size(), 2u);
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.inputs[0].binding, 0u);
  EXPECT_EQ(g.inputs[0].mrt_index, 2u);
  EXPECT_EQ(g.outputs[0].binding, 1u);
  EXPECT_EQ(g.outputs[0].mrt_index, 3u);

  // %acc = CONV2D %pad(null) %ones2 %ones2 %uint_1 %false %in %weights %bias %zp8_0 %zp8_0
  const Op& conv = g.ops[0];
  EXPECT_EQ(conv.kind, OpKind::CONV2D);
  const auto& ca = std::get<ConvAttr>(conv.attr);
  EXPECT_EQ(ca.pad[0] + ca.pad[1] + ca.pad[2] + ca.pad[3], 0);
  EXPECT_EQ(ca.stride[0], 1);
  EXPECT_EQ(ca.stride[1], 1);  // replicated composite
  EXPECT_EQ(ca.dilation[1], 1);
  EXPECT_EQ(ca.acc_type, AccType::Int32);
  EXPECT_FALSE(ca.local_bound);
  EXPECT_EQ(ca.input_zp, 0);
  const TensorInfo& w = g.tensors[conv.inputs[1]];
  EXPECT_TRUE(w.is_constant);
  EXPECT_EQ(w.dtype, DType::Int8);
  EXPECT_EQ(w.shape, (std::vector<int64_t>{16, 1, 1, 8}));
  EXPECT_EQ(w.constant_bytes().size(), 128u);
  EXPECT_EQ(g.tensors[conv.inputs[2]].dtype, DType::Int32);
  EXPECT_EQ(g.tensors[conv.outputs[0]].dtype, DType::Int32);
  EXPECT_EQ(g.tensors[conv.outputs[0]].shape, (std::vector<int64_t>{1, 32, 32, 16}));

  // %out = RESCALE %true %uint_3 %true %false %false %acc %mult %shift %zp32_0 %ozp
  const Op& rs = g.ops[1];
  EXPECT_EQ(rs.kind, OpKind::RESCALE);
  EXPECT_EQ(rs.inputs[0], conv.outputs[0]);
  const auto& ra = std::get<RescaleAttr>(rs.attr);
  EXPECT_TRUE(ra.scale32);
  EXPECT_EQ(ra.rounding_mode, RoundingMode::DoubleRound);
  EXPECT_TRUE(ra.per_channel);
  EXPECT_FALSE(ra.input_unsigned);
  ASSERT_EQ(ra.multiplier.size(), 16u);
  EXPECT_EQ(ra.multiplier[0], 1767972394);
  EXPECT_EQ(ra.multiplier[15], 1711699793);
  ASSERT_EQ(ra.shift.size(), 16u);
  EXPECT_EQ(ra.shift[7], 40);
  EXPECT_EQ(ra.input_zp, 0);
  EXPECT_EQ(ra.output_zp, -2);  // OpConstant %uchar 254, sign-extended (§6.3)
  EXPECT_EQ(g.outputs[0].tensor, rs.outputs[0]);
}

TEST(VgfEndToEnd, CpuExecutorIsBitExact) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  auto file = decode_vgf(s.vgf);
  ASSERT_TRUE(file.ok());
  auto graph = build_segment_graph(*file, 0);
  ASSERT_TRUE(graph.ok()) << graph.status().to_string();
  auto exec = make_cpu_executor();
  Status prepared = exec->prepare(*graph, ExecutorOptions{});
  ASSERT_TRUE(prepared.is_ok()) << prepared.to_string();

  const int32_t in_sizes[4] = {1, 32, 32, 8};
  const int32_t out_sizes[4] = {1, 32, 32, 16};
  std::vector<uint8_t> out(16384, 0xAA);
  auto x = Tensor::make(ScalarType::Char, in_sizes, s.input.data());
  auto y = Tensor::make(ScalarType::Char, out_sizes, out.data());
  ASSERT_TRUE(x.ok() && y.ok());
  const Tensor* ins[1] = {&*x};
  Tensor* outs[1] = {&*y};
  for (int run = 0; run < 2; ++run) {  // prepared once, run twice
    std::fill(out.begin(), out.end(), uint8_t(0xAA));
    Status st = exec->run(ins, outs, nullptr);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    size_t mismatches = 0;
    for (size_t i = 0; i < out.size(); ++i) mismatches += out[i] != s.expected[i];
    EXPECT_EQ(mismatches, 0u) << "run " << run;
  }
}

// Minimal NamedDataMap for backend init.
class EmptyNamedData : public NamedDataMap {
 public:
  Result<std::span<const uint8_t>> get(std::string_view key) const override {
    return make_error(Error::NotFound, std::string(key));
  }
  size_t size() const override { return 0; }
  std::string_view key_at(size_t) const override { return {}; }
};

// The registered VgfBackend (registered first if needed).
Backend* vgf_backend() {
  register_vgf_backend();
  return BackendRegistry::global().find("VgfBackend");
}

// Initialises a delegate for `vgf` with VgfBackend.executor = `executor`; the notices and
// placement lines it gives go to `notices` / `placements` when given.
Result<std::unique_ptr<DelegateHandle>> init_delegate(Backend& backend, const std::vector<uint8_t>& vgf,
                                                      const char* executor,
                                                      std::vector<std::string>* notices = nullptr,
                                                      std::vector<std::string>* placements = nullptr) {
  EmptyNamedData named;
  BackendOptions options;
  options.set("VgfBackend.executor", executor);
  MemoryBudget budget(uint64_t(1) << 30);
  std::vector<std::string> local_notices, local_placements;
  BackendInitContext init{"forward", &named, &options, {}, &budget,
                          notices ? notices : &local_notices, placements ? placements : &local_placements};
  return backend.init(init, vgf, {});
}

// Runs the end-to-end sample through an initialised delegate into `out` (its 16384 bytes).
Status execute_sample(Backend& backend, DelegateHandle& handle, const Sample& s, std::vector<uint8_t>& out) {
  const int32_t in_sizes[4] = {1, 32, 32, 8};
  const int32_t out_sizes[4] = {1, 32, 32, 16};
  out.assign(16384, 0);
  auto x = Tensor::make(ScalarType::Char, in_sizes, const_cast<uint8_t*>(s.input.data()));
  auto y = Tensor::make(ScalarType::Char, out_sizes, out.data());
  if (!x.ok()) return x.status();
  if (!y.ok()) return y.status();
  EValue ex = EValue::from_tensor(&*x), ey = EValue::from_tensor(&*y);
  EValue* args[2] = {&ex, &ey};
  BackendExecuteContext ectx{"forward", nullptr};
  return backend.execute(ectx, handle, args);
}

TEST(VgfEndToEnd, VgfBackendThroughTheRegistry) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  Backend* backend = vgf_backend();
  ASSERT_NE(backend, nullptr);
  for (const char* executor : {"cpu", "auto"}) {
    auto handle = init_delegate(*backend, s.vgf, executor);
    ASSERT_TRUE(handle.ok()) << handle.status().to_string();
    std::vector<uint8_t> out;
    Status st = execute_sample(*backend, **handle, s, out);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    EXPECT_EQ(0, std::memcmp(out.data(), s.expected.data(), out.size())) << executor;

    // Wrong output type: a clear error, not a wrong result.
    const int32_t in_sizes[4] = {1, 32, 32, 8}, out_sizes[4] = {1, 32, 32, 16};
    std::vector<float> fout(16384);
    auto x = Tensor::make(ScalarType::Char, in_sizes, s.input.data());
    auto yf = Tensor::make(ScalarType::Float, out_sizes, fout.data());
    ASSERT_TRUE(x.ok() && yf.ok());
    EValue ex = EValue::from_tensor(&*x), eyf = EValue::from_tensor(&*yf);
    EValue* bad_args[2] = {&ex, &eyf};
    BackendExecuteContext ectx{"forward", nullptr};
    Status bad = backend->execute(ectx, **handle, bad_args);
    EXPECT_EQ(bad.code(), Error::InvalidArgument) << bad.to_string();
    backend->destroy(std::move(handle).value());
  }
}

// A "vulkan" executor that takes no graph, standing in for a device that cannot run a segment.
class RefusingExecutor final : public GraphExecutor {
 public:
  std::string_view name() const override { return "vulkan"; }
  Status prepare(const Graph&, const ExecutorOptions&) override {
    return make_error(Error::NotSupported, "test device: op 0 (CONV2D) has no shader here");
  }
  Status run(std::span<const Tensor* const>, std::span<Tensor* const>, KernelContext*) override {
    return make_error(Error::InvalidState, "never prepared");
  }
};

// VgfBackend.executor=auto: a segment the GPU executor refuses runs on the CPU executor, with a
// one-line notice naming the segment and the reason; executor=vulkan makes it an error.
TEST(VgfEndToEnd, AutoRunsRefusedSegmentsOnTheCpuWithANotice) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  if (has_executor_factory("vulkan")) GTEST_SKIP() << "a real Vulkan executor is linked into this test";
  ASSERT_TRUE(register_executor_factory("vulkan", [](const VgfOptions&) -> Result<std::unique_ptr<GraphExecutor>> {
                return std::unique_ptr<GraphExecutor>(new RefusingExecutor());
              }).is_ok());
  Sample s;
  ASSERT_TRUE(load_sample(s));
  Backend* backend = vgf_backend();
  ASSERT_NE(backend, nullptr);
  std::vector<std::string> notices, placements;
  auto handle = init_delegate(*backend, s.vgf, "auto", &notices, &placements);
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  ASSERT_EQ(notices.size(), 1u);  // one line per segment
  EXPECT_NE(notices[0].find("cannot run on vulkan (test device: op 0 (CONV2D) has no shader here); running it on the "
                            "CPU executor"),
            std::string::npos)
      << notices[0];
  // The placement line names the executor that ran the segment and why.
  ASSERT_EQ(placements.size(), 1u);
  EXPECT_NE(placements[0].find("(GRAPH): cpu (the vulkan executor cannot run it: test device"), std::string::npos)
      << placements[0];

  std::vector<uint8_t> out;
  ASSERT_TRUE(execute_sample(*backend, **handle, s, out).is_ok());
  EXPECT_EQ(0, std::memcmp(out.data(), s.expected.data(), out.size()));
  backend->destroy(std::move(handle).value());

  auto refused = init_delegate(*backend, s.vgf, "vulkan");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("has no shader here"), std::string::npos) << refused.status().message();
}

TEST(VgfEndToEnd, UnknownExecutorOptionIsAnError) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  Backend* backend = vgf_backend();
  ASSERT_NE(backend, nullptr);
  auto handle = init_delegate(*backend, s.vgf, "tpu");
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.error(), Error::InvalidArgument);
}

TEST(VgfEndToEnd, ComputeSegmentIsRejectedClearly) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  auto file = decode_vgf(s.vgf);
  ASSERT_TRUE(file.ok());
  VgfFile f = *file;
  f.segments[0].type = ModuleType::Compute;
  f.segments[0].dispatch_shape = {4, 4, 1};
  auto bytes = encode_vgf(f, VgfEncodeOptions{});
  ASSERT_TRUE(bytes.ok());
  auto again = decode_vgf(*bytes);  // the decoder accepts compute segments
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(again->segments[0].type, ModuleType::Compute);
  Backend* backend = vgf_backend();
  EmptyNamedData named;
  BackendOptions options;
  options.set("VgfBackend.executor", "cpu");
  MemoryBudget budget(uint64_t(1) << 30);
  std::vector<std::string> notices;
  std::vector<std::string> placements;
  BackendInitContext init{"forward", &named, &options, {}, &budget, &notices, &placements};
  auto handle = backend->init(init, *bytes, {});
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.error(), Error::NotSupported);
  EXPECT_NE(handle.status().message().find("segment 0 ('" + f.segments[0].name +
                                           "') is a COMPUTE segment (a SPIR-V compute shader): the cpu executor "
                                           "cannot run it"),
            std::string::npos)
      << handle.status().to_string();
}

// A VGF is a few KB whatever shapes it declares: a graph whose intermediate tensor would take
// 16 GiB fails at delegate init against the budget, before any executor allocates it.
TEST(VgfEndToEnd, IntermediatesPastTheMemoryBudgetFailAtInit) {
  Graph g;
  auto add_tensor = [&](const char* name) {
    TensorInfo info;
    info.name = name;
    info.dtype = DType::Int32;
    info.shape = {65536, 65536};
    return g.add_tensor(std::move(info));
  };
  const TensorId x = add_tensor("x"), t = add_tensor("t"), y = add_tensor("y");
  g.inputs.push_back({x, "x", 0, 0});
  g.ops.push_back(Op{OpKind::ADD, {x, x}, {t}, NoAttr{}, "add0"});
  g.ops.push_back(Op{OpKind::ADD, {t, t}, {y}, NoAttr{}, "add1"});
  g.outputs.push_back({y, "y", 1, 0});
  auto vgf = write_graph_vgf(g);
  ASSERT_TRUE(vgf.ok()) << vgf.status().to_string();
  EXPECT_LT(vgf->size(), 16384u);

  Backend* backend = vgf_backend();
  EmptyNamedData named;
  BackendOptions options;
  options.set("VgfBackend.executor", "cpu");
  MemoryBudget budget(uint64_t(1) << 30);
  std::vector<std::string> notices;
  std::vector<std::string> placements;
  BackendInitContext init{"forward", &named, &options, {}, &budget, &notices, &placements};
  auto handle = backend->init(init, *vgf, {});
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.error(), Error::MemoryAllocationFailed);
  EXPECT_NE(handle.status().message().find("intermediate tensors needs 17179869184 bytes (16.0 GiB)"),
            std::string::npos)
      << handle.status().to_string();
}

}  // namespace
}  // namespace vkrt::vgf
