// CPU op table entries (cpu_op_table.h): elementwise ops (binary, unary, comparisons, SELECT,
// CLAMP, NEGATE), RESCALE, TABLE and CAST.
#include <cstring>

#include "vgf/cpu/cpu_op_table.h"

namespace vkrt::vgf::cpu {
namespace {

using tosa::BinaryOp;
using tosa::CompareOp;
using tosa::UnaryOp;

// Binary ops: one kernel, the operation a template argument, so each op is one table entry.
// MAXIMUM/MINIMUM carry a nan_mode, ARITHMETIC_RIGHT_SHIFT `round`; the rest no attributes.
Status plan_binary(const PlanContext& ctx, PlannedOp& plan) {
  const Op& op = ctx.op;
  if (const auto* n = std::get_if<NanModeAttr>(&op.attr)) plan.binary.nan_mode = n->nan_mode;
  if (const auto* s = std::get_if<ShiftAttr>(&op.attr)) plan.binary.round = s->round;
  return Status::ok();
}

template <BinaryOp B>
Status run_binary(const PlannedOp& p, const KernelArgs& a) {
  if (a.check_only) return tosa::check_elementwise_binary(B, a.in[0], a.in[1], p.binary, a.out[0]);
  return tosa::elementwise_binary(B, a.in[0], a.in[1], p.binary, a.out[0], a.runner);
}

template <UnaryOp U>
Status run_unary(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_elementwise_unary, tosa::elementwise_unary, U, a.in[0], a.out[0]);
}

template <CompareOp C>
Status run_compare(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_compare, tosa::compare, C, a.in[0], a.in[1], a.out[0]);
}

Status run_select(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_select, tosa::select, a.in[0], a.in[1], a.in[2], a.out[0]);
}

Status run_mul(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_mul, tosa::mul, a.in[0], a.in[1], p.ir_attr<MulAttr>(),
                          a.out[0]);
}

Status run_negate(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_negate, tosa::negate, a.in[0], p.ir_attr<NegateAttr>(),
                          a.out[0]);
}

Status run_clamp(const PlannedOp& p, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_clamp, tosa::clamp, a.in[0], p.ir_attr<ClampAttr>(),
                          a.out[0]);
}

// The kernel reads int32 multipliers and shifts; the IR keeps shifts as int8, so both are
// widened into the plan, which the attrs' spans point into.
Status run_rescale(const PlannedOp& p, const KernelArgs& a) {
  const auto& attr = p.ir_attr<RescaleAttr>();
  if (a.check_only) return tosa::check_rescale(a.in[0], attr, a.out[0]);
  return tosa::rescale(a.in[0], attr, a.out[0], a.runner);
}

// The IR keeps every table as int16 values; the kernel takes the table as a tensor of the input
// type, so int8 tables are narrowed here once.
// The table has 256 or 513 entries: too small to count in the budget.
Status plan_table(const PlanContext& ctx, PlannedOp& plan) {
  const auto& a = std::get<TableAttr>(ctx.op.attr);
  DType in = ctx.graph.tensors[ctx.op.inputs[0]].dtype;
  plan.table_len = int64_t(a.table.size());
  if (in == DType::Int8) {
    VKRT_CHECK_OR_RETURN(a.table.size() == 256, InvalidProgram, "TABLE: int8 input needs 256 entries, has ", a.table.size());
    plan.table_dtype = tosa::DType::Int8;
    for (int16_t v : a.table) plan.table_bytes.push_back(uint8_t(int8_t(v)));
  } else {
    VKRT_CHECK_OR_RETURN(a.table.size() == 513, InvalidProgram, "TABLE: int16 input needs 513 entries, has ", a.table.size());
    plan.table_dtype = tosa::DType::Int16;
    plan.table_bytes.resize(a.table.size() * 2);
    std::memcpy(plan.table_bytes.data(), a.table.data(), plan.table_bytes.size());
  }
  return Status::ok();
}

Status run_table(const PlannedOp& p, const KernelArgs& a) {
  const int64_t shape[1] = {p.table_len};
  const tosa::TensorRef table{p.table_dtype, shape, const_cast<uint8_t*>(p.table_bytes.data())};
  return check_or_compute(a, tosa::check_table, tosa::table, a.in[0], table, a.out[0]);
}

Status run_cast(const PlannedOp&, const KernelArgs& a) {
  return check_or_compute(a, tosa::check_cast, tosa::cast, a.in[0], a.out[0]);
}

constexpr CpuOpImpl kOps[] = {
    {OpKind::ADD, plan_binary, run_binary<BinaryOp::Add>},
    {OpKind::SUB, plan_binary, run_binary<BinaryOp::Sub>},
    {OpKind::MAXIMUM, plan_binary, run_binary<BinaryOp::Maximum>},
    {OpKind::MINIMUM, plan_binary, run_binary<BinaryOp::Minimum>},
    {OpKind::POW, plan_binary, run_binary<BinaryOp::Pow>},
    {OpKind::INTDIV, plan_binary, run_binary<BinaryOp::IntDiv>},
    {OpKind::BITWISE_AND, plan_binary, run_binary<BinaryOp::BitwiseAnd>},
    {OpKind::BITWISE_OR, plan_binary, run_binary<BinaryOp::BitwiseOr>},
    {OpKind::BITWISE_XOR, plan_binary, run_binary<BinaryOp::BitwiseXor>},
    {OpKind::LOGICAL_LEFT_SHIFT, plan_binary, run_binary<BinaryOp::LogicalLeftShift>},
    {OpKind::LOGICAL_RIGHT_SHIFT, plan_binary, run_binary<BinaryOp::LogicalRightShift>},
    {OpKind::ARITHMETIC_RIGHT_SHIFT, plan_binary, run_binary<BinaryOp::ArithmeticRightShift>},
    {OpKind::LOGICAL_AND, plan_binary, run_binary<BinaryOp::LogicalAnd>},
    {OpKind::LOGICAL_OR, plan_binary, run_binary<BinaryOp::LogicalOr>},
    {OpKind::LOGICAL_XOR, plan_binary, run_binary<BinaryOp::LogicalXor>},
    {OpKind::MUL, nullptr, run_mul},

    {OpKind::ABS, nullptr, run_unary<UnaryOp::Abs>},
    {OpKind::BITWISE_NOT, nullptr, run_unary<UnaryOp::BitwiseNot>},
    {OpKind::CEIL, nullptr, run_unary<UnaryOp::Ceil>},
    {OpKind::CLZ, nullptr, run_unary<UnaryOp::Clz>},
    {OpKind::COS, nullptr, run_unary<UnaryOp::Cos>},
    {OpKind::EXP, nullptr, run_unary<UnaryOp::Exp>},
    {OpKind::FLOOR, nullptr, run_unary<UnaryOp::Floor>},
    {OpKind::LOG, nullptr, run_unary<UnaryOp::Log>},
    {OpKind::LOGICAL_NOT, nullptr, run_unary<UnaryOp::LogicalNot>},
    {OpKind::RECIPROCAL, nullptr, run_unary<UnaryOp::Reciprocal>},
    {OpKind::RSQRT, nullptr, run_unary<UnaryOp::Rsqrt>},
    {OpKind::SIN, nullptr, run_unary<UnaryOp::Sin>},
    {OpKind::ERF, nullptr, run_unary<UnaryOp::Erf>},
    {OpKind::SIGMOID, nullptr, run_unary<UnaryOp::Sigmoid>},
    {OpKind::TANH, nullptr, run_unary<UnaryOp::Tanh>},
    {OpKind::NEGATE, nullptr, run_negate},
    {OpKind::CLAMP, nullptr, run_clamp},

    {OpKind::EQUAL, nullptr, run_compare<CompareOp::Equal>},
    {OpKind::GREATER, nullptr, run_compare<CompareOp::Greater>},
    {OpKind::GREATER_EQUAL, nullptr, run_compare<CompareOp::GreaterEqual>},
    {OpKind::SELECT, nullptr, run_select},

    {OpKind::RESCALE, nullptr, run_rescale},
    {OpKind::TABLE, plan_table, run_table},
    {OpKind::CAST, nullptr, run_cast},
};

}  // namespace

std::span<const CpuOpImpl> elementwise_ops() { return kOps; }

}  // namespace vkrt::vgf::cpu
