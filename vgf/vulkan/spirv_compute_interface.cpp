#include "vgf/vulkan/spirv_compute_interface.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace vkrt::vulkan {
namespace {

// SPIR-V opcodes, enums (SPIRV-Headers unified1 grammar).
enum : uint32_t {
  kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeImage = 25, kOpTypeSampler = 26, kOpTypeSampledImage = 27,
  kOpTypeArray = 28, kOpTypeRuntimeArray = 29, kOpTypeStruct = 30, kOpTypePointer = 32,
  kOpEntryPoint = 15, kOpExecutionMode = 16, kOpVariable = 59, kOpDecorate = 71,
};
enum : uint32_t { kExecutionModelGLCompute = 5, kExecutionModeLocalSize = 17 };
enum : uint32_t { kDecorationBlock = 2, kDecorationBufferBlock = 3, kDecorationBinding = 33, kDecorationDescriptorSet = 34 };
enum : uint32_t { kStorageUniformConstant = 0, kStorageUniform = 2, kStoragePushConstant = 9, kStorageStorageBuffer = 12 };
enum : uint32_t { kDimBuffer = 5 };

// The literal string starting at words[0], within `words`; `*used` = words it takes.
std::string read_string(std::span<const uint32_t> words, size_t* used) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = char((words[i] >> (8 * b)) & 0xFF);
      if (c == '\0') {
        *used = i + 1;
        return s;
      }
      s.push_back(c);
    }
  }
  *used = words.size();
  return s;
}

}  // namespace

const char* spirv_resource_kind_name(SpirvResourceKind kind) {
  switch (kind) {
    case SpirvResourceKind::StorageBuffer: return "storage buffer";
    case SpirvResourceKind::UniformBuffer: return "uniform buffer";
    case SpirvResourceKind::StorageImage: return "storage image";
    case SpirvResourceKind::SampledImage: return "sampled image";
    case SpirvResourceKind::CombinedImageSampler: return "combined image sampler";
    case SpirvResourceKind::Sampler: return "sampler";
    case SpirvResourceKind::TexelBuffer: return "texel buffer";
    case SpirvResourceKind::Other: break;
  }
  return "resource of another kind";
}

