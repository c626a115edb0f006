#include "vgf/segment_graph.h"

#include <string>

#include "vgf/ir/shape_inference.h"
#include "vgf/spirv/spirv_graph_reader.h"

namespace vkrt::vgf {

DType dtype_from_vk_format(uint32_t f) {
  switch (f) {
    case kVkFormatR8Sint: case kVkFormatR8Uint: return DType::Int8;
    case kVkFormatR16Sint: case kVkFormatR16Uint: return DType::Int16;
    case kVkFormatR32Sint: case kVkFormatR32Uint: return DType::Int32;
    case kVkFormatR64Sint: return DType::Int48;
    case kVkFormatR32Sfloat: return DType::Fp32;
    case kVkFormatR16Sfloat: return DType::Fp16;
    case kVkFormatR16Bf16Arm: return DType::Bf16;
    case kVkFormatR8BoolArm: return DType::Bool;
    case kVkFormatR8Fp8E4M3Arm: return DType::Fp8E4M3;
    case kVkFormatR8Fp8E5M2Arm: return DType::Fp8E5M2;
    default: return DType::Unknown;
  }
}

namespace {

// Binds graph I/O to the segment's resources (by descriptor binding) and merges the resource's
// shape into dynamic dimensions of the SPIR-V type.
Status bind_io(const VgfFile& file, const VgfSegment& seg, const std::vector<VgfBindingSlot>& slots,
               std::vector<GraphIO>& ios, Graph& graph, const char* what) {
  for (size_t i = 0; i < ios.size(); ++i) {
    GraphIO& io = ios[i];
    const VgfBindingSlot* slot = nullptr;
    for (const VgfBindingSlot& s : slots) {
      if (s.binding == io.binding) slot = &s;
    }
    if (slot == nullptr) {
      // Not every writer fills segment inputs/outputs; the descriptor set has all bindings.
      for (const VgfDescriptorSet& set : seg.set_infos) {
        for (const VgfBindingSlot& s : set.bindings) {
          if (s.binding == io.binding) slot = &s;
        }
      }
    }
    VKRT_CHECK_OR_RETURN(slot != nullptr, InvalidProgram, "segment '", seg.name, "': graph ", what,
                         " ", i, " (binding ", io.binding, ") has no resource binding");
    io.mrt_index = slot->mrt_index;  // range-checked by the decoder
    const VgfResource& r = file.resources[slot->mrt_index];
    TensorInfo& t = graph.tensors[io.tensor];
    DType fmt = dtype_from_vk_format(r.vk_format);
    VKRT_CHECK_OR_RETURN(fmt == t.dtype, InvalidProgram, "segment '", seg.name, "': graph ", what,
                         " ", i, " is ", dtype_name(t.dtype), " but resource ", slot->mrt_index,
                         " has format ", r.vk_format, " (", dtype_name(fmt), ")");
    // ExecuTorch treats rank-0 resources as [1] (§4).
    std::vector<int64_t> rshape = r.shape.empty() ? std::vector<int64_t>{1} : r.shape;
    if (!t.ranked) {
      t.ranked = true;
      t.shape = rshape;
    } else {
      VKRT_CHECK_OR_RETURN(t.shape.size() == rshape.size(), InvalidProgram, "segment '", seg.name,
                           "': graph ", what, " ", i, " has rank ", t.shape.size(), ", resource ",
                           slot->mrt_index, " has rank ", rshape.size());
      for (size_t d = 0; d < rshape.size(); ++d) {
        if (t.shape[d] == kDynamicDim) {
          t.shape[d] = rshape[d];
        } else if (rshape[d] != kDynamicDim) {
          VKRT_CHECK_OR_RETURN(t.shape[d] == rshape[d], InvalidProgram, "segment '", seg.name,
                               "': graph ", what, " ", i, " dimension ", d, " is ", t.shape[d],
                               ", resource says ", rshape[d]);
        }
      }
    }
  }
  return Status::ok();
}

}  // namespace

Result<Graph> build_segment_graph(const VgfFile& file, size_t segment_index) {
  VKRT_CHECK_OR_RETURN(segment_index < file.segments.size(), InvalidArgument, "segment ",
                       segment_index, " out of range");
  const VgfSegment& seg = file.segments[segment_index];
  VKRT_CHECK_OR_RETURN(seg.type == ModuleType::Graph, NotSupported, "segment ", segment_index, " ('",
                       seg.name, "') is a COMPUTE segment (SPIR-V compute shader), not a graph");
  const VgfModule& mod = file.modules[seg.module_index];
  VKRT_CHECK_OR_RETURN(mod.type == ModuleType::Graph, InvalidProgram, "segment '", seg.name,
                       "': module ", seg.module_index, " is not a GRAPH module");
  VKRT_CHECK_OR_RETURN(mod.code_kind == ModuleCodeKind::Spirv && !mod.spirv.empty(),
                       InvalidProgram, "segment '", seg.name, "': module '", mod.name,
                       "' has no SPIR-V code");
  spirv::SpirvReadOptions options;
  options.entry_point = mod.entry_point;
  options.resolve_graph_constant = [&file, &seg](uint32_t id) -> Result<std::span<const uint8_t>> {
    uint32_t index = id;
    if (!seg.constant_bindings.empty()) {
      bool found = false;
      for (const VgfConstantBinding& b : seg.constant_bindings) {
        if (b.graph_constant_id == id) {
          index = b.constant_index;
          found = true;
        }
      }
      VKRT_CHECK_OR_RETURN(found, InvalidProgram, "segment '", seg.name, "': graph constant ", id,
                           " not in its constant_bindings");
    }
    VKRT_CHECK_OR_RETURN(index < file.constants.size(), InvalidProgram, "segment '", seg.name,
                         "': graph constant ", id, " -> constant ", index, " out of range (",
                         file.constants.size(), " constants)");
    const VgfConstant& c = file.constants[index];
    VKRT_CHECK_OR_RETURN(c.sparsity_dimension == -1, NotSupported, "constant ", index,
                         ": sparse constants are not supported");
    return c.data;
  };
  auto graph = spirv::read_spirv_graph(mod.spirv, options);
  if (!graph.ok()) return Status(graph.status()).with_context("segment '" + seg.name + "'");
  Graph g = std::move(graph).value();
  VKRT_RETURN_IF_ERROR(bind_io(file, seg, seg.inputs, g.inputs, g, "input"));
  VKRT_RETURN_IF_ERROR(bind_io(file, seg, seg.outputs, g.outputs, g, "output"));
  Status s = infer_static_shapes(g);
  if (!s.is_ok()) return std::move(s).with_context("segment '" + seg.name + "'");
  return g;
}

}  // namespace vkrt::vgf
