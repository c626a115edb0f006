#include "vgf/vulkan/pipeline.h"

#include <chrono>
#include <vector>

#include "shaders/shader_library.h"

namespace vkrt::vulkan {

Status create_compute_pipeline(VkDevice dev, VkPipelineCache cache, std::span<const uint32_t> words,
                               ComputePipeline* p, double* seconds) {
  auto fail = [&](VkResult r, const char* call) {
    destroy_compute_pipeline(dev, p);
    return vk_status(r, std::string(call) + "(" + p->name + ")");
  };
  std::vector<VkDescriptorSetLayoutBinding> bindings(p->binding_count);
  for (uint32_t i = 0; i < p->binding_count; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dsl.bindingCount = p->binding_count;
  dsl.pBindings = bindings.data();
  if (VkResult r = vkCreateDescriptorSetLayout(dev, &dsl, nullptr, &p->set_layout); r != VK_SUCCESS)
    return fail(r, "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &p->set_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  if (VkResult r = vkCreatePipelineLayout(dev, &plci, nullptr, &p->layout); r != VK_SUCCESS)
    return fail(r, "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = words.size() * 4;
  smci.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(dev, &smci, nullptr, &module); r != VK_SUCCESS)
    return fail(r, "vkCreateShaderModule");
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = "main";
  cpci.layout = p->layout;
  auto t0 = std::chrono::steady_clock::now();
  VkResult r = vkCreateComputePipelines(dev, cache, 1, &cpci, nullptr, &p->pipeline);
  *seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  vkDestroyShaderModule(dev, module, nullptr);
  if (r != VK_SUCCESS) {
    p->pipeline = VK_NULL_HANDLE;
    return fail(r, "vkCreateComputePipelines");
  }
  return Status::ok();
}

void destroy_compute_pipeline(VkDevice dev, ComputePipeline* p) {
  if (p->pipeline) vkDestroyPipeline(dev, p->pipeline, nullptr);
  if (p->layout) vkDestroyPipelineLayout(dev, p->layout, nullptr);
  if (p->set_layout) vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
  p->pipeline = VK_NULL_HANDLE;
  p->layout = VK_NULL_HANDLE;
  p->set_layout = VK_NULL_HANDLE;
}

PipelineSet::~PipelineSet() {
  VkDevice dev = ctx_->device();
  for (auto& [name, p] : pipelines_) destroy_compute_pipeline(dev, p.get());
}

Result<const ComputePipeline*> PipelineSet::get(std::string_view shader, uint32_t binding_count) {
  if (auto it = pipelines_.find(shader); it != pipelines_.end()) return it->second.get();
  const shaders::ShaderBinary* binary = shaders::find_shader(shader);
  if (!binary) {
    return make_error(Error::NotFound, "shader variant \"", std::string(shader), "\" is not embedded");
  }
  if (fault_) VKRT_RETURN_IF_ERROR(fault_(shader));
  auto p = std::make_unique<ComputePipeline>();
  p->name = std::string(shader);
  p->binding_count = binding_count;
  VKRT_RETURN_IF_ERROR(create_compute_pipeline(ctx_->device(), cache_, binary->words, p.get(), &creation_seconds_));
  const ComputePipeline* raw = p.get();
  pipelines_.emplace(raw->name, std::move(p));
  return raw;
}

}  // namespace vkrt::vulkan
