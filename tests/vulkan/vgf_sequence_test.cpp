// Whole VGF model sequences, as ExecuTorch's VgfBackend runs them, in VGFs this test writes:
// GRAPH -> COMPUTE -> GRAPH with intermediate resources, alias groups joining a graph's tensor
// view and a shader's buffer view of one value, and an image model input read by a compute
// shader through a combined image sampler. Expected values are computed here by hand. The
// compute shaders (shaders/*.comp) are compiled from GLSL at build time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/fuzz_seeds.h"
#include "vgf/executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/ir/graph.h"
#include "vgf/spirv/spirv_graph_writer.h"
#include "vkrt/module.h"
#include "vkrt/vgf.h"

#include "seq_affine.h"
#include "seq_image_unpack.h"

namespace vkrt {
namespace {

using namespace vgf;

constexpr int kH = 4, kW = 4, kC = 4, kN = kH * kW * kC;

// A one-op graph over int32 [1,4,4,4]: ADD(x, x) or CLAMP(x, lo, hi), I/O at bindings 0 and 1.
std::vector<uint32_t> one_op_graph(const char* name, OpKind kind, int lo = 0, int hi = 0) {
  Graph g;
  g.name = name;
  auto tensor = [&](const char* n) {
    TensorInfo info;
    info.name = n;
    info.dtype = DType::Int32;
    info.shape = {1, kH, kW, kC};
    return g.add_tensor(std::move(info));
  };
  const TensorId x = tensor("x"), y = tensor("y");
  g.inputs.push_back({x, "x", 0, 0});
  if (kind == OpKind::CLAMP) {
    ClampAttr clamp;
    clamp.min_int = lo;
    clamp.max_int = hi;
    g.ops.push_back(Op{OpKind::CLAMP, {x}, {y}, clamp, "clamp"});
  } else {
    g.ops.push_back(Op{OpKind::ADD, {x, x}, {y}, NoAttr{}, "add"});
  }
  g.outputs.push_back({y, "y", 1, 0});
  auto spv = spirv::write_spirv_graph(g);
  EXPECT_TRUE(spv.ok()) << spv.status().to_string();
  return spv.ok() ? spv->words : std::vector<uint32_t>();
}

VgfModule graph_module(const char* name, std::vector<uint32_t> words) {
  VgfModule m;
  m.type = ModuleType::Graph;
  m.name = name;
  m.entry_point = name;
  m.code_kind = ModuleCodeKind::Spirv;
  m.spirv = std::move(words);
  return m;
}

VgfModule compute_module(const char* name, const uint32_t* words, size_t bytes) {
  VgfModule m;
  m.type = ModuleType::Compute;
  m.name = name;
  m.entry_point = "main";
  m.code_kind = ModuleCodeKind::Spirv;
  m.spirv.assign(words, words + bytes / 4);
  return m;
}

VgfResource resource(ResourceCategory category, uint32_t descriptor_type, uint32_t format, std::vector<int64_t> shape,
                     uint32_t alias_group = kNoAliasGroup) {
  VgfResource r;
  r.category = category;
  r.vk_descriptor_type = descriptor_type;
  r.vk_format = format;
  r.shape = std::move(shape);
  r.alias_group_id = alias_group;
  return r;
}

VgfSegment segment(ModuleType type, const char* name, uint32_t module, std::vector<VgfBindingSlot> inputs,
                   std::vector<VgfBindingSlot> outputs, std::array<uint32_t, 3> dispatch = {0, 0, 0}) {
  VgfSegment s;
  s.type = type;
  s.name = name;
  s.module_index = module;
  VgfDescriptorSet set;
  for (const auto& b : inputs) set.bindings.push_back(b);
  for (const auto& b : outputs) set.bindings.push_back(b);
  s.set_infos.push_back(std::move(set));
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  s.dispatch_shape = dispatch;
  return s;
}

const std::vector<int64_t> kTensorShape = {1, kH, kW, kC};

// x (int32 tensor) -> GRAPH ADD(x, x) -> [alias 0: tensor | buffer] -> COMPUTE v * 3 + 1 ->
// [alias 1: buffer | tensor] -> GRAPH CLAMP(-60, 60) -> y.
std::vector<uint8_t> graph_compute_graph_vgf() {
  VgfFile f;
  f.modules.push_back(graph_module("double", one_op_graph("double", OpKind::ADD)));
  f.modules.push_back(compute_module("affine", vkrt_test_spv_seq_affine, sizeof(vkrt_test_spv_seq_affine)));
  f.modules.push_back(graph_module("clamp", one_op_graph("clamp", OpKind::CLAMP, -60, 60)));
  const auto I = ResourceCategory::Input, M = ResourceCategory::Intermediate, O = ResourceCategory::Output;
  f.resources = {
      resource(I, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape),         // 0 x
      resource(M, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape, 0),      // 1 2x, tensor view
      resource(M, kVkDescriptorTypeStorageBuffer, kVkFormatR32Sint, {kN}, 0),          // 2 2x, buffer view
      resource(M, kVkDescriptorTypeStorageBuffer, kVkFormatR32Sint, {kN}, 1),          // 3 6x+1, buffer view
      resource(M, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape, 1),      // 4 6x+1, tensor view
      resource(O, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape),         // 5 y
  };
  f.segments.push_back(segment(ModuleType::Graph, "graph_double", 0, {{0, 0}}, {{1, 1}}));
  f.segments.push_back(segment(ModuleType::Compute, "compute_affine", 1, {{0, 2}}, {{1, 3}}, {kN / 16, 1, 1}));
  f.segments.push_back(segment(ModuleType::Graph, "graph_clamp", 2, {{0, 4}}, {{1, 5}}));
  f.inputs = {{0, 0}};
  f.outputs = {{1, 5}};
  f.input_names = {"x"};
  f.output_names = {"y"};
  auto bytes = encode_vgf(f, VgfEncodeOptions{});
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

// img (R8G8B8A8_UINT [1,4,4,4], combined image sampler) -> COMPUTE texel * 2 ->
// [alias 0: buffer | tensor] -> GRAPH CLAMP(0, 300) -> y.
std::vector<uint8_t> image_input_vgf() {
  VgfFile f;
  f.modules.push_back(
      compute_module("unpack", vkrt_test_spv_seq_image_unpack, sizeof(vkrt_test_spv_seq_image_unpack)));
  f.modules.push_back(graph_module("clamp", one_op_graph("clamp", OpKind::CLAMP, 0, 300)));
  const auto I = ResourceCategory::Input, M = ResourceCategory::Intermediate, O = ResourceCategory::Output;
  VgfResource img = resource(I, kVkDescriptorTypeCombinedImageSampler, kVkFormatR8G8B8A8Uint, kTensorShape);
  img.has_sampler = true;
  img.sampler.address_mode_u = img.sampler.address_mode_v = 2;  // CLAMP_TO_EDGE; NEAREST filters
  f.resources = {
      img,                                                                             // 0 image
      resource(M, kVkDescriptorTypeStorageBuffer, kVkFormatR32Sint, {kN}, 0),          // 1 buffer view
      resource(M, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape, 0),      // 2 tensor view
      resource(O, kVkDescriptorTypeTensorArm, kVkFormatR32Sint, kTensorShape),         // 3 y
  };
  f.segments.push_back(segment(ModuleType::Compute, "compute_unpack", 0, {{0, 0}}, {{1, 1}}, {1, 1, 1}));
  f.segments.push_back(segment(ModuleType::Graph, "graph_clamp", 1, {{0, 2}}, {{1, 3}}));
  f.inputs = {{0, 0}};
  f.outputs = {{1, 3}};
  f.input_names = {"image"};
  f.output_names = {"y"};
  auto bytes = encode_vgf(f, VgfEncodeOptions{});
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

// The defaults with the environment applied (the validation layer the test run turns on).
VgfOptions env_options() {
  auto parsed = parse_vgf_options({});
  EXPECT_TRUE(parsed.ok()) << parsed.status().to_string();
  return parsed.ok() ? *parsed : VgfOptions{};
}

// True where the Vulkan library is linked and finds a device: COMPUTE segments must run then.
bool vulkan_device_available() {
  auto probe = vgf::create_executor("vulkan", env_options());
  if (!probe.ok()) std::printf("no Vulkan device: %s\n", probe.status().to_string().c_str());
  return probe.ok();
}

#define SKIP_WITHOUT_VULKAN()                                                         \
  if (!vulkan_device_available()) GTEST_SKIP() << "no Vulkan device to run COMPUTE segments"

#define CREATE_SESSION(session, model, choice)           \
  VgfOptions session##_options = env_options();          \
  session##_options.executor = choice;                   \
  auto session = VgfSession::create(model, session##_options); \
  ASSERT_TRUE(session.ok()) << session.status().to_string()

TEST(VgfSequence, GraphComputeGraphThroughAliasGroups) {
  vkrt::testing::write_fuzz_seed("graph_compute_graph.vgf", graph_compute_graph_vgf());
  auto model = VgfModel::from_bytes(graph_compute_graph_vgf());
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  ASSERT_EQ(model->segments().size(), 3u);
  EXPECT_TRUE(model->segments()[1].compute);
  EXPECT_EQ(model->segments()[1].dispatch_shape, (std::array<uint32_t, 3>{4, 1, 1}));
  auto shapes = model->output_shapes(std::vector<std::vector<int64_t>>{kTensorShape});
  ASSERT_TRUE(shapes.ok()) << shapes.status().to_string();
  EXPECT_EQ(*shapes, (std::vector<std::vector<int64_t>>{kTensorShape}));

  SKIP_WITHOUT_VULKAN();
  for (VgfExecutor executor : {VgfExecutor::Auto, VgfExecutor::Vulkan}) {
    CREATE_SESSION(session, *model, executor);
    // auto runs a VGF with COMPUTE segments on Vulkan, every segment.
    ASSERT_EQ((*session)->placements().size(), 3u);
    for (const VgfPlacement& p : (*session)->placements()) EXPECT_EQ(p.executor, "vulkan") << p.describe();
    EXPECT_EQ((*session)->placements()[1].describe().rfind("segment 'compute_affine' (COMPUTE): vulkan on ", 0), 0u);

    std::vector<int32_t> x(kN), y(kN, 12345);
    for (int i = 0; i < kN; ++i) x[i] = i * 7 - 200;
    const int32_t sizes[] = {1, kH, kW, kC};
    auto xt = Tensor::make(ScalarType::Int, sizes, x.data());
    auto yt = Tensor::make(ScalarType::Int, sizes, y.data());
    ASSERT_TRUE(xt.ok() && yt.ok());
    const Tensor* inputs[] = {&*xt};
    Tensor* outputs[] = {&*yt};
    for (int run = 0; run < 2; ++run) {
      Status st = (*session)->run(inputs, outputs);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      for (int i = 0; i < kN; ++i) {
        const int want = std::clamp((x[i] + x[i]) * 3 + 1, -60, 60);
        ASSERT_EQ(y[i], want) << "element " << i << " run " << run << " (" << vgf_executor_name(executor) << ")";
      }
    }
  }

  // The CPU executor cannot run the shader: refused, naming the segment.
  VgfOptions cpu = env_options();
  cpu.executor = VgfExecutor::Cpu;
  auto refused = VgfSession::create(*model, cpu);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), Error::NotSupported);
  EXPECT_NE(refused.status().message().find("segment 1 ('compute_affine') is a COMPUTE segment (a SPIR-V compute "
                                            "shader): the cpu executor cannot run it"),
            std::string::npos)
      << refused.status().to_string();
}

TEST(VgfSequence, ImageInputThroughACombinedImageSampler) {
  vkrt::testing::write_fuzz_seed("image_input.vgf", image_input_vgf());
  auto model = VgfModel::from_bytes(image_input_vgf());
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].kind, "image");
  EXPECT_EQ(model->inputs()[0].dtype, ScalarType::Byte);  // R8G8B8A8_UINT components
  EXPECT_EQ(model->inputs()[0].shape, kTensorShape);
  SKIP_WITHOUT_VULKAN();
  CREATE_SESSION(session, *model, VgfExecutor::Auto);

