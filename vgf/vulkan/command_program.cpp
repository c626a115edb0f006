#include "vgf/vulkan/command_program.h"

#include <algorithm>

namespace vkrt::vulkan {
namespace {

constexpr uint64_t kSubmitTimeoutNs = 120ull * 1000 * 1000 * 1000;

struct Touched {
  VkBuffer buffer;
  VkDeviceSize begin, end;
  bool write;
};

bool overlaps(const Touched& a, const Touched& b) {
  return a.buffer == b.buffer && a.begin < b.end && b.begin < a.end;
}

}  // namespace

void grid_for(uint64_t invocations, uint32_t workgroup_size, const DeviceFeatures& features, uint32_t* x,
              uint32_t* y) {
  const uint64_t size = std::max<uint32_t>(1, workgroup_size);
  uint64_t groups = std::max<uint64_t>(1, (invocations + size - 1) / size);
  uint64_t max_x = std::max<uint32_t>(1, std::min<uint32_t>(features.max_workgroup_count[0], 65535));
  uint64_t gx = std::min(groups, max_x);
  *x = uint32_t(gx);
  *y = uint32_t((groups + gx - 1) / gx);
}

CommandProgram::~CommandProgram() {
  if (!ctx_) return;
  VkDevice dev = ctx_->device();
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
  if (command_pool_) vkDestroyCommandPool(dev, command_pool_, nullptr);
  if (pool_) vkDestroyDescriptorPool(dev, pool_, nullptr);
}

Result<std::unique_ptr<CommandProgram>> CommandProgram::record(const std::shared_ptr<Context>& ctx,
                                                               std::vector<Dispatch> dispatches,
                                                               std::vector<Copy> copies_in,
                                                               std::vector<Copy> copies_out,
                                                               bool timestamps) {
  std::unique_ptr<CommandProgram> prog(new CommandProgram());
  prog->ctx_ = ctx;
  prog->dispatches_ = std::move(dispatches);
  VkDevice dev = ctx->device();
  auto& ds = prog->dispatches_;

  // ---- Descriptor sets: one per dispatch, written once. ----
  uint32_t total_bindings = 0;
  for (const Dispatch& d : ds) total_bindings += uint32_t(d.bindings.size());
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(1, total_bindings)};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = std::max<uint32_t>(1, uint32_t(ds.size()));
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VKRT_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(dev, &dpci, nullptr, &prog->pool_), "vkCreateDescriptorPool");
  std::vector<VkDescriptorSet> sets(ds.size());
  for (size_t i = 0; i < ds.size(); ++i) {
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = prog->pool_;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &ds[i].pipeline->set_layout;
    VKRT_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(dev, &dsai, &sets[i]), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(ds[i].bindings.size());
    std::vector<VkWriteDescriptorSet> writes(ds[i].bindings.size());
    for (size_t b = 0; b < infos.size(); ++b) {
      const BufferRange& r = ds[i].bindings[b];
      infos[b] = {r.buffer, r.offset, r.size == 0 ? 16 : r.size};
      writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[b].dstSet = sets[i];
      writes[b].dstBinding = uint32_t(b);
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(dev, uint32_t(writes.size()), writes.data(), 0, nullptr);
  }

  // ---- Command buffer, fence, timestamp queries. ----
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = ctx->queue_family();
  VKRT_VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &cpci, nullptr, &prog->command_pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = prog->command_pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VKRT_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &cbai, &prog->command_buffer_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VKRT_VK_RETURN_IF_ERROR(vkCreateFence(dev, &fci, nullptr, &prog->fence_), "vkCreateFence");
  const bool use_timestamps = timestamps && ctx->features().timestamps && !ds.empty();
  if (use_timestamps) {
    VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = uint32_t(ds.size() + 1);
    VKRT_VK_RETURN_IF_ERROR(vkCreateQueryPool(dev, &qpci, nullptr, &prog->queries_), "vkCreateQueryPool");
  }

  VkCommandBuffer cb = prog->command_buffer_;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VKRT_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  if (prog->queries_) vkCmdResetQueryPool(cb, prog->queries_, 0, uint32_t(ds.size() + 1));

  auto memory_barrier = [&](VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                            VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = src_access;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &mb, 0, nullptr, 0, nullptr);
    ++prog->barrier_count_;
  };

  if (!copies_in.empty()) {
    for (const Copy& c : copies_in) {
      VkBufferCopy region{c.src_offset, c.dst_offset, c.size};
      vkCmdCopyBuffer(cb, c.src, c.dst, 1, &region);
    }
    memory_barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  }
  if (prog->queries_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, prog->queries_, 0);

  // Hazard tracking since the last barrier (RAW, WAW and WAR on overlapping byte ranges).
  std::vector<Touched> since_barrier;
  VkPipeline bound = VK_NULL_HANDLE;
  for (size_t i = 0; i < ds.size(); ++i) {
    const Dispatch& d = ds[i];
    bool hazard = false;
    for (size_t b = 0; b < d.bindings.size() && !hazard; ++b) {
      Touched t{d.bindings[b].buffer, d.bindings[b].offset,
                d.bindings[b].offset + std::max<VkDeviceSize>(d.bindings[b].size, 1),
                b < d.writes.size() && d.writes[b]};
      for (const Touched& prev : since_barrier) {
        if (overlaps(prev, t) && (prev.write || t.write)) {
          hazard = true;
          break;
        }
      }
    }
    if (hazard) {
      memory_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      since_barrier.clear();
    }
    for (size_t b = 0; b < d.bindings.size(); ++b) {
      since_barrier.push_back({d.bindings[b].buffer, d.bindings[b].offset,
                               d.bindings[b].offset + std::max<VkDeviceSize>(d.bindings[b].size, 1),
                               b < d.writes.size() && d.writes[b]});
    }
    if (d.pipeline->pipeline != bound) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->pipeline);
      bound = d.pipeline->pipeline;
    }
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->layout, 0, 1, &sets[i], 0, nullptr);
    vkCmdPushConstants(cb, d.pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, d.push.data());
    vkCmdDispatch(cb, d.groups_x, d.groups_y, 1);
    if (prog->queries_) {
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, prog->queries_, uint32_t(i + 1));
    }
  }

  if (!copies_out.empty()) {
    memory_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    for (const Copy& c : copies_out) {
      VkBufferCopy region{c.src_offset, c.dst_offset, c.size};
      vkCmdCopyBuffer(cb, c.src, c.dst, 1, &region);
    }
    memory_barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  } else {
    // Results are read by the host straight from mapped device memory.
    memory_barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  VKRT_VK_RETURN_IF_ERROR(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  return prog;
}

Status CommandProgram::submit_and_wait() {
  VkDevice dev = ctx_->device();
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &command_buffer_;
  VKRT_VK_RETURN_IF_ERROR(vkResetFences(dev, 1, &fence_), "vkResetFences");
  VKRT_VK_RETURN_IF_ERROR(vkQueueSubmit(ctx_->queue(), 1, &si, fence_), "vkQueueSubmit");
  VkResult r = vkWaitForFences(dev, 1, &fence_, VK_TRUE, kSubmitTimeoutNs);
  if (r == VK_TIMEOUT) {
    return make_error(Error::InvalidState, "Vulkan submission did not finish within 120 s");
  }
  VKRT_VK_RETURN_IF_ERROR(r, "vkWaitForFences");
  return Status::ok();
}

std::vector<DispatchTiming> CommandProgram::last_timings() const {
  std::vector<DispatchTiming> out;
  if (!queries_) return out;
  std::vector<uint64_t> stamps(dispatches_.size() + 1);
  VkResult r = vkGetQueryPoolResults(ctx_->device(), queries_, 0, uint32_t(stamps.size()),
                                     stamps.size() * sizeof(uint64_t), stamps.data(), sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT);
  if (r != VK_SUCCESS) return out;
  const uint32_t bits = ctx_->features().timestamp_valid_bits;
  const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  for (size_t i = 0; i < dispatches_.size(); ++i) {
    uint64_t delta = ((stamps[i + 1] & mask) - (stamps[i] & mask)) & mask;
    out.push_back({dispatches_[i].label, double(delta) * ctx_->features().timestamp_period_ns});
  }
  return out;
}

}  // namespace vkrt::vulkan
