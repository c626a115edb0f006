// VGF COMPUTE segments on Vulkan (vgf/compute_segment.h, vgf/vulkan/compute_segment_runner.h):
// VGF files built here around the GLSL shaders of tests/vulkan/shaders (compiled at build time),
// encoded and decoded (round trip), run through vgf::compute_segment_factory() on host tensors
// of known values and compared with values computed by hand; and the refusals. The validation
// layer is on for the whole binary (vulkan_test_util.cpp) and must report nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "buffer_affine.h"
#include "image_store.h"
#include "inplace_add.h"
#include "sampler_read.h"
#include "vgf/compute_segment.h"
#include "vgf/format/vgf_file.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

using vgf::VgfBindingSlot;
using vgf::VgfFile;
using vgf::VgfResource;
using vgf::VgfSegment;

template <size_t N>
std::vector<uint32_t> words(const uint32_t (&spv)[N]) {
  return std::vector<uint32_t>(spv, spv + N);
}

VgfResource resource(uint32_t descriptor_type, uint32_t format, std::vector<int64_t> shape,
                     vgf::ResourceCategory category = vgf::ResourceCategory::Input) {
  VgfResource r;
  r.vk_descriptor_type = descriptor_type;
  r.vk_format = format;
  r.shape = std::move(shape);
  r.category = category;
  return r;
}

// A VGF with one COMPUTE module (entry "main") and one COMPUTE segment named `name`.
VgfFile compute_file(std::vector<uint32_t> spirv, std::string name, std::vector<VgfResource> resources,
                     std::vector<vgf::VgfDescriptorSet> sets, std::vector<VgfBindingSlot> inputs,
                     std::vector<VgfBindingSlot> outputs, std::array<uint32_t, 3> dispatch) {
  VgfFile f;
  vgf::VgfModule m;
  m.type = vgf::ModuleType::Compute;
  m.name = name + "_module";
  m.entry_point = "main";
  m.code_kind = vgf::ModuleCodeKind::Spirv;
  m.spirv = std::move(spirv);
  f.modules.push_back(std::move(m));
  VgfSegment s;
  s.type = vgf::ModuleType::Compute;
  s.name = std::move(name);
  s.module_index = 0;
  s.set_infos = std::move(sets);
  s.inputs = inputs;
  s.outputs = outputs;
  s.dispatch_shape = dispatch;
  f.segments.push_back(std::move(s));
  f.resources = std::move(resources);
  f.inputs = std::move(inputs);
  f.outputs = std::move(outputs);
  for (size_t i = 0; i < f.inputs.size(); ++i) f.input_names.push_back("input_" + std::to_string(i));
  for (size_t i = 0; i < f.outputs.size(); ++i) f.output_names.push_back("output_" + std::to_string(i));
  return f;
}

// The file after encode_vgf + decode_vgf (the bytes stay alive with it).
struct RoundTrip {
  std::vector<uint8_t> bytes;
  VgfFile file;
};
std::unique_ptr<RoundTrip> round_trip(const VgfFile& f) {
  auto rt = std::make_unique<RoundTrip>();
  auto bytes = vgf::encode_vgf(f, vgf::VgfEncodeOptions{});
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  rt->bytes = std::move(*bytes);
  auto decoded = vgf::decode_vgf(rt->bytes);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  if (!decoded.ok()) return nullptr;
  rt->file = std::move(*decoded);
  return rt;
}

BackendOptions default_options() {
  BackendOptions o;
  o.set("VgfBackend.pipeline_cache_dir", "off");
  return o;
}

Result<std::unique_ptr<vgf::ComputeSegmentRunner>> make_runner(const VgfFile& f, const BackendOptions& options) {
  vgf::ComputeSegmentFactory factory = vgf::compute_segment_factory();
  if (!factory) return make_error(Error::NotFound, "no COMPUTE-segment factory registered");
  return factory(f, 0, vgf_options(options));
}

// A host tensor of a resource, typed and shaped by resource_host_type (the contract's layout).
struct Host {
  std::vector<uint8_t> bytes;
  std::vector<int32_t> sizes;
  Tensor tensor;
  template <typename T>
  T* as() { return reinterpret_cast<T*>(bytes.data()); }
};
std::unique_ptr<Host> host_for(const VgfFile& f, uint32_t mrt) {
  auto type = vgf::resource_host_type(f, mrt);
  EXPECT_TRUE(type.ok()) << type.status().message();
  if (!type.ok()) return nullptr;
  auto h = std::make_unique<Host>();
  size_t count = 1;
  for (int64_t d : type->shape) {
    h->sizes.push_back(int32_t(d));
    count *= size_t(d);
  }
  h->bytes.assign(count * vgf::vk_format_info(f.resources[mrt].vk_format).component_bytes, 0);
  auto t = Tensor::make(type->scalar, h->sizes, h->bytes.data());
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (t.ok()) h->tensor = *t;
  return h;
}

Status run_once(vgf::ComputeSegmentRunner& runner, std::vector<Host*> in, std::vector<Host*> out) {
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> outs;
  for (Host* h : in) ins.push_back(&h->tensor);
  for (Host* h : out) outs.push_back(&h->tensor);
  return runner.run(ins, outs);
}

bool contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// The storage-buffer file: 20 int32 in -> 20 int32 out, 5 workgroups of 4, push range 8 bytes.
VgfFile affine_file() {
  VgfFile f = compute_file(words(vkrt_test_spv_buffer_affine), "affine",
                           {resource(vgf::kVkDescriptorTypeStorageBuffer, vgf::kVkFormatR32Sint, {20}),
                            resource(vgf::kVkDescriptorTypeStorageBuffer, vgf::kVkFormatR32Sint, {20},
                                     vgf::ResourceCategory::Output)},
                           {{{{0, 0}, {1, 1}}, vgf::kUnsetIndex}}, {{0, 0}}, {{1, 1}}, {5, 1, 1});
  f.segments[0].push_constant_ranges.push_back({VK_SHADER_STAGE_COMPUTE_BIT, 0, 8});
  return f;
}

void check_affine(const BackendOptions& options) {
  auto rt = round_trip(affine_file());
  ASSERT_TRUE(rt);
  ASSERT_EQ(rt->file.segments[0].push_constant_ranges.size(), 1u);
  auto runner = make_runner(rt->file, options);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  EXPECT_FALSE((*runner)->device_name().empty());
  auto in = host_for(rt->file, 0), out = host_for(rt->file, 1);
  ASSERT_TRUE(in && out);
  EXPECT_EQ(in->tensor.dtype(), ScalarType::Int);
  for (int run = 0; run < 2; ++run) {  // twice: the recorded command buffer is replayed
    for (int i = 0; i < 20; ++i) in->as<int32_t>()[i] = i * 7 - 50 + run;
    Status s = run_once(**runner, {in.get()}, {out.get()});
    ASSERT_TRUE(s.is_ok()) << s.message();
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(out->as<int32_t>()[i], (i * 7 - 50 + run) * 3 + 1) << "element " << i << " run " << run;
    }
  }
}

TEST(ComputeSegment, FactoryIsRegistered) { EXPECT_NE(vgf::compute_segment_factory(), nullptr); }

TEST(ComputeSegment, StorageBuffersWithZeroPushConstants) {
  VKRT_REQUIRE_VULKAN();
  check_affine(default_options());
}

TEST(ComputeSegment, StorageBuffersThroughStaging) {
  VKRT_REQUIRE_VULKAN();
  BackendOptions o = default_options();
  o.set("VgfBackend.zero_copy", "0");
  check_affine(o);
}

TEST(ComputeSegment, ProfileNamesTheSegment) {
  VKRT_REQUIRE_VULKAN();
  auto rt = round_trip(affine_file());
  ASSERT_TRUE(rt);
  BackendOptions o = default_options();
  o.set("VgfBackend.profile", "1");
  auto runner = make_runner(rt->file, o);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  EXPECT_TRUE((*runner)->op_profile().empty());  // nothing ran yet
  auto in = host_for(rt->file, 0), out = host_for(rt->file, 1);
  ASSERT_TRUE(run_once(**runner, {in.get()}, {out.get()}).is_ok());
  auto profile = (*runner)->op_profile();
  std::string why;
  if (!device_or_null(&why)->features().timestamps) {
    EXPECT_TRUE(profile.empty());
    return;
  }
  ASSERT_EQ(profile.size(), 1u);
  EXPECT_EQ(profile[0].name, "COMPUTE affine");
  EXPECT_GE(profile[0].time_ms, 0.0);
  EXPECT_LE(profile[0].start_ns, profile[0].end_ns);
}

TEST(ComputeSegment, InputAndOutputResourceIsOneObjectInAnExplicitSet) {
  VKRT_REQUIRE_VULKAN();
  // Resource 0 is both the input and the output, bound in set 2 (explicit set_index) binding 5.
  VgfFile f = compute_file(words(vkrt_test_spv_inplace_add), "inplace",
                           {resource(vgf::kVkDescriptorTypeStorageBuffer, vgf::kVkFormatR32Uint, {3, 5})},
                           {{{{5, 0}}, 2}}, {{0, 0}}, {{0, 0}}, {2, 1, 1});
  auto rt = round_trip(f);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->file.segments[0].set_infos[0].set_index, 2u);
  auto runner = make_runner(rt->file, default_options());
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  auto in = host_for(rt->file, 0), out = host_for(rt->file, 0);
  for (uint32_t i = 0; i < 15; ++i) in->as<uint32_t>()[i] = i * 1000;
  ASSERT_TRUE(run_once(**runner, {in.get()}, {out.get()}).is_ok());
  for (uint32_t i = 0; i < 15; ++i) EXPECT_EQ(out->as<uint32_t>()[i], i * 1000 + 10) << i;
  // The same host tensor as input and output (what a model runner does for an alias).
  ASSERT_TRUE(run_once(**runner, {out.get()}, {out.get()}).is_ok());
  for (uint32_t i = 0; i < 15; ++i) EXPECT_EQ(out->as<uint32_t>()[i], i * 1000 + 20) << i;
}

TEST(ComputeSegment, CombinedImageSamplerRgba8Uint) {
  VKRT_REQUIRE_VULKAN();
  constexpr int H = 3, W = 5, n = H * W * 4;
  VgfResource img = resource(vgf::kVkDescriptorTypeCombinedImageSampler, vgf::kVkFormatR8G8B8A8Uint, {1, H, W, 4});
  img.has_sampler = true;
  img.sampler = {VK_FILTER_NEAREST, VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                 VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK};
  VgfFile f = compute_file(
      words(vkrt_test_spv_sampler_read), "grid_sample", {img,
      resource(vgf::kVkDescriptorTypeStorageBuffer, vgf::kVkFormatR32Sfloat, {3 * n}, vgf::ResourceCategory::Output)},
      {{{{0, 0}, {1, 1}}, vgf::kUnsetIndex}}, {{0, 0}}, {{1, 1}}, {2, 1, 1});
  auto rt = round_trip(f);
  ASSERT_TRUE(rt);
  ASSERT_TRUE(rt->file.resources[0].has_sampler);
  auto runner = make_runner(rt->file, default_options());
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  auto in = host_for(rt->file, 0), out = host_for(rt->file, 1);
  EXPECT_EQ(in->tensor.dtype(), ScalarType::Byte);
  auto pixel = [](int y, int x, int c) { return uint8_t((y * 50 + x * 9 + c * 61 + 3) % 256); };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) in->as<uint8_t>()[(y * W + x) * 4 + c] = pixel(y, x, c);
  Status s = run_once(**runner, {in.get()}, {out.get()});
  ASSERT_TRUE(s.is_ok()) << s.message();
  const float* v = out->as<float>();
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      for (int c = 0; c < 4; ++c) {
        const int i = (y * W + x) * 4 + c;
        EXPECT_EQ(v[i], pixel(y, x, c) * 0.5f) << "texelFetch y " << y << " x " << x << " c " << c;
        EXPECT_EQ(v[n + i], float(pixel(y, x, c))) << "textureLod y " << y << " x " << x << " c " << c;
        EXPECT_EQ(v[2 * n + i], float(pixel(y, 0, c))) << "clamped y " << y << " x " << x << " c " << c;
      }
    }
  }
}

TEST(ComputeSegment, StorageAndSampledImagesInStorageImageOut) {
  VKRT_REQUIRE_VULKAN();
  constexpr int H = 6, W = 3;
  VgfFile f = compute_file(
      words(vkrt_test_spv_image_store), "image_store",
      {resource(vgf::kVkDescriptorTypeStorageImage, vgf::kVkFormatR8G8B8A8Uint, {H, W, 4}),
       resource(vgf::kVkDescriptorTypeSampledImage, vgf::kVkFormatR32G32B32A32Sfloat, {1, H, W, 4}),
       resource(vgf::kVkDescriptorTypeStorageImage, vgf::kVkFormatR32G32B32A32Sfloat, {1, H, W, 4},
                vgf::ResourceCategory::Output)},
      {{{{0, 0}, {1, 1}, {2, 2}}, vgf::kUnsetIndex}}, {{0, 0}, {1, 1}}, {{2, 2}}, {1, 2, 1});
  auto rt = round_trip(f);
  ASSERT_TRUE(rt);
  auto runner = make_runner(rt->file, default_options());
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  auto src = host_for(rt->file, 0), scale = host_for(rt->file, 1), dst = host_for(rt->file, 2);
  EXPECT_EQ(dst->tensor.dtype(), ScalarType::Float);
  for (int i = 0; i < H * W * 4; ++i) {
    src->as<uint8_t>()[i] = uint8_t(i * 5 % 256);
    scale->as<float>()[i] = 0.25f * float(i % 7) - 0.5f;
  }
  Status s = run_once(**runner, {src.get(), scale.get()}, {dst.get()});
  ASSERT_TRUE(s.is_ok()) << s.message();
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      for (int c = 0; c < 4; ++c) {
        const int i = (y * W + x) * 4 + c;
        const float expect = float(uint8_t(i * 5 % 256)) * (0.25f * float(i % 7) - 0.5f) +
                             (c == 0 ? float(x) : c == 1 ? float(y) : 0.0f);
        EXPECT_EQ(dst->as<float>()[i], expect) << "y " << y << " x " << x << " c " << c;
      }
    }
  }
}

