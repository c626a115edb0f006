// Lowering of elementwise binary (with broadcasting), comparison, unary ops and CLAMP.
#include "shaders/glsl/op_codes.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct BinaryParams {
  int32_t shape[6];
  int32_t a_stride[6];
  int32_t b_stride[6];
  int32_t count, op, param;
};

struct UnaryParams {
  int32_t count, op, p0, p1, type_min, type_max, nan_mode;
};

// Right-aligns a shape to rank 6 (leading 1s).
void align6(const vgf::Shape& s, int32_t out[6]) {
  size_t pad = 6 - s.size();
  for (size_t d = 0; d < 6; ++d) out[d] = d < pad ? 1 : int32_t(s[d - pad]);
}

// Element strides of an input broadcast to the 6-d output shape (0 where broadcast).
void broadcast_strides(const vgf::Shape& in, const int32_t out_shape[6], int32_t strides[6]) {
  int32_t dims[6];
  align6(in, dims);
  int32_t stride = 1;
  for (int d = 5; d >= 0; --d) {
    strides[d] = (dims[d] == 1 && out_shape[d] != 1) ? 0 : stride;
    stride *= dims[d];
  }
}

int binary_code(OpKind k) {
  switch (k) {
    case OpKind::ADD: return BIN_ADD;
    case OpKind::SUB: return BIN_SUB;
    case OpKind::MUL: return BIN_MUL;
    case OpKind::MAXIMUM: return BIN_MAXIMUM;
    case OpKind::MINIMUM: return BIN_MINIMUM;
    case OpKind::BITWISE_AND: return BIN_BITWISE_AND;
    case OpKind::BITWISE_OR: return BIN_BITWISE_OR;
    case OpKind::BITWISE_XOR: return BIN_BITWISE_XOR;
    case OpKind::LOGICAL_AND: return BIN_LOGICAL_AND;
    case OpKind::LOGICAL_OR: return BIN_LOGICAL_OR;
    case OpKind::LOGICAL_XOR: return BIN_LOGICAL_XOR;
    case OpKind::ARITHMETIC_RIGHT_SHIFT: return BIN_ARITHMETIC_RIGHT_SHIFT;
    case OpKind::LOGICAL_LEFT_SHIFT: return BIN_LOGICAL_LEFT_SHIFT;
    case OpKind::LOGICAL_RIGHT_SHIFT: return BIN_LOGICAL_RIGHT_SHIFT;
    case OpKind::INTDIV: return BIN_INTDIV;
    case OpKind::POW: return BIN_POW;
    case OpKind::EQUAL: return BIN_EQUAL;
    case OpKind::GREATER: return BIN_GREATER;
    case OpKind::GREATER_EQUAL: return BIN_GREATER_EQUAL;
    default: return -1;
  }
}

int unary_code(OpKind k) {
  switch (k) {
    case OpKind::ABS: return UN_ABS;
    case OpKind::BITWISE_NOT: return UN_BITWISE_NOT;
    case OpKind::CLZ: return UN_CLZ;
    case OpKind::NEGATE: return UN_NEGATE;
    case OpKind::CLAMP: return UN_CLAMP;
    case OpKind::LOGICAL_NOT: return UN_LOGICAL_NOT;
    case OpKind::CEIL: return UN_CEIL;
    case OpKind::FLOOR: return UN_FLOOR;
    case OpKind::EXP: return UN_EXP;
    case OpKind::LOG: return UN_LOG;
    case OpKind::SIN: return UN_SIN;
    case OpKind::COS: return UN_COS;
    case OpKind::RECIPROCAL: return UN_RECIPROCAL;
    case OpKind::RSQRT: return UN_RSQRT;
    case OpKind::SIGMOID: return UN_SIGMOID;
    case OpKind::TANH: return UN_TANH;
    case OpKind::ERF: return UN_ERF;
    default: return -1;
  }
}

}  // namespace

Status lower_binary(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  int code = binary_code(op.kind);
  if (code < 0) {
    return make_error(Error::NotSupported, "op ", vgf::op_name(op.kind), " is not a binary op");
  }
  DType in = ctx.dtype(op.inputs[0]);
  DType o = ctx.dtype(op.outputs[0]);
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  BinaryParams p{};
  align6(so, p.shape);
  broadcast_strides(ctx.shape(op.inputs[0]), p.shape, p.a_stride);
  broadcast_strides(ctx.shape(op.inputs[1]), p.shape, p.b_stride);
  uint64_t count = element_count(so);
  p.count = int32_t(count);
  p.op = code;
  if (const auto* m = std::get_if<vgf::MulAttr>(&op.attr)) p.param = m->shift;
  if (const auto* s = std::get_if<vgf::ShiftAttr>(&op.attr)) p.param = s->round ? 1 : 0;
  if (const auto* n = std::get_if<vgf::NanModeAttr>(&op.attr)) p.param = int32_t(n->nan_mode);

  std::string shader;
  if (op.kind == OpKind::EQUAL || op.kind == OpKind::GREATER || op.kind == OpKind::GREATER_EQUAL) {
    shader = std::string("compare_") + type_suffix(in);
  } else if (op.kind == OpKind::MUL && (in == DType::Int8 || in == DType::Int16) && o == DType::Int32) {
    shader = std::string("binary_") + type_suffix(in) + "_i32";
  } else {
    shader = std::string("binary_") + type_suffix(in);
  }
  PendingDispatch d;
  d.shader = shader;
  d.binding_count = 3;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])};
  d.writes = {false, false, true};
  d.set_push(p);
  d.invocations = count;
  out->push_back(std::move(d));
  return Status::ok();
}

Status lower_unary(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  int code = unary_code(op.kind);
  if (code < 0) {
    return make_error(Error::NotSupported, "op ", vgf::op_name(op.kind), " is not a unary op");
  }
  DType t = ctx.dtype(op.inputs[0]);
  UnaryParams p{};
  uint64_t count = element_count(ctx.shape(op.outputs[0]));
  p.count = int32_t(count);
  p.op = code;
  p.type_min = type_min(t);
  p.type_max = type_max(t);
  p.nan_mode = NAN_PROPAGATE;
  if (const auto* c = std::get_if<vgf::ClampAttr>(&op.attr)) {
    if (t == DType::Fp32) {
      p.p0 = float_bits(float(c->min_fp));
      p.p1 = float_bits(float(c->max_fp));
    } else {
      p.p0 = int32_t(c->min_int);
      p.p1 = int32_t(c->max_int);
    }
    p.nan_mode = int32_t(c->nan_mode);
  }
  if (const auto* n = std::get_if<vgf::NegateAttr>(&op.attr)) {
    p.p0 = n->input_zp;
    p.p1 = n->output_zp;
  }
  PendingDispatch d;
  d.shader = std::string("unary_") + type_suffix(t);
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = count;
  out->push_back(std::move(d));
  return Status::ok();
}

}  // namespace vkrt::vulkan
