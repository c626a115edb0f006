// Operand order of each TOSA.001000.1 extended instruction (vgf-format.md §6.4; attribute
// operands first, then inputs). Shared by the SPIR-V graph reader and writer; a test checks it
// against the Khronos grammar file (extinst.tosa.001000.1.grammar.json).
#pragma once

#include <span>
#include <vector>
#include <string_view>

#include "vgf/ir/graph.h"

namespace vkrt::vgf::spirv {

// Operand names in SPIR-V order. For CONCAT the single entry "input1" stands for a variadic tail.
std::span<const std::string_view> tosa_operand_names(OpKind op);
bool tosa_operands_variadic(OpKind op);  // CONCAT

// The operands that are tensors of the IR op (Op::inputs order, graph.h); the other operands
// are compile-time constants folded into attributes. CONCAT: {"input1"} (variadic).
std::vector<std::string_view> tosa_tensor_operand_names(OpKind op);

// Index of the first *input* operand (after the attribute operands). In `.tosa` files the
// operator's inputs are exactly the SPIR-V operands from this index on (tosa.md §2).
int tosa_first_input_operand(OpKind op);

// Position of `name` in tosa_operand_names(op), or -1.
int tosa_operand_index(OpKind op, std::string_view name);

}  // namespace vkrt::vgf::spirv
