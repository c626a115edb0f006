// CPU op table entries (cpu_op_table.h): ARGMAX and REDUCE_*.
#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

using tosa::ReduceOp;

Status run_argmax(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_argmax, tosa::argmax, a.in[0], p.ir_attr<ArgmaxAttr>(),
                          a.out[0]);
}

// One kernel for all reductions, the operation a template argument.
template <ReduceOp R>
Status run_reduce(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_reduce, tosa::reduce, R, a.in[0], p.ir_attr<AxisAttr>(),
                          a.out[0]);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::ARGMAX, nullptr, run_argmax},
    {OpKind::REDUCE_ALL, nullptr, run_reduce<ReduceOp::All>},
    {OpKind::REDUCE_ANY, nullptr, run_reduce<ReduceOp::Any>},
    {OpKind::REDUCE_MAX, nullptr, run_reduce<ReduceOp::Max>},
    {OpKind::REDUCE_MIN, nullptr, run_reduce<ReduceOp::Min>},
    {OpKind::REDUCE_PRODUCT, nullptr, run_reduce<ReduceOp::Product>},
    {OpKind::REDUCE_SUM, nullptr, run_reduce<ReduceOp::Sum>},
};

}  // namespace

std::span<const CpuOpImpl> reduction_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu
