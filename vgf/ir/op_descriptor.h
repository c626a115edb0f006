// One descriptor per TOSA 1.0 operator: the single place that says what an op is, from which
// the graph validator, shape inference and the SPIR-V / .tosa readers and writer derive.
//
//   name            "CONV2D" (error messages, dumps, --list)
//   tensor_inputs   the operands that are tensors of the IR op, in Op::inputs order (graph.h)
//   spirv_operands  every operand of the TOSA.001000.1 instruction in SPIR-V order: attribute
//                   constants first, then inputs (vgf-format.md §6.4; a test checks them against
//                   the Khronos grammar). A .tosa operator's inputs are the same names from the
//                   first tensor input on (tosa.md §2).
//   outputs         result tensors (2 for FFT2D / RFFT2D, else 1)
//   attributes      which OpAttributes alternative the op carries
//   infer_shapes    the TOSA output-shape rule (kDynamicDim propagates; fails only on known facts)
//   check           the ERROR_IF rules that do not need shapes resolved at execute: attribute
//                   ranges, zero points allowed by the types, table sizes (tosa.md, TOSA 1.0 spec)
//
// The descriptors live per operator family in vgf/ir/ops/*.cpp. Executors do not appear here:
// each keeps its own table of implementations keyed by OpKind (vgf/cpu, vgf/vulkan).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

using Shape = std::vector<int64_t>;

// The op being checked, for rules and their error messages.
struct OpContext {
  const Graph& graph;
  const Op& op;
  size_t index;  // position in graph.ops

  // InvalidProgram "op 3 (CONV2D CONV2D_3): <parts>" (shape rules).
  template <typename... Parts>
  Status fail(const Parts&... parts) const {
    return make_error(Error::InvalidProgram, "op ", index, " (", op_name(op.kind), " ", op.debug_name, "): ",
                      parts...);
  }
  // InvalidProgram "op 3 (RESCALE): <parts>" (attribute rules).
  template <typename... Parts>
  Status refuse(const Parts&... parts) const {
    return make_error(Error::InvalidProgram, "op ", index, " (", op_name(op.kind), "): ", parts...);
  }
  DType input_type(size_t k) const { return graph.tensor(op.inputs[k]).dtype; }
  DType output_type(size_t k) const { return graph.tensor(op.outputs[k]).dtype; }
  template <typename Attr>
  const Attr& attr() const { return std::get<Attr>(op.attr); }
};

using ShapeRule = Result<std::vector<Shape>> (*)(const OpContext& c, std::span<const Shape* const> in);
using AttributeRule = Status (*)(const OpContext& c);

struct OpDescriptor {
  OpKind kind = OpKind::ADD;
  const char* name = "";
  std::vector<std::string_view> tensor_inputs;  // CONCAT: {"input1"}, variadic
  bool variadic = false;                        // CONCAT: one or more tensor inputs
  int outputs = 1;
  size_t attributes = 0;  // OpAttributes::index() of the op's attribute struct
  std::vector<std::string_view> spirv_operands;
  ShapeRule infer_shapes = nullptr;
  AttributeRule check = nullptr;  // null: no attribute rules
};

// The descriptor of a valid op kind (is_valid_op_kind); every kind has one.
const OpDescriptor& op_descriptor(OpKind kind);

// OpAttributes::index() of an attribute struct, for descriptors.
template <typename Attr>
constexpr size_t attribute_index() {
  return OpAttributes(Attr{}).index();
}

// A default-constructed attribute struct of the kind the op carries (readers fill it in).
OpAttributes default_attributes(OpKind kind);

// Each family file's descriptors (vgf/ir/ops/).
std::vector<OpDescriptor> tensor_op_descriptors();         // conv, pool, matmul, FFT, argmax
std::vector<OpDescriptor> elementwise_op_descriptors();    // unary, binary, comparison, select, table, clamp
std::vector<OpDescriptor> data_layout_op_descriptors();    // reduce, concat, pad, reshape, ..., gather, resize
std::vector<OpDescriptor> type_conversion_op_descriptors();  // CAST, RESCALE

}  // namespace vkrt::vgf
