// CPU op table entries (cpu_op_table.h): data layout ops (CONCAT, PAD, RESHAPE, SLICE, TILE,
// TRANSPOSE, REVERSE), GATHER, SCATTER and RESIZE.
#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

template <size_t N>
Status copy_dims(const std::vector<int64_t>& v, int64_t (&out)[N], const char* what) {
  VKRT_CHECK_OR_RETURN(v.size() <= N, NotSupported, what, ": rank ", v.size(),
                       " exceeds the CPU kernels' limit ", N);
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i];
  return Status::ok();
}

Status run_concat(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_concat, tosa::concat, a.in, p.ir_attr<AxisAttr>(),
                          a.out[0]);
}

Status plan_pad(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& a = std::get<PadAttr>(op.attr);
  tosa::PadAttrs k;
  VKRT_RETURN_IF_ERROR(copy_dims(a.padding, k.padding, "PAD padding"));
  k.pad_const_int = a.pad_const_int;
  k.pad_const_fp = float(a.pad_const_fp);
  plan.attrs = k;
  return Status::ok();
}

Status run_pad(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_pad, tosa::pad, a.in[0], std::get<tosa::PadAttrs>(p.attrs), a.out[0]);
}

// The new shape is the output tensor's.
Status run_reshape(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_reshape, tosa::reshape, a.in[0], a.out[0]);
}

// SLICE's size is the output shape; only the start travels.
Status plan_slice(const Graph&, const Op& op, PlannedOp& plan) {
  tosa::SliceAttrs k;
  VKRT_RETURN_IF_ERROR(copy_dims(std::get<SliceAttr>(op.attr).start, k.start, "SLICE start"));
  plan.attrs = k;
  return Status::ok();
}

Status run_slice(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_slice, tosa::slice, a.in[0], std::get<tosa::SliceAttrs>(p.attrs),
                          a.out[0]);
}

Status plan_tile(const Graph&, const Op& op, PlannedOp& plan) {
  tosa::TileAttrs k;
  VKRT_RETURN_IF_ERROR(copy_dims(std::get<TileAttr>(op.attr).multiples, k.multiples, "TILE multiples"));
  plan.attrs = k;
  return Status::ok();
}

Status run_tile(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_tile, tosa::tile, a.in[0], std::get<tosa::TileAttrs>(p.attrs), a.out[0]);
}

Status plan_transpose(const Graph&, const Op& op, PlannedOp& plan) {
  const auto& perms = std::get<TransposeAttr>(op.attr).perms;
  tosa::TransposeAttrs k;
  VKRT_CHECK_OR_RETURN(perms.size() <= size_t(tosa::kMaxRank), NotSupported, "TRANSPOSE: rank ", perms.size(),
                       " too large");
  for (size_t i = 0; i < perms.size(); ++i) k.perms[i] = perms[i];
  plan.attrs = k;
  return Status::ok();
}

Status run_transpose(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_transpose, tosa::transpose, a.in[0],
                          std::get<tosa::TransposeAttrs>(p.attrs), a.out[0]);
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
    {OpKind::PAD, plan_pad, run_pad},
    {OpKind::RESHAPE, nullptr, run_reshape},
    {OpKind::SLICE, plan_slice, run_slice},
    {OpKind::TILE, plan_tile, run_tile},
    {OpKind::TRANSPOSE, plan_transpose, run_transpose},
    {OpKind::REVERSE, nullptr, run_reverse},
    {OpKind::GATHER, nullptr, run_gather},
    {OpKind::SCATTER, nullptr, run_scatter},
    {OpKind::RESIZE, nullptr, run_resize},
};

}  // namespace

std::span<const CpuOpImpl> data_layout_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu
