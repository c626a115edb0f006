// CPU op table entries (cpu_op_table.h): ARGMAX and REDUCE_*.
#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

using tosa::ReduceOp;

Status plan_argmax(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<ArgmaxAttr>(op.attr);
  plan.attrs = tosa::ArgmaxAttrs{a.axis, a.nan_mode};
  return Status::ok();
}

Status run_argmax(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_argmax, tosa::argmax, a.in[0], std::get<tosa::ArgmaxAttrs>(p.attrs),
                          a.out[0]);
}

Status plan_reduce(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<AxisAttr>(op.attr);
  plan.attrs = tosa::ReduceAttrs{a.axis, a.nan_mode};
  return Status::ok();
}

// One kernel for all reductions, the operation a template argument.
template <ReduceOp R>
Status run_reduce(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_reduce, tosa::reduce, R, a.in[0], std::get<tosa::ReduceAttrs>(p.attrs),
                          a.out[0]);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::ARGMAX, plan_argmax, run_argmax},
    {OpKind::REDUCE_ALL, plan_reduce, run_reduce<ReduceOp::All>},
    {OpKind::REDUCE_ANY, plan_reduce, run_reduce<ReduceOp::Any>},
    {OpKind::REDUCE_MAX, plan_reduce, run_reduce<ReduceOp::Max>},
    {OpKind::REDUCE_MIN, plan_reduce, run_reduce<ReduceOp::Min>},
    {OpKind::REDUCE_PRODUCT, plan_reduce, run_reduce<ReduceOp::Product>},
    {OpKind::REDUCE_SUM, plan_reduce, run_reduce<ReduceOp::Sum>},
};

}  // namespace

std::span<const CpuOpImpl> reduction_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu
