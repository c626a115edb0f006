// Reads a SPIR-V graph module (SPV_ARM_graph + SPV_ARM_tensors + TOSA.001000.1) from its binary
// words into the graph IR. Debian's SPIRV-Tools does not know these opcodes, so this works on
// the words directly (vgf-format.md §6).
//
// Every word is untrusted: instruction lengths, id bounds, type/constant references, operand
// counts per TOSA op and constant payload sizes are checked; errors are InvalidProgram naming the
// instruction (word offset) and the problem.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf::spirv {

// Resolves OpGraphConstantARM's GraphConstantID to its bytes (the VGF constant section through
// the segment's constant mapping). The bytes must outlive the Graph (they are referenced, not
// copied, when suitably aligned).
using GraphConstantResolver = std::function<Result<std::span<const uint8_t>>(uint32_t id)>;

struct SpirvReadOptions {
  // Graph to read, by OpGraphEntryPointARM name; empty = the first entry point.
  std::string_view entry_point;
  // Null: a module using OpGraphConstantARM is rejected with NotFound.
  GraphConstantResolver resolve_graph_constant;
};

// Builds the IR of one graph. Graph I/O bindings come from the Binding decorations of the entry
// point's interface variables (mrt_index is left 0; the VGF layer fills it). Shapes are as
// declared (unshaped tensors stay dynamic); run infer_static_shapes() afterwards if needed.
Result<Graph> read_spirv_graph(std::span<const uint32_t> words, const SpirvReadOptions& options);

// Same, from bytes (must be a multiple of 4; InvalidProgram "SPIR-V not word-aligned" otherwise).
Result<Graph> read_spirv_graph_bytes(std::span<const uint8_t> bytes, const SpirvReadOptions& options);

}  // namespace vkrt::vgf::spirv
