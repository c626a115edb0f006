#include "vgf/vulkan/compute_segment_runner.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vgf/vulkan/buffer.h"
#include "vgf/vulkan/compute_segment_plan.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/pipeline_cache.h"
#include "vkrt/event_tracer.h"

namespace vkrt::vulkan {
namespace {

using vgf::VgfFile;
using vgf::VgfResource;
using vgf::VgfSegment;

constexpr uint64_t kSubmitTimeoutNs = 120ull * 1000 * 1000 * 1000;
constexpr uint64_t kStagingAlign = 16;  // a multiple of every texel size (vkCmdCopyBufferToImage)

// A planned object and what stands for it on the device: a storage buffer, or an image with its
// memory, view and (combined image sampler) sampler.
struct DeviceObject : PlannedObject {
  Buffer buffer;
  bool direct = false;  // the host copies straight into / out of the mapped buffer
  uint64_t staging_offset = 0;
  VkImage vk_image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
};

class VulkanComputeSegmentRunner final : public vgf::ComputeSegmentRunner {
 public:
  ~VulkanComputeSegmentRunner() override;

  Status init(const VgfFile& file, size_t segment, const VgfOptions& options);

  std::string device_name() const override { return ctx_->info().name; }
  bool software_device() const override { return ctx_->features().cpu_device; }
  Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) override;
  std::vector<DelegateProfileEntry> op_profile() const override;

 private:
  Status create_objects(const VgfFile& file, bool zero_copy);
  Status create_image(const VgfResource& r, DeviceObject& o);
  Status create_pipeline(const vgf::VgfModule& module, const VgfSegment& seg);
  Status create_descriptors();
  Status record(const VgfSegment& seg);

  ComputeSegmentPlan plan_;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<PipelineCache> cache_;
  std::vector<DeviceObject> objects_;  // plan_.objects, made
  Buffer staging_;
  bool profile_ = false;

