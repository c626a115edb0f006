// RESCALE (tosa.md §5): requantize integers with a per-tensor or per-channel multiplier/shift.
#include "arith/fixed_point.h"
#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "RESCALE";

int bits_of(DType t) { return t == DType::Int48 ? 48 : int(dtype_size(t)) * 8; }

// Zero-point rule (tosa.md §5): 0 unless the type is int8 (signed, in range), uint8 (0..255),
// or uint16 with zp 0 or 32768. `zp` is taken as stored in a tensor of that type, so a uint8 zp
// may arrive sign-extended (-128..-1) or as 128..255; both name the same byte.
Status check_rescale_zp(const char* what, DType t, bool is_unsigned, int64_t zp) {
  if (t == DType::Int8 && !is_unsigned) {
    if (zp < INT8_MIN || zp > INT8_MAX)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " ", zp, " outside the int8 range");
  } else if (t == DType::Int8 && is_unsigned) {
    if (zp < INT8_MIN || zp > UINT8_MAX)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " ", zp, " outside the uint8 range");
  } else if (t == DType::Int16 && is_unsigned) {
    if (zp != 0 && zp != 32768 && zp != -32768)
      return make_error(Error::InvalidArgument, kOp, ": ", what, " must be 0 or 32768 for uint16, got ", zp);
  } else if (zp != 0) {
    return make_error(Error::InvalidArgument, kOp, ": ", what, " must be 0 for ",
                      is_unsigned ? "unsigned " : "", dtype_name(t), ", got ", zp);
  }
  return Status::ok();
}

// The zero point's value as TOSA reads it: zero- or sign-extended from the type's width.
int64_t extend_zp(DType t, bool is_unsigned, int64_t zp) {
  if (!is_unsigned) return zp;
  const int bits = bits_of(t);
  return int64_t(uint64_t(zp) & ((uint64_t(1) << bits) - 1));
}

template <typename TIn>
int64_t load(const TIn* p, int64_t i, bool is_unsigned) {
  if (is_unsigned) return int64_t(std::make_unsigned_t<TIn>(p[i]));
  return int64_t(p[i]);
}

template <typename TIn, typename TOut>
void rescale_impl(const TensorRef& input, const RescaleAttrs& a, const TensorRef& output) {
  const TIn* in = input.as<const TIn>();
  TOut* out = output.as<TOut>();
  const int64_t total = input.num_elements();
  const int64_t channels = a.per_channel ? input.dim(input.rank() - 1) : 1;
  const int64_t in_zp = extend_zp(input.dtype, a.input_unsigned, a.input_zp);
  const int64_t out_zp = extend_zp(output.dtype, a.output_unsigned, a.output_zp);
  const int out_bits = bits_of(output.dtype);
  const int64_t lo = a.output_unsigned ? 0 : -(int64_t(1) << (out_bits - 1));
  const int64_t hi = a.output_unsigned ? (int64_t(1) << out_bits) - 1 : (int64_t(1) << (out_bits - 1)) - 1;
  // Arm's emulation layer computes INEXACT_ROUND as SINGLE_ROUND (tosa.md §5); so do we.
  const bool double_round = a.rounding_mode == RoundingMode::DoubleRound;
  for (int64_t i = 0; i < total; ++i) {
    const int64_t c = channels == 1 ? 0 : i % channels;
    const int64_t v = load(in, i, a.input_unsigned) - in_zp;
    int64_t scaled;
    if (a.scale32) {
      // apply_scale_32 takes an i32 value; TOSA REQUIREs that v fits (true for 8/16-bit inputs
      // and zero-point-free i32). A value outside is wrapped, as 32-bit device arithmetic would.
      scaled = arith::apply_scale_32(wrap32(v), a.multiplier[size_t(c)], int(a.shift[size_t(c)]), double_round);
    } else {
      scaled = arith::apply_scale_16(v, int16_t(a.multiplier[size_t(c)]), int(a.shift[size_t(c)]));
    }
    const int64_t r = scaled + out_zp;
    out[i] = TOut(r < lo ? lo : (r > hi ? hi : r));
  }
}

