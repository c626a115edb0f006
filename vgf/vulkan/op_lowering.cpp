#include "vgf/vulkan/op_lowering.h"

#include <algorithm>

#include "vgf/vulkan/elementwise_fusion.h"

namespace vkrt::vulkan {

using vgf::DType;
using vgf::OpKind;

const char* type_suffix(DType t) {
  switch (t) {
    case DType::Int8: return "i8";
    case DType::Bool: return "i8";  // stored as one byte 0/1
    case DType::Int16: return "i16";
    case DType::Int32: return "i32";
    case DType::Int48: return "i48";  // held in int64
    case DType::Fp32: return "f32";
    default: return "";
  }
}

int32_t float_bits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

Slot LoweringContext::add_constant(const void* data, size_t bytes) {
  uint64_t offset = (constants_.size() + alignment_ - 1) / alignment_ * alignment_;
  constants_.resize(offset + std::max<size_t>(bytes, 16), 0);
  if (bytes) std::memcpy(constants_.data() + offset, data, bytes);
  return Slot{SlotKind::Constants, offset, std::max<uint64_t>(bytes, 16)};
}

Slot LoweringContext::dummy() {
  if (!have_dummy_) {
    const uint8_t zeros[16] = {};
    dummy_ = add_constant(zeros, sizeof(zeros));
    have_dummy_ = true;
  }
  return dummy_;
}

Slot LoweringContext::tensor(vgf::TensorId t) {
  vgf::TensorId root = alias_[t];
  const vgf::TensorInfo& info = graph_.tensor(root);
  if (info.is_constant) {
    if (auto it = graph_constants_.find(root); it != graph_constants_.end()) return it->second;
    auto bytes = info.constant_bytes();
    Slot s = add_constant(bytes.data(), bytes.size());
    graph_constants_[root] = s;
    return s;
  }
  const TensorPlacement& p = plan_.placement[root];
  return Slot{SlotKind::Arena, p.offset, std::max<uint64_t>(p.bytes, 16)};
}

namespace {

bool is_one_of(DType t, std::initializer_list<DType> types) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

Status unsupported(const vgf::Graph& g, size_t index, const std::string& why) {
  const auto& op = g.ops[index];
  return make_error(Error::NotSupported, "op ", index, " (", vgf::op_name(op.kind), "): ", why,
                    " is not supported by the vulkan executor");
}

std::string type_list(const vgf::Graph& g, const vgf::Op& op) {
  std::string s;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    s += (i ? ", " : "");
    s += vgf::dtype_name(g.tensor(op.inputs[i]).dtype);
  }
  s += " -> ";
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    s += (i ? ", " : "");
    s += vgf::dtype_name(g.tensor(op.outputs[i]).dtype);
  }
  return s;
}

}  // namespace

Status check_op_supported(const vgf::Graph& g, size_t index) {
  const vgf::Op& op = g.ops[index];
  auto in = [&](size_t i) { return g.tensor(op.inputs[i]).dtype; };
  auto out = [&](size_t i) { return g.tensor(op.outputs[i]).dtype; };
  const std::string types = type_list(g, op);
  auto rank_ok = [&](size_t max_rank) {
    for (auto t : op.inputs) {
      if (!g.tensor(t).ranked || g.tensor(t).shape.size() > max_rank) return false;
    }
    for (auto t : op.outputs) {
      if (!g.tensor(t).ranked || g.tensor(t).shape.size() > max_rank) return false;
    }
    return true;
  };
  if (op.outputs.empty()) return unsupported(g, index, "an op without outputs");
  if (!rank_ok(6)) return unsupported(g, index, "rank above 6 or unranked tensors");
  switch (op.kind) {
    case OpKind::CONV2D:
    case OpKind::DEPTHWISE_CONV2D:
    case OpKind::TRANSPOSE_CONV2D:
      if (op.inputs.size() < 3) return unsupported(g, index, "a convolution without a bias operand");
      // int16 activations (int48 accumulator) need shaderInt64; lower_conv_like checks the device.
      if ((in(0) == DType::Int8 && in(1) == DType::Int8 && out(0) == DType::Int32 && in(2) == DType::Int32) ||
          (in(0) == DType::Int16 && in(1) == DType::Int8 && out(0) == DType::Int48 && in(2) == DType::Int48) ||
          (in(0) == DType::Fp32 && in(1) == DType::Fp32 && out(0) == DType::Fp32 && in(2) == DType::Fp32)) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::MATMUL:
      if ((in(0) == DType::Int8 && in(1) == DType::Int8 && out(0) == DType::Int32) ||
          (in(0) == DType::Int16 && in(1) == DType::Int16 && out(0) == DType::Int48) ||
          (in(0) == DType::Fp32 && in(1) == DType::Fp32 && out(0) == DType::Fp32) ||
          (in(0) == DType::Fp16 && in(1) == DType::Fp16 && out(0) == DType::Fp16)) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::RESIZE: {
      const auto* a = std::get_if<vgf::ResizeAttr>(&op.attr);
      if (!a) return unsupported(g, index, "missing attributes");
      if (g.tensor(op.inputs[0]).shape.size() != 4) return unsupported(g, index, "a RESIZE input of rank other than 4");
      // NEAREST keeps the type; integer BILINEAR widens (tosa.md §11, cpu_fallback/tosa/resize.cpp).
      const bool bilinear = a->mode == vgf::ResizeMode::Bilinear;
      if (a->mode != vgf::ResizeMode::Nearest && !bilinear) return unsupported(g, index, "this RESIZE mode");
      if ((in(0) == DType::Fp32 && out(0) == DType::Fp32) ||
          (in(0) == DType::Int8 && out(0) == (bilinear ? DType::Int32 : DType::Int8)) ||
          (in(0) == DType::Int16 && out(0) == (bilinear ? DType::Int48 : DType::Int16))) {
        return Status::ok();
      }
      return unsupported(g, index, types + (bilinear ? " (BILINEAR)" : " (NEAREST)"));
    }
    case OpKind::SCATTER: {
      size_t bytes = vgf::dtype_storage_bytes(in(0));
      if (op.inputs.size() == 3 && (bytes == 1 || bytes == 2 || bytes == 4) && in(1) == DType::Int32 &&
          in(2) == in(0) && out(0) == in(0) && g.tensor(op.inputs[0]).shape.size() == 3 &&
          g.tensor(op.inputs[1]).shape.size() == 2 && g.tensor(op.inputs[2]).shape.size() == 3) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    }
    case OpKind::RESCALE: {
      const auto* a = std::get_if<vgf::RescaleAttr>(&op.attr);
      if (!a) return unsupported(g, index, "missing attributes");
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Int48}) &&
          is_one_of(out(0), {DType::Int8, DType::Int16, DType::Int32})) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    }
    case OpKind::CLAMP:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32})) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::ADD:
    case OpKind::SUB:
      if (is_one_of(in(0), {DType::Int32, DType::Fp32}) && in(1) == in(0)) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::MUL:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32}) && in(1) == in(0)) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::MAXIMUM:
    case OpKind::MINIMUM:
    case OpKind::EQUAL:
    case OpKind::GREATER:
    case OpKind::GREATER_EQUAL:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32}) && in(1) == in(0)) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::BITWISE_AND:
    case OpKind::BITWISE_OR:
    case OpKind::BITWISE_XOR:
    case OpKind::ARITHMETIC_RIGHT_SHIFT:
    case OpKind::LOGICAL_LEFT_SHIFT:
    case OpKind::LOGICAL_RIGHT_SHIFT:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32}) && in(1) == in(0)) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::INTDIV:
      if (in(0) == DType::Int32 && in(1) == DType::Int32) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::POW:
      if (in(0) == DType::Fp32 && in(1) == DType::Fp32) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::LOGICAL_AND:
    case OpKind::LOGICAL_OR:
    case OpKind::LOGICAL_XOR:
      if (in(0) == DType::Bool && in(1) == DType::Bool) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::ABS:
    case OpKind::NEGATE:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32})) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::BITWISE_NOT:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32})) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::CLZ:
      if (in(0) == DType::Int32) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::LOGICAL_NOT:
      if (in(0) == DType::Bool) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::CEIL:
    case OpKind::FLOOR:
    case OpKind::EXP:
    case OpKind::LOG:
    case OpKind::SIN:
    case OpKind::COS:
    case OpKind::RECIPROCAL:
    case OpKind::RSQRT:
    case OpKind::SIGMOID:
    case OpKind::TANH:
    case OpKind::ERF:
      if (in(0) == DType::Fp32) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::AVG_POOL2D:
    case OpKind::MAX_POOL2D:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Fp32}) && out(0) == in(0)) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::TABLE:
      if ((in(0) == DType::Int8 && out(0) == DType::Int8) || (in(0) == DType::Int16 && out(0) == DType::Int32)) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::RESHAPE:
      return Status::ok();
    case OpKind::TRANSPOSE:
    case OpKind::SLICE:
    case OpKind::REVERSE:
    case OpKind::CONCAT:
    case OpKind::PAD:
    case OpKind::TILE: {
      size_t bytes = vgf::dtype_storage_bytes(in(0));
      if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return Status::ok();
      return unsupported(g, index, types);
    }
    case OpKind::REDUCE_ALL:
    case OpKind::REDUCE_ANY:
      if (in(0) == DType::Bool) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::REDUCE_MAX:
    case OpKind::REDUCE_MIN:
    case OpKind::ARGMAX:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32})) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::REDUCE_SUM:
      if (is_one_of(in(0), {DType::Int32, DType::Fp32})) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::REDUCE_PRODUCT:
      if (in(0) == DType::Fp32) return Status::ok();
      return unsupported(g, index, types);
    case OpKind::SELECT: {
      size_t bytes = vgf::dtype_storage_bytes(in(1));
      if (in(0) == DType::Bool && (bytes == 1 || bytes == 2 || bytes == 4) && in(2) == in(1)) return Status::ok();
      return unsupported(g, index, types);
    }
    case OpKind::GATHER:
      if (is_one_of(in(0), {DType::Int8, DType::Int16, DType::Int32, DType::Fp32}) && in(1) == DType::Int32 &&
          g.tensor(op.inputs[0]).shape.size() == 3 && g.tensor(op.inputs[1]).shape.size() == 2) {
        return Status::ok();
      }
      return unsupported(g, index, types);
    case OpKind::CAST: {
      auto castable = [](DType t) {
        return t == DType::Bool || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Fp32 ||
               t == DType::Fp16;
      };
      // bool -> bool would be a copy; int8 <-> bool uses the int8 variant with the bool flag.
      if (castable(in(0)) && castable(out(0)) && !(in(0) == out(0))) return Status::ok();
      return unsupported(g, index, types);
    }
    default:
      return unsupported(g, index, "this op");
  }
}

Status lower_step(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  if (!step.chain.empty()) return lower_elementwise_chain(step, ctx, out);  // generated shader
  const vgf::Op& op = ctx.graph().ops[step.op];
  size_t before = out->size();
  Status s;
  switch (op.kind) {
    case OpKind::CONV2D:
    case OpKind::DEPTHWISE_CONV2D:
    case OpKind::TRANSPOSE_CONV2D:
    case OpKind::MATMUL:
      s = lower_conv_like(step, ctx, out);
      break;
    case OpKind::RESIZE:
      s = lower_resize(op, ctx, out);
      break;
    case OpKind::SCATTER:
      s = lower_scatter(op, ctx, out);
      break;
    case OpKind::AVG_POOL2D:
    case OpKind::MAX_POOL2D:
      s = lower_pool(op, ctx, out);
      break;
    case OpKind::RESCALE:
      s = lower_rescale(op, ctx, out);
      break;
    case OpKind::TABLE:
      s = lower_table(op, ctx, out);
      break;
    case OpKind::TRANSPOSE:
    case OpKind::SLICE:
    case OpKind::REVERSE:
    case OpKind::CONCAT:
    case OpKind::PAD:
    case OpKind::TILE:
      s = lower_data_movement(op, ctx, out);
      break;
    case OpKind::RESHAPE:
      return Status::ok();
    case OpKind::ARGMAX:
    case OpKind::REDUCE_ALL:
    case OpKind::REDUCE_ANY:
    case OpKind::REDUCE_MAX:
    case OpKind::REDUCE_MIN:
    case OpKind::REDUCE_PRODUCT:
    case OpKind::REDUCE_SUM:
    case OpKind::SELECT:
    case OpKind::GATHER:
      s = lower_misc(op, ctx, out);
      break;
    case OpKind::CAST:
      if (ctx.dtype(op.inputs[0]) == DType::Fp16 || ctx.dtype(op.outputs[0]) == DType::Fp16) {
        s = lower_cast_half(op, ctx, out);
      } else {
        s = lower_misc(op, ctx, out);
      }
      break;
    default:
      if (op.inputs.size() == 2) {
        s = lower_binary(op, ctx, out);
      } else {
        s = lower_unary(op, ctx, out);
      }
      break;
  }
  VKRT_RETURN_IF_ERROR(s);
  // Label the new dispatches with the op names for the profile table.
  std::string label = vgf::op_name(op.kind);
  if (step.rescale >= 0) label += "+RESCALE";
  if (step.clamp >= 0) label += "+CLAMP";
  if (step.table >= 0) label += "+TABLE";
  for (size_t i = before; i < out->size(); ++i) {
    if ((*out)[i].label.empty()) (*out)[i].label = label;
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan
