// Lowering of data movement: TRANSPOSE, SLICE, REVERSE, CONCAT (copy_nd.comp) and PAD, TILE
// (gather_nd.comp), RESHAPE (no dispatch), and their entries in the op table (op_table.h). Shapes
// are right-aligned to rank 6; element size picks the variant.
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct CopyParams { COPY_ND_PARAMS };

struct GatherNdParams { GATHER_ND_PARAMS };

// Contiguous element strides of `s` (rank r), placed at the last r of 6 slots.
void strides6(const vgf::Shape& s, int32_t out[6]) {
  for (int d = 0; d < 6; ++d) out[d] = 0;
  int32_t stride = 1;
  size_t pad = 6 - s.size();
  for (int d = int(s.size()) - 1; d >= 0; --d) {
    out[pad + d] = stride;
    stride *= int32_t(s[d]);
  }
}

void dims6(const vgf::Shape& s, int32_t out[6]) {
  size_t pad = 6 - s.size();
  for (size_t d = 0; d < 6; ++d) out[d] = d < pad ? 1 : int32_t(s[d - pad]);
}

std::string variant(const char* base, DType t) {
  return std::string(base) + "_" + std::to_string(vgf::dtype_storage_bytes(t) * 8);
}

PendingDispatch copy_dispatch(LoweringContext& ctx, DType t, Slot in, Slot out, const CopyParams& p) {
  PendingDispatch d;
  d.shader = variant("copy_nd", t);
  d.binding_count = 2;
  d.bindings = {in, out};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.count);
  return d;
}

// CONCAT: one copy per input, into its place along the axis.
Status lower_concat(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType t = ctx.dtype(op.inputs[0]);
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  const size_t rank = so.size();
  const size_t lead = 6 - rank;
  Slot dst = ctx.tensor(op.outputs[0]);
  const auto& a = std::get<vgf::AxisAttr>(op.attr);
  int32_t out_strides[6];
  strides6(so, out_strides);
  int64_t axis_offset = 0;
  for (vgf::TensorId in : op.inputs) {
    const vgf::Shape& si = ctx.shape(in);
    CopyParams p{};
    dims6(si, p.shape);
    strides6(si, p.in_stride);
    for (int d = 0; d < 6; ++d) p.out_stride[d] = out_strides[d];
    p.out_offset = int32_t(axis_offset * out_strides[lead + a.axis]);
    p.count = int32_t(element_count(si));
    axis_offset += si[a.axis];
    if (p.count == 0) continue;
    out->push_back(copy_dispatch(ctx, t, ctx.tensor(in), dst, p));
  }
  return Status::ok();
}

// PAD and TILE: gather_nd.comp computes each output element's source (or the pad value).
Status lower_gather_nd(const vgf::Op& op, const GatherNdParams& params, LoweringContext& ctx,
                       std::vector<PendingDispatch>* out) {
  PendingDispatch d;
  d.shader = variant("gather_nd", ctx.dtype(op.inputs[0]));
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(params);
  d.invocations = uint64_t(params.count);
  if (params.count > 0) out->push_back(std::move(d));
  return Status::ok();
}

GatherNdParams gather_nd_params(const vgf::Op& op, LoweringContext& ctx) {
  GatherNdParams p{};
  dims6(ctx.shape(op.outputs[0]), p.out_shape);
  dims6(ctx.shape(op.inputs[0]), p.in_dim);
  p.count = int32_t(element_count(ctx.shape(op.outputs[0])));
  return p;
}

Status lower_pad(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType t = ctx.dtype(op.inputs[0]);
  const size_t rank = ctx.shape(op.outputs[0]).size();
  const size_t lead = 6 - rank;
  GatherNdParams p = gather_nd_params(op, ctx);
  const auto& a = std::get<vgf::PadAttr>(op.attr);
  for (size_t d = 0; d < rank; ++d) p.pad_before[lead + d] = int32_t(a.padding[2 * d]);
  if (t == DType::Fp32) {
    p.pad_value = float_bits(float(a.pad_const_fp));
  } else {
    uint64_t raw = uint64_t(a.pad_const_int);
    p.pad_value = int32_t(uint32_t(raw));
    p.pad_value_hi = int32_t(uint32_t(raw >> 32));
  }
  return lower_gather_nd(op, p, ctx, out);
}

