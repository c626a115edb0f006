// Compute pipelines built from the embedded SPIR-V (shaders/shader_library.h): one descriptor set
// of N storage buffers (bindings 0..N-1) and a push-constant range, created through the
// persistent VkPipelineCache. A PipelineSet creates each variant once per executor.
#pragma once

#include <volk.h>

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "vgf/vulkan/context.h"
#include "vgf/vulkan/pipeline_cache.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

inline constexpr uint32_t kPushConstantBytes = 128;  // Vulkan's guaranteed minimum

struct ComputePipeline {
  std::string name;
  uint32_t binding_count = 0;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

// Creates p's descriptor-set layout (p->binding_count storage buffers), pipeline layout (the
// kPushConstantBytes range) and compute pipeline from SPIR-V `words`, through `cache`; adds the
// time spent in vkCreateComputePipelines to *seconds. On failure, destroys what it created.
// Both the embedded variants (PipelineSet) and the generated chain shaders (ChainPipelines) use it.
Status create_compute_pipeline(VkDevice dev, VkPipelineCache cache, std::span<const uint32_t> words,
                               ComputePipeline* p, double* seconds);
// Destroys what p holds (null handles are skipped) and resets it.
void destroy_compute_pipeline(VkDevice dev, ComputePipeline* p);

class PipelineSet {
 public:
  PipelineSet(std::shared_ptr<Context> ctx, VkPipelineCache cache) : ctx_(std::move(ctx)), cache_(cache) {}
  ~PipelineSet();
  PipelineSet(const PipelineSet&) = delete;
  PipelineSet& operator=(const PipelineSet&) = delete;

  // The pipeline for a shader variant (created on first request). NotFound when no embedded
  // variant has that name; Internal/MemoryAllocationFailed when the driver rejects it.
  Result<const ComputePipeline*> get(std::string_view shader, uint32_t binding_count);
  // Called before each pipeline is created; a failure it returns stands for the driver's.
  // Tests make chosen variants fail through it (VulkanExecutor::set_pipeline_fault).
  using Fault = std::function<Status(std::string_view shader)>;
  void set_fault(Fault fault) { fault_ = std::move(fault); }
  size_t size() const { return pipelines_.size(); }
  // Seconds spent in vkCreateComputePipelines so far (cold vs warm cache reporting).
  double creation_seconds() const { return creation_seconds_; }

 private:
  std::shared_ptr<Context> ctx_;
  VkPipelineCache cache_;
  std::map<std::string, std::unique_ptr<ComputePipeline>, std::less<>> pipelines_;
  double creation_seconds_ = 0.0;
  Fault fault_;
};

}  // namespace vkrt::vulkan
