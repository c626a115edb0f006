// The table of op descriptors, assembled from the family files in vgf/ir/ops/, and the IR
// queries (op_name, operand counts) that read it.
#include "vgf/ir/op_descriptor.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace vkrt::vgf {
namespace {

using DescriptorTable = std::array<OpDescriptor, kOpKindCount>;

DescriptorTable build_table() {
  DescriptorTable table;
  std::array<bool, kOpKindCount> filled{};
  for (auto family : {tensor_op_descriptors, elementwise_op_descriptors, data_layout_op_descriptors,
                      type_conversion_op_descriptors}) {
    for (OpDescriptor& d : family()) {
      const auto i = size_t(d.kind);
      // A kind described twice or not at all is a bug in vgf/ir/ops/, found by every test run.
      if (i >= table.size() || filled[i] || d.infer_shapes == nullptr) {
        std::fprintf(stderr, "vkrt: op descriptor table: bad entry for op %zu (%s)\n", i, d.name);
        std::abort();
      }
      filled[i] = true;
      table[i] = std::move(d);
    }
  }
  for (size_t i = 0; i < table.size(); ++i) {
    if (!filled[i]) {
      std::fprintf(stderr, "vkrt: op descriptor table: op %zu has no descriptor\n", i);
      std::abort();
    }
  }
  return table;
}

const DescriptorTable& table() {
  static const DescriptorTable t = build_table();
  return t;
}

}  // namespace

const OpDescriptor& op_descriptor(OpKind kind) { return table()[size_t(kind)]; }

template <size_t... I>
static OpAttributes make_alternative(size_t index, std::index_sequence<I...>) {
  OpAttributes out;
  ((index == I ? (void)out.emplace<I>() : (void)0), ...);
  return out;
}

OpAttributes default_attributes(OpKind kind) {
  return make_alternative(op_descriptor(kind).attributes, std::make_index_sequence<std::variant_size_v<OpAttributes>>{});
}

const char* op_name(OpKind op) { return is_valid_op_kind(uint32_t(op)) ? op_descriptor(op).name : "UNKNOWN_OP"; }

bool is_valid_op_kind(uint32_t value) { return value < uint32_t(kOpKindCount); }

int expected_input_count(OpKind op) {
  const OpDescriptor& d = op_descriptor(op);
  return d.variadic ? -1 : int(d.tensor_inputs.size());
}

int expected_output_count(OpKind op) { return op_descriptor(op).outputs; }

}  // namespace vkrt::vgf