  std::vector<uint8_t> image(kN);
  for (int i = 0; i < kN; ++i) image[i] = uint8_t(i * 41 + 3);
  std::vector<int32_t> y(kN, -1);
  const int32_t sizes[] = {1, kH, kW, kC};
  auto it = Tensor::make(ScalarType::Byte, sizes, image.data());
  auto yt = Tensor::make(ScalarType::Int, sizes, y.data());
  ASSERT_TRUE(it.ok() && yt.ok());
  const Tensor* inputs[] = {&*it};
  Tensor* outputs[] = {&*yt};
  Status st = (*session)->run(inputs, outputs);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // Pixel (x, y) channel c is image[((y * W) + x) * 4 + c]: the shader's output is in the same
  // order, so element i is min(image[i] * 2, 300).
  for (int i = 0; i < kN; ++i) ASSERT_EQ(y[i], std::min(int(image[i]) * 2, 300)) << "element " << i;
}

// The same sequence inside a program: VgfBackend runs the whole model sequence, and the method's
// placement lines name each segment's executor.
TEST(VgfSequence, InsideAProgramThroughVgfBackend) {
  auto model = VgfModel::from_bytes(graph_compute_graph_vgf());
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  auto pte = model->to_pte(std::vector<std::vector<int64_t>>{kTensorShape});
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  auto module = Module::load_from_buffer(*pte);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  SKIP_WITHOUT_VULKAN();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  ASSERT_EQ((*method)->placements().size(), 3u);
  EXPECT_EQ((*method)->placements()[1].rfind("VgfBackend segment 'compute_affine' (COMPUTE): vulkan on ", 0), 0u);
  std::vector<int32_t> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = 10 - i;
  const int32_t sizes[] = {1, kH, kW, kC};
  auto xt = Tensor::make(ScalarType::Int, sizes, x.data());
  ASSERT_TRUE(xt.ok());
  ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&*xt)).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());
  const Tensor& y = (*method)->output(0).to_tensor();
  for (int i = 0; i < kN; ++i) ASSERT_EQ(y.data_as<int32_t>()[i], std::clamp(x[i] * 6 + 1, -60, 60)) << i;
}

// Members of an alias group must agree on their byte size (ExecuTorch's logical contract).
TEST(VgfSequence, AliasGroupOfDifferentSizesIsRefused) {
  auto bytes = graph_compute_graph_vgf();
  auto file = decode_vgf(bytes);
  ASSERT_TRUE(file.ok());
  VgfFile f = *file;
  f.resources[2].shape = {kN / 2};
  auto encoded = encode_vgf(f, VgfEncodeOptions{});
  ASSERT_TRUE(encoded.ok());
  auto model = VgfModel::from_bytes(*encoded);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  VgfOptions options = env_options();
  options.executor = VgfExecutor::Vulkan;
  auto session = VgfSession::create(*model, options);  // resources are checked before any device use
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("VGF alias group 0: resource 2 has 128 bytes, the group's other members 256"),
            std::string::npos)
      << session.status().to_string();
}

}  // namespace
}  // namespace vkrt
