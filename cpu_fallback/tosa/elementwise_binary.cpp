// Elementwise binary ops with TOSA broadcasting (tosa.md §9, §12): ADD, SUB, MAXIMUM, MINIMUM,
// POW, INTDIV, BITWISE_*, LOGICAL_*_SHIFT, ARITHMETIC_RIGHT_SHIFT, LOGICAL_AND/OR/XOR.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

bool is_shift(BinaryOp op) {
  return op == BinaryOp::LogicalLeftShift || op == BinaryOp::LogicalRightShift ||
         op == BinaryOp::ArithmeticRightShift;
}

// Which input dtypes each op accepts (see the BinaryOp comments in tosa_kernels.h).
bool supports(BinaryOp op, DType t) {
  const bool small_int = t == DType::Int8 || t == DType::Int16 || t == DType::Int32;
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: return t == DType::Int32 || t == DType::Fp32;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: return small_int || t == DType::Fp32;
    case BinaryOp::Pow: return t == DType::Fp32;
    case BinaryOp::IntDiv: return t == DType::Int32;
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor:
    case BinaryOp::LogicalLeftShift:
    case BinaryOp::LogicalRightShift:
    case BinaryOp::ArithmeticRightShift: return small_int;
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor: return t == DType::Bool;
  }
  return false;
}

// Float MAXIMUM / MINIMUM with nan_mode (tosa.md §12): PROPAGATE -> NaN if either is NaN;
// IGNORE -> the other operand (NaN only if both are).
float float_extremum(float a, float b, bool want_max, NanMode mode) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (mode == NanMode::Ignore) return na ? b : a;
    return std::numeric_limits<float>::quiet_NaN();
  }
  return want_max ? (a > b ? a : b) : (a < b ? a : b);
}

// ADD, SUB, MAXIMUM and MINIMUM of two integer tensors of the output's shape (a residual add's
// int32 sums): one flat loop the compiler vectorises, in place of the broadcast walk's per-element
// index arithmetic, with the same values (the sum wraps, as below).
template <typename T, BinaryOp kOp>
VKRT_VECTOR_CLONES_TEMPLATE void same_shape_run(const T* __restrict a, const T* __restrict b, T* __restrict o,
                                                int64_t count) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (kOp == BinaryOp::Add) o[i] = T(U(a[i]) + U(b[i]));
    if constexpr (kOp == BinaryOp::Sub) o[i] = T(U(a[i]) - U(b[i]));
    if constexpr (kOp == BinaryOp::Maximum) o[i] = a[i] > b[i] ? a[i] : b[i];
    if constexpr (kOp == BinaryOp::Minimum) o[i] = a[i] < b[i] ? a[i] : b[i];
  }
}

template <typename T, BinaryOp kOp>
void same_shape(const TensorRef& in1, const TensorRef& in2, const TensorRef& out, ParallelRunner* runner) {
  const T* a = in1.as<const T>();
  const T* b = in2.as<const T>();
  T* o = out.as<T>();
  split_elements(runner, out.num_elements(), [&](int64_t first, int64_t last) {
    same_shape_run<T, kOp>(a + first, b + first, o + first, last - first);
  });
}

// The same-shape loop for the integer ops that have one; false when the op or the shapes differ.
template <typename T>
bool try_same_shape(BinaryOp op, const TensorRef& in1, const TensorRef& in2, const TensorRef& out,
                    ParallelRunner* runner) {
  if (!std::ranges::equal(in1.shape, out.shape) || !std::ranges::equal(in2.shape, out.shape)) return false;
  switch (op) {
    case BinaryOp::Add: same_shape<T, BinaryOp::Add>(in1, in2, out, runner); return true;
    case BinaryOp::Sub: same_shape<T, BinaryOp::Sub>(in1, in2, out, runner); return true;
    case BinaryOp::Maximum: same_shape<T, BinaryOp::Maximum>(in1, in2, out, runner); return true;
    case BinaryOp::Minimum: same_shape<T, BinaryOp::Minimum>(in1, in2, out, runner); return true;
    default: return false;
  }
}

