// The CPU executor's op table (see cpu_op_table.h): the family lists gathered into one array
// indexed by OpKind.
#include "vgf/cpu/cpu_op_table.h"

#include <array>
#include <cstdlib>
#include <string>

namespace vkrt::vgf::cpu {
namespace {

using OpTable = std::array<CpuOpImpl, kOpKindCount>;

OpTable build_table() {
  OpTable table{};
  for (std::span<const CpuOpImpl> family : {conv_pool_ops(), elementwise_ops(), data_layout_ops(), reduction_ops()}) {
    for (const CpuOpImpl& e : family) {
      CpuOpImpl& slot = table[size_t(e.kind)];
      // Two entries for one op is a programming error in the lists, caught by any test run.
      if (slot.run != nullptr) std::abort();
      slot = e;
    }
  }
  return table;
}

// Null when the op has no entry (or the kind is outside the enum).
const CpuOpImpl* find(OpKind kind) {
  static const OpTable table = build_table();
  const size_t k = size_t(kind);
  return k < table.size() && table[k].run != nullptr ? &table[k] : nullptr;
}

Status not_supported(OpKind kind) {
  return make_error(Error::NotSupported, op_name(kind), " is not supported by the cpu executor");
}

}  // namespace

Status PlanContext::reserve(uint64_t bytes, std::string_view what) const {
  if (budget == nullptr) return Status::ok();
  return budget->reserve(bytes, "VGF cpu executor: op " + std::to_string(index) + " (" + op_name(op.kind) + ") " +
                                    std::string(what));
}

Status plan_op(const PlanContext& ctx, PlannedOp& plan) {
  const CpuOpImpl* impl = find(ctx.op.kind);
  if (impl == nullptr) return not_supported(ctx.op.kind);
  plan.ir = &ctx.op.attr;
  return impl->plan == nullptr ? Status::ok() : impl->plan(ctx, plan);
}

Status call_kernel(OpKind kind, const PlannedOp& plan, const KernelArgs& args) {
  const CpuOpImpl* impl = find(kind);
  if (impl == nullptr) return not_supported(kind);
  return impl->run(plan, args);
}

size_t kernel_scratch_bytes(OpKind kind, const PlannedOp& plan, const KernelArgs& args, int threads) {
  const CpuOpImpl* impl = find(kind);
  return impl == nullptr || impl->scratch == nullptr ? 0 : impl->scratch(plan, args, threads);
}

}  // namespace vkrt::vgf::cpu
