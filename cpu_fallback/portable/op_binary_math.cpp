// Dividing and other arithmetic binary ops with broadcasting (binary_util.h):
//   div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)        -> 5 args
//   div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out) -> 5 args
//   floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)                        -> 4 args
//   fmod.Tensor_out / remainder.Tensor_out / pow.Tensor_Tensor_out(self, other, *, out)   -> 4 args
//   fmod.Scalar_out / remainder.Scalar_out / pow.Tensor_Scalar_out(self, Scalar, *, out) -> 4 args
//   pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)                       -> 4 args
//   atan2.out, maximum.out, minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)     -> 4 args
//   rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)          -> 5 args
// (each + the trailing return slot). Semantics follow ExecuTorch's portable kernels, which
// differ from PyTorch in places (see the comments at each functor): integer remainder keeps
// the dividend's sign (C %), floating floor division by zero gives +-inf by the dividend's
// sign. Integer division by zero is an InvalidArgument error; INT_MIN / -1 wraps.
#include <cmath>
#include <limits>

#include "binary_util.h"

namespace vkrt::portable {
namespace {

using binary::OpState;
using binary::Rule;

template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

// Upstream's utils::floor_divide: Python's floor division. Integers: the truncated quotient
// moved down when the signs differ and the division is inexact. Floats: (a - fmod(a, b)) / b
// adjusted by one; b == 0 gives +-inf by the sign bit of a (PyTorch gives a / b, so NaN for
// 0 / 0 and NaN / 0: an upstream difference).
template <typename C>
C floor_div(C a, C b, OpState& st) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;  // not reached: bool operands are refused
  } else if constexpr (kIsInt<C>) {
    if (b == 0) {
      st.div_by_zero = true;
      return 0;
    }
    if constexpr (std::is_signed_v<C>) {
      if (b == -1) return wrapping_sub(C(0), a);  // INT_MIN / -1 wraps to INT_MIN
    }
    const C quot = static_cast<C>(a / b);
    if ((a < 0) == (b < 0)) return quot;
    return static_cast<C>(a % b) != 0 ? static_cast<C>(quot - 1) : quot;
  } else {
    if (b == 0) return std::signbit(a) ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    const C mod = std::fmod(a, b);
    const C div = (a - mod) / b;
    if (mod != 0 && std::signbit(b) != std::signbit(mod)) return div - 1;
    return div;
  }
}

// trunc(a / b); integers truncate by C++ division.
template <typename C>
C trunc_div(C a, C b, OpState& st) {
  if constexpr (std::is_same_v<C, bool>) {
    return a;
  } else if constexpr (kIsInt<C>) {
    if (b == 0) {
      st.div_by_zero = true;
      return 0;
    }
    if constexpr (std::is_signed_v<C>) {
      if (b == -1) return wrapping_sub(C(0), a);
    }
    return static_cast<C>(a / b);
  } else {
    return std::trunc(a / b);
  }
}

struct FloorDivFn {
  template <typename C>
  C operator()(C a, C b, OpState& st) const { return floor_div(a, b, st); }
};
struct TruncDivFn {
  template <typename C>
  C operator()(C a, C b, OpState& st) const { return trunc_div(a, b, st); }
};
struct TrueDivFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_floating_point_v<C>) return a / b;
    return C{};  // not reached: true division computes in a floating type
  }
};

// A double rounded to float without the undefined out-of-range conversion.
inline float to_float(double v) {
  if (v > double(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
  if (v < -double(std::numeric_limits<float>::max())) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

// Upstream's remainder_override. Integers: C's %, whose result has the dividend's sign
// (PyTorch's has the divisor's sign: remainder(-7, 3) is 2 there, -1 here). Floats: fmod
// moved by b when exactly one of a and b is negative, held in a float even for double
// operands (upstream's precision; PyTorch keeps double).
struct RemainderFn {
  template <typename C>
  C operator()(C a, C b, OpState& st) const {
    if constexpr (std::is_same_v<C, bool>) {
      return a;
    } else if constexpr (kIsInt<C>) {
      if (b == 0) {
        st.div_by_zero = true;
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;  // INT_MIN % -1 overflows in C++
      }
      return static_cast<C>(a % b);
    } else {
      float rem = to_float(double(std::fmod(a, b)));
      if (((a < 0) != (b < 0)) && rem != 0) rem = to_float(double(rem) + double(b));
      return static_cast<C>(rem);
    }
  }
};

// fmod and pow compute in float or double (integers in double, as upstream). fmod of an
// integral common dtype by zero is an error (upstream's intent and PyTorch's
// ZeroDivisionError; upstream's tensor overload tests the floating compute value instead
// and so never fires).
struct FmodFn {
  template <typename C>
  C operator()(C a, C b, OpState& st) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (st.int_common && b == 0) {
        st.div_by_zero = true;
        return 0;
      }
      return std::fmod(a, b);
    }
    return C{};
  }
};
struct PowFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_floating_point_v<C>) return std::pow(a, b);
    return C{};
  }
};
struct Atan2Fn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_floating_point_v<C>) return std::atan2(a, b);
    return C{};
  }
};
// NaN propagates (either operand); bool max/min are or/and.
struct MaxFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};
struct MinFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