  std::vector<VkDescriptorSetLayout> set_layouts_;  // index = set number (gaps: empty layouts)
  std::vector<VkDescriptorSet> descriptor_sets_;    // per plan_.sets entry
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::vector<uint8_t> zeros_;  // push-constant values: the VGF carries none
  bool ran_ = false;
  uint64_t submit_ns_ = 0;
};

VulkanComputeSegmentRunner::~VulkanComputeSegmentRunner() {
  if (!ctx_) return;
  VkDevice dev = ctx_->device();
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
  if (command_pool_) vkDestroyCommandPool(dev, command_pool_, nullptr);
  if (pool_) vkDestroyDescriptorPool(dev, pool_, nullptr);
  if (pipeline_) vkDestroyPipeline(dev, pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(dev, layout_, nullptr);
  for (VkDescriptorSetLayout l : set_layouts_) {
    if (l) vkDestroyDescriptorSetLayout(dev, l, nullptr);
  }
  for (DeviceObject& o : objects_) {
    if (o.sampler) vkDestroySampler(dev, o.sampler, nullptr);
    if (o.view) vkDestroyImageView(dev, o.view, nullptr);
    if (o.vk_image) vkDestroyImage(dev, o.vk_image, nullptr);
    if (o.memory) vkFreeMemory(dev, o.memory, nullptr);
  }
  objects_.clear();
  staging_ = Buffer();
  // Best effort: a cache that cannot be written only costs the next creation time.
  if (cache_) (void)cache_->save();
}

Status VulkanComputeSegmentRunner::create_image(const VgfResource& r, DeviceObject& o) {
  VkDevice dev = ctx_->device();
  const bool storage = o.descriptor_type == vgf::kVkDescriptorTypeStorageImage;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = VkFormat(o.vk_format);
  ici.extent = o.extent;
  ici.mipLevels = 1;
  ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_OPTIMAL;
  ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
              (storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT);
  ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VKRT_VK_RETURN_IF_ERROR(vkCreateImage(dev, &ici, nullptr, &o.vk_image), "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(dev, o.vk_image, &req);
  const uint64_t limit = ctx_->features().max_memory_allocation_size;
  VKRT_CHECK_OR_RETURN(limit == 0 || req.size <= limit, MemoryAllocationFailed, plan_.name, ": image of resource ", o.mrt,
                       " needs ", req.size, " bytes, above the device's maxMemoryAllocationSize (", limit, ")");
  const auto& props = ctx_->memory_properties();
  Status failure = make_error(Error::NotSupported, plan_.name, ": no Vulkan memory type for the image of resource ", o.mrt);
  for (uint32_t type : memory_type_candidates(props, req.memoryTypeBits, MemoryKind::DeviceLocal)) {
    if (req.size > props.memoryHeaps[props.memoryTypes[type].heapIndex].size) continue;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VkResult res = vkAllocateMemory(dev, &mai, nullptr, &o.memory);
    if (res == VK_SUCCESS) {
      failure = Status::ok();
      break;
    }
    o.memory = VK_NULL_HANDLE;
    failure = vk_status(res, "vkAllocateMemory (image of " + std::to_string(req.size) + " bytes)");
    if (res != VK_ERROR_OUT_OF_DEVICE_MEMORY && res != VK_ERROR_OUT_OF_HOST_MEMORY) break;
  }
  VKRT_RETURN_IF_ERROR(failure);
  VKRT_VK_RETURN_IF_ERROR(vkBindImageMemory(dev, o.vk_image, o.memory, 0), "vkBindImageMemory");
  VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vci.image = o.vk_image;
  vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vci.format = VkFormat(o.vk_format);
  vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VKRT_VK_RETURN_IF_ERROR(vkCreateImageView(dev, &vci, nullptr, &o.view), "vkCreateImageView");
  if (o.descriptor_type == vgf::kVkDescriptorTypeCombinedImageSampler) {
    // As ExecuTorch's VgfBackend: normalised coordinates, one mip level, W repeats V's mode.
    VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sci.magFilter = VkFilter(r.sampler.mag_filter);
    sci.minFilter = VkFilter(r.sampler.min_filter);
    sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sci.addressModeU = VkSamplerAddressMode(r.sampler.address_mode_u);
    sci.addressModeV = VkSamplerAddressMode(r.sampler.address_mode_v);
    sci.addressModeW = VkSamplerAddressMode(r.sampler.address_mode_v);
    sci.maxAnisotropy = 1.0f;
    sci.compareOp = VK_COMPARE_OP_NEVER;
    sci.borderColor = VkBorderColor(r.sampler.border_color);
    VKRT_VK_RETURN_IF_ERROR(vkCreateSampler(dev, &sci, nullptr, &o.sampler), "vkCreateSampler");
  }
  return Status::ok();
}

Status VulkanComputeSegmentRunner::create_objects(const VgfFile& file, bool zero_copy) {
  uint64_t staging_bytes = 0;
  for (DeviceObject& o : objects_) {
    if (o.image) {
      VKRT_RETURN_IF_ERROR(create_image(file.resources[o.mrt], o));
    } else {
      Result<Buffer> b = Buffer::create(ctx_, size_t(o.bytes), MemoryKind::DeviceLocal);
      if (!b.ok()) return Status(b.status()).with_context(plan_.name + ": resource " + std::to_string(o.mrt));
      o.buffer = std::move(*b);
      o.direct = zero_copy && o.buffer.mapped() && o.buffer.host_coherent();
    }
    if (!o.direct && (o.input || o.output)) {
      o.staging_offset = staging_bytes;
      staging_bytes += (o.bytes + kStagingAlign - 1) / kStagingAlign * kStagingAlign;
    }
  }
  if (staging_bytes) {
    Result<Buffer> b = Buffer::create(ctx_, size_t(staging_bytes), MemoryKind::HostStaging);
    if (!b.ok()) return Status(b.status()).with_context(plan_.name + ": staging buffer");
    staging_ = std::move(*b);
    VKRT_CHECK_OR_RETURN(staging_.mapped() && staging_.host_coherent(), NotSupported, plan_.name,
                         ": no host-visible coherent memory for the staging buffer");
  }
  return Status::ok();
}

Status VulkanComputeSegmentRunner::create_pipeline(const vgf::VgfModule& module, const VgfSegment& seg) {
  VkDevice dev = ctx_->device();
  for (uint32_t set = 0; set < set_layouts_.size(); ++set) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const PlannedSet& s : plan_.sets) {
      if (s.set_index != set) continue;
      for (const PlannedBinding& b : s.bindings) {
        bindings.push_back({b.binding, VkDescriptorType(b.descriptor_type), 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      }
    }
    // Sets the segment leaves out between used ones get empty layouts.
    VkDescriptorSetLayoutCreateInfo lci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    lci.bindingCount = uint32_t(bindings.size());
    lci.pBindings = bindings.data();
    VKRT_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(dev, &lci, nullptr, &set_layouts_[set]),
                            "vkCreateDescriptorSetLayout");
  }
  // The segment's push-constant ranges, as declared (ExecuTorch's VgfBackend declares none).
  std::vector<VkPushConstantRange> ranges;
  for (const vgf::VgfPushConstantRange& r : seg.push_constant_ranges) {
    ranges.push_back({VkShaderStageFlags(r.stage_flags), r.offset, r.size});
  }
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = uint32_t(set_layouts_.size());
  plci.pSetLayouts = set_layouts_.data();
  plci.pushConstantRangeCount = uint32_t(ranges.size());
  plci.pPushConstantRanges = ranges.data();
  VKRT_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(dev, &plci, nullptr, &layout_), "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = module.spirv.size() * sizeof(uint32_t);
  smci.pCode = module.spirv.data();
  VkShaderModule shader = VK_NULL_HANDLE;
  VKRT_VK_RETURN_IF_ERROR(vkCreateShaderModule(dev, &smci, nullptr, &shader), "vkCreateShaderModule");
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = shader;
  cpci.stage.pName = module.entry_point.c_str();
  cpci.layout = layout_;
  cpci.basePipelineIndex = -1;
  VkResult res = vkCreateComputePipelines(dev, cache_ ? cache_->handle() : VK_NULL_HANDLE, 1, &cpci, nullptr,
                                          &pipeline_);
  vkDestroyShaderModule(dev, shader, nullptr);
  if (res != VK_SUCCESS) {
    pipeline_ = VK_NULL_HANDLE;
    return vk_status(res, plan_.name + ": vkCreateComputePipelines");
  }
  return Status::ok();
}

Status VulkanComputeSegmentRunner::create_descriptors() {
  if (plan_.sets.empty()) return Status::ok();
  VkDevice dev = ctx_->device();
  std::vector<VkDescriptorPoolSize> sizes;
  for (const PlannedSet& s : plan_.sets) {
    for (const PlannedBinding& b : s.bindings) {
      auto it = std::find_if(sizes.begin(), sizes.end(),
                             [&](const VkDescriptorPoolSize& p) { return p.type == VkDescriptorType(b.descriptor_type); });
      if (it == sizes.end()) {
        sizes.push_back({VkDescriptorType(b.descriptor_type), 1});
      } else {
        ++it->descriptorCount;
      }
    }
  }
  if (sizes.empty()) sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1});
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = uint32_t(plan_.sets.size());
  dpci.poolSizeCount = uint32_t(sizes.size());
  dpci.pPoolSizes = sizes.data();
  VKRT_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool_), "vkCreateDescriptorPool");
  descriptor_sets_.assign(plan_.sets.size(), VK_NULL_HANDLE);
  for (size_t i = 0; i < plan_.sets.size(); ++i) {
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool_;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &set_layouts_[plan_.sets[i].set_index];
    VKRT_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(dev, &dsai, &descriptor_sets_[i]), "vkAllocateDescriptorSets");
    const size_t n = plan_.sets[i].bindings.size();
    std::vector<VkDescriptorBufferInfo> buffers(n);
    std::vector<VkDescriptorImageInfo> images(n);
    std::vector<VkWriteDescriptorSet> writes(n);
    for (size_t k = 0; k < n; ++k) {
      const PlannedBinding& b = plan_.sets[i].bindings[k];
      const DeviceObject& o = objects_[b.object];
      writes[k] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[k].dstSet = descriptor_sets_[i];
      writes[k].dstBinding = b.binding;
      writes[k].descriptorCount = 1;
      writes[k].descriptorType = VkDescriptorType(b.descriptor_type);
      if (o.image) {
        images[k] = {o.sampler, o.view, VK_IMAGE_LAYOUT_GENERAL};
        writes[k].pImageInfo = &images[k];
      } else {
        buffers[k] = {o.buffer.handle(), 0, VK_WHOLE_SIZE};
        writes[k].pBufferInfo = &buffers[k];
      }
    }
    vkUpdateDescriptorSets(dev, uint32_t(n), writes.data(), 0, nullptr);
  }
  return Status::ok();
}

