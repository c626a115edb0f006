// What a COMPUTE segment's SPIR-V module declares that Vulkan requires the pipeline to match:
// the entry point and its workgroup size, its descriptor bindings (kind, image format and
// sampled type) and whether it has a push-constant block. The COMPUTE-segment runner checks
// these against the VGF's bindings and the device limits before it hands the module to the
// driver: a mismatch is undefined behaviour in Vulkan, not an error the driver must report.
//
// The module must already have passed validate_spirv() (glsl_compiler.h): the scan trusts the
// instruction stream to be well formed, but never reads past the words it is given.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class SpirvResourceKind : uint8_t {
  StorageBuffer,
  UniformBuffer,
  StorageImage,
  SampledImage,          // OpTypeImage Sampled=1 (no sampler)
  CombinedImageSampler,  // OpTypeSampledImage
  Sampler,
  TexelBuffer,           // image of Dim Buffer
  Other,
};
const char* spirv_resource_kind_name(SpirvResourceKind kind);

// SPIR-V numeric type of an image's texels (OpTypeImage Sampled Type).
enum class SpirvTexelType : uint8_t { Unknown, Float, Uint, Sint };

struct SpirvResource {
  uint32_t set = 0, binding = 0;
  SpirvResourceKind kind = SpirvResourceKind::Other;
  bool arrayed = false;            // an array of descriptors
  uint32_t image_format = 0;       // SPIR-V ImageFormat (0 = Unknown); images only
  SpirvTexelType texel = SpirvTexelType::Unknown;  // images only
};

struct SpirvComputeInterface {
  uint32_t version = 0;                        // header word 1 (0x00010500 = 1.5)
  std::array<uint32_t, 3> local_size{0, 0, 0};  // 0s: LocalSizeId or not declared
  std::vector<SpirvResource> resources;        // variables with DescriptorSet/Binding
  bool push_constants = false;                 // a PushConstant variable is declared
};

// Scans `words` for the GLCompute entry point named `entry_point`. InvalidProgram when there is
// none (the message lists the entry points there are).
Result<SpirvComputeInterface> scan_spirv_compute_interface(std::span<const uint32_t> words,
                                                           std::string_view entry_point);

// The SPIR-V ImageFormat a storage image of this VkFormat must declare; 0 when none matches.
uint32_t spirv_image_format_for_vk_format(uint32_t vk_format);

}  // namespace vkrt::vulkan
