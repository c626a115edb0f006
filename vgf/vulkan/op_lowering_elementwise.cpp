// Lowering of elementwise binary (with broadcasting), comparison, unary ops and CLAMP, and their
// entries in the op table (op_table.h): capabilities, lowering, shader op code, fused-chain GLSL.
#include "shaders/glsl/op_codes.h"
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct BinaryParams { BINARY_PARAMS };

struct UnaryParams { UNARY_PARAMS };

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

// A binary.comp variant (`shader`: binary_* or compare_*) on the op's two broadcast inputs.
Status lower_binary_with(const vgf::Op& op, std::string shader, LoweringContext& ctx,
                         std::vector<PendingDispatch>* out) {
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  BinaryParams p{};
  align6(so, p.shape);
  broadcast_strides(ctx.shape(op.inputs[0]), p.shape, p.a_stride);
  broadcast_strides(ctx.shape(op.inputs[1]), p.shape, p.b_stride);
  uint64_t count = element_count(so);
  p.count = int32_t(count);
  p.op = vulkan_op(op.kind).shader_op;
  if (const auto* m = std::get_if<vgf::MulAttr>(&op.attr)) p.param = m->shift;
  if (const auto* s = std::get_if<vgf::ShiftAttr>(&op.attr)) p.param = s->round ? 1 : 0;
  if (const auto* n = std::get_if<vgf::NanModeAttr>(&op.attr)) p.param = int32_t(n->nan_mode);
  PendingDispatch d;
  d.shader = std::move(shader);
  d.binding_count = 3;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])};
  d.writes = {false, false, true};
  d.set_push(p);
  d.invocations = count;
  out->push_back(std::move(d));
  return Status::ok();
}

Status lower_binary(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  return lower_binary_with(op, std::string("binary_") + type_suffix(ctx.dtype(op.inputs[0])), ctx, out);
}

// int8/int16 MUL may widen to int32 (binary_i8_i32, binary_i16_i32).
Status lower_mul(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType in = ctx.dtype(op.inputs[0]);
  const bool widening = (in == DType::Int8 || in == DType::Int16) && ctx.dtype(op.outputs[0]) == DType::Int32;
  return lower_binary_with(op, std::string("binary_") + type_suffix(in) + (widening ? "_i32" : ""), ctx, out);
}

// EQUAL, GREATER, GREATER_EQUAL: a bool output.
Status lower_compare(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  return lower_binary_with(op, std::string("compare_") + type_suffix(ctx.dtype(op.inputs[0])), ctx, out);
}

Status lower_unary(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  DType t = ctx.dtype(op.inputs[0]);
  UnaryParams p{};
  uint64_t count = element_count(ctx.shape(op.outputs[0]));
  p.count = int32_t(count);
  p.op = vulkan_op(op.kind).shader_op;
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

// Capabilities: the element types binary.comp (binary_*, compare_*) and unary.comp have variants for.
constexpr std::initializer_list<DType> kInts = {DType::Int8, DType::Int16, DType::Int32};
constexpr std::initializer_list<DType> kIntsAndFp32 = {DType::Int8, DType::Int16, DType::Int32, DType::Fp32};

std::string int32_or_fp32_pair(const OpOperands& o) {
  return o.supported_if(is_one_of(o.in(0), {DType::Int32, DType::Fp32}) && o.in(1) == o.in(0));
}
std::string int_or_fp32_pair(const OpOperands& o) {
  return o.supported_if(is_one_of(o.in(0), kIntsAndFp32) && o.in(1) == o.in(0));
}
std::string int_pair(const OpOperands& o) { return o.supported_if(is_one_of(o.in(0), kInts) && o.in(1) == o.in(0)); }
std::string int32_pair(const OpOperands& o) {
  return o.supported_if(o.in(0) == DType::Int32 && o.in(1) == DType::Int32);
}
std::string fp32_pair(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Fp32 && o.in(1) == DType::Fp32); }
std::string bool_pair(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Bool && o.in(1) == DType::Bool); }
std::string int_or_fp32(const OpOperands& o) { return o.supported_if(is_one_of(o.in(0), kIntsAndFp32)); }
std::string int_only(const OpOperands& o) { return o.supported_if(is_one_of(o.in(0), kInts)); }
std::string int32_only(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Int32); }
std::string bool_only(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Bool); }
std::string fp32_only(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Fp32); }

// Chain expressions that depend on attributes (the formulas of binary.comp / unary.comp; the ew_*
// functions are shaders/glsl/elementwise_ops.glsl's).
const char* glsl_bool(bool b) { return b ? "true" : "false"; }

Result<std::string> chain_mul(const ChainOperands& o) {
  const std::string& a = o.regs[0];
  const std::string& b = o.regs[1];
  const int32_t shift = std::get<vgf::MulAttr>(o.op.attr).shift;
  if (o.in == DType::Fp32 || shift == 0) return a + " * " + b;  // int: low 32 bits of the product (tosa.md §9)
  if (shift < 1 || shift > 62) return make_error(Error::NotSupported, "MUL shift " + std::to_string(shift));
  return "ew_mul_shift(" + a + ", " + b + ", " + std::to_string(shift) + ")";
}

std::string max_or_min(const ChainOperands& o, bool is_max) {
  if (o.in != DType::Fp32) return std::string(is_max ? "max(" : "min(") + o.regs[0] + ", " + o.regs[1] + ")";
  const bool propagate = std::get<vgf::NanModeAttr>(o.op.attr).nan_mode != vgf::NanMode::Ignore;
  return std::string("ew_fmaxmin(") + o.regs[0] + ", " + o.regs[1] + ", " + glsl_bool(is_max) + ", " +
         glsl_bool(propagate) + ")";
}
Result<std::string> chain_maximum(const ChainOperands& o) { return max_or_min(o, true); }
Result<std::string> chain_minimum(const ChainOperands& o) { return max_or_min(o, false); }

Result<std::string> chain_arithmetic_right_shift(const ChainOperands& o) {
  const bool round = std::get<vgf::ShiftAttr>(o.op.attr).round;
  return "ew_asr(" + o.regs[0] + ", " + o.regs[1] + ", " + glsl_bool(round) + ")";
}

Result<std::string> chain_abs(const ChainOperands& o) {
  const std::string& a = o.regs[0];
  if (o.in == DType::Fp32) return "abs(" + a + ")";
  return "clamp(abs(" + a + "), " + glsl_int(type_min(o.in)) + ", " + glsl_int(type_max(o.in)) + ")";
}

Result<std::string> chain_negate(const ChainOperands& o) {
  const std::string& a = o.regs[0];
  if (o.in == DType::Fp32) return "-" + a;
  const auto& n = std::get<vgf::NegateAttr>(o.op.attr);
  return "clamp(-(" + a + " - " + glsl_int(n.input_zp) + ") + " + glsl_int(n.output_zp) + ", " +
         glsl_int(type_min(o.in)) + ", " + glsl_int(type_max(o.in)) + ")";
}

Result<std::string> chain_clamp(const ChainOperands& o) {
  const auto& c = std::get<vgf::ClampAttr>(o.op.attr);
  const std::string& a = o.regs[0];
  if (o.in == DType::Fp32) {
    return "ew_fclamp(" + a + ", " + glsl_float(float(c.min_fp)) + ", " + glsl_float(float(c.max_fp)) + ", " +
           glsl_bool(c.nan_mode == vgf::NanMode::Ignore) + ")";
  }
  return "min(max(" + a + ", " + glsl_int(c.min_int) + "), " + glsl_int(c.max_int) + ")";
}

// Binary ops: binary.comp; the GLSL of fused chains ($a, $b: input registers,
// $bits: the width of the input type; ew_* functions: shaders/glsl/elementwise_ops.glsl).
const VulkanOpEntry kElementwiseOps[] = {
    {OpKind::ADD, {int32_or_fp32_pair, lower_single<lower_binary>, BIN_ADD, "$a + $b"}},
    {OpKind::SUB, {int32_or_fp32_pair, lower_single<lower_binary>, BIN_SUB, "$a - $b"}},
    {OpKind::MUL, {int_or_fp32_pair, lower_single<lower_mul>, BIN_MUL, nullptr, chain_mul}},
    {OpKind::MAXIMUM, {int_or_fp32_pair, lower_single<lower_binary>, BIN_MAXIMUM, nullptr, chain_maximum}},
    {OpKind::MINIMUM, {int_or_fp32_pair, lower_single<lower_binary>, BIN_MINIMUM, nullptr, chain_minimum}},
    {OpKind::BITWISE_AND, {int_pair, lower_single<lower_binary>, BIN_BITWISE_AND, "$a & $b"}},
    {OpKind::BITWISE_OR, {int_pair, lower_single<lower_binary>, BIN_BITWISE_OR, "$a | $b"}},
    {OpKind::BITWISE_XOR, {int_pair, lower_single<lower_binary>, BIN_BITWISE_XOR, "$a ^ $b"}},
    {OpKind::LOGICAL_AND, {bool_pair, lower_single<lower_binary>, BIN_LOGICAL_AND, "int($a != 0 && $b != 0)"}},
    {OpKind::LOGICAL_OR, {bool_pair, lower_single<lower_binary>, BIN_LOGICAL_OR, "int($a != 0 || $b != 0)"}},
    {OpKind::LOGICAL_XOR, {bool_pair, lower_single<lower_binary>, BIN_LOGICAL_XOR, "int(($a != 0) != ($b != 0))"}},
    {OpKind::ARITHMETIC_RIGHT_SHIFT,
     {int_pair, lower_single<lower_binary>, BIN_ARITHMETIC_RIGHT_SHIFT, nullptr, chain_arithmetic_right_shift}},
    {OpKind::LOGICAL_LEFT_SHIFT,
     {int_pair, lower_single<lower_binary>, BIN_LOGICAL_LEFT_SHIFT, "ew_lsl($a, $b, $bits)"}},
    {OpKind::LOGICAL_RIGHT_SHIFT,
     {int_pair, lower_single<lower_binary>, BIN_LOGICAL_RIGHT_SHIFT, "ew_lsr($a, $b, $bits)"}},
    {OpKind::INTDIV, {int32_pair, lower_single<lower_binary>, BIN_INTDIV, "ew_intdiv($a, $b)"}},
    {OpKind::POW, {fp32_pair, lower_single<lower_binary>, BIN_POW, "pow($a, $b)"}},
    {OpKind::EQUAL, {int_or_fp32_pair, lower_single<lower_compare>, BIN_EQUAL, "int($a == $b)"}},
    {OpKind::GREATER, {int_or_fp32_pair, lower_single<lower_compare>, BIN_GREATER, "int($a > $b)"}},
    {OpKind::GREATER_EQUAL, {int_or_fp32_pair, lower_single<lower_compare>, BIN_GREATER_EQUAL, "int($a >= $b)"}},
    // Unary ops: unary.comp.
    {OpKind::ABS, {int_or_fp32, lower_single<lower_unary>, UN_ABS, nullptr, chain_abs}},
    {OpKind::BITWISE_NOT, {int_only, lower_single<lower_unary>, UN_BITWISE_NOT, "~$a"}},
    {OpKind::CLZ, {int32_only, lower_single<lower_unary>, UN_CLZ, "($a == 0 ? 32 : 31 - findMSB(uint($a)))"}},
    {OpKind::NEGATE, {int_or_fp32, lower_single<lower_unary>, UN_NEGATE, nullptr, chain_negate}},
    {OpKind::CLAMP, {int_or_fp32, lower_single<lower_unary>, UN_CLAMP, nullptr, chain_clamp}},
    {OpKind::LOGICAL_NOT, {bool_only, lower_single<lower_unary>, UN_LOGICAL_NOT, "($a != 0 ? 0 : 1)"}},
    {OpKind::CEIL, {fp32_only, lower_single<lower_unary>, UN_CEIL, "ceil($a)"}},
    {OpKind::FLOOR, {fp32_only, lower_single<lower_unary>, UN_FLOOR, "floor($a)"}},
    {OpKind::EXP, {fp32_only, lower_single<lower_unary>, UN_EXP, "exp($a)"}},
    {OpKind::LOG, {fp32_only, lower_single<lower_unary>, UN_LOG, "log($a)"}},
    {OpKind::SIN, {fp32_only, lower_single<lower_unary>, UN_SIN, "sin($a)"}},
    {OpKind::COS, {fp32_only, lower_single<lower_unary>, UN_COS, "cos($a)"}},
    {OpKind::RECIPROCAL, {fp32_only, lower_single<lower_unary>, UN_RECIPROCAL, "1.0 / $a"}},
    {OpKind::RSQRT, {fp32_only, lower_single<lower_unary>, UN_RSQRT, "inversesqrt($a)"}},
    {OpKind::SIGMOID, {fp32_only, lower_single<lower_unary>, UN_SIGMOID, "1.0 / (1.0 + exp(-$a))"}},
    {OpKind::TANH, {fp32_only, lower_single<lower_unary>, UN_TANH, "ew_tanh($a)"}},
    {OpKind::ERF, {fp32_only, lower_single<lower_unary>, UN_ERF, "ew_erf($a)"}},
};

}  // namespace

std::span<const VulkanOpEntry> elementwise_ops() { return kElementwiseOps; }

}  // namespace vkrt::vulkan