Result<SpirvComputeInterface> scan_spirv_compute_interface(std::span<const uint32_t> words,
                                                           std::string_view entry_point) {
  VKRT_CHECK_OR_RETURN(words.size() >= 5 && words[0] == 0x07230203u, InvalidProgram,
                       "not a SPIR-V module (bad magic or header)");
  SpirvComputeInterface out;
  out.version = words[1];

  struct ImageType {
    uint32_t sampled_type = 0, dim = 0, sampled = 0, format = 0;
  };
  struct IntType {
    bool is_float = false;
    uint32_t signedness = 0;
  };
  std::unordered_map<uint32_t, ImageType> images;
  std::unordered_map<uint32_t, uint32_t> sampled_images;  // id -> image type id
  std::unordered_set<uint32_t> samplers, structs;
  std::unordered_map<uint32_t, uint32_t> arrays;          // id -> element type
  std::unordered_map<uint32_t, IntType> numbers;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;  // id -> (storage, pointee)
  struct Var {
    uint32_t id, type, storage;
  };
  std::vector<Var> variables;
  std::unordered_map<uint32_t, uint32_t> set_of, binding_of;
  std::unordered_set<uint32_t> block, buffer_block;
  std::vector<std::string> entry_names;
  bool found = false;
  uint32_t entry_function = 0;
  std::unordered_set<uint32_t> interface;

  size_t i = 5;
  while (i < words.size()) {
    const uint32_t count = words[i] >> 16, op = words[i] & 0xFFFF;
    if (count == 0 || i + count > words.size()) {
      return make_error(Error::InvalidProgram, "SPIR-V instruction at word ", i, " runs past the module");
    }
    std::span<const uint32_t> w = words.subspan(i, count);
    switch (op) {
      case kOpEntryPoint:
        if (count >= 4) {
          size_t used = 0;
          std::string name = read_string(w.subspan(3), &used);
          if (w[1] == kExecutionModelGLCompute) {
            entry_names.push_back(name);
            if (!found && name == entry_point) {
              found = true;
              entry_function = w[2];
              for (size_t k = 3 + used; k < count; ++k) interface.insert(w[k]);
            }
          }
        }
        break;
      case kOpExecutionMode:
        if (count >= 6 && found && w[1] == entry_function && w[2] == kExecutionModeLocalSize) {
          out.local_size = {w[3], w[4], w[5]};
        }
        break;
      case kOpDecorate:
        if (count >= 3) {
          if (w[2] == kDecorationDescriptorSet && count >= 4) set_of[w[1]] = w[3];
          if (w[2] == kDecorationBinding && count >= 4) binding_of[w[1]] = w[3];
          if (w[2] == kDecorationBlock) block.insert(w[1]);
          if (w[2] == kDecorationBufferBlock) buffer_block.insert(w[1]);
        }
        break;
      case kOpTypeInt:
        if (count >= 4) numbers[w[1]] = {false, w[3]};
        break;
      case kOpTypeFloat:
        if (count >= 3) numbers[w[1]] = {true, 0};
        break;
      case kOpTypeImage:
        if (count >= 9) images[w[1]] = {w[2], w[3], w[7], w[8]};
        break;
      case kOpTypeSampler:
        if (count >= 2) samplers.insert(w[1]);
        break;
      case kOpTypeSampledImage:
        if (count >= 3) sampled_images[w[1]] = w[2];
        break;
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
        if (count >= 3) arrays[w[1]] = w[2];
        break;
      case kOpTypeStruct:
        if (count >= 2) structs.insert(w[1]);
        break;
      case kOpTypePointer:
        if (count >= 4) pointers[w[1]] = {w[2], w[3]};
        break;
      case kOpVariable:
        if (count >= 4) variables.push_back({w[2], w[1], w[3]});
        break;
      default:
        break;
    }
    i += count;
  }
  if (!found) {
    std::string names;
    for (const std::string& n : entry_names) names += (names.empty() ? "'" : ", '") + n + "'";
    return make_error(Error::InvalidProgram, "the SPIR-V module has no GLCompute entry point '", entry_point,
                      "' (it has ", names.empty() ? std::string("none") : names, ")");
  }

  // From SPIR-V 1.4 on, the entry point lists every global variable it uses; before, only its
  // Input/Output variables, so every resource variable of the module counts.
  const bool use_interface = out.version >= 0x00010400u;
  auto texel_type = [&](uint32_t type_id) {
    auto it = numbers.find(type_id);
    if (it == numbers.end()) return SpirvTexelType::Unknown;
    if (it->second.is_float) return SpirvTexelType::Float;
    return it->second.signedness ? SpirvTexelType::Sint : SpirvTexelType::Uint;
  };
  for (const Var& v : variables) {
    if (use_interface && !interface.count(v.id)) continue;
    auto ptr = pointers.find(v.type);
    if (ptr == pointers.end()) continue;
    if (v.storage == kStoragePushConstant) {
      out.push_constants = true;
      continue;
    }
    if (v.storage != kStorageUniformConstant && v.storage != kStorageUniform && v.storage != kStorageStorageBuffer) {
      continue;
    }
    SpirvResource r;
    r.set = set_of.count(v.id) ? set_of[v.id] : 0;
    r.binding = binding_of.count(v.id) ? binding_of[v.id] : 0;
    uint32_t type = ptr->second.second;
    for (int depth = 0; depth < 8 && arrays.count(type); ++depth) {
      r.arrayed = true;
      type = arrays[type];
    }
    if (v.storage == kStorageStorageBuffer) {
      r.kind = SpirvResourceKind::StorageBuffer;
    } else if (v.storage == kStorageUniform) {
      r.kind = buffer_block.count(type) ? SpirvResourceKind::StorageBuffer : SpirvResourceKind::UniformBuffer;
    } else if (samplers.count(type)) {
      r.kind = SpirvResourceKind::Sampler;
    } else {
      uint32_t image_id = type;
      bool combined = false;
      if (auto s = sampled_images.find(type); s != sampled_images.end()) {
        image_id = s->second;
        combined = true;
      }
      auto img = images.find(image_id);
      if (img == images.end()) {
        r.kind = SpirvResourceKind::Other;
      } else if (img->second.dim == kDimBuffer) {
        r.kind = SpirvResourceKind::TexelBuffer;
      } else {
        r.kind = combined ? SpirvResourceKind::CombinedImageSampler
                 : img->second.sampled == 2 ? SpirvResourceKind::StorageImage
                                            : SpirvResourceKind::SampledImage;
        r.image_format = img->second.format;
        r.texel = texel_type(img->second.sampled_type);
      }
    }
    out.resources.push_back(r);
  }
  std::sort(out.resources.begin(), out.resources.end(), [](const SpirvResource& a, const SpirvResource& b) {
    return a.set != b.set ? a.set < b.set : a.binding < b.binding;
  });
  return out;
}

uint32_t spirv_image_format_for_vk_format(uint32_t vk_format) {
  switch (vk_format) {
    case 13: return 39;   // R8_UINT -> R8ui
    case 14: return 29;   // R8_SINT -> R8i
    case 74: return 38;   // R16_UINT -> R16ui
    case 75: return 28;   // R16_SINT -> R16i
    case 76: return 9;    // R16_SFLOAT -> R16f
    case 98: return 33;   // R32_UINT -> R32ui
    case 99: return 24;   // R32_SINT -> R32i
    case 100: return 3;   // R32_SFLOAT -> R32f
    case 20: return 37;   // R8G8_UINT -> Rg8ui
    case 21: return 27;   // R8G8_SINT -> Rg8i
    case 38: return 5;    // R8G8B8A8_SNORM -> Rgba8Snorm
    case 41: return 32;   // R8G8B8A8_UINT -> Rgba8ui
    case 42: return 23;   // R8G8B8A8_SINT -> Rgba8i
    case 81: return 36;   // R16G16_UINT -> Rg16ui
    case 82: return 26;   // R16G16_SINT -> Rg16i
    case 83: return 7;    // R16G16_SFLOAT -> Rg16f
    case 95: return 31;   // R16G16B16A16_UINT -> Rgba16ui
    case 96: return 22;   // R16G16B16A16_SINT -> Rgba16i
    case 97: return 2;    // R16G16B16A16_SFLOAT -> Rgba16f
    case 101: return 35;  // R32G32_UINT -> Rg32ui
    case 102: return 25;  // R32G32_SINT -> Rg32i
    case 103: return 6;   // R32G32_SFLOAT -> Rg32f
    case 107: return 30;  // R32G32B32A32_UINT -> Rgba32ui
    case 108: return 21;  // R32G32B32A32_SINT -> Rgba32i
    case 109: return 1;   // R32G32B32A32_SFLOAT -> Rgba32f
    default: return 0;
  }
}

}  // namespace vkrt::vulkan
