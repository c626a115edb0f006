// The binary elementwise family: one dtype dispatch and one strided broadcast walk shared by
// div (rounding modes), floor_divide, fmod, remainder, pow, atan2, maximum, minimum, the
// bitwise and logical ops (op_binary_math.cpp, op_binary_bitwise.cpp).
//
// A member op is a functor with `template <typename C> R operator()(C x, C y, OpState&)`
// (R is C, or bool for the logical ops) plus a Rule: how the common dtype, the compute dtype
// and the accepted out dtypes follow from the operands (ExecuTorch's portable kernels,
// kernels/portable/cpu/op_*.cpp). A Scalar operand is read through a 0-dim tensor over a
// local (no heap), so the Tensor and Scalar overloads share the walk.
#pragma once

#include <string>

#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable::binary {

// How an op's dtypes are chosen (common = promote_types of the operands, or
// promote_with_scalar for a Scalar operand).
enum class Rule {
  Real,          // common not bool, castable to out; compute in common (div modes, floor_divide, remainder)
  FloatCompute,  // common not bool, castable to out; compute in float (float/half/bf16) or double (fmod, pow)
  TrueDiv,       // floating result: common is the floating operand's dtype (both: promoted), else float32;
                 // any floating out (atan2, div without rounding mode)
  Castable,      // common castable to out; compute in common, bool included (add, mul, maximum, ...)
  Bitwise,       // common integral or bool, castable to out
  Logical,       // compute in bool; any input and out dtype
  Compare,       // compute in common (float32 when floating and the operand dtypes differ); any out dtype
};

// Per-call state a functor may set: integer division by zero is an error (as upstream).
struct OpState {
  bool int_common = false;  // the common dtype is integral (FloatCompute ops compute ints in double)
  bool div_by_zero = false;
};

// ExecuTorch's promote_type_with_scalar: a Scalar promotes a tensor only across categories
// (floating Scalar with a non-floating tensor -> float32; Int Scalar with bool -> int64).
inline ScalarType promote_with_scalar(ScalarType t, const Scalar& s) {
  if (s.is_floating()) return is_float_dtype(t) ? t : ScalarType::Float;
  if (s.kind == Scalar::Kind::Int) return t == ScalarType::Bool ? ScalarType::Long : t;
  return t;
}

// A 0-dim tensor over a Scalar's value: int64 for Int, float64 for Double, bool for Bool.
struct ScalarBox {
  union {
    int64_t i;
    double d;
    uint8_t b;
  } value{};
  Result<Tensor> tensor(const Scalar& s) {
    ScalarType dtype = ScalarType::Long;
    switch (s.kind) {
      case Scalar::Kind::Int: value.i = s.i; break;
      case Scalar::Kind::Double: value.d = s.d; dtype = ScalarType::Double; break;
      case Scalar::Kind::Bool: value.b = s.b ? 1 : 0; dtype = ScalarType::Bool; break;
    }
    return Tensor::make(dtype, std::span<const int32_t>(), &value);
  }
};

inline std::string dtype_error(ScalarType common, const Tensor& out) {
  return std::string("result dtype ") + scalar_type_name(common) + " cannot be written to out dtype " +
         scalar_type_name(out.dtype());
}

// The compute dtype of `rule` for the common dtype, or an error naming out (argument oi) or
// the op. `common` is the promoted dtype (for TrueDiv: of the operands x and y).
inline Status resolve(const KernelArgs& a, Rule rule, ScalarType x, ScalarType y, ScalarType common,
                      const Tensor& out, size_t oi, ScalarType& compute) {
  switch (rule) {
    case Rule::Real:
    case Rule::FloatCompute:
      if (common == ScalarType::Bool) {
        return a.op_error(Error::InvalidArgument, "not supported for bool operands (result dtype bool)");
      }
      if (!can_cast(common, out.dtype())) return a.error(oi, "out", dtype_error(common, out));
      compute = common;
      if (rule == Rule::FloatCompute) {
        compute = (common == ScalarType::Half || common == ScalarType::BFloat16 || common == ScalarType::Float)
                      ? ScalarType::Float
                      : ScalarType::Double;
      }
      return Status::ok();
    case Rule::TrueDiv:
      if (is_float_dtype(x) && is_float_dtype(y)) compute = promote_types(x, y);
      else if (is_float_dtype(x)) compute = x;
      else if (is_float_dtype(y)) compute = y;
      else compute = ScalarType::Float;
      if (!is_float_dtype(out.dtype())) {
        return a.error(oi, "out", std::string("result dtype ") + scalar_type_name(compute) +
                                      " needs a floating out dtype, got " + scalar_type_name(out.dtype()));
      }
      return Status::ok();
    case Rule::Castable:
      if (!can_cast(common, out.dtype())) return a.error(oi, "out", dtype_error(common, out));
      compute = common;
      return Status::ok();
    case Rule::Bitwise:
      if (!is_int_dtype(common) && common != ScalarType::Bool) {
        return a.op_error(Error::InvalidArgument, std::string("expected integral or bool operands, result dtype ") +
                                                      scalar_type_name(common));
      }
      if (!can_cast(common, out.dtype())) return a.error(oi, "out", dtype_error(common, out));
      compute = common;
      return Status::ok();
    case Rule::Logical:
      compute = ScalarType::Bool;
      return Status::ok();
    case Rule::Compare:
      compute = (is_float_dtype(common) && x != y) ? ScalarType::Float : common;
      return Status::ok();
  }
  return a.op_error(Error::Internal, "unknown rule");
}

// out = fn(x, y) over the broadcast `shape`, every element loaded as the compute type C of
// `compute` and the result stored converted to out's dtype. Operands and out of C's own dtype
// with out's shape and dim order (the common case) skip the conversions and the walk.
template <typename Fn>
Status apply(ScalarType compute, const Tensor& x, const Tensor& y, Tensor& out, const Shape& shape, const Fn& fn,
             OpState& st) {
  return with_compute_type(compute, [&]<typename C>() -> Status {
    using R = decltype(fn(C{}, C{}, st));
    constexpr ScalarType kC = CppTypeToScalar<C>::value;
    if constexpr (std::is_same_v<R, C> && kC != ScalarType::Bool) {
      if (x.dtype() == kC && y.dtype() == kC && out.dtype() == kC && x.same_layout(out) && y.same_layout(out) &&
          out.is_default_dim_order()) {
        const C* xs = x.data_as<const C>();
        const C* ys = y.data_as<const C>();
        C* zs = out.data_as<C>();
        for (int64_t n = 0, numel = out.numel(); n < numel; ++n) zs[n] = fn(xs[n], ys[n], st);
        return Status::ok();
      }
    }
    StridedWalker<3> walk(shape.view(), {strides_of(out), broadcast_strides(x, shape.view()),
                                         broadcast_strides(y, shape.view())});
    for (int64_t n = 0, numel = shape.numel(); n < numel; ++n, walk.next()) {
      const C xv = load_elem<C>(x.data(), x.dtype(), walk.offset(1));
      const C yv = load_elem<C>(y.data(), y.dtype(), walk.offset(2));
      store_elem<R>(out.data(), out.dtype(), walk.offset(0), fn(xv, yv, st));
    }
    return Status::ok();
  });
}

// Broadcasts x (argument xi) with y (argument yi) and makes out (argument oi) that shape.
inline Status broadcast_out(const KernelArgs& a, const Tensor& x, std::string_view xname, const Tensor& y, size_t yi,
                            std::string_view yname, Tensor& out, size_t oi, Shape& shape) {
  if (!broadcast_shapes(x.sizes(), y.sizes(), shape)) {
    return a.error(yi, yname, "shape " + shape_string(y.sizes()) + " does not broadcast with " +
                                  std::string(xname) + " shape " + shape_string(x.sizes()));
  }
  return resize_output(a, oi, "out", out, shape.view());
}

// The shared body: checks dtypes, broadcasts, runs fn. y is argument yi; a Scalar y arrives as
// a 0-dim tensor (`y_is_scalar`) with `common` already computed, and its dtype does not take
// part in the rules.
template <typename Fn>
Status run(const KernelArgs& a, Rule rule, const Tensor& x, const Tensor& y, size_t yi, std::string_view yname,
           ScalarType common, Tensor& out, size_t oi, const Fn& fn, bool y_is_scalar = false) {
  ScalarType compute = common;
  VKRT_RETURN_IF_ERROR(resolve(a, rule, x.dtype(), y_is_scalar ? x.dtype() : y.dtype(), common, out, oi, compute));
  Shape shape;
  VKRT_RETURN_IF_ERROR(broadcast_out(a, x, "self", y, yi, yname, out, oi, shape));
  OpState st;
  st.int_common = is_int_dtype(common);
  VKRT_RETURN_IF_ERROR(apply(compute, x, y, out, shape, fn, st));
  if (st.div_by_zero) return a.error(yi, yname, "integer division by zero");
  return Status::ok();
}

// <op>(Tensor self, Tensor other, *, Tensor(a!) out) -> 4 args.
template <typename Fn>
Status tensor_kernel(const char* name, std::span<EValue* const> args, Rule rule, const Fn& fn) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  return run(a, rule, *self, *other, 1, "other", promote_types(self->dtype(), other->dtype()), *out, 2, fn);
}

// True when `s` is zero and the common dtype integral: the Scalar overloads of the dividing
// ops refuse it up front (upstream's check).
inline bool int_zero_scalar(ScalarType common, const Scalar& s) {
  return (is_int_dtype(common) || common == ScalarType::Bool) && s.to_double() == 0.0;
}

// <op>(Tensor self, Scalar other, *, Tensor(a!) out) -> 4 args.
template <typename Fn>
Status scalar_kernel(const char* name, std::span<EValue* const> args, Rule rule, const Fn& fn,
                     bool zero_is_error = false) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  const ScalarType common = promote_with_scalar(self->dtype(), other);
  if (zero_is_error && int_zero_scalar(common, other)) return a.error(1, "other", "integer division by zero");
  ScalarBox box;
  VKRT_ASSIGN_OR_RETURN(Tensor scalar, box.tensor(other));
  return run(a, rule, *self, scalar, 1, "other", common, *out, 2, fn, true);
}

}  // namespace vkrt::portable::binary
