#include "vgf/vulkan/compute_segment_plan.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vgf/compute_segment.h"  // resource_host_type
#include "vgf/ir/graph.h"         // kDynamicDim
#include "vgf/vulkan/glsl_compiler.h"
#include "vgf/vulkan/spirv_compute_interface.h"

namespace vkrt::vulkan {
namespace {

using vgf::VgfFile;
using vgf::VgfResource;
using vgf::VgfSegment;

// Binding numbers are not limited by Vulkan, but drivers size tables by the largest one.
constexpr uint32_t kMaxBindingNumber = 4095;

const char* descriptor_type_name(uint32_t t) {
  switch (t) {
    case 0: return "VK_DESCRIPTOR_TYPE_SAMPLER";
    case 1: return "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER";
    case 2: return "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE";
    case 3: return "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE";
    case 4: return "VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER";
    case 5: return "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER";
    case 6: return "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER";
    case 7: return "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER";
    case 8: return "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC";
    case 9: return "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC";
    case 10: return "VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT";
    case vgf::kVkDescriptorTypeTensorArm: return "VK_DESCRIPTOR_TYPE_TENSOR_ARM";
    case vgf::kNoDescriptorType: return "no descriptor type";
    default: return "an unknown VkDescriptorType";
  }
}

SpirvResourceKind shader_kind_of(uint32_t vk_descriptor_type) {
  switch (vk_descriptor_type) {
    case vgf::kVkDescriptorTypeStorageBuffer: return SpirvResourceKind::StorageBuffer;
    case vgf::kVkDescriptorTypeStorageImage: return SpirvResourceKind::StorageImage;
    case vgf::kVkDescriptorTypeSampledImage: return SpirvResourceKind::SampledImage;
    case vgf::kVkDescriptorTypeCombinedImageSampler: return SpirvResourceKind::CombinedImageSampler;
    default: return SpirvResourceKind::Other;
  }
}

// The numeric type Vulkan gives a format's texels (SNORM reads as float in a shader).
SpirvTexelType texel_type_of(uint32_t vk_format) {
  if (vk_format == vgf::kVkFormatR8G8B8A8Snorm) return SpirvTexelType::Float;
  switch (vgf::vk_format_info(vk_format).kind) {
    case vgf::VkFormatKind::Uint: return SpirvTexelType::Uint;
    case vgf::VkFormatKind::Sint: return SpirvTexelType::Sint;
    case vgf::VkFormatKind::Float: return SpirvTexelType::Float;
    default: return SpirvTexelType::Unknown;
  }
}

const char* texel_type_name(SpirvTexelType t) {
  switch (t) {
    case SpirvTexelType::Float: return "float";
    case SpirvTexelType::Uint: return "unsigned integer";
    case SpirvTexelType::Sint: return "signed integer";
    default: return "unknown";
  }
}

class Planner {
 public:
  explicit Planner(const Context& ctx) : ctx_(ctx) {
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
    limits_ = props.limits;
  }
  Status check_structure(const VgfFile& file, size_t segment);
  Status check_dispatch_and_push_constants(const VgfSegment& seg);
  Status plan_bindings(const VgfFile& file, const VgfSegment& seg);
  Status check_binding(const VgfFile& file, uint32_t set, uint32_t binding, uint32_t mrt, const VgfResource& r,
                       uint64_t* bytes, VkExtent3D* extent);
  Status check_shader(const vgf::VgfModule& module, const VgfSegment& seg);
  ComputeSegmentPlan& plan() { return plan_; }

 private:
  std::string where(uint32_t set, uint32_t binding) const {
    return plan_.name + (set == 0 ? "" : " set " + std::to_string(set)) + " binding " + std::to_string(binding);
  }

  const Context& ctx_;
  VkPhysicalDeviceLimits limits_{};
  ComputeSegmentPlan plan_;
  std::map<uint32_t, size_t> object_of_mrt_;
};

Status Planner::check_structure(const VgfFile& file, size_t segment) {
  VKRT_RETURN_IF_ERROR(check_compute_segment(file, segment));
  const VgfSegment& seg = file.segments[segment];
  plan_.segment_name = seg.name.empty() ? "#" + std::to_string(segment) : seg.name;
  plan_.name = "segment '" + plan_.segment_name + "'";
  return Status::ok();
}

Status Planner::check_dispatch_and_push_constants(const VgfSegment& seg) {
  const auto& d = seg.dispatch_shape;
  const std::string shape =
      "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + "]";
  VKRT_CHECK_OR_RETURN(d[0] != 0 && d[1] != 0 && d[2] != 0, InvalidProgram, plan_.name, ": dispatch_shape ", shape,
                       " has a zero workgroup count");
  for (int i = 0; i < 3; ++i) {
    VKRT_CHECK_OR_RETURN(d[i] <= limits_.maxComputeWorkGroupCount[i], NotSupported, plan_.name, ": dispatch_shape ",
                         shape, " exceeds the device's maxComputeWorkGroupCount [",
                         limits_.maxComputeWorkGroupCount[0], ",", limits_.maxComputeWorkGroupCount[1], ",",
                         limits_.maxComputeWorkGroupCount[2], "]");
  }
  // Push-constant ranges go into the pipeline layout (ExecuTorch's VgfBackend declares none).
  constexpr uint32_t kCompute = VK_SHADER_STAGE_COMPUTE_BIT;
  constexpr uint32_t kKnownStages = VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT;
  uint32_t end = 0;
  for (size_t i = 0; i < seg.push_constant_ranges.size(); ++i) {
    const vgf::VgfPushConstantRange& r = seg.push_constant_ranges[i];
    const std::string which = plan_.name + ": push-constant range " + std::to_string(i);
    VKRT_CHECK_OR_RETURN(r.size > 0 && r.size % 4 == 0 && r.offset % 4 == 0, InvalidProgram, which, " (offset ",
                         r.offset, ", size ", r.size, ") must be a non-empty multiple of 4 bytes at a multiple of 4");
    VKRT_CHECK_OR_RETURN((r.stage_flags & kCompute) &&
                             (r.stage_flags == VK_SHADER_STAGE_ALL || (r.stage_flags & ~kKnownStages) == 0),
                         InvalidProgram, which, " has stage flags ", r.stage_flags, "; a compute pipeline needs VK_SHADER_STAGE_COMPUTE_BIT and known stages");
    VKRT_CHECK_OR_RETURN(uint64_t(r.offset) + r.size <= limits_.maxPushConstantsSize, NotSupported, which,
                         " ends at byte ", uint64_t(r.offset) + r.size, ", past the device's maxPushConstantsSize (",
                         limits_.maxPushConstantsSize, ")");
    for (size_t j = 0; j < i; ++j) {
      VKRT_CHECK_OR_RETURN(!(seg.push_constant_ranges[j].stage_flags & r.stage_flags), InvalidProgram, which,
                           " and range ", j, " name the same shader stage (Vulkan allows one range per stage)");
    }
    end = std::max(end, r.offset + r.size);
  }
  // The VGF carries push-constant ranges but no values: every range is pushed as zeros.
  plan_.push_constant_bytes = end;
  return Status::ok();
}

Status Planner::check_binding(const VgfFile& file, uint32_t set, uint32_t binding, uint32_t mrt,
                                                 const VgfResource& r, uint64_t* bytes, VkExtent3D* extent) {
  const std::string at = where(set, binding);
  const uint32_t type = r.vk_descriptor_type;
  if (type == vgf::kVkDescriptorTypeTensorArm) {
    uint32_t count = 0;
    bool offered = false;
    if (vkEnumerateDeviceExtensionProperties(ctx_.physical_device(), nullptr, &count, nullptr) == VK_SUCCESS) {
      std::vector<VkExtensionProperties> exts(count);
      if (vkEnumerateDeviceExtensionProperties(ctx_.physical_device(), nullptr, &count, exts.data()) ==
          VK_SUCCESS) {
        for (uint32_t i = 0; i < count; ++i) offered |= std::strcmp(exts[i].extensionName, "VK_ARM_tensors") == 0;
      }
    }
    return make_error(Error::NotSupported, at, ": VK_DESCRIPTOR_TYPE_TENSOR_ARM needs VK_ARM_tensors, which ",
                      offered ? "vkrt does not enable on device '" : "device '", ctx_.info().name,
                      offered ? "'" : "' lacks");
  }
  VKRT_CHECK_OR_RETURN(type == vgf::kVkDescriptorTypeStorageBuffer || vgf::is_image_descriptor_type(type),
                       NotSupported, at, " (resource ", mrt, "): ", descriptor_type_name(type), " (", type,
                       ") is not supported in a COMPUTE segment (storage buffers, storage images, sampled "
                       "images and combined image samplers are)");
  Result<vgf::ResourceHostType> host = vgf::resource_host_type(file, mrt);
  if (!host.ok()) return Status(host.status()).with_context(at);
  uint64_t count = 1;
  for (int64_t dim : host->shape) {
    VKRT_CHECK_OR_RETURN(dim != vgf::kDynamicDim, NotSupported, at, " (resource ", mrt,
                         "): dynamic dimensions are not supported in a COMPUTE segment");
    VKRT_CHECK_OR_RETURN(dim == 0 || count <= (uint64_t(1) << 48) / uint64_t(dim), NotSupported, at,
                         " (resource ", mrt, "): too many elements");
    count *= uint64_t(dim);
  }
  const vgf::VkFormatInfo info = vgf::vk_format_info(r.vk_format);
  *bytes = count * info.component_bytes;

  if (type == vgf::kVkDescriptorTypeStorageBuffer) {
    VKRT_CHECK_OR_RETURN(*bytes <= limits_.maxStorageBufferRange, NotSupported, at, " (resource ", mrt, "): ",
                         *bytes, " bytes exceed the device's maxStorageBufferRange (",
                         limits_.maxStorageBufferRange, ")");
    return Status::ok();
  }

  // Images: [1,H,W,C] or [H,W,C] (resource_host_type checked C against the format).
  const std::vector<int64_t>& s = r.shape;
  const int64_t h = s[s.size() - 3], w = s[s.size() - 2];
  VKRT_CHECK_OR_RETURN(info.kind == vgf::VkFormatKind::Uint || info.kind == vgf::VkFormatKind::Sint ||
                           info.kind == vgf::VkFormatKind::Float,
                       NotSupported, at, " (resource ", mrt, "): VkFormat ", r.vk_format,
                       " is not a Vulkan image format");
  VKRT_CHECK_OR_RETURN(uint64_t(h) <= limits_.maxImageDimension2D && uint64_t(w) <= limits_.maxImageDimension2D,
                       NotSupported, at, " (resource ", mrt, "): a ", w, "x", h,
                       " image exceeds the device's maxImageDimension2D (", limits_.maxImageDimension2D, ")");
  *extent = VkExtent3D{uint32_t(w), uint32_t(h), 1};

  const bool storage = type == vgf::kVkDescriptorTypeStorageImage;
  VkFormatProperties fp{};
  vkGetPhysicalDeviceFormatProperties(ctx_.physical_device(), VkFormat(r.vk_format), &fp);
  VkFormatFeatureFlags need = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                              (storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT);
  if (type == vgf::kVkDescriptorTypeCombinedImageSampler) {
    VKRT_CHECK_OR_RETURN(r.has_sampler, InvalidProgram, at, " (resource ", mrt,
                         "): a combined image sampler without a SamplerConfig");
    const vgf::VgfSamplerConfig& c = r.sampler;
    VKRT_CHECK_OR_RETURN(c.min_filter <= VK_FILTER_LINEAR && c.mag_filter <= VK_FILTER_LINEAR, InvalidProgram, at,
                         " (resource ", mrt, "): sampler filters ", c.min_filter, "/", c.mag_filter,
                         " are not VK_FILTER_NEAREST (0) or VK_FILTER_LINEAR (1)");
    VKRT_CHECK_OR_RETURN(c.address_mode_u <= VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER &&
                             c.address_mode_v <= VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
                         InvalidProgram, at, " (resource ", mrt, "): sampler address modes ", c.address_mode_u, "/",
                         c.address_mode_v, " are not REPEAT, MIRRORED_REPEAT, CLAMP_TO_EDGE or CLAMP_TO_BORDER (0-3)");
    VKRT_CHECK_OR_RETURN(c.border_color <= VK_BORDER_COLOR_INT_OPAQUE_WHITE, InvalidProgram, at, " (resource ",
                         mrt, "): sampler border color ", c.border_color, " is not a VkBorderColor (0-5)");
    if (c.min_filter == VK_FILTER_LINEAR || c.mag_filter == VK_FILTER_LINEAR) {
      VKRT_CHECK_OR_RETURN(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT,
                           NotSupported, at, " (resource ", mrt, "): device '", ctx_.info().name,
                           "' cannot filter VkFormat ", r.vk_format, " linearly (VK_FILTER_LINEAR)");
    }
  }
  VKRT_CHECK_OR_RETURN((fp.optimalTilingFeatures & need) == need, NotSupported, at, " (resource ", mrt,
                       "): device '", ctx_.info().name, "' does not support VkFormat ", r.vk_format, " as a ",
                       storage ? "storage" : "sampled", " image with transfers (format features ",
                       fp.optimalTilingFeatures, ")");
  VkImageFormatProperties ifp{};
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                  (storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT);
  VkResult res = vkGetPhysicalDeviceImageFormatProperties(ctx_.physical_device(), VkFormat(r.vk_format),
                                                          VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, usage, 0, &ifp);
  VKRT_CHECK_OR_RETURN(res == VK_SUCCESS, NotSupported, at, " (resource ", mrt, "): device '", ctx_.info().name,
                       "' has no 2D optimal-tiling images of VkFormat ", r.vk_format, " for this use (",
                       vk_result_name(res), ")");
  VKRT_CHECK_OR_RETURN(uint64_t(w) <= ifp.maxExtent.width && uint64_t(h) <= ifp.maxExtent.height, NotSupported, at,
                       " (resource ", mrt, "): a ", w, "x", h, " image of VkFormat ", r.vk_format,
                       " exceeds the device's ", ifp.maxExtent.width, "x", ifp.maxExtent.height);
  VKRT_CHECK_OR_RETURN(*bytes <= ifp.maxResourceSize, NotSupported, at, " (resource ", mrt, "): ", *bytes,
                       " bytes exceed the device's maxResourceSize for this image (", ifp.maxResourceSize, ")");
  return Status::ok();
}

Status Planner::plan_bindings(const VgfFile& file, const VgfSegment& seg) {
  // Alias groups (and resources named twice) map to one device object.
  std::map<uint32_t, size_t> object_of_group;
  uint32_t max_set = 0;
  std::array<uint32_t, 4> per_stage{};  // storage buffers, storage images, sampled images, samplers
  for (size_t p = 0; p < seg.set_infos.size(); ++p) {
    const vgf::VgfDescriptorSet& ds = seg.set_infos[p];
    const uint32_t set = ds.set_index == vgf::kUnsetIndex ? uint32_t(p) : ds.set_index;
    VKRT_CHECK_OR_RETURN(set < limits_.maxBoundDescriptorSets, NotSupported, plan_.name, ": descriptor set ", set,
                         " is past the device's maxBoundDescriptorSets (", limits_.maxBoundDescriptorSets, ")");
    for (const PlannedSet& other : plan_.sets) {
      VKRT_CHECK_OR_RETURN(other.set_index != set, InvalidProgram, plan_.name, ": descriptor set ", set,
                           " is described twice in set_infos");
    }
    max_set = std::max(max_set, set);
    PlannedSet layout;
    layout.set_index = set;
    for (const vgf::VgfBindingSlot& slot : ds.bindings) {
      const std::string at = where(set, slot.binding);
      VKRT_CHECK_OR_RETURN(slot.binding <= kMaxBindingNumber, NotSupported, at, ": binding numbers above ",
                           kMaxBindingNumber, " are not supported");
      for (const PlannedBinding& b : layout.bindings) {
        VKRT_CHECK_OR_RETURN(b.binding != slot.binding, InvalidProgram, at, " is bound twice");
      }
      VKRT_CHECK_OR_RETURN(slot.mrt_index < file.resources.size(), InvalidProgram, at, ": resource ",
                           slot.mrt_index, " out of range (", file.resources.size(), " resources)");
      const VgfResource& r = file.resources[slot.mrt_index];
      uint64_t bytes = 0;
      VkExtent3D extent{1, 1, 1};
      VKRT_RETURN_IF_ERROR(check_binding(file, set, slot.binding, slot.mrt_index, r, &bytes, &extent));
      switch (r.vk_descriptor_type) {
        case vgf::kVkDescriptorTypeStorageBuffer: ++per_stage[0]; break;
        case vgf::kVkDescriptorTypeStorageImage: ++per_stage[1]; break;
        case vgf::kVkDescriptorTypeSampledImage: ++per_stage[2]; break;
        default: ++per_stage[2], ++per_stage[3]; break;  // combined image sampler
      }

      auto known = object_of_mrt_.find(slot.mrt_index);
      size_t index = plan_.objects.size();
      if (known != object_of_mrt_.end()) {
        index = known->second;
      } else if (r.alias_group_id != vgf::kNoAliasGroup && object_of_group.count(r.alias_group_id)) {
        index = object_of_group[r.alias_group_id];
        const PlannedObject& o = plan_.objects[index];
        const VgfResource& first = file.resources[o.mrt];
        VKRT_CHECK_OR_RETURN(first.vk_descriptor_type == r.vk_descriptor_type && first.vk_format == r.vk_format &&
                                 first.shape == r.shape && first.strides == r.strides,
                             NotSupported, at, ": resources ", o.mrt, " and ", slot.mrt_index, " share alias group ",
                             r.alias_group_id,
                             " with different descriptor types, formats or shapes; only identical views of one "
                             "object are supported in a COMPUTE segment");
      } else {
        PlannedObject o;
        o.mrt = slot.mrt_index;
        o.descriptor_type = r.vk_descriptor_type;
        o.vk_format = r.vk_format;
        o.bytes = bytes;
        o.image = vgf::is_image_descriptor_type(r.vk_descriptor_type);
        o.extent = extent;
        plan_.objects.push_back(std::move(o));
        if (r.alias_group_id != vgf::kNoAliasGroup) object_of_group[r.alias_group_id] = index;
      }
      object_of_mrt_[slot.mrt_index] = index;
      layout.bindings.push_back({slot.binding, r.vk_descriptor_type, index});
    }
    plan_.sets.push_back(std::move(layout));
  }
  const std::array<std::pair<uint32_t, const char*>, 4> stage_limits{{
      {limits_.maxPerStageDescriptorStorageBuffers, "maxPerStageDescriptorStorageBuffers"},
      {limits_.maxPerStageDescriptorStorageImages, "maxPerStageDescriptorStorageImages"},
      {limits_.maxPerStageDescriptorSampledImages, "maxPerStageDescriptorSampledImages"},
      {limits_.maxPerStageDescriptorSamplers, "maxPerStageDescriptorSamplers"},
  }};
  for (size_t i = 0; i < stage_limits.size(); ++i) {
    VKRT_CHECK_OR_RETURN(per_stage[i] <= stage_limits[i].first, NotSupported, plan_.name, " binds ", per_stage[i],
                         " descriptors counted by ", stage_limits[i].second, " (device limit ",
                         stage_limits[i].first, ")");
  }
  const uint32_t resources = per_stage[0] + per_stage[1] + per_stage[2];
  VKRT_CHECK_OR_RETURN(resources <= limits_.maxPerStageResources, NotSupported, plan_.name, " binds ", resources,
                       " resources (device maxPerStageResources ", limits_.maxPerStageResources, ")");
  plan_.set_layout_count = plan_.sets.empty() ? 0 : max_set + 1;

  // Inputs and outputs: every one is a bound resource.
  auto slots = [&](const std::vector<vgf::VgfBindingSlot>& io, const char* what, bool input,
                   std::vector<PlannedHostSlot>* out) -> Status {
    for (size_t i = 0; i < io.size(); ++i) {
      auto it = object_of_mrt_.find(io[i].mrt_index);
      VKRT_CHECK_OR_RETURN(it != object_of_mrt_.end(), InvalidProgram, plan_.name, ": ", what, " ", i, " (resource ",
                           io[i].mrt_index, ") is not bound in any of the segment's descriptor sets");
      PlannedObject& o = plan_.objects[it->second];
      (input ? o.input : o.output) = true;
      const vgf::VkFormatInfo info = vgf::vk_format_info(file.resources[io[i].mrt_index].vk_format);
      out->push_back({it->second, io[i].mrt_index, o.bytes, info.component_bytes});
    }
    return Status::ok();
  };
  VKRT_RETURN_IF_ERROR(slots(seg.inputs, "input", true, &plan_.inputs));
  VKRT_RETURN_IF_ERROR(slots(seg.outputs, "output", false, &plan_.outputs));
  return Status::ok();
}

// What Vulkan leaves undefined when the module and the pipeline layout disagree is checked here.
Status Planner::check_shader(const vgf::VgfModule& module, const VgfSegment& seg) {
  Status valid = validate_spirv(module.spirv, "module '" + module.name + "'");
  if (!valid.is_ok()) return Status(Error::InvalidProgram, plan_.name + ": " + valid.message());
  Result<SpirvComputeInterface> scanned = scan_spirv_compute_interface(module.spirv, module.entry_point);
  if (!scanned.ok()) return Status(scanned.status()).with_context(plan_.name);
  const SpirvComputeInterface& iface = *scanned;

  const auto& ls = iface.local_size;
  const uint64_t invocations = uint64_t(ls[0]) * ls[1] * ls[2];
  for (int i = 0; i < 3; ++i) {
    VKRT_CHECK_OR_RETURN(ls[i] <= limits_.maxComputeWorkGroupSize[i], NotSupported, plan_.name, ": the shader's local size [",
                         ls[0], ",", ls[1], ",", ls[2], "] exceeds the device's maxComputeWorkGroupSize [",
                         limits_.maxComputeWorkGroupSize[0], ",", limits_.maxComputeWorkGroupSize[1], ",",
                         limits_.maxComputeWorkGroupSize[2], "]");
  }
  VKRT_CHECK_OR_RETURN(invocations <= limits_.maxComputeWorkGroupInvocations, NotSupported, plan_.name,
                       ": the shader's workgroup of ", invocations, " invocations exceeds the device's ",
                       "maxComputeWorkGroupInvocations (", limits_.maxComputeWorkGroupInvocations, ")");
  VKRT_CHECK_OR_RETURN(!iface.push_constants || !seg.push_constant_ranges.empty(), InvalidProgram, plan_.name,
                       ": the shader declares a push-constant block but the segment has no push-constant range");

  for (const SpirvResource& sr : iface.resources) {
    const std::string at = where(sr.set, sr.binding);
    const PlannedBinding* bound = nullptr;
    for (const PlannedSet& s : plan_.sets) {
      if (s.set_index != sr.set) continue;
      for (const PlannedBinding& b : s.bindings) {
        if (b.binding == sr.binding) bound = &b;
      }
    }
    VKRT_CHECK_OR_RETURN(bound, InvalidProgram, at, ": the shader declares a ", spirv_resource_kind_name(sr.kind),
                         " here that the segment's set_infos do not bind");
    VKRT_CHECK_OR_RETURN(!sr.arrayed, NotSupported, at, ": the shader declares an array of descriptors; a VGF binds one");
    VKRT_CHECK_OR_RETURN(shader_kind_of(bound->descriptor_type) == sr.kind, InvalidProgram, at, ": the shader declares a ",
                         spirv_resource_kind_name(sr.kind), ", the VGF binds ", descriptor_type_name(bound->descriptor_type));
    if (!plan_.objects[bound->object].image) continue;
    const uint32_t vk_format = plan_.objects[bound->object].vk_format;
    const SpirvTexelType want = texel_type_of(vk_format);
    VKRT_CHECK_OR_RETURN(sr.texel == want, InvalidProgram, at, ": the shader reads ", texel_type_name(sr.texel),
                         " texels from an image of VkFormat ", vk_format, " (", texel_type_name(want), ")");
    if (sr.kind == SpirvResourceKind::StorageImage) {
      // Without a format qualifier the shader needs shaderStorageImageRead/WriteWithoutFormat,
      // which the context does not enable.
      const uint32_t want_format = spirv_image_format_for_vk_format(vk_format);
      VKRT_CHECK_OR_RETURN(sr.image_format != 0, NotSupported, at,
                           ": a storage image without a format qualifier (shaderStorageImage*WithoutFormat) is "
                           "not supported");
      VKRT_CHECK_OR_RETURN(sr.image_format == want_format, InvalidProgram, at, ": the shader's image format (SPIR-V ",
                           sr.image_format, ") is not VkFormat ", vk_format, " (SPIR-V ", want_format, ")");
    }
  }
  return Status::ok();
}

}  // namespace

Status check_compute_segment(const VgfFile& file, size_t segment) {
  VKRT_CHECK_OR_RETURN(segment < file.segments.size(), InvalidArgument, "segment ", segment, " out of range (",
                       file.segments.size(), " segments)");
  const VgfSegment& seg = file.segments[segment];
  const std::string segment_name = seg.name.empty() ? "#" + std::to_string(segment) : seg.name;
  const std::string name = "segment '" + segment_name + "'";
  VKRT_CHECK_OR_RETURN(seg.type == vgf::ModuleType::Compute, InvalidArgument, name, " is a ",
                       vgf::module_type_name(seg.type), " segment, not a COMPUTE one");
  VKRT_CHECK_OR_RETURN(seg.module_index < file.modules.size(), InvalidProgram, name, ": module ",
                       seg.module_index, " out of range (", file.modules.size(), " modules)");
  const vgf::VgfModule& m = file.modules[seg.module_index];
  const std::string module = "module " + std::to_string(seg.module_index) + " ('" + m.name + "')";
  VKRT_CHECK_OR_RETURN(m.type == vgf::ModuleType::Compute, InvalidProgram, name, ": its ", module,
                       " is a GRAPH module; a COMPUTE segment needs a compute shader");
  VKRT_CHECK_OR_RETURN(m.code_kind != vgf::ModuleCodeKind::Glsl && m.code_kind != vgf::ModuleCodeKind::Hlsl,
                       NotSupported, name, ": its ", module, " holds ",
                       m.code_kind == vgf::ModuleCodeKind::Glsl ? "GLSL" : "HLSL",
                       " source; only SPIR-V compute modules are run");
  VKRT_CHECK_OR_RETURN(m.code_kind == vgf::ModuleCodeKind::Spirv && !m.spirv.empty(), InvalidProgram, name,
                       ": its ", module, " has no SPIR-V code");
  VKRT_CHECK_OR_RETURN(!m.entry_point.empty(), InvalidProgram, name, ": its ", module, " names no entry point");
  // As ExecuTorch's VgfBackend: constants feed graph pipelines only.
  VKRT_CHECK_OR_RETURN(seg.constants.empty(), InvalidProgram, name, " lists ", seg.constants.size(),
                       " constant(s); constants are not allowed in a COMPUTE segment");
  return Status::ok();
}

Result<ComputeSegmentPlan> plan_compute_segment(const VgfFile& file, size_t segment, const Context& ctx) {
  Planner p(ctx);
  VKRT_RETURN_IF_ERROR(p.check_structure(file, segment));
  const VgfSegment& seg = file.segments[segment];
  VKRT_RETURN_IF_ERROR(p.check_dispatch_and_push_constants(seg));
  VKRT_RETURN_IF_ERROR(p.plan_bindings(file, seg));
  VKRT_RETURN_IF_ERROR(p.check_shader(file.modules[seg.module_index], seg));
  return std::move(p.plan());
}

}  // namespace vkrt::vulkan
