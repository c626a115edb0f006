#include "vgf/vulkan/pipeline.h"

#include <chrono>
#include <vector>

#include "shaders/shader_library.h"

namespace vkrt::vulkan {

PipelineSet::~PipelineSet() {
  VkDevice dev = ctx_->device();
  for (auto& [name, p] : pipelines_) {
    if (p->pipeline) vkDestroyPipeline(dev, p->pipeline, nullptr);
    if (p->layout) vkDestroyPipelineLayout(dev, p->layout, nullptr);
    if (p->set_layout) vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
  }
}

Result<const ComputePipeline*> PipelineSet::get(std::string_view shader, uint32_t binding_count) {
  if (auto it = pipelines_.find(shader); it != pipelines_.end()) return it->second.get();
  const shaders::ShaderBinary* binary = shaders::find_shader(shader);
  if (!binary) {
    return make_error(Error::NotFound, "shader variant \"", std::string(shader), "\" is not embedded");
  }
  VkDevice dev = ctx_->device();
  auto p = std::make_unique<ComputePipeline>();
  p->name = std::string(shader);
  p->binding_count = binding_count;

  std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count);
  for (uint32_t i = 0; i < binding_count; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dsl.bindingCount = binding_count;
  dsl.pBindings = bindings.data();
  VKRT_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(dev, &dsl, nullptr, &p->set_layout),
                          "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &p->set_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  // Stored before creation so the destructor frees partial objects on failure.
  ComputePipeline* raw = p.get();
  pipelines_.emplace(raw->name, std::move(p));
  VKRT_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(dev, &plci, nullptr, &raw->layout), "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = binary->words.size() * 4;
  smci.pCode = binary->words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VKRT_VK_RETURN_IF_ERROR(vkCreateShaderModule(dev, &smci, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = "main";
  cpci.layout = raw->layout;
  auto t0 = std::chrono::steady_clock::now();
  VkResult r = vkCreateComputePipelines(dev, cache_, 1, &cpci, nullptr, &raw->pipeline);
  creation_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  vkDestroyShaderModule(dev, module, nullptr);
  if (r != VK_SUCCESS) {
    raw->pipeline = VK_NULL_HANDLE;
    return vk_status(r, "vkCreateComputePipelines(" + raw->name + ")");
  }
  return static_cast<const ComputePipeline*>(raw);
}

}  // namespace vkrt::vulkan
