// Operand tables per TOSA.001000.1 instruction (vgf-format.md §6.4), read from the op
// descriptors (vgf/ir/op_descriptor.h).
#include "vgf/spirv/tosa_operands.h"

#include "vgf/ir/op_descriptor.h"

namespace vkrt::vgf::spirv {

std::span<const std::string_view> tosa_operand_names(OpKind op) {
  if (!is_valid_op_kind(uint32_t(op))) return {};
  return op_descriptor(op).spirv_operands;
}

std::vector<std::string_view> tosa_tensor_operand_names(OpKind op) {
  if (!is_valid_op_kind(uint32_t(op))) return {};
  return op_descriptor(op).tensor_inputs;
}

int tosa_first_input_operand(OpKind op) {
  const auto tensors = tosa_tensor_operand_names(op);
  return tensors.empty() ? 0 : tosa_operand_index(op, tensors.front());
}

bool tosa_operands_variadic(OpKind op) { return is_valid_op_kind(uint32_t(op)) && op_descriptor(op).variadic; }

int tosa_operand_index(OpKind op, std::string_view name) {
  auto names = tosa_operand_names(op);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return int(i);
  }
  return -1;
}

}  // namespace vkrt::vgf::spirv
