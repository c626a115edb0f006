// Elementwise unary ops (tosa.md §9, §12) and NEGATE with zero points.
#include <bit>
#include <cmath>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

bool supports(UnaryOp op, DType t) {
  const bool small_int = t == DType::Int8 || t == DType::Int16 || t == DType::Int32;
  switch (op) {
    case UnaryOp::Abs: return small_int || t == DType::Fp32;
    case UnaryOp::BitwiseNot: return small_int;
    case UnaryOp::Clz: return t == DType::Int32;
    case UnaryOp::LogicalNot: return t == DType::Bool;
    default: return t == DType::Fp32;
  }
}

float unary_float(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Ceil: return std::ceil(x);
    case UnaryOp::Cos: return std::cos(x);
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Floor: return std::floor(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Reciprocal: return 1.0f / x;
    case UnaryOp::Rsqrt: return 1.0f / std::sqrt(x);
    case UnaryOp::Sin: return std::sin(x);
    case UnaryOp::Erf: return std::erf(x);
    // 1 / (1 + e^-x): saturates cleanly to 0 and 1 for large |x| (exp overflows to inf -> 0).
    case UnaryOp::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case UnaryOp::Tanh: return std::tanh(x);
    default: return x;
  }
}

template <typename T>
void unary_int(UnaryOp op, const T* in, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T x = in[i];
    switch (op) {
      // TOSA REQUIREs x != INT_MIN for ABS; we saturate to INT_MAX.
      case UnaryOp::Abs:
        out[i] = x == std::numeric_limits<T>::min() ? std::numeric_limits<T>::max() : T(x < 0 ? -x : x);
        break;
      case UnaryOp::BitwiseNot: out[i] = T(~x); break;
      case UnaryOp::Clz: out[i] = T(std::countl_zero(uint32_t(x))); break;  // clz(0) = 32
      default: break;
    }
  }
}

}  // namespace

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs: return "ABS";
    case UnaryOp::BitwiseNot: return "BITWISE_NOT";
    case UnaryOp::Ceil: return "CEIL";
    case UnaryOp::Clz: return "CLZ";
    case UnaryOp::Cos: return "COS";
    case UnaryOp::Exp: return "EXP";
    case UnaryOp::Floor: return "FLOOR";
    case UnaryOp::Log: return "LOG";
    case UnaryOp::LogicalNot: return "LOGICAL_NOT";
    case UnaryOp::Reciprocal: return "RECIPROCAL";
    case UnaryOp::Rsqrt: return "RSQRT";
    case UnaryOp::Sin: return "SIN";
    case UnaryOp::Erf: return "ERF";
    case UnaryOp::Sigmoid: return "SIGMOID";
    case UnaryOp::Tanh: return "TANH";
  }
  return "UNKNOWN_UNARY_OP";
}

Status check_elementwise_unary(UnaryOp op, const TensorRef& input, const TensorRef& output) {
  const char* name = unary_op_name(op);
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "output", output));
  if (!supports(op, input.dtype))
    return make_error(Error::NotSupported, name, ": dtype ", dtype_name(input.dtype), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "output", output, input.dtype));
  return expect_same_shape(name, "output", output, input);
}

Status elementwise_unary(UnaryOp op, const TensorRef& input, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_elementwise_unary(op, input, output));
  const int64_t n = input.num_elements();
  switch (input.dtype) {
    case DType::Bool: {
      const uint8_t* in = input.as<const uint8_t>();
      uint8_t* out = output.as<uint8_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] != 0 ? 0 : 1;
      break;
    }
    case DType::Int8: unary_int(op, input.as<const int8_t>(), output.as<int8_t>(), n); break;
    case DType::Int16: unary_int(op, input.as<const int16_t>(), output.as<int16_t>(), n); break;
    case DType::Int32: unary_int(op, input.as<const int32_t>(), output.as<int32_t>(), n); break;
    default: {
      const float* in = input.as<const float>();
      float* out = output.as<float>();
      for (int64_t i = 0; i < n; ++i) out[i] = unary_float(op, in[i]);
      break;
    }
  }
  return Status::ok();
}

// ------------------------------------------------------------------------------------------
// NEGATE (tosa.md §9): int8 r = -(in - in_zp) + out_zp, clamped; int16/int32 r = -in clamped.

Status check_negate(const TensorRef& input, const NegateAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "NEGATE";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  const DType t = input.dtype;
  if (t != DType::Int8 && t != DType::Int16 && t != DType::Int32 && t != DType::Fp32)
    return make_error(Error::NotSupported, op, ": dtype ", dtype_name(t), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, t));
  VKRT_RETURN_IF_ERROR(expect_same_shape(op, "output", output, input));
  if (t == DType::Int8) {
    if (attrs.input_zp < INT8_MIN || attrs.input_zp > INT8_MAX || attrs.output_zp < INT8_MIN ||
        attrs.output_zp > INT8_MAX)
      return make_error(Error::InvalidArgument, op, ": zero points ", attrs.input_zp, ", ", attrs.output_zp,
                        " outside the int8 range");
  } else if (attrs.input_zp != 0 || attrs.output_zp != 0) {
    return make_error(Error::InvalidArgument, op, ": zero points must be 0 for ", dtype_name(t));
  }
  return Status::ok();
}

Status negate(const TensorRef& input, const NegateAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_negate(input, attrs, output));
  const int64_t n = input.num_elements();
  auto run_int = [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.as<const T>();
    T* out = output.as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = -(int64_t(in[i]) - attrs.input_zp) + attrs.output_zp;
      out[i] = T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  };
  switch (input.dtype) {
    case DType::Int8: run_int(int8_t{}); break;
    case DType::Int16: run_int(int16_t{}); break;
    case DType::Int32: run_int(int32_t{}); break;
    default: {
      const float* in = input.as<const float>();
      float* out = output.as<float>();
      for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
      break;
    }
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
