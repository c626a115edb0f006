// The checked plan of a VGF COMPUTE segment (vgf/compute_segment.h) on one device, before any
// Vulkan object is made: which device objects (storage buffers, images) its resources become,
// how they are bound (descriptor sets), which host tensors go in and out, and the push-constant
// bytes. Every rule of the format, every match between the SPIR-V module and the VGF's tables
// that Vulkan leaves undefined when broken, and every device limit is checked here; the runner
// (compute_segment_runner.cpp) only creates what the plan says. Errors name the segment (and
// its set and binding): InvalidProgram for what breaks the format's rules or disagrees with the
// shader, NotSupported for what the device or the runner cannot do.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vgf/format/vgf_file.h"
#include "vgf/vulkan/context.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

// One device object: a storage buffer, or a 2D image (with a sampler for a combined image
// sampler). Resources of one alias group share one (identical views only); a resource that is
// both an input and an output of the segment is one.
struct PlannedObject {
  uint32_t mrt = 0;  // the first resource that maps here (its sampler config; messages)
  uint32_t descriptor_type = 0;
  uint32_t vk_format = 0;
  uint64_t bytes = 0;  // packed: elements x format size; images H x W x texel size
  bool image = false;
  VkExtent3D extent{1, 1, 1};
  bool input = false, output = false;
};

struct PlannedBinding {
  uint32_t binding = 0;
  uint32_t descriptor_type = 0;
  size_t object = 0;
};

struct PlannedSet {
  uint32_t set_index = 0;  // DescriptorSetInfo.set_index, or its position when unset
  std::vector<PlannedBinding> bindings;
};

// segment.inputs[i] / segment.outputs[j]: the host tensor's object and size.
struct PlannedHostSlot {
  size_t object = 0;
  uint32_t mrt = 0;
  uint64_t bytes = 0;
  size_t element_bytes = 1;  // bytes of one component of the format
};

struct ComputeSegmentPlan {
  std::string segment_name;  // the segment's name, "#<index>" when it has none
  std::string name;          // "segment '<segment_name>'", for messages
  std::vector<PlannedObject> objects;
  std::vector<PlannedSet> sets;
  uint32_t set_layout_count = 0;  // largest set index + 1 (sets in between get empty layouts)
  std::vector<PlannedHostSlot> inputs, outputs;
  uint32_t push_constant_bytes = 0;  // end of the last push-constant range
};

// The checks that need no device: segment and module kinds, SPIR-V code present, entry point
// named, no constants.
Status check_compute_segment(const vgf::VgfFile& file, size_t segment);

// All checks, against `ctx`'s device (limits, format features, VK_ARM_tensors), and the plan.
Result<ComputeSegmentPlan> plan_compute_segment(const vgf::VgfFile& file, size_t segment, const Context& ctx);

}  // namespace vkrt::vulkan
