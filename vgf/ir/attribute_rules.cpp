// ERROR_IF rules on op attributes (see attribute_rules.h). RESCALE: tosa.md §5.
#include "vgf/ir/attribute_rules.h"

#include <cstdint>
#include <string>

namespace vkrt::vgf {
namespace {

Status check_rescale_zero_point(const std::string& where, const char* what, DType t, bool is_unsigned, int64_t zp) {
  if (t == DType::Int8 && !is_unsigned) {
    VKRT_CHECK_OR_RETURN(zp >= INT8_MIN && zp <= INT8_MAX, InvalidProgram, where, what, " ", zp,
                         " outside the int8 range");
  } else if (t == DType::Int8) {
    VKRT_CHECK_OR_RETURN(zp >= INT8_MIN && zp <= UINT8_MAX, InvalidProgram, where, what, " ", zp,
                         " outside the uint8 range");
  } else if (t == DType::Int16 && is_unsigned) {
    VKRT_CHECK_OR_RETURN(zp == 0 || zp == 32768 || zp == -32768, InvalidProgram, where, what,
                         " must be 0 or 32768 for uint16, got ", zp);
  } else {
    VKRT_CHECK_OR_RETURN(zp == 0, InvalidProgram, where, what, " must be 0 for ", is_unsigned ? "unsigned " : "",
                         dtype_name(t), ", got ", zp);
  }
  return Status::ok();
}

Status check_rescale(const Graph& graph, const Op& op, const std::string& where) {
  const RescaleAttr& a = std::get<RescaleAttr>(op.attr);
  const TensorInfo& in = graph.tensor(op.inputs[0]);
  const TensorInfo& out = graph.tensor(op.outputs[0]);
  const DType it = in.dtype, ot = out.dtype;
  VKRT_CHECK_OR_RETURN(it == DType::Int8 || it == DType::Int16 || it == DType::Int32 || it == DType::Int48,
                       InvalidProgram, where, "input type ", dtype_name(it), " (int8, int16, int32 or int48)");
  VKRT_CHECK_OR_RETURN(ot == DType::Int8 || ot == DType::Int16 || ot == DType::Int32, InvalidProgram, where,
                       "output type ", dtype_name(ot), " (int8, int16 or int32)");
  VKRT_CHECK_OR_RETURN(a.rounding_mode == RoundingMode::SingleRound || a.rounding_mode == RoundingMode::InexactRound ||
                           a.rounding_mode == RoundingMode::DoubleRound,
                       InvalidProgram, where, "invalid rounding_mode ", uint32_t(a.rounding_mode));
  VKRT_CHECK_OR_RETURN(a.scale32 || a.rounding_mode != RoundingMode::DoubleRound, InvalidProgram, where,
                       "DOUBLE_ROUND requires scale32");
  VKRT_CHECK_OR_RETURN(!(a.scale32 && it == DType::Int48), InvalidProgram, where,
                       "scale32 is not allowed with an int48 input");
  VKRT_CHECK_OR_RETURN(!(a.input_unsigned && a.output_unsigned), InvalidProgram, where,
                       "input_unsigned and output_unsigned both set");
  VKRT_CHECK_OR_RETURN(!(a.input_unsigned && (it == DType::Int32 || it == DType::Int48)), InvalidProgram, where,
                       "input_unsigned with a ", dtype_name(it), " input");
  VKRT_CHECK_OR_RETURN(!(a.output_unsigned && ot == DType::Int32), InvalidProgram, where,
                       "output_unsigned with an int32 output");
  VKRT_RETURN_IF_ERROR(check_rescale_zero_point(where, "input_zp", it, a.input_unsigned, a.input_zp));
  VKRT_RETURN_IF_ERROR(check_rescale_zero_point(where, "output_zp", ot, a.output_unsigned, a.output_zp));
  VKRT_CHECK_OR_RETURN(a.multiplier.size() == a.shift.size() && !a.multiplier.empty(), InvalidProgram, where,
                       a.multiplier.size(), " multiplier and ", a.shift.size(), " shift values");
  // per_channel: one value per channel of the last dimension, where the shape says it already.
  const int64_t channels = a.per_channel ? (in.ranked && !in.shape.empty() ? in.shape.back() : kDynamicDim) : 1;
  VKRT_CHECK_OR_RETURN(channels == kDynamicDim || int64_t(a.multiplier.size()) == channels, InvalidProgram, where,
                       "expected ", channels, " multiplier and shift values", a.per_channel ? " (per_channel)" : "",
                       ", got ", a.multiplier.size());
  for (size_t c = 0; c < a.multiplier.size(); ++c) {
    const int32_t m = a.multiplier[c];
    VKRT_CHECK_OR_RETURN(m >= 0 && (a.scale32 || m <= INT16_MAX), InvalidProgram, where, "multiplier[", c, "] = ", m,
                         " out of range for ", a.scale32 ? "scale32" : "scale16");
    VKRT_CHECK_OR_RETURN(a.shift[c] >= 2 && a.shift[c] <= 62, InvalidProgram, where, "shift[", c, "] = ",
                         int(a.shift[c]), " outside [2, 62]");
  }
  return Status::ok();
}

}  // namespace

Status check_op_attributes(const Graph& graph, size_t op_index) {
  const Op& op = graph.ops[op_index];
  const std::string where = "op " + std::to_string(op_index) + " (" + op_name(op.kind) + "): ";
  if (op.kind == OpKind::RESCALE) return check_rescale(graph, op, where);
  return Status::ok();
}

}  // namespace vkrt::vgf
