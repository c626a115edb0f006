// Packs one graph IR into a complete VGF file the way Arm's model converter does (vgf-format.md
// §4.1): one GRAPH module (SPIR-V from spirv_graph_writer) and one GRAPH segment with a single
// descriptor set (inputs at bindings 0.., then outputs), resource table = graph constants
// (CONSTANT, descriptor type none) then inputs (INPUT) then outputs (OUTPUT), all TENSOR_ARM;
// constants i = GraphConstantID i. Used by tests and the sample-model generators.
#pragma once

#include <cstdint>
#include <vector>

#include "vgf/format/vgf_file.h"
#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

struct GraphVgfOptions {
  VgfVersion version;                    // 0.4.3 by default
  size_t graph_constant_min_bytes = 64;  // see SpirvWriteOptions
  std::string module_name = "vkrt_graph";
};

// The resource format for a TOSA element type (Int8 -> R8_SINT, Int48 -> R64_SINT, ...).
Result<uint32_t> vk_format_for_dtype(DType t);

Result<std::vector<uint8_t>> write_graph_vgf(const Graph& graph, const GraphVgfOptions& options = {});

}  // namespace vkrt::vgf
