#include "vgf/graph_vgf_writer.h"

#include "vgf/spirv/spirv_graph_writer.h"

namespace vkrt::vgf {

Result<uint32_t> vk_format_for_dtype(DType t) {
  switch (t) {
    case DType::Bool: return uint32_t(kVkFormatR8BoolArm);
    case DType::Int4:
    case DType::Int8: return uint32_t(kVkFormatR8Sint);
    case DType::Int16: return uint32_t(kVkFormatR16Sint);
    case DType::Int32: return uint32_t(kVkFormatR32Sint);
    case DType::Int48: return uint32_t(kVkFormatR64Sint);
    case DType::Fp32: return uint32_t(kVkFormatR32Sfloat);
    case DType::Fp16: return uint32_t(kVkFormatR16Sfloat);
    case DType::Bf16: return uint32_t(kVkFormatR16Bf16Arm);
    case DType::Fp8E4M3: return uint32_t(kVkFormatR8Fp8E4M3Arm);
    case DType::Fp8E5M2: return uint32_t(kVkFormatR8Fp8E5M2Arm);
    default: return make_error(Error::InvalidArgument, "no VkFormat for ", dtype_name(t));
  }
}

Result<std::vector<uint8_t>> write_graph_vgf(const Graph& graph, const GraphVgfOptions& options) {
  // Descriptor bindings by position: inputs 0.., outputs after them (§4).
  Graph g = graph;
  for (size_t i = 0; i < g.inputs.size(); ++i) g.inputs[i].binding = uint32_t(i);
  for (size_t j = 0; j < g.outputs.size(); ++j) g.outputs[j].binding = uint32_t(g.inputs.size() + j);
  spirv::SpirvWriteOptions so;
  so.graph_constant_min_bytes = options.graph_constant_min_bytes;
  VKRT_ASSIGN_OR_RETURN(spirv::SpirvWriteResult spv, spirv::write_spirv_graph(g, so));

  VgfFile f;
  VgfModule m;
  m.type = ModuleType::Graph;
  m.name = options.module_name;
  m.entry_point = g.name.empty() ? "graph_partition_0" : g.name;
  m.code_kind = ModuleCodeKind::Spirv;
  m.spirv = std::move(spv.words);
  f.modules.push_back(std::move(m));

  auto resource = [&](const TensorInfo& t, ResourceCategory cat) -> Result<VgfResource> {
    VgfResource r;
    r.category = cat;
    r.vk_descriptor_type = cat == ResourceCategory::Constant ? kNoDescriptorType : kVkDescriptorTypeTensorArm;
    VKRT_ASSIGN_OR_RETURN(r.vk_format, vk_format_for_dtype(t.dtype));
    r.shape = t.shape;  // kDynamicDim stays INT64_MIN
    return r;
  };
  VgfSegment seg;
  seg.type = ModuleType::Graph;
  seg.name = "graph_segment_0";
  seg.module_index = 0;
  for (size_t c = 0; c < spv.graph_constants.size(); ++c) {
    const TensorInfo& t = g.tensors[spv.graph_constants[c]];
    VKRT_ASSIGN_OR_RETURN(VgfResource r, resource(t, ResourceCategory::Constant));
    f.resources.push_back(std::move(r));
    f.constants.push_back(VgfConstant{uint32_t(f.resources.size() - 1), -1, t.constant_bytes()});
    seg.constants.push_back(uint32_t(c));
  }
  VgfDescriptorSet set;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    VKRT_ASSIGN_OR_RETURN(VgfResource r, resource(g.tensors[g.inputs[i].tensor], ResourceCategory::Input));
    f.resources.push_back(std::move(r));
    VgfBindingSlot slot{g.inputs[i].binding, uint32_t(f.resources.size() - 1)};
    set.bindings.push_back(slot);
    seg.inputs.push_back(slot);
    f.inputs.push_back(VgfBindingSlot{uint32_t(i), slot.mrt_index});  // model input index
    f.input_names.push_back("input_" + std::to_string(i));
  }
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    VKRT_ASSIGN_OR_RETURN(VgfResource r, resource(g.tensors[g.outputs[j].tensor], ResourceCategory::Output));
    f.resources.push_back(std::move(r));
    VgfBindingSlot slot{g.outputs[j].binding, uint32_t(f.resources.size() - 1)};
    set.bindings.push_back(slot);
    seg.outputs.push_back(slot);
    f.outputs.push_back(slot);
    f.output_names.push_back("output_" + std::to_string(j));
  }
  seg.set_infos.push_back(std::move(set));
  f.segments.push_back(std::move(seg));
  return encode_vgf(f, VgfEncodeOptions{options.version, 0});
}

}  // namespace vkrt::vgf