template <typename TIn>
void rescale_dispatch_out(const TensorRef& input, const RescaleAttrs& a, const TensorRef& output) {
  switch (output.dtype) {
    case DType::Int8: rescale_impl<TIn, int8_t>(input, a, output); break;
    case DType::Int16: rescale_impl<TIn, int16_t>(input, a, output); break;
    default: rescale_impl<TIn, int32_t>(input, a, output); break;
  }
}

}  // namespace

Status check_rescale(const TensorRef& input, const RescaleAttrs& a, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  VKRT_RETURN_IF_ERROR(expect_same_shape(kOp, "output", output, input));
  if (!is_int(input.dtype))
    return make_error(Error::NotSupported, kOp, ": input dtype ", dtype_name(input.dtype),
                      " not supported (int8, int16, int32, int48)");
  if (output.dtype != DType::Int8 && output.dtype != DType::Int16 && output.dtype != DType::Int32)
    return make_error(Error::NotSupported, kOp, ": output dtype ", dtype_name(output.dtype),
                      " not supported (int8, int16, int32)");
  if (a.rounding_mode != RoundingMode::SingleRound && a.rounding_mode != RoundingMode::InexactRound &&
      a.rounding_mode != RoundingMode::DoubleRound)
    return make_error(Error::InvalidArgument, kOp, ": invalid rounding_mode ", uint32_t(a.rounding_mode));
  // ERROR_IF rules of tosa.md §5.
  if (!a.scale32 && a.rounding_mode == RoundingMode::DoubleRound)
    return make_error(Error::InvalidArgument, kOp, ": DOUBLE_ROUND requires scale32");
  if (a.scale32 && input.dtype == DType::Int48)
    return make_error(Error::InvalidArgument, kOp, ": scale32 is not allowed with an int48 input");
  if (a.input_unsigned && a.output_unsigned)
    return make_error(Error::InvalidArgument, kOp, ": input_unsigned and output_unsigned both set");
  if (a.input_unsigned && (input.dtype == DType::Int32 || input.dtype == DType::Int48))
    return make_error(Error::InvalidArgument, kOp, ": input_unsigned with a ", dtype_name(input.dtype), " input");
  if (a.output_unsigned && output.dtype == DType::Int32)
    return make_error(Error::InvalidArgument, kOp, ": output_unsigned with an int32 output");
  VKRT_RETURN_IF_ERROR(check_rescale_zp("input_zp", input.dtype, a.input_unsigned, a.input_zp));
  VKRT_RETURN_IF_ERROR(check_rescale_zp("output_zp", output.dtype, a.output_unsigned, a.output_zp));
  int64_t channels = 1;
  if (a.per_channel) {
    if (input.rank() < 1)
      return make_error(Error::InvalidArgument, kOp, ": per_channel needs an input of rank >= 1");
    channels = input.dim(input.rank() - 1);
  }
  if (int64_t(a.multiplier.size()) != channels || int64_t(a.shift.size()) != channels)
    return make_error(Error::InvalidArgument, kOp, ": expected ", channels, " multiplier and shift values",
                      a.per_channel ? " (per_channel: size of the last dim)" : "", ", got ",
                      a.multiplier.size(), " and ", a.shift.size());
  for (size_t c = 0; c < a.multiplier.size(); ++c) {
    const int32_t m = a.multiplier[c];
    if (m < 0 || (!a.scale32 && m > INT16_MAX))
      return make_error(Error::InvalidArgument, kOp, ": multiplier[", c, "] = ", m, " out of range for ",
                        a.scale32 ? "scale32" : "scale16");
    if (a.shift[c] < 2 || a.shift[c] > 62)
      return make_error(Error::InvalidArgument, kOp, ": shift[", c, "] = ", a.shift[c], " outside [2, 62]");
  }
  return Status::ok();
}

Status rescale(const TensorRef& input, const RescaleAttrs& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_rescale(input, attrs, output));
  switch (input.dtype) {
    case DType::Int8: rescale_dispatch_out<int8_t>(input, attrs, output); break;
    case DType::Int16: rescale_dispatch_out<int16_t>(input, attrs, output); break;
    case DType::Int32: rescale_dispatch_out<int32_t>(input, attrs, output); break;
    default: rescale_dispatch_out<int64_t>(input, attrs, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