template <typename T>
Status run(BinaryOp op, const TensorRef& in1, const TensorRef& in2, const BinaryAttrs& attrs,
           const TensorRef& out) {
  const T* a = in1.as<const T>();
  const T* b = in2.as<const T>();
  T* o = out.as<T>();
  using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;
  constexpr int bits = int(sizeof(T)) * 8;
  Status error;  // first run-time REQUIRE violation (division by zero, shift out of range)
  const std::array<const TensorRef*, 2> inputs = {&in1, &in2};
  broadcast_loop(out, inputs, [&](int64_t oi, const std::array<int64_t, 2>& ii) {
    const T x = a[ii[0]], y = b[ii[1]];
    if constexpr (std::is_same_v<T, float>) {
      switch (op) {
        case BinaryOp::Add: o[oi] = x + y; break;
        case BinaryOp::Sub: o[oi] = x - y; break;
        case BinaryOp::Maximum: o[oi] = float_extremum(x, y, true, attrs.nan_mode); break;
        case BinaryOp::Minimum: o[oi] = float_extremum(x, y, false, attrs.nan_mode); break;
        case BinaryOp::Pow: o[oi] = std::pow(x, y); break;
        default: break;
      }
    } else {
      if (is_shift(op) && (y < 0 || y >= bits)) {
        if (error.is_ok())
          error = make_error(Error::InvalidArgument, binary_op_name(op), ": shift amount ", int64_t(y),
                             " outside [0, ", bits, ") at output element ", oi);
        o[oi] = 0;
        return;
      }
      switch (op) {
        // TOSA REQUIREs the i32 sum to fit; we wrap like the device's 32-bit adder.
        case BinaryOp::Add: o[oi] = T(U(x) + U(y)); break;
        case BinaryOp::Sub: o[oi] = T(U(x) - U(y)); break;
        case BinaryOp::Maximum: o[oi] = x > y ? x : y; break;
        case BinaryOp::Minimum: o[oi] = x < y ? x : y; break;
        case BinaryOp::IntDiv:
          if (y == 0 || (x == std::numeric_limits<T>::min() && y == T(-1))) {
            if (error.is_ok())
              error = make_error(Error::InvalidArgument, "INTDIV: ", int64_t(x), " / ", int64_t(y),
                                 " is undefined (output element ", oi, ")");
            o[oi] = 0;
          } else {
            o[oi] = T(x / y);  // C++ truncates toward zero, as TOSA does
          }
          break;
        case BinaryOp::BitwiseAnd: o[oi] = T(x & y); break;
        case BinaryOp::BitwiseOr: o[oi] = T(x | y); break;
        case BinaryOp::BitwiseXor: o[oi] = T(x ^ y); break;
        case BinaryOp::LogicalLeftShift: o[oi] = T(U(U(x) << y)); break;
        case BinaryOp::LogicalRightShift: o[oi] = T(U(U(x) >> y)); break;
        case BinaryOp::ArithmeticRightShift: {
          T r = T(x >> y);  // arithmetic shift (C++20)
          if (attrs.round && y > 0 && ((x >> (y - 1)) & 1)) r = T(r + 1);
          o[oi] = r;
          break;
        }
        default: break;
      }
    }
  });
  return error;
}

// Bool tensors are bytes; any nonzero byte reads as true (file data is not trusted to be 0/1).
void run_logical(BinaryOp op, const TensorRef& in1, const TensorRef& in2, const TensorRef& out) {
  const uint8_t* a = in1.as<const uint8_t>();
  const uint8_t* b = in2.as<const uint8_t>();
  uint8_t* o = out.as<uint8_t>();
  const std::array<const TensorRef*, 2> inputs = {&in1, &in2};
  broadcast_loop(out, inputs, [&](int64_t oi, const std::array<int64_t, 2>& ii) {
    const bool x = a[ii[0]] != 0, y = b[ii[1]] != 0;
    bool r = false;
    switch (op) {
      case BinaryOp::LogicalAnd: r = x && y; break;
      case BinaryOp::LogicalOr: r = x || y; break;
      case BinaryOp::LogicalXor: r = x != y; break;
      default: break;
    }
    o[oi] = r ? 1 : 0;
  });
}

}  // namespace

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "ADD";
    case BinaryOp::Sub: return "SUB";
    case BinaryOp::Maximum: return "MAXIMUM";
    case BinaryOp::Minimum: return "MINIMUM";
    case BinaryOp::Pow: return "POW";
    case BinaryOp::IntDiv: return "INTDIV";
    case BinaryOp::BitwiseAnd: return "BITWISE_AND";
    case BinaryOp::BitwiseOr: return "BITWISE_OR";
    case BinaryOp::BitwiseXor: return "BITWISE_XOR";
    case BinaryOp::LogicalLeftShift: return "LOGICAL_LEFT_SHIFT";
    case BinaryOp::LogicalRightShift: return "LOGICAL_RIGHT_SHIFT";
    case BinaryOp::ArithmeticRightShift: return "ARITHMETIC_RIGHT_SHIFT";
    case BinaryOp::LogicalAnd: return "LOGICAL_AND";
    case BinaryOp::LogicalOr: return "LOGICAL_OR";
    case BinaryOp::LogicalXor: return "LOGICAL_XOR";
  }
  return "UNKNOWN_BINARY_OP";
}

Status check_elementwise_binary(BinaryOp op, const TensorRef& input1, const TensorRef& input2,
                                const BinaryAttrs& attrs, const TensorRef& output) {
  const char* name = binary_op_name(op);
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input1", input1));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input2", input2));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "output", output));
  if (!supports(op, input1.dtype))
    return make_error(Error::NotSupported, name, ": dtype ", dtype_name(input1.dtype), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "input2", input2, input1.dtype));
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "output", output, input1.dtype));
  if ((op == BinaryOp::Maximum || op == BinaryOp::Minimum) && input1.dtype == DType::Fp32 &&
      attrs.nan_mode != NanMode::Propagate && attrs.nan_mode != NanMode::Ignore)
    return make_error(Error::InvalidArgument, name, ": invalid nan_mode ", uint32_t(attrs.nan_mode));
  return check_broadcast_output(name, input1, input2, output);
}

Status elementwise_binary(BinaryOp op, const TensorRef& input1, const TensorRef& input2,
                          const BinaryAttrs& attrs, const TensorRef& output, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_elementwise_binary(op, input1, input2, attrs, output));
  switch (input1.dtype) {
    case DType::Bool: run_logical(op, input1, input2, output); return Status::ok();
    case DType::Int8:
      if (try_same_shape<int8_t>(op, input1, input2, output, runner)) return Status::ok();
      return run<int8_t>(op, input1, input2, attrs, output);
    case DType::Int16:
      if (try_same_shape<int16_t>(op, input1, input2, output, runner)) return Status::ok();
      return run<int16_t>(op, input1, input2, attrs, output);
    case DType::Int32:
      if (try_same_shape<int32_t>(op, input1, input2, output, runner)) return Status::ok();
      return run<int32_t>(op, input1, input2, attrs, output);
    default: return run<float>(op, input1, input2, attrs, output);
  }
}

}  // namespace vkrt::tosa
