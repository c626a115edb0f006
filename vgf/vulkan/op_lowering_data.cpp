// Lowering of data movement: TRANSPOSE, SLICE, REVERSE, CONCAT (copy_nd.comp) and PAD, TILE
// (gather_nd.comp). Shapes are right-aligned to rank 6; element size picks the variant.
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct CopyParams {
  int32_t shape[6];
  int32_t in_stride[6];
  int32_t out_stride[6];
  int32_t in_offset, out_offset, count;
};

struct GatherParams {
  int32_t out_shape[6];
  int32_t in_dim[6];
  int32_t pad_before[6];
  int32_t count, tile, pad_value, pad_value_hi;
};

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

}  // namespace

Status lower_data_movement(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  DType t = ctx.dtype(op.inputs[0]);
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  const size_t rank = so.size();
  const size_t lead = 6 - rank;
  Slot dst = ctx.tensor(op.outputs[0]);

  if (op.kind == OpKind::CONCAT) {
    const auto& a = std::get<vgf::AxisAttr>(op.attr);
    if (a.axis < 0 || size_t(a.axis) >= rank) {
      return make_error(Error::InvalidProgram, "CONCAT axis ", a.axis, " outside rank ", rank);
    }
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

  const vgf::Shape& si = ctx.shape(op.inputs[0]);
  Slot src = ctx.tensor(op.inputs[0]);
  if (op.kind == OpKind::PAD || op.kind == OpKind::TILE) {
    GatherParams p{};
    dims6(so, p.out_shape);
    dims6(si, p.in_dim);
    p.count = int32_t(element_count(so));
    if (op.kind == OpKind::TILE) {
      p.tile = 1;
    } else {
      const auto& a = std::get<vgf::PadAttr>(op.attr);
      if (a.padding.size() != 2 * rank) {
        return make_error(Error::InvalidProgram, "PAD: ", a.padding.size(), " padding values for rank ", rank);
      }
      for (size_t d = 0; d < rank; ++d) p.pad_before[lead + d] = int32_t(a.padding[2 * d]);
      if (t == DType::Fp32) {
        p.pad_value = float_bits(float(a.pad_const_fp));
      } else {
        uint64_t raw = uint64_t(a.pad_const_int);
        p.pad_value = int32_t(uint32_t(raw));
        p.pad_value_hi = int32_t(uint32_t(raw >> 32));
      }
    }
    PendingDispatch d;
    d.shader = variant("gather_nd", t);
    d.binding_count = 2;
    d.bindings = {src, dst};
    d.writes = {false, true};
    d.set_push(p);
    d.invocations = uint64_t(p.count);
    if (p.count > 0) out->push_back(std::move(d));
    return Status::ok();
  }

  CopyParams p{};
  dims6(so, p.shape);
  strides6(so, p.out_stride);
  int32_t in_strides[6];
  strides6(si, in_strides);
  p.count = int32_t(element_count(so));
  switch (op.kind) {
    case OpKind::TRANSPOSE: {
      const auto& a = std::get<vgf::TransposeAttr>(op.attr);
      if (a.perms.size() != rank) {
        return make_error(Error::InvalidProgram, "TRANSPOSE: ", a.perms.size(), " perms for rank ", rank);
      }
      for (size_t d = 0; d < rank; ++d) {
        int32_t src_dim = a.perms[d];
        if (src_dim < 0 || size_t(src_dim) >= rank) {
          return make_error(Error::InvalidProgram, "TRANSPOSE: perms[", d, "] = ", src_dim, " out of range");
        }
        p.in_stride[lead + d] = in_strides[lead + src_dim];
      }
      break;
    }
    case OpKind::SLICE: {
      const auto& a = std::get<vgf::SliceAttr>(op.attr);
      if (a.start.size() != rank) {
        return make_error(Error::InvalidProgram, "SLICE: ", a.start.size(), " starts for rank ", rank);
      }
      for (size_t d = 0; d < rank; ++d) {
        if (a.start[d] < 0 || a.start[d] + so[d] > si[d]) {
          return make_error(Error::InvalidProgram, "SLICE: start ", a.start[d], " + size ", so[d],
                            " exceeds dim ", d, " (", si[d], ")");
        }
        p.in_stride[lead + d] = in_strides[lead + d];
        p.in_offset += int32_t(a.start[d]) * in_strides[lead + d];
      }
      break;
    }
    case OpKind::REVERSE: {
      const auto& a = std::get<vgf::AxisAttr>(op.attr);
      if (a.axis < 0 || size_t(a.axis) >= rank) {
        return make_error(Error::InvalidProgram, "REVERSE axis ", a.axis, " outside rank ", rank);
      }
      for (size_t d = 0; d < rank; ++d) p.in_stride[lead + d] = in_strides[lead + d];
      size_t ax = lead + size_t(a.axis);
      p.in_offset = int32_t(si[a.axis] - 1) * in_strides[ax];
      p.in_stride[ax] = -in_strides[ax];
      break;
    }
    default:
      return make_error(Error::NotSupported, "data movement op ", vgf::op_name(op.kind));
  }
  if (p.count > 0) out->push_back(copy_dispatch(ctx, t, src, dst, p));
  return Status::ok();
}

}  // namespace vkrt::vulkan
