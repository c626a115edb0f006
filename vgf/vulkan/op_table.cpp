// The op table, built once from the lowering files' registration lists, and the executor's
// capability checks (op_table.h).
#include "vgf/vulkan/op_table.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "vgf/vulkan/graph_plan.h"

namespace vkrt::vulkan {
namespace {

using Table = std::array<VulkanOpImpl, vgf::kOpKindCount>;

Table build_table() {
  Table table{};
  for (auto list : {compute_ops(), elementwise_ops(), data_ops(), misc_ops(), extra_ops()}) {
    for (const VulkanOpEntry& entry : list) {
      VulkanOpImpl& slot = table[size_t(entry.kind)];
      if (slot.supports != nullptr) {  // a programming error in the lists: fail on first use
        std::fprintf(stderr, "vkrt: vulkan op table: %s is registered twice\n", vgf::op_name(entry.kind));
        std::abort();
      }
      slot = entry.impl;
    }
  }
  return table;
}

Status unsupported(const vgf::Graph& g, size_t index, const std::string& why) {
  const auto& op = g.ops[index];
  return make_error(Error::NotSupported, "op ", index, " (", vgf::op_name(op.kind), "): ", why,
                    " is not supported by the vulkan executor");
}

// The shaders index tensors of rank up to 6 (shapes right-aligned into six slots).
constexpr size_t kMaxRank = 6;

bool ranks_supported(const vgf::Graph& g, const vgf::Op& op) {
  auto ok = [&](vgf::TensorId t) { return g.tensor(t).ranked && g.tensor(t).shape.size() <= kMaxRank; };
  for (vgf::TensorId t : op.inputs) {
    if (!ok(t)) return false;
  }
  for (vgf::TensorId t : op.outputs) {
    if (!ok(t)) return false;
  }
  return true;
}

}  // namespace

std::string OpOperands::types() const {
  std::string s;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    s += (i ? ", " : "");
    s += vgf::dtype_name(in(i));
  }
  s += " -> ";
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    s += (i ? ", " : "");
    s += vgf::dtype_name(out(i));
  }
  return s;
}

const VulkanOpImpl& vulkan_op(vgf::OpKind kind) {
  static const Table table = build_table();
  static const VulkanOpImpl none{};
  return size_t(kind) < table.size() ? table[size_t(kind)] : none;
}

Status check_op_capability(const vgf::Graph& g, size_t index) {
  const vgf::Op& op = g.ops[index];
  if (!ranks_supported(g, op)) return unsupported(g, index, "rank above 6 or unranked tensors");
  const VulkanOpImpl& impl = vulkan_op(op.kind);
  if (impl.supports == nullptr) return unsupported(g, index, "this op");
  std::string why = impl.supports(OpOperands{g, op});
  if (!why.empty()) return unsupported(g, index, why);
  return Status::ok();
}

Status check_shape_capability(std::span<const vgf::Shape> shapes) {
  for (size_t t = 0; t < shapes.size(); ++t) {
    const uint64_t elements = element_count(shapes[t]);
    if (elements > uint64_t(INT32_MAX)) {
      return make_error(Error::NotSupported, "tensor ", t, " has ", elements,
                        " elements; the vulkan executor's shaders index at most 2^31-1");
    }
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan
