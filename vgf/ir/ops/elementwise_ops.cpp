// TOSA 1.0 elementwise operators (tosa.md §7-§9): CLAMP and the activations, the binary and
// unary operators, SELECT, the comparisons, TABLE.
#include "vgf/ir/ops/shape_rules.h"

#include <cmath>

namespace vkrt::vgf {
namespace {

using namespace shape_rules;

// ERROR_IF(max_val < min_val).
Status check_clamp(const OpContext& c) {
  VKRT_RETURN_IF_ERROR(all_same_type(c));
  const auto& a = c.attr<ClampAttr>();
  const DType t = c.input_type(0);
  if (dtype_is_float(t)) {
    // NaN bounds are no interval either (the fp32 values are what the kernels compare with).
    if (std::isnan(a.min_fp) || std::isnan(a.max_fp) || float(a.max_fp) < float(a.min_fp))
      return c.refuse("max_val ", a.max_fp, " is below min_val ", a.min_fp);
  } else if (a.max_int < a.min_int) {
    return c.refuse("max_val ", a.max_int, " is below min_val ", a.min_int);
  } else if (type_max(t) != 0 && (a.min_int < type_min(t) || a.max_int > type_max(t))) {  // integer types
    return c.refuse("bounds [", a.min_int, ", ", a.max_int, "] outside the ", dtype_name(t), " range");
  }
  return Status::ok();
}

// ERROR_IF(shift < 0 || shift > 63); ERROR_IF(in_t != int32 && shift > 0).
// Inputs of one type; the output too, except int8 and int16 products, which are int32.
Status check_mul(const OpContext& c) {
  const DType in = c.input_type(0), out = c.output_type(0);
  if (c.input_type(1) != in) return c.refuse("inputs are ", dtype_name(in), " and ", dtype_name(c.input_type(1)));
  // int8 and int16 products are int32 (TOSA 1.0 MUL: out_t i32_t for every integer in_t).
  const DType want = (in == DType::Int8 || in == DType::Int16) ? DType::Int32 : in;
  if (out != want) return c.refuse(dtype_name(in), " inputs give ", dtype_name(want), ", not ", dtype_name(out));
  const int32_t shift = c.attr<MulAttr>().shift;
  if (shift < 0 || shift > 63) return c.refuse("shift ", shift, " outside [0, 63]");
  if (shift != 0 && c.input_type(0) != DType::Int32)
    return c.refuse("shift ", shift, " is only allowed with int32 inputs, not ", dtype_name(c.input_type(0)));
  return Status::ok();
}

// The table has 256 int8 entries for an int8 input and 513 int16 entries for an int16 input.
// int8 -> int8 with 256 entries; int16 -> int32 with 513.
Status check_table(const OpContext& c) {
  const auto& t = c.attr<TableAttr>().table;
  const DType in = c.input_type(0);
  const DType want_out = in == DType::Int16 ? DType::Int32 : in;
  if (c.output_type(0) != want_out)
    return c.refuse("a ", dtype_name(in), " input gives a ", dtype_name(want_out), " output, not ",
                    dtype_name(c.output_type(0)));
  if (in == DType::Int8) {
    if (t.size() != 256) return c.refuse("an int8 input needs a 256-entry table, got ", t.size());
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] < INT8_MIN || t[i] > INT8_MAX) return c.refuse("table[", i, "] = ", t[i], " outside the int8 range");
    }
  } else if (in == DType::Int16) {
    if (t.size() != 513) return c.refuse("an int16 input needs a 513-entry table, got ", t.size());
  } else {
    return c.refuse("input is ", dtype_name(in), ", TABLE takes int8 or int16");
  }
  return Status::ok();
}

Status check_negate(const OpContext& c) {
  VKRT_RETURN_IF_ERROR(all_same_type(c));
  const auto& a = c.attr<NegateAttr>();
  if (c.input_type(0) == DType::Int8 && (a.input_zp < INT8_MIN || a.input_zp > INT8_MAX || a.output_zp < INT8_MIN ||
                                          a.output_zp > INT8_MAX))
    return c.refuse("zero points ", a.input_zp, ", ", a.output_zp, " outside the int8 range");
  if (c.input_type(0) != DType::Int8 && a.input_zp != 0)
    return c.refuse("input1_zp ", a.input_zp, " must be 0 for ", dtype_name(c.input_type(0)), " tensors");
  if (c.output_type(0) != DType::Int8 && a.output_zp != 0)
    return c.refuse("output_zp ", a.output_zp, " must be 0 for ", dtype_name(c.output_type(0)), " tensors");
  return Status::ok();
}

// Comparisons: inputs of one type, a bool output.
Status check_compare(const OpContext& c) {
  if (c.input_type(0) != c.input_type(1))
    return c.refuse("inputs are ", dtype_name(c.input_type(0)), " and ", dtype_name(c.input_type(1)));
  if (c.output_type(0) != DType::Bool) return c.refuse("output is ", dtype_name(c.output_type(0)), ", not bool");
  return Status::ok();
}

// SELECT: a bool condition; the two choices and the output of one type.
Status check_select(const OpContext& c) {
  if (c.input_type(0) != DType::Bool) return c.refuse("condition is ", dtype_name(c.input_type(0)), ", not bool");
  return same_types(c, {1, 2});
}

OpDescriptor unary(OpKind kind, const char* name, std::string_view operand = "input1",
                   size_t attributes = attribute_index<NoAttr>(), AttributeRule check = all_same_type) {
  return OpDescriptor{.kind = kind, .name = name, .tensor_inputs = {operand}, .attributes = attributes,
                      .spirv_operands = {operand}, .infer_shapes = same_as_first_input, .check = check};
}

OpDescriptor binary(OpKind kind, const char* name) {
  return OpDescriptor{.kind = kind, .name = name, .tensor_inputs = {"input1", "input2"},
                      .attributes = attribute_index<NoAttr>(), .spirv_operands = {"input1", "input2"},
                      .infer_shapes = broadcast_inputs, .check = all_same_type};
}

OpDescriptor compare(OpKind kind, const char* name) {
  OpDescriptor d = binary(kind, name);
  d.check = check_compare;
  return d;
}

OpDescriptor with_nan_mode(OpKind kind, const char* name) {
  OpDescriptor d = binary(kind, name);
  d.attributes = attribute_index<NanModeAttr>();
  d.spirv_operands = {"nan_mode", "input1", "input2"};
  return d;
}

}  // namespace

std::vector<OpDescriptor> elementwise_op_descriptors() {
  OpDescriptor clamp = unary(OpKind::CLAMP, "CLAMP", "input", attribute_index<ClampAttr>(), check_clamp);
  clamp.spirv_operands = {"min_val", "max_val", "nan_mode", "input"};
  OpDescriptor shift = binary(OpKind::ARITHMETIC_RIGHT_SHIFT, "ARITHMETIC_RIGHT_SHIFT");
  shift.attributes = attribute_index<ShiftAttr>();
  shift.spirv_operands = {"round", "input1", "input2"};
  OpDescriptor mul = binary(OpKind::MUL, "MUL");
  mul.attributes = attribute_index<MulAttr>();
  mul.spirv_operands = {"input1", "input2", "shift"};
  mul.check = check_mul;
  OpDescriptor table = unary(OpKind::TABLE, "TABLE", "input1", attribute_index<TableAttr>(), check_table);
  table.spirv_operands = {"input1", "table"};
  OpDescriptor negate = unary(OpKind::NEGATE, "NEGATE", "input1", attribute_index<NegateAttr>(), check_negate);
  negate.spirv_operands = {"input1", "input1_zp", "output_zp"};
  OpDescriptor select{.kind = OpKind::SELECT, .name = "SELECT", .tensor_inputs = {"input1", "input2", "input3"},
                      .attributes = attribute_index<NoAttr>(), .spirv_operands = {"input1", "input2", "input3"},
                      .infer_shapes = broadcast_inputs, .check = check_select};
  return {
      clamp,
      unary(OpKind::ERF, "ERF", "input"),
      unary(OpKind::SIGMOID, "SIGMOID", "input"),
      unary(OpKind::TANH, "TANH", "input"),
      binary(OpKind::ADD, "ADD"),
      shift,
      binary(OpKind::BITWISE_AND, "BITWISE_AND"),
      binary(OpKind::BITWISE_OR, "BITWISE_OR"),
      binary(OpKind::BITWISE_XOR, "BITWISE_XOR"),
      binary(OpKind::INTDIV, "INTDIV"),
      binary(OpKind::LOGICAL_AND, "LOGICAL_AND"),
      binary(OpKind::LOGICAL_LEFT_SHIFT, "LOGICAL_LEFT_SHIFT"),
      binary(OpKind::LOGICAL_RIGHT_SHIFT, "LOGICAL_RIGHT_SHIFT"),
      binary(OpKind::LOGICAL_OR, "LOGICAL_OR"),
      binary(OpKind::LOGICAL_XOR, "LOGICAL_XOR"),
      with_nan_mode(OpKind::MAXIMUM, "MAXIMUM"),
      with_nan_mode(OpKind::MINIMUM, "MINIMUM"),
      mul,
      binary(OpKind::POW, "POW"),
      binary(OpKind::SUB, "SUB"),
      table,
      unary(OpKind::ABS, "ABS"),
      unary(OpKind::BITWISE_NOT, "BITWISE_NOT"),
      unary(OpKind::CEIL, "CEIL"),
      unary(OpKind::CLZ, "CLZ"),
      unary(OpKind::COS, "COS"),
      unary(OpKind::EXP, "EXP"),
      unary(OpKind::FLOOR, "FLOOR"),
      unary(OpKind::LOG, "LOG"),
      unary(OpKind::LOGICAL_NOT, "LOGICAL_NOT"),
      negate,
      unary(OpKind::RECIPROCAL, "RECIPROCAL"),
      unary(OpKind::RSQRT, "RSQRT"),
      unary(OpKind::SIN, "SIN"),
      select,
      compare(OpKind::EQUAL, "EQUAL"),
      compare(OpKind::GREATER, "GREATER"),
      compare(OpKind::GREATER_EQUAL, "GREATER_EQUAL"),
  };
}

}  // namespace vkrt::vgf
