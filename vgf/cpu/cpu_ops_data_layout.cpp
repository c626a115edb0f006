// CPU op table entries (cpu_op_table.h): data layout ops (CONCAT, PAD, RESHAPE, SLICE, TILE,
// TRANSPOSE, REVERSE), GATHER, SCATTER and RESIZE.
#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

Status run_concat(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_concat, tosa::concat, a.in, p.ir_attr<AxisAttr>(),
                          a.out[0]);
}

Status run_pad(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_pad, tosa::pad, a.in[0], p.ir_attr<PadAttr>(), a.out[0]);
}

// The new shape is the output tensor's.
Status run_reshape(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_reshape, tosa::reshape, a.in[0], a.out[0]);
}

// SLICE's size is the output shape; the kernel reads only the start.
Status run_slice(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_slice, tosa::slice, a.in[0], p.ir_attr<SliceAttr>(), a.out[0]);
}

Status run_tile(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_tile, tosa::tile, a.in[0], p.ir_attr<TileAttr>(), a.out[0]);
}

Status run_transpose(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_transpose, tosa::transpose, a.in[0],
                          p.ir_attr<TransposeAttr>(), a.out[0]);
}

Status run_reverse(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_reverse, tosa::reverse, a.in[0], p.ir_attr<AxisAttr>(),
                          a.out[0]);
}

Status run_gather(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_gather, tosa::gather, a.in[0], a.in[1], a.out[0]);
}

Status run_scatter(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_scatter, tosa::scatter, a.in[0], a.in[1], a.in[2], a.out[0]);
}

Status run_resize(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_resize, tosa::resize, a.in[0], p.ir_attr<ResizeAttr>(),
                          a.out[0]);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::CONCAT, nullptr, run_concat},
    {OpKind::PAD, nullptr, run_pad},
    {OpKind::RESHAPE, nullptr, run_reshape},
    {OpKind::SLICE, nullptr, run_slice},
    {OpKind::TILE, nullptr, run_tile},
    {OpKind::TRANSPOSE, nullptr, run_transpose},
    {OpKind::REVERSE, nullptr, run_reverse},
    {OpKind::GATHER, nullptr, run_gather},
    {OpKind::SCATTER, nullptr, run_scatter},
    {OpKind::RESIZE, nullptr, run_resize},
};

}  // namespace

std::span<const CpuOpImpl> data_layout_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu
