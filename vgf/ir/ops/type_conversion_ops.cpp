// TOSA 1.0 type conversion operators (tosa.md §5, §12): CAST and RESCALE. RESCALE's ERROR_IF
// rules are checked here once for every reader, so a corrupt RESCALE is refused the same way
// whichever executor would run it.
#include "vgf/ir/ops/shape_rules.h"

#include <cstdint>

namespace vkrt::vgf {
namespace {

// Zero points allowed by the type: int8 any int8 (uint8 when unsigned), uint16 0 or 32768,
// every other type 0.
Status check_rescale_zero_point(const OpContext& c, const char* what, DType t, bool is_unsigned, int64_t zp) {
  if (t == DType::Int8 && !is_unsigned) {
    if (zp < INT8_MIN || zp > INT8_MAX) return c.refuse(what, " ", zp, " outside the int8 range");
  } else if (t == DType::Int8) {
    if (zp < INT8_MIN || zp > UINT8_MAX) return c.refuse(what, " ", zp, " outside the uint8 range");
  } else if (t == DType::Int16 && is_unsigned) {
    if (zp != 0 && zp != 32768 && zp != -32768) return c.refuse(what, " must be 0 or 32768 for uint16, got ", zp);
  } else if (zp != 0) {
    return c.refuse(what, " must be 0 for ", is_unsigned ? "unsigned " : "", dtype_name(t), ", got ", zp);
  }
  return Status::ok();
}

Status check_rescale(const OpContext& c) {
  const RescaleAttr& a = c.attr<RescaleAttr>();
  const TensorInfo& in = c.graph.tensor(c.op.inputs[0]);
  const DType it = in.dtype, ot = c.output_type(0);
  if (it != DType::Int8 && it != DType::Int16 && it != DType::Int32 && it != DType::Int48)
    return c.refuse("input type ", dtype_name(it), " (int8, int16, int32 or int48)");
  if (ot != DType::Int8 && ot != DType::Int16 && ot != DType::Int32)
    return c.refuse("output type ", dtype_name(ot), " (int8, int16 or int32)");
  if (a.rounding_mode != RoundingMode::SingleRound && a.rounding_mode != RoundingMode::InexactRound &&
      a.rounding_mode != RoundingMode::DoubleRound)
    return c.refuse("invalid rounding_mode ", uint32_t(a.rounding_mode));
  if (!a.scale32 && a.rounding_mode == RoundingMode::DoubleRound) return c.refuse("DOUBLE_ROUND requires scale32");
  if (a.scale32 && it == DType::Int48) return c.refuse("scale32 is not allowed with an int48 input");
  if (a.input_unsigned && a.output_unsigned) return c.refuse("input_unsigned and output_unsigned both set");
  if (a.input_unsigned && (it == DType::Int32 || it == DType::Int48))
    return c.refuse("input_unsigned with a ", dtype_name(it), " input");
  if (a.output_unsigned && ot == DType::Int32) return c.refuse("output_unsigned with an int32 output");
  VKRT_RETURN_IF_ERROR(check_rescale_zero_point(c, "input_zp", it, a.input_unsigned, a.input_zp));
  VKRT_RETURN_IF_ERROR(check_rescale_zero_point(c, "output_zp", ot, a.output_unsigned, a.output_zp));
  if (a.multiplier.size() != a.shift.size() || a.multiplier.empty())
    return c.refuse(a.multiplier.size(), " multiplier and ", a.shift.size(), " shift values");
  // per_channel: one value per channel of the last dimension, where the shape says it already.
  const int64_t channels = a.per_channel ? (in.ranked && !in.shape.empty() ? in.shape.back() : kDynamicDim) : 1;
  if (channels != kDynamicDim && int64_t(a.multiplier.size()) != channels)
    return c.refuse("expected ", channels, " multiplier and shift values", a.per_channel ? " (per_channel)" : "",
                    ", got ", a.multiplier.size());
  for (size_t ch = 0; ch < a.multiplier.size(); ++ch) {
    const int32_t m = a.multiplier[ch];
    if (m < 0 || (!a.scale32 && m > INT16_MAX))
      return c.refuse("multiplier[", ch, "] = ", m, " out of range for ", a.scale32 ? "scale32" : "scale16");
    if (a.shift[ch] < 2 || a.shift[ch] > 62) return c.refuse("shift[", ch, "] = ", int(a.shift[ch]), " outside [2, 62]");
  }
  return Status::ok();
}

// Per-channel: one multiplier and shift per channel of the last dimension (shape-dependent
// when that dimension is dynamic, so it is checked again once shapes are known).
Result<std::vector<Shape>> infer_rescale(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& a = *in[0];
  const auto& r = c.attr<RescaleAttr>();
  const int64_t channels = r.per_channel ? (a.empty() ? 0 : a.back()) : 1;
  if (shape_rules::known(channels) && (r.multiplier.size() != size_t(channels) || r.shift.size() != size_t(channels)))
    return c.fail("multiplier/shift have ", r.multiplier.size(), "/", r.shift.size(), " values, expected ", channels);
  return std::vector<Shape>{a};
}

}  // namespace

std::vector<OpDescriptor> type_conversion_op_descriptors() {
  return {
      {.kind = OpKind::CAST, .name = "CAST", .tensor_inputs = {"input"}, .attributes = attribute_index<NoAttr>(),
       .spirv_operands = {"input"}, .infer_shapes = shape_rules::same_as_first_input},
      {.kind = OpKind::RESCALE, .name = "RESCALE", .tensor_inputs = {"input"},
       .attributes = attribute_index<RescaleAttr>(),
       .spirv_operands = {"scale32", "rounding_mode", "per_channel", "input_unsigned", "output_unsigned", "input",
                          "multiplier", "shift", "input_zp", "output_zp"},
       .infer_shapes = infer_rescale, .check = check_rescale},
  };
}

}  // namespace vkrt::vgf