Status lower_tile(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  GatherNdParams p = gather_nd_params(op, ctx);
  p.tile = 1;
  return lower_gather_nd(op, p, ctx, out);
}

// TRANSPOSE, SLICE, REVERSE: one copy_nd.comp dispatch over the output; each op sets the input
// strides and offset.
CopyParams output_copy_params(const vgf::Op& op, LoweringContext& ctx) {
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  CopyParams p{};
  dims6(so, p.shape);
  strides6(so, p.out_stride);
  p.count = int32_t(element_count(so));
  return p;
}

Status push_copy(const vgf::Op& op, const CopyParams& p, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  if (p.count > 0) {
    out->push_back(copy_dispatch(ctx, ctx.dtype(op.inputs[0]), ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0]), p));
  }
  return Status::ok();
}

Status lower_transpose(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const size_t rank = ctx.shape(op.outputs[0]).size();
  const size_t lead = 6 - rank;
  CopyParams p = output_copy_params(op, ctx);
  int32_t in_strides[6];
  strides6(ctx.shape(op.inputs[0]), in_strides);
  const auto& a = std::get<vgf::TransposeAttr>(op.attr);
  for (size_t d = 0; d < rank; ++d) {
    int32_t src_dim = a.perms[d];
    p.in_stride[lead + d] = in_strides[lead + src_dim];
  }
  return push_copy(op, p, ctx, out);
}

Status lower_slice(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  const vgf::Shape& si = ctx.shape(op.inputs[0]);
  const size_t rank = so.size();
  const size_t lead = 6 - rank;
  CopyParams p = output_copy_params(op, ctx);
  int32_t in_strides[6];
  strides6(si, in_strides);
  const auto& a = std::get<vgf::SliceAttr>(op.attr);
  for (size_t d = 0; d < rank; ++d) {
    p.in_stride[lead + d] = in_strides[lead + d];
    p.in_offset += int32_t(a.start[d]) * in_strides[lead + d];
  }
  return push_copy(op, p, ctx, out);
}

Status lower_reverse(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Shape& si = ctx.shape(op.inputs[0]);
  const size_t rank = ctx.shape(op.outputs[0]).size();
  const size_t lead = 6 - rank;
  CopyParams p = output_copy_params(op, ctx);
  int32_t in_strides[6];
  strides6(si, in_strides);
  const auto& a = std::get<vgf::AxisAttr>(op.attr);
  for (size_t d = 0; d < rank; ++d) p.in_stride[lead + d] = in_strides[lead + d];
  size_t ax = lead + size_t(a.axis);
  p.in_offset = int32_t(si[a.axis] - 1) * in_strides[ax];
  p.in_stride[ax] = -in_strides[ax];
  return push_copy(op, p, ctx, out);
}

// RESHAPE moves nothing: its output aliases its input (alias_roots, graph_plan.h).
Status lower_reshape(const FusedStep&, LoweringContext&, std::vector<PendingDispatch>*) { return Status::ok(); }

// Capabilities: copy_nd.comp and gather_nd.comp have 8-, 16-, 32- and 64-bit element variants.
std::string copyable_types(const OpOperands& o) {
  const size_t bytes = vgf::dtype_storage_bytes(o.in(0));
  return o.supported_if(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8);
}
std::string any_types(const OpOperands&) { return {}; }

const VulkanOpEntry kDataOps[] = {
    {OpKind::TRANSPOSE, {copyable_types, lower_single<lower_transpose>}},
    {OpKind::SLICE, {copyable_types, lower_single<lower_slice>}},
    {OpKind::REVERSE, {copyable_types, lower_single<lower_reverse>}},
    {OpKind::CONCAT, {copyable_types, lower_single<lower_concat>}},
    {OpKind::PAD, {copyable_types, lower_single<lower_pad>}},
    {OpKind::TILE, {copyable_types, lower_single<lower_tile>}},
    {OpKind::RESHAPE, {any_types, lower_reshape}},
};

}  // namespace

std::span<const VulkanOpEntry> data_ops() { return kDataOps; }

}  // namespace vkrt::vulkan