Status VulkanComputeSegmentRunner::record(const VgfSegment& seg) {
  VkDevice dev = ctx_->device();
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = ctx_->queue_family();
  VKRT_VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &cpci, nullptr, &command_pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = command_pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VKRT_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &cbai, &command_buffer_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKRT_VK_RETURN_IF_ERROR(vkCreateFence(dev, &fci, nullptr, &fence_), "vkCreateFence");
  if (profile_ && ctx_->features().timestamps) {
    VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2;
    VKRT_VK_RETURN_IF_ERROR(vkCreateQueryPool(dev, &qpci, nullptr, &queries_), "vkCreateQueryPool");
  }

  VkCommandBuffer cb = command_buffer_;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKRT_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  if (queries_) vkCmdResetQueryPool(cb, queries_, 0, 2);
  auto memory_barrier = [&](VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                            VkAccessFlags dst) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = src;
    mb.dstAccessMask = dst;
    vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
  };
  constexpr VkAccessFlags kShaderRW = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

  auto image_barrier = [](const DeviceObject& o, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                          VkAccessFlags dst) {
    VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = src;
    ib.dstAccessMask = dst;
    ib.oldLayout = from;
    ib.newLayout = to;
    ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = o.vk_image;
    ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    return ib;
  };
  auto pixels = [](const DeviceObject& o) {
    VkBufferImageCopy region{};
    region.bufferOffset = o.staging_offset;
    region.bufferRowLength = 0;  // packed rows
    region.bufferImageHeight = 0;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = o.extent;
    return region;
  };

  // In: staged buffers; images from UNDEFINED (what they held is replaced by the copy or the
  // shader): input images to TRANSFER_DST for their pixels, the others straight to GENERAL, the
  // layout the shader uses them in.
  bool copied_in = false;
  for (const DeviceObject& o : objects_) {
    if (o.image || o.direct || !o.input || !o.bytes) continue;
    const VkBufferCopy region{o.staging_offset, 0, o.bytes};
    vkCmdCopyBuffer(cb, staging_.handle(), o.buffer.handle(), 1, &region);
    copied_in = true;
  }
  std::vector<VkImageMemoryBarrier> first, second;
  for (const DeviceObject& o : objects_) {
    if (!o.image) continue;
    if (o.input) {
      first.push_back(image_barrier(o, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                                    VK_ACCESS_TRANSFER_WRITE_BIT));
      second.push_back(image_barrier(o, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_ACCESS_TRANSFER_WRITE_BIT, kShaderRW));
    } else {
      first.push_back(image_barrier(o, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0, kShaderRW));
    }
  }
  if (!first.empty()) {
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0,
                         nullptr, uint32_t(first.size()), first.data());
  }
  for (const DeviceObject& o : objects_) {
    if (!o.image || !o.input) continue;
    const VkBufferImageCopy region = pixels(o);
    vkCmdCopyBufferToImage(cb, staging_.handle(), o.vk_image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  }
  if (copied_in || !second.empty()) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = kShaderRW;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                         nullptr, uint32_t(second.size()), second.data());
  }

  // The dispatch.
  if (queries_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  for (size_t i = 0; i < plan_.sets.size(); ++i) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, plan_.sets[i].set_index, 1, &descriptor_sets_[i],
                            0, nullptr);
  }
  // The VGF has no push-constant values: each declared range is pushed as zeros.
  for (const vgf::VgfPushConstantRange& r : seg.push_constant_ranges) {
    vkCmdPushConstants(cb, layout_, VkShaderStageFlags(r.stage_flags), r.offset, r.size, zeros_.data() + r.offset);
  }
  vkCmdDispatch(cb, seg.dispatch_shape[0], seg.dispatch_shape[1], seg.dispatch_shape[2]);
  if (queries_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);

  // Out: the shader's writes to the host (mapped buffers) and to transfers (staged buffers, and
  // the output images, moved to TRANSFER_SRC for their pixels).
  std::vector<VkImageMemoryBarrier> to_read;
  for (const DeviceObject& o : objects_) {
    if (o.image && o.output) {
      to_read.push_back(image_barrier(o, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                      VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT));
    }
  }
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr,
                       uint32_t(to_read.size()), to_read.data());
  bool copied_out = false;
  for (const DeviceObject& o : objects_) {
    if (!o.output || o.direct) continue;
    if (o.image) {
      const VkBufferImageCopy region = pixels(o);
      vkCmdCopyImageToBuffer(cb, o.vk_image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging_.handle(), 1, &region);
      copied_out = true;
    } else if (o.bytes) {
      const VkBufferCopy region{0, o.staging_offset, o.bytes};
      vkCmdCopyBuffer(cb, o.buffer.handle(), staging_.handle(), 1, &region);
      copied_out = true;
    }
  }
  if (copied_out) {
    memory_barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
  }
  VKRT_VK_RETURN_IF_ERROR(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  return Status::ok();
}

Status VulkanComputeSegmentRunner::init(const VgfFile& file, size_t segment, const VgfOptions& options) {
  VKRT_RETURN_IF_ERROR(check_compute_segment(file, segment));
  const VgfSegment& seg = file.segments[segment];
  const vgf::VgfModule& module = file.modules[seg.module_index];

  VKRT_ASSIGN_OR_RETURN(ctx_, Context::shared(context_options(options)));
  profile_ = options.profile;
  const bool zero_copy = options.zero_copy;
  VKRT_ASSIGN_OR_RETURN(plan_, plan_compute_segment(file, segment, *ctx_));
  objects_.resize(plan_.objects.size());
  for (size_t i = 0; i < objects_.size(); ++i) static_cast<PlannedObject&>(objects_[i]) = plan_.objects[i];
  set_layouts_.assign(plan_.set_layout_count, VK_NULL_HANDLE);
  zeros_.assign(plan_.push_constant_bytes, 0);

  VKRT_ASSIGN_OR_RETURN(cache_, PipelineCache::open(ctx_, options.pipeline_cache_dir));
  VKRT_RETURN_IF_ERROR(create_objects(file, zero_copy));
  VKRT_RETURN_IF_ERROR(create_pipeline(module, seg));
  VKRT_RETURN_IF_ERROR(create_descriptors());
  return record(seg);
}

Status VulkanComputeSegmentRunner::run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) {
  VKRT_CHECK_OR_RETURN(inputs.size() == plan_.inputs.size() && outputs.size() == plan_.outputs.size(), InvalidArgument,
                       plan_.name, " takes ", plan_.inputs.size(), " input(s) and ", plan_.outputs.size(), " output(s), got ",
                       inputs.size(), " and ", outputs.size());
  auto check = [&](const Tensor* t, const PlannedHostSlot& slot, const char* what, size_t i) -> Status {
    VKRT_CHECK_OR_RETURN(t != nullptr, InvalidArgument, plan_.name, " ", what, " ", i, ": no tensor");
    VKRT_CHECK_OR_RETURN(t->nbytes() == slot.bytes, InvalidArgument, plan_.name, " ", what, " ", i, " (resource ",
                         slot.mrt, "): the host tensor has ", t->nbytes(), " bytes, the resource ", slot.bytes);
    VKRT_CHECK_OR_RETURN(t->element_size() == slot.element_bytes, InvalidArgument, plan_.name, " ", what, " ", i,
                         " (resource ", slot.mrt, "): host elements of ", t->element_size(),
                         " bytes for a format of ", slot.element_bytes, "-byte components");
    VKRT_CHECK_OR_RETURN(slot.bytes == 0 || t->data() != nullptr, InvalidArgument, plan_.name, " ", what, " ", i,
                         ": the host tensor has no data");
    return Status::ok();
  };
  for (size_t i = 0; i < inputs.size(); ++i) VKRT_RETURN_IF_ERROR(check(inputs[i], plan_.inputs[i], "input", i));
  for (size_t i = 0; i < outputs.size(); ++i) VKRT_RETURN_IF_ERROR(check(outputs[i], plan_.outputs[i], "output", i));

  auto host_side = [&](const DeviceObject& o) {
    return o.direct ? o.buffer.mapped() : staging_.mapped() + o.staging_offset;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const PlannedHostSlot& slot = plan_.inputs[i];
    if (slot.bytes) std::memcpy(host_side(objects_[slot.object]), inputs[i]->data(), slot.bytes);
  }
  VkDevice dev = ctx_->device();
  if (profile_) submit_ns_ = trace_now_ns();
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &command_buffer_;
  VKRT_VK_RETURN_IF_ERROR(vkResetFences(dev, 1, &fence_), "vkResetFences");
  VKRT_VK_RETURN_IF_ERROR(vkQueueSubmit(ctx_->queue(), 1, &si, fence_), "vkQueueSubmit");
  VkResult r = vkWaitForFences(dev, 1, &fence_, VK_TRUE, kSubmitTimeoutNs);
  VKRT_CHECK_OR_RETURN(r != VK_TIMEOUT, InvalidState, plan_.name, ": the dispatch did not finish within 120 s");
  VKRT_VK_RETURN_IF_ERROR(r, "vkWaitForFences");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const PlannedHostSlot& slot = plan_.outputs[i];
    if (slot.bytes) std::memcpy(outputs[i]->data(), host_side(objects_[slot.object]), slot.bytes);
  }
  ran_ = true;
  return Status::ok();
}

std::vector<DelegateProfileEntry> VulkanComputeSegmentRunner::op_profile() const {
  std::vector<DelegateProfileEntry> out;
  if (!ran_ || !queries_) return out;
  uint64_t stamps[2] = {0, 0};
  VkResult r = vkGetQueryPoolResults(ctx_->device(), queries_, 0, 2, sizeof stamps, stamps, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT);
  if (r != VK_SUCCESS) return out;
  const uint32_t bits = ctx_->features().timestamp_valid_bits;
  const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  const double ns = double(((stamps[1] & mask) - (stamps[0] & mask)) & mask) * ctx_->features().timestamp_period_ns;
  // Placed on the tracer clock from the submit (the GPU's clock is another one).
  out.push_back({"COMPUTE " + plan_.segment_name, ns * 1e-6, submit_ns_, submit_ns_ + uint64_t(ns), {}});
  return out;
}

}  // namespace

Result<std::unique_ptr<vgf::ComputeSegmentRunner>> make_compute_segment_runner(const VgfFile& file, size_t segment,
                                                                               const VgfOptions& options) {
  auto runner = std::make_unique<VulkanComputeSegmentRunner>();
  VKRT_RETURN_IF_ERROR(runner->init(file, segment, options));
  return std::unique_ptr<vgf::ComputeSegmentRunner>(std::move(runner));
}

namespace {
// Registers the factory when the library is linked (whole: see vgf/vulkan/CMakeLists.txt).
const bool kComputeSegmentFactoryRegistered = [] {
  vgf::register_compute_segment_factory(&make_compute_segment_runner);
  return true;
}();
}  // namespace

}  // namespace vkrt::vulkan
