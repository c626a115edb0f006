// Lowering of REDUCE_*, ARGMAX, SELECT, GATHER and CAST.
#include "shaders/glsl/op_codes.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct ReduceParams {
  int32_t outer, axis_len, inner, op, nan_mode;
};

struct SelectParams {
  int32_t shape[6];
  int32_t c_stride[6];
  int32_t a_stride[6];
  int32_t b_stride[6];
  int32_t count;
};

struct GatherParams {
  int32_t N, K, C, W;
};

struct CastParams {
  int32_t count, out_bool;
};

// Contiguous strides of `in` broadcast to the right-aligned 6-d `out` (0 where broadcast).
void broadcast6(const vgf::Shape& in, const int32_t out[6], int32_t strides[6]) {
  size_t pad = 6 - in.size();
  int32_t stride = 1;
  for (int d = 5; d >= 0; --d) {
    int32_t dim = size_t(d) < pad ? 1 : int32_t(in[size_t(d) - pad]);
    strides[d] = (dim == 1 && out[d] != 1) ? 0 : stride;
    stride *= dim;
  }
}

int reduce_code(OpKind k) {
  switch (k) {
    case OpKind::REDUCE_SUM: return RED_SUM;
    case OpKind::REDUCE_MAX: return RED_MAX;
    case OpKind::REDUCE_MIN: return RED_MIN;
    case OpKind::REDUCE_PRODUCT: return RED_PRODUCT;
    case OpKind::REDUCE_ALL: return RED_ALL;
    default: return RED_ANY;
  }
}

}  // namespace

Status lower_misc(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  PendingDispatch d;
  DType in = ctx.dtype(op.inputs[0]);
  switch (op.kind) {
    case OpKind::ARGMAX:
    case OpKind::REDUCE_ALL:
    case OpKind::REDUCE_ANY:
    case OpKind::REDUCE_MAX:
    case OpKind::REDUCE_MIN:
    case OpKind::REDUCE_PRODUCT:
    case OpKind::REDUCE_SUM: {
      int32_t axis = 0;
      vgf::NanMode nan = vgf::NanMode::Propagate;
      if (const auto* a = std::get_if<vgf::AxisAttr>(&op.attr)) {
        axis = a->axis;
        nan = a->nan_mode;
      } else if (const auto* a = std::get_if<vgf::ArgmaxAttr>(&op.attr)) {
        axis = a->axis;
        nan = a->nan_mode;
      }
      const vgf::Shape& s = ctx.shape(op.inputs[0]);
      if (axis < 0 || size_t(axis) >= s.size()) {
        return make_error(Error::InvalidProgram, vgf::op_name(op.kind), ": axis ", axis, " outside rank ", s.size());
      }
      ReduceParams p{1, int32_t(s[axis]), 1, reduce_code(op.kind), int32_t(nan)};
      for (int32_t i = 0; i < axis; ++i) p.outer *= int32_t(s[i]);
      for (size_t i = size_t(axis) + 1; i < s.size(); ++i) p.inner *= int32_t(s[i]);
      d.shader = std::string(op.kind == OpKind::ARGMAX ? "argmax_" : "reduce_") + type_suffix(in);
      d.binding_count = 2;
      d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
      d.writes = {false, true};
      d.set_push(p);
      d.invocations = uint64_t(p.outer) * uint64_t(p.inner);
      if (p.axis_len == 0) return make_error(Error::NotSupported, vgf::op_name(op.kind), " over an empty axis");
      break;
    }
    case OpKind::SELECT: {
      const vgf::Shape& so = ctx.shape(op.outputs[0]);
      SelectParams p{};
      size_t pad = 6 - so.size();
      for (size_t dd = 0; dd < 6; ++dd) p.shape[dd] = dd < pad ? 1 : int32_t(so[dd - pad]);
      broadcast6(ctx.shape(op.inputs[0]), p.shape, p.c_stride);
      broadcast6(ctx.shape(op.inputs[1]), p.shape, p.a_stride);
      broadcast6(ctx.shape(op.inputs[2]), p.shape, p.b_stride);
      p.count = int32_t(element_count(so));
      d.shader = "select_" + std::to_string(vgf::dtype_storage_bytes(ctx.dtype(op.inputs[1])) * 8);
      d.binding_count = 4;
      d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.inputs[2]),
                    ctx.tensor(op.outputs[0])};
      d.writes = {false, false, false, true};
      d.set_push(p);
      d.invocations = uint64_t(p.count);
      break;
    }
    case OpKind::GATHER: {
      const vgf::Shape& sv = ctx.shape(op.inputs[0]);
      const vgf::Shape& si = ctx.shape(op.inputs[1]);
      GatherParams p{int32_t(sv[0]), int32_t(sv[1]), int32_t(sv[2]), int32_t(si[1])};
      d.shader = "gather_" + std::to_string(vgf::dtype_storage_bytes(in) * 8);
      d.binding_count = 3;
      d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])};
      d.writes = {false, false, true};
      d.set_push(p);
      d.invocations = uint64_t(p.N) * uint64_t(p.W) * uint64_t(p.C);
      break;
    }
    case OpKind::CAST: {
      DType o = ctx.dtype(op.outputs[0]);
      CastParams p{int32_t(element_count(ctx.shape(op.outputs[0]))), o == DType::Bool ? 1 : 0};
      d.shader = std::string("cast_") + type_suffix(in) + "_" + type_suffix(o);
      d.binding_count = 2;
      d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
      d.writes = {false, true};
      d.set_push(p);
      d.invocations = uint64_t(p.count);
      break;
    }
    default:
      return make_error(Error::NotSupported, vgf::op_name(op.kind), " is not handled by lower_misc");
  }
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

}  // namespace vkrt::vulkan