// ---- Refusals ----

Status create_error(const VgfFile& f) {
  auto rt = round_trip(f);
  if (!rt) return make_error(Error::Internal, "round trip failed");
  auto runner = make_runner(rt->file, default_options());
  return runner.ok() ? Status::ok() : runner.status();
}

TEST(ComputeSegment, RefusesTensorArmBinding) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.resources[1].vk_descriptor_type = vgf::kVkDescriptorTypeTensorArm;
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::NotSupported) << s.message();
  EXPECT_TRUE(contains(s, "segment 'affine' binding 1: VK_DESCRIPTOR_TYPE_TENSOR_ARM needs VK_ARM_tensors"))
      << s.message();
}

TEST(ComputeSegment, RefusesOtherDescriptorTypesByName) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.resources[0].vk_descriptor_type = 6;  // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::NotSupported) << s.message();
  EXPECT_TRUE(contains(s, "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER")) << s.message();
}

TEST(ComputeSegment, RefusesConstants) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.resources.push_back(resource(vgf::kNoDescriptorType, vgf::kVkFormatR32Sint, {1}, vgf::ResourceCategory::Constant));
  static const uint8_t payload[4] = {1, 0, 0, 0};
  f.constants.push_back({2, -1, payload});
  f.segments[0].constants = {0};
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "segment 'affine'") && contains(s, "constants are not allowed")) << s.message();
}

TEST(ComputeSegment, RefusesZeroAndTooLargeDispatchShapes) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.segments[0].dispatch_shape = {5, 0, 1};
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "segment 'affine': dispatch_shape [5,0,1]")) << s.message();
  std::string why;
  const uint32_t max_y = device_or_null(&why)->features().max_workgroup_count[1];
  if (max_y == UINT32_MAX) GTEST_SKIP() << "the device allows every workgroup count";
  f.segments[0].dispatch_shape = {1, max_y + 1, 1};
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::NotSupported) << s.message();
  EXPECT_TRUE(contains(s, "maxComputeWorkGroupCount")) << s.message();
}

TEST(ComputeSegment, RefusesImageShapeAndFormatMismatches) {
  VKRT_REQUIRE_VULKAN();
  VgfResource img = resource(vgf::kVkDescriptorTypeCombinedImageSampler, vgf::kVkFormatR8G8B8A8Uint, {1, 3, 5, 4});
  img.has_sampler = true;
  img.sampler = {0, 0, 2, 2, 0};
  VgfFile good = compute_file(
      words(vkrt_test_spv_sampler_read), "grid_sample", {img,
      resource(vgf::kVkDescriptorTypeStorageBuffer, vgf::kVkFormatR32Sfloat, {180}, vgf::ResourceCategory::Output)},
      {{{{0, 0}, {1, 1}}, vgf::kUnsetIndex}}, {{0, 0}}, {{1, 1}}, {2, 1, 1});
  ASSERT_TRUE(create_error(good).is_ok());

  VgfFile f = good;
  f.resources[0].shape = {1, 3, 5, 3};  // 3 channels, a 4-component format
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "segment 'grid_sample' binding 0") && contains(s, "components")) << s.message();

  f = good;
  f.resources[0].shape = {2, 3, 5, 4};  // batch 2
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();

  f = good;
  f.resources[0].vk_format = vgf::kVkFormatR32G32B32A32Sfloat;  // the shader reads unsigned texels
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "unsigned integer")) << s.message();

  f = good;
  f.resources[0].sampler.min_filter = 7;
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "sampler filters")) << s.message();

  f = good;
  f.resources[0].sampler.border_color = 1000287003;  // VK_BORDER_COLOR_FLOAT_CUSTOM_EXT
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();

  f = good;
  f.resources[0].has_sampler = false;
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();

  f = good;
  f.resources[0].vk_descriptor_type = vgf::kVkDescriptorTypeStorageImage;  // the shader samples it
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "combined image sampler")) << s.message();
}

TEST(ComputeSegment, RefusesStorageImageFormatTheShaderDoesNotDeclare) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = compute_file(
      words(vkrt_test_spv_image_store), "image_store",
      {resource(vgf::kVkDescriptorTypeStorageImage, vgf::kVkFormatR8G8B8A8Uint, {2, 2, 4}),
       resource(vgf::kVkDescriptorTypeSampledImage, vgf::kVkFormatR32G32B32A32Sfloat, {2, 2, 4}),
       resource(vgf::kVkDescriptorTypeStorageImage, vgf::kVkFormatR16G16B16A16Sfloat, {2, 2, 4},
                vgf::ResourceCategory::Output)},
      {{{{0, 0}, {1, 1}, {2, 2}}, vgf::kUnsetIndex}}, {{0, 0}, {1, 1}}, {{2, 2}}, {1, 1, 1});
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "binding 2") && contains(s, "image format")) << s.message();
}

TEST(ComputeSegment, RefusesModulesThatAreNotSpirvCompute) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.modules[0].type = vgf::ModuleType::Graph;
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "GRAPH module")) << s.message();

  f = affine_file();
  f.modules[0].code_kind = vgf::ModuleCodeKind::None;
  f.modules[0].spirv.clear();
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "no SPIR-V")) << s.message();

  f = affine_file();
  f.modules[0].entry_point = "not_main";
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "'not_main'") && contains(s, "'main'")) << s.message();

  f = affine_file();
  f.modules[0].spirv.resize(f.modules[0].spirv.size() - 3);  // truncated
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
}

TEST(ComputeSegment, RefusesBindingsAndPushConstantsThatDoNotMatchTheShader) {
  VKRT_REQUIRE_VULKAN();
  VgfFile f = affine_file();
  f.segments[0].set_infos[0].bindings[1].binding = 2;  // the shader writes binding 1
  Status s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "binding 1: the shader declares a storage buffer")) << s.message();

  f = affine_file();
  f.segments[0].push_constant_ranges.clear();  // the shader declares a block
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();

  f = affine_file();
  f.segments[0].push_constant_ranges[0].size = 4096;
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::NotSupported) << s.message();
  EXPECT_TRUE(contains(s, "maxPushConstantsSize")) << s.message();

  f = affine_file();
  f.segments[0].push_constant_ranges[0].stage_flags = VK_SHADER_STAGE_VERTEX_BIT;
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();

  f = affine_file();
  f.segments[0].set_infos[0].bindings[0].mrt_index = 1;  // binding 0 and 1 both on resource 1;
  f.segments[0].inputs[0].mrt_index = 0;                 // resource 0 bound nowhere
  s = create_error(f);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_TRUE(contains(s, "input 0 (resource 0) is not bound")) << s.message();
}

TEST(ComputeSegment, RefusesWrongHostTensors) {
  VKRT_REQUIRE_VULKAN();
  auto rt = round_trip(affine_file());
  ASSERT_TRUE(rt);
  auto runner = make_runner(rt->file, default_options());
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  auto out = host_for(rt->file, 1);
  std::vector<int32_t> small(19);
  std::vector<int32_t> sizes{19};
  auto t = Tensor::make(ScalarType::Int, sizes, small.data());
  ASSERT_TRUE(t.ok());
  const Tensor* ins[] = {&*t};
  Tensor* outs[] = {&out->tensor};
  Status s = (*runner)->run(ins, outs);
  EXPECT_EQ(s.code(), Error::InvalidArgument) << s.message();
  EXPECT_TRUE(contains(s, "segment 'affine' input 0 (resource 0): the host tensor has 76 bytes, the resource 80"))
      << s.message();
  s = (*runner)->run({}, outs);
  EXPECT_EQ(s.code(), Error::InvalidArgument) << s.message();
}

TEST(ComputeSegment, RefusesGraphSegments) {
  VgfFile f = affine_file();
  f.segments[0].type = vgf::ModuleType::Graph;
  vgf::ComputeSegmentFactory factory = vgf::compute_segment_factory();
  ASSERT_NE(factory, nullptr);
  const VgfOptions o = vgf_options(default_options());
  auto r = factory(f, 0, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(contains(r.status(), "segment 'affine' is a GRAPH segment")) << r.status().message();
  r = factory(f, 3, o);
  ASSERT_FALSE(r.ok());
}

}  // namespace
}  // namespace vkrt::vulkan::testing
