// The Vulkan executor's op table: for every OpKind, what this executor knows about the op. Each
// per-family lowering file (op_lowering_*.cpp) registers its ops in a list next to their lowering
// functions, so adding an op to Vulkan means adding its shader, its lowering and one entry there;
// nothing else in vgf/vulkan names ops one by one.
//
// The executor accepts only graphs that passed vgf::validate_graph (operand counts, attribute
// kinds, RESCALE's ERROR_IF rules are guaranteed). What remains to check are the executor's own
// limits, its capabilities: which element types and ranks have a shader (check_op_capability)
// and 32-bit indexing (check_shape_capability). Device features (shaderInt64, shaderFloat16) are
// checked by the lowering functions, which see the device.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"  // vgf::Shape
#include "vkrt/error.h"

namespace vkrt::vulkan {

class LoweringContext;  // op_lowering.h
struct PendingDispatch;
struct FusedStep;  // graph_plan.h

// An op and its operand types, as a capability check sees them.
struct OpOperands {
  const vgf::Graph& graph;
  const vgf::Op& op;

  vgf::DType in(size_t i) const { return graph.tensor(op.inputs[i]).dtype; }
  vgf::DType out(size_t i) const { return graph.tensor(op.outputs[i]).dtype; }
  size_t in_rank(size_t i) const { return graph.tensor(op.inputs[i]).shape.size(); }
  // "int8, int8 -> int32": the usual reason an op is refused.
  std::string types() const;
  // "" when `ok`, else types(): the return value of most capability checks.
  std::string supported_if(bool ok) const { return ok ? std::string() : types(); }
};

// "" when this executor has a shader for the op with these operands; else what it lacks, which
// becomes "op 3 (ADD): <reason> is not supported by the vulkan executor".
using CapabilityFn = std::string (*)(const OpOperands& op);

// Appends the dispatches of one step whose main op is of this kind.
using LowerFn = Status (*)(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out);

// One op inside a fused elementwise chain (elementwise_fusion_codegen.cpp), as its chain
// expression sees it.
struct ChainOperands {
  const vgf::Op& op;
  vgf::DType in;                         // input 0's element type
  vgf::DType out;                        // the output's element type
  std::vector<std::string> regs;         // the GLSL registers holding the inputs, in operand order
  const vgf::Shape& out_shape;           // the literal shape the chain is generated for
  std::vector<int32_t>* constants;       // the int32 constant block (binding 1, `data_const`)

  // Appends values to the constant block; returns their offset (in int32 elements).
  size_t add_constants(std::span<const int32_t> values) const {
    size_t offset = constants->size();
    constants->insert(constants->end(), values.begin(), values.end());
    return offset;
  }
};

// The op's result as a GLSL expression on its input registers (an `int` or a `float`; the
// generator truncates it to the output type), or an error whose message says why it cannot.
using ChainExprFn = Result<std::string> (*)(const ChainOperands& op);

struct VulkanOpImpl {
  CapabilityFn supports = nullptr;  // null: the executor does not implement the op
  LowerFn lower = nullptr;
  // The op's code in shaders/glsl/op_codes.h, for shaders that run several ops (binary.comp,
  // unary.comp, pool2d.comp, reduce.comp); -1 otherwise.
  int shader_op = -1;
  // Fused elementwise chains: the result as a GLSL expression, with $a, $b, $c for the input
  // registers and $bits for the width of input 0 (8, 16 or 32) ...
  const char* glsl = nullptr;
  // ... or a function writing it, when it depends on attributes. Neither: the op is not fused.
  ChainExprFn chain_expr = nullptr;
  // An accumulator producer whose lowering runs the RESCALE (+CLAMP, +int8 TABLE) or fp32 CLAMP
  // that reads its result in its own epilogue (graph_plan.cpp's fuse_ops absorbs them).
  bool fuses_epilogue = false;

  bool chainable() const { return glsl != nullptr || chain_expr != nullptr; }
};

struct VulkanOpEntry {
  vgf::OpKind kind;
  VulkanOpImpl impl;
};

// The registration lists of the lowering files.
std::span<const VulkanOpEntry> compute_ops();      // op_lowering_compute.cpp
std::span<const VulkanOpEntry> elementwise_ops();  // op_lowering_elementwise.cpp
std::span<const VulkanOpEntry> data_ops();         // op_lowering_data.cpp
std::span<const VulkanOpEntry> misc_ops();         // op_lowering_misc.cpp
std::span<const VulkanOpEntry> extra_ops();        // op_lowering_extra.cpp

// The table entry of an op kind (an empty entry for kinds no list registers).
const VulkanOpImpl& vulkan_op(vgf::OpKind kind);

// The executor's capabilities. NotSupported naming the op and the reason when no shader
// implements this op with these element types and ranks; Ok otherwise. Checked for every op at
// prepare, before anything is allocated. The graph must have passed validate_graph.
Status check_op_capability(const vgf::Graph& graph, size_t op_index);
// The shaders index elements with 32-bit integers (push constants, linear_index()), and shape
// inference admits up to 2^40 elements: NotSupported naming the first tensor of more than
// INT32_MAX elements. Checked per set of inferred shapes, before the plan is built; once they
// pass, lowerings may narrow counts to int32.
Status check_shape_capability(std::span<const vgf::Shape> shapes);

}  // namespace vkrt::vulkan