// other - alpha * self (rsub.Scalar_out's operands arrive as x = self, y = other).
struct RsubFn {
  Scalar alpha;
  template <typename C>
  C operator()(C x, C y, OpState&) const {
    if constexpr (std::is_same_v<C, bool>) {
      return y;  // not reached: bool results are refused
    } else {
      return wrapping_sub(y, wrapping_mul(alpha.as<C>(), x));
    }
  }
};

// The optional rounding mode: nullopt for None, else "trunc" or "floor".
Status rounding_mode_arg(const KernelArgs& a, size_t i, std::optional<std::string_view>& mode) {
  if (a.is_none(i)) return Status::ok();
  if (!a.at(i).is_string()) {
    return a.error(i, "rounding_mode", std::string("expected String or None, got ") + tag_name(a.at(i).tag()));
  }
  const std::string_view m = a.at(i).to_string();
  if (m != "trunc" && m != "floor") {
    return a.error(i, "rounding_mode", "expected \"trunc\", \"floor\" or None, got \"" + std::string(m) + "\"");
  }
  mode = m;
  return Status::ok();
}

Status div_out_mode(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::div.out_mode", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 1, "other"));
  std::optional<std::string_view> mode;
  VKRT_RETURN_IF_ERROR(rounding_mode_arg(a, 2, mode));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  const ScalarType common = promote_types(self->dtype(), other->dtype());
  if (!mode) return binary::run(a, Rule::TrueDiv, *self, *other, 1, "other", common, *out, 3, TrueDivFn{});
  if (*mode == "trunc") return binary::run(a, Rule::Real, *self, *other, 1, "other", common, *out, 3, TruncDivFn{});
  return binary::run(a, Rule::Real, *self, *other, 1, "other", common, *out, 3, FloorDivFn{});
}

Status div_scalar_mode_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::div.Scalar_mode_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  std::optional<std::string_view> mode;
  VKRT_RETURN_IF_ERROR(rounding_mode_arg(a, 2, mode));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  binary::ScalarBox box;
  VKRT_ASSIGN_OR_RETURN(Tensor scalar, box.tensor(other));
  if (!mode) {
    // div.Scalar_out: the result dtype is self's when floating, else float32, and out must
    // have exactly that dtype (upstream).
    const ScalarType common = is_float_dtype(self->dtype()) ? self->dtype() : ScalarType::Float;
    if (out->dtype() != common) {
      return a.error(3, "out", std::string("expected dtype ") + scalar_type_name(common) + ", got " +
                                   scalar_type_name(out->dtype()));
    }
    Shape shape;
    VKRT_RETURN_IF_ERROR(binary::broadcast_out(a, *self, "self", scalar, 1, "other", *out, 3, shape));
    OpState st;
    return binary::apply(common, *self, scalar, *out, shape, TrueDivFn{}, st);
  }
  const ScalarType common = binary::promote_with_scalar(self->dtype(), other);
  if (common != ScalarType::Bool && binary::int_zero_scalar(common, other)) {
    return a.error(1, "other", "integer division by zero");
  }
  if (*mode == "trunc") {
    return binary::run(a, Rule::Real, *self, scalar, 1, "other", common, *out, 3, TruncDivFn{}, true);
  }
  return binary::run(a, Rule::Real, *self, scalar, 1, "other", common, *out, 3, FloorDivFn{}, true);
}

// pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
Status pow_scalar_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::pow.Scalar_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Scalar self, scalar_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * exponent, tensor_arg(a, 1, "exponent"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  binary::ScalarBox box;
  VKRT_ASSIGN_OR_RETURN(Tensor base, box.tensor(self));
  const ScalarType common = binary::promote_with_scalar(exponent->dtype(), self);
  return binary::run(a, Rule::FloatCompute, base, *exponent, 1, "exponent", common, *out, 2, PowFn{});
}

// rsub.Scalar_out: out = other - alpha * self, in promote_with_scalar(self, other), which out
// must equal; alpha must not be bool and must be castable to it (upstream). Integers wrap.
Status rsub_scalar_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::rsub.Scalar_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Scalar alpha, scalar_arg(a, 2, "alpha"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  const ScalarType common = binary::promote_with_scalar(self->dtype(), other);
  if (alpha.is_bool()) return a.error(2, "alpha", "bool alpha is not supported");
  if (common == ScalarType::Bool) {
    return a.op_error(Error::InvalidArgument, "not supported for a bool self with a bool other");
  }
  if (alpha.is_floating() && !is_float_dtype(common)) {
    return a.error(2, "alpha", std::string("floating alpha with result dtype ") + scalar_type_name(common));
  }
  if (out->dtype() != common) {
    return a.error(3, "out", std::string("expected dtype ") + scalar_type_name(common) + ", got " +
                                 scalar_type_name(out->dtype()));
  }
  binary::ScalarBox box;
  VKRT_ASSIGN_OR_RETURN(Tensor scalar, box.tensor(other));
  Shape shape;
  VKRT_RETURN_IF_ERROR(binary::broadcast_out(a, *self, "self", scalar, 1, "other", *out, 3, shape));
  OpState st;
  return binary::apply(common, *self, scalar, *out, shape, RsubFn{alpha}, st);
}

Status floor_divide_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::floor_divide.out", args, Rule::Real, FloorDivFn{});
}
Status fmod_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::fmod.Tensor_out", args, Rule::FloatCompute, FmodFn{});
}
Status fmod_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary::scalar_kernel("aten::fmod.Scalar_out", args, Rule::FloatCompute, FmodFn{}, true);
}
Status remainder_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::remainder.Tensor_out", args, Rule::Real, RemainderFn{});
}
Status remainder_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary::scalar_kernel("aten::remainder.Scalar_out", args, Rule::Real, RemainderFn{}, true);
}
Status pow_tensor_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::pow.Tensor_Tensor_out", args, Rule::FloatCompute, PowFn{});
}
Status pow_tensor_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary::scalar_kernel("aten::pow.Tensor_Scalar_out", args, Rule::FloatCompute, PowFn{});
}
Status atan2_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::atan2.out", args, Rule::TrueDiv, Atan2Fn{});
}
Status maximum_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::maximum.out", args, Rule::Castable, MaxFn{});
}
Status minimum_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::minimum.out", args, Rule::Castable, MinFn{});
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::div.out_mode", div_out_mode);
VKRT_REGISTER_KERNEL("aten::div.Scalar_mode_out", div_scalar_mode_out);
VKRT_REGISTER_KERNEL("aten::floor_divide.out", floor_divide_out);
VKRT_REGISTER_KERNEL("aten::fmod.Tensor_out", fmod_tensor_out);
VKRT_REGISTER_KERNEL("aten::fmod.Scalar_out", fmod_scalar_out);
VKRT_REGISTER_KERNEL("aten::remainder.Tensor_out", remainder_tensor_out);
VKRT_REGISTER_KERNEL("aten::remainder.Scalar_out", remainder_scalar_out);
VKRT_REGISTER_KERNEL("aten::pow.Scalar_out", pow_scalar_out);
VKRT_REGISTER_KERNEL("aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out);
VKRT_REGISTER_KERNEL("aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out);
VKRT_REGISTER_KERNEL("aten::atan2.out", atan2_out);
VKRT_REGISTER_KERNEL("aten::maximum.out", maximum_out);
VKRT_REGISTER_KERNEL("aten::minimum.out", minimum_out);
VKRT_REGISTER_KERNEL("aten::rsub.Scalar_out", rsub_scalar_out);

}  // namespace vkrt::portable
