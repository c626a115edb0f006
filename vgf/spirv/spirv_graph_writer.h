// Writes the graph IR as a SPIR-V graph module the way Arm's model converter lays one out
// (vgf-format.md §6.2): capabilities, extensions, the TOSA.001000.1 import, memory model,
// names, Binding/DescriptorSet decorations, types/constants/interface variables/graph
// constants, then OpGraphEntryPointARM, OpGraphARM, inputs, one OpExtInst per op (attribute
// operands re-encoded as constants, §6.3-§6.4), outputs, OpGraphEndARM.
//
// read_spirv_graph(write_spirv_graph(g)) gives back g (same ops, attributes, constants, I/O).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf::spirv {

struct SpirvWriteOptions {
  // Entry-point name; empty = graph.name, or "graph_partition_0" when that is empty too.
  std::string entry_point;
  // Constant tensor operands (weights, biases, ...) of at least this many bytes become
  // OpGraphConstantARM with GraphConstantIDs 0, 1, ... in order of first use; smaller ones are
  // embedded as OpConstantComposite.
  size_t graph_constant_min_bytes = 64;
};

struct SpirvWriteResult {
  std::vector<uint32_t> words;
  // graph_constants[id] = the tensor whose bytes GraphConstantID `id` stands for.
  std::vector<TensorId> graph_constants;
};

// InvalidArgument for graphs that fail validate_graph() or use types SPIR-V cannot express.
Result<SpirvWriteResult> write_spirv_graph(const Graph& graph, const SpirvWriteOptions& options = {});

}  // namespace vkrt::vgf::spirv
