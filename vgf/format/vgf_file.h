// The VGF container (Arm ML SDK for Vulkan), decoded into plain structs, and its encoder.
// Layout and field meaning: ../shared/docs/vgf-format.md §1-§4.
//
// decode_vgf() checks every byte it uses: header magic and version, section bounds, each
// FlatBuffers section with the verifier (sections are copied to an aligned buffer when the file
// is not 8-aligned there, as in 0.4.0 files), every table index (module, resource, constant),
// the raw constant section's metadata and payload bounds. Errors are InvalidProgram with a
// message naming the section and entry.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::vgf {

inline constexpr size_t kVgfHeaderSize = 128;
inline constexpr uint32_t kUnsetIndex = 0xFFFFFFFFu;   // DescriptorSetInfo.set_index default
inline constexpr uint32_t kNoAliasGroup = 0xFFFFFFFFu;  // alias_group_id default
inline constexpr uint32_t kNoDescriptorType = 0xFFFFFFFFu;

// Raw Vulkan values stored in the resource table (vgf-format.md §2.1).
inline constexpr uint32_t kVkDescriptorTypeCombinedImageSampler = 1u;
inline constexpr uint32_t kVkDescriptorTypeSampledImage = 2u;
inline constexpr uint32_t kVkDescriptorTypeStorageImage = 3u;
inline constexpr uint32_t kVkDescriptorTypeStorageBuffer = 7u;
inline constexpr uint32_t kVkDescriptorTypeTensorArm = 1000460000u;
enum VkFormatValue : uint32_t {
  kVkFormatR8Uint = 13,
  kVkFormatR8Sint = 14,
  kVkFormatR16Uint = 74,
  kVkFormatR16Sint = 75,
  kVkFormatR16Sfloat = 76,
  kVkFormatR32Uint = 98,
  kVkFormatR32Sint = 99,
  kVkFormatR32Sfloat = 100,
  kVkFormatR64Sint = 111,
  kVkFormatR8BoolArm = 1000460000,
  kVkFormatR16Bf16Arm = 1000460001,
  kVkFormatR8Fp8E4M3Arm = 1000460002,
  kVkFormatR8Fp8E5M2Arm = 1000460003,
  // Multi-component formats: image resources (and alias groups with images) only.
  kVkFormatR8G8Uint = 20,
  kVkFormatR8G8Sint = 21,
  kVkFormatR8G8B8A8Snorm = 38,
  kVkFormatR8G8B8A8Uint = 41,
  kVkFormatR8G8B8A8Sint = 42,
  kVkFormatR16G16Uint = 81,
  kVkFormatR16G16Sint = 82,
  kVkFormatR16G16Sfloat = 83,
  kVkFormatR16G16B16A16Uint = 95,
  kVkFormatR16G16B16A16Sint = 96,
  kVkFormatR16G16B16A16Sfloat = 97,
  kVkFormatR32G32Uint = 101,
  kVkFormatR32G32Sint = 102,
  kVkFormatR32G32Sfloat = 103,
  kVkFormatR32G32B32A32Uint = 107,
  kVkFormatR32G32B32A32Sint = 108,
  kVkFormatR32G32B32A32Sfloat = 109,
};

// What one element of a resource format is: `components` values of `component_bytes` each.
// Host tensors of a resource hold components: an image resource [1,H,W,C] or [H,W,C] has C ==
// components (ExecuTorch's VGFSetup.cpp rule), a tensor or buffer resource has one component.
enum class VkFormatKind : uint8_t { Unknown, Bool, Uint, Sint, Float, BFloat, Fp8 };
struct VkFormatInfo {
  uint32_t components = 0;  // 0: a format VGF resources do not use
  uint32_t component_bytes = 0;
  VkFormatKind kind = VkFormatKind::Unknown;
};
VkFormatInfo vk_format_info(uint32_t vk_format);

// True for the image descriptor types (combined image sampler, sampled image, storage image).
inline bool is_image_descriptor_type(uint32_t vk_descriptor_type) {
  return vk_descriptor_type == kVkDescriptorTypeCombinedImageSampler ||
         vk_descriptor_type == kVkDescriptorTypeSampledImage ||
         vk_descriptor_type == kVkDescriptorTypeStorageImage;
}

enum class ModuleType : uint8_t { Compute = 0, Graph = 1 };
enum class ResourceCategory : uint8_t { Input = 0, Output = 1, Intermediate = 2, Constant = 3 };
enum class ModuleCodeKind : uint8_t { None = 0, Spirv = 1, Glsl = 2, Hlsl = 3 };

struct VgfVersion {
  uint8_t major = 0;
  uint8_t minor = 4;
  uint8_t patch = 3;
};

struct VgfModule {
  ModuleType type = ModuleType::Graph;
  std::string name;
  std::string entry_point;
  ModuleCodeKind code_kind = ModuleCodeKind::None;
  std::vector<uint32_t> spirv;  // code_kind == Spirv
  std::string source;           // code_kind == Glsl / Hlsl
};

struct VgfBindingSlot {
  uint32_t binding = 0;
  uint32_t mrt_index = 0;
  bool operator==(const VgfBindingSlot&) const = default;
};

struct VgfDescriptorSet {
  std::vector<VgfBindingSlot> bindings;
  uint32_t set_index = kUnsetIndex;  // kUnsetIndex = position in set_infos
};

struct VgfPushConstantRange {
  uint32_t stage_flags = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
};

struct VgfConstantBinding {  // SegmentInfo slot 9 (upcoming, unverified layout; §3)
  uint32_t graph_constant_id = 0;
  uint32_t constant_index = 0;
};

struct VgfSegment {
  ModuleType type = ModuleType::Graph;
  std::string name;
  uint32_t module_index = 0;
  std::vector<VgfDescriptorSet> set_infos;
  std::vector<VgfBindingSlot> inputs;
  std::vector<VgfBindingSlot> outputs;
  std::vector<uint32_t> constants;  // indices into VgfFile::constants
  std::array<uint32_t, 3> dispatch_shape{0, 0, 0};
  std::vector<VgfPushConstantRange> push_constant_ranges;
  std::vector<VgfConstantBinding> constant_bindings;  // empty: graph constant id == index
};

struct VgfSamplerConfig {
  uint32_t min_filter = 0, mag_filter = 0, address_mode_u = 0, address_mode_v = 0,
           border_color = 0;
};

struct VgfResource {
  uint32_t vk_descriptor_type = 0;
  uint32_t vk_format = 0;
  ResourceCategory category = ResourceCategory::Input;
  std::vector<int64_t> shape;    // outermost first; INT64_MIN = dynamic
  std::vector<int64_t> strides;  // bytes; empty = packed
  bool has_sampler = false;
  VgfSamplerConfig sampler;
  uint32_t alias_group_id = kNoAliasGroup;
};

struct VgfConstant {
  uint32_t mrt_index = 0;
  int64_t sparsity_dimension = -1;  // -1 dense
  // Payload bytes: points into the decoded file's bytes, or into VgfFile::owned_storage.
  std::span<const uint8_t> data;
};

struct VgfFile {
  bool legacy_magic = false;  // 0xF0E1D2C3 instead of "VGF1"
  uint16_t vk_header_version = 0;
  VgfVersion version;
  bool legacy_constants = false;  // FlatBuffers ConstantSection (0.3.x) instead of CONST00

  std::vector<VgfModule> modules;
  std::vector<VgfSegment> segments;
  std::vector<VgfBindingSlot> inputs;
  std::vector<VgfBindingSlot> outputs;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<VgfResource> resources;
  std::vector<VgfConstant> constants;

  // Buffers some `constants[i].data` point into (aligned copies of misaligned sections).
  std::vector<std::vector<uint8_t>> owned_storage;
};

// Decodes a whole VGF file. Constant payloads stay in `bytes` when possible (zero copy): the
// caller keeps `bytes` alive as long as the VgfFile is used.
Result<VgfFile> decode_vgf(std::span<const uint8_t> bytes);

// Format check only (magic, version, section bounds): what vgf-library calls IsValid/IsVersionOK.
Status check_vgf_header(std::span<const uint8_t> bytes);

struct VgfEncodeOptions {
  // 0.4.x writes the raw CONST00 section with 8-aligned sections; 0.3.x the legacy FlatBuffers
  // constant section.
  VgfVersion version;
  uint16_t vk_header_version = 0;
};

// Writes `file` (its modules, segments, resources and constants; `version`/`legacy_*` fields are
// taken from `options`). Fails with InvalidArgument on index out of range, so the result always
// decodes.
Result<std::vector<uint8_t>> encode_vgf(const VgfFile& file, const VgfEncodeOptions& options);

// Bytes per element of a resource format (1 for R8_*, 2 for R16_*, 4, 8; all components of a
// multi-component format); 0 if unknown.
size_t vk_format_element_size(uint32_t vk_format);
const char* module_type_name(ModuleType t);
const char* resource_category_name(ResourceCategory c);

}  // namespace vkrt::vgf
