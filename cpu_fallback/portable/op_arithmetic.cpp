// aten::{add,sub,mul,div}.out and .Scalar_out: elementwise binary arithmetic with PyTorch
// broadcasting and type promotion, on the binary family's walk (binary_util.h).
//
// Schemas (native_functions.yaml):
//   add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)   -> 5 args
//   sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)   -> 5 args
//   mul.out(Tensor self, Tensor other, *, Tensor(a!) out)                   -> 4 args
//   div.out(Tensor self, Tensor other, *, Tensor(a!) out)                   -> 4 args
//   add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> 5 args
//   (sub.Scalar_out likewise; mul/div.Scalar_out(Tensor self, Scalar other, *, out) -> 4 args)
// (each + the trailing return slot, pte-format.md §9.5). The result is computed in
// promote_types(self, other) (division: the floating operand's dtype, float32 for integers)
// and cast to out's dtype, which must be castable from it (c10::canCast), as ExecuTorch's
// portable ops do; the .Scalar_out overloads need out to have exactly the result dtype. A
// Scalar other promotes only across categories (int tensor * 1.5 -> float32).
// Integer results wrap on overflow; bool add/mul are logical or/and.
#include "binary_util.h"

namespace vkrt::portable {
namespace {

using binary::OpState;
using binary::Rule;

enum class BinaryOp { Add, Sub, Mul, Div };

// x op (alpha * y).
template <BinaryOp kOp>
struct ArithFn {
  Scalar alpha;
  template <typename C>
  C operator()(C x, C y, OpState&) const {
    if constexpr (kOp == BinaryOp::Add) return wrapping_add(x, wrapping_mul(alpha.as<C>(), y));
    if constexpr (kOp == BinaryOp::Sub) {
      if constexpr (std::is_same_v<C, bool>) return x;  // not reached: bool sub is refused
      else return wrapping_sub(x, wrapping_mul(alpha.as<C>(), y));
    }
    if constexpr (kOp == BinaryOp::Mul) return wrapping_mul(x, y);
    if constexpr (kOp == BinaryOp::Div) {
      if constexpr (std::is_floating_point_v<C>) return x / y;
      else return C{};  // not reached: division computes in a floating type
    }
  }
};

// Checks `alpha` (ExecuTorch's check_alpha_type, and PyTorch's: a floating alpha needs a
// floating result, a bool alpha a bool result) and the bool subtraction, then runs the op.
template <BinaryOp kOp>
Status arith(const KernelArgs& a, const Tensor& self, const Tensor& other, ScalarType common, const Scalar& alpha,
             Tensor& out, size_t oi, bool exact_out) {
  if (kOp == BinaryOp::Sub && common == ScalarType::Bool) {
    return a.op_error(Error::InvalidArgument, "subtraction of two bool tensors is not supported (use logical_xor)");
  }
  if (kOp == BinaryOp::Add || kOp == BinaryOp::Sub) {
    if (alpha.is_floating() && !is_float_dtype(common)) {
      return a.error(2, "alpha", std::string("floating alpha with an integral result dtype ") +
                                     scalar_type_name(common));
    }
    if (alpha.is_bool() && common != ScalarType::Bool) {
      return a.error(2, "alpha", "bool alpha is only supported for bool results");
    }
  }
  ScalarType result = common;
  if (kOp == BinaryOp::Div && !is_float_dtype(result)) result = ScalarType::Float;
  if (exact_out && out.dtype() != result) {
    return a.error(oi, "out", std::string("expected dtype ") + scalar_type_name(result) + ", got " +
                                  scalar_type_name(out.dtype()));
  }
  const Rule rule = kOp == BinaryOp::Div ? Rule::TrueDiv : Rule::Castable;
  ScalarType compute = common;
  VKRT_RETURN_IF_ERROR(binary::resolve(a, rule, self.dtype(), exact_out ? self.dtype() : other.dtype(), common,
                                       out, oi, compute));
  if (kOp == BinaryOp::Div && exact_out) compute = result;  // a Scalar divisor does not widen self's dtype
  Shape shape;
  VKRT_RETURN_IF_ERROR(binary::broadcast_out(a, self, "self", other, 1, "other", out, oi, shape));
  OpState st;
  return binary::apply(compute, self, other, out, shape, ArithFn<kOp>{alpha}, st);
}

constexpr bool has_alpha(BinaryOp op) { return op == BinaryOp::Add || op == BinaryOp::Sub; }

// The .out overloads: Tensor other.
template <BinaryOp kOp>
Status tensor_kernel(const char* name, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, has_alpha(kOp) ? 5 : 4));
  const size_t oi = has_alpha(kOp) ? 3 : 2;
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, oi, "out"));
  Scalar alpha;  // Int 1
  alpha.i = 1;
  if (has_alpha(kOp)) {
    VKRT_ASSIGN_OR_RETURN(alpha, scalar_arg(a, 2, "alpha"));
  }
  return arith<kOp>(a, *self, *other, promote_types(self->dtype(), other->dtype()), alpha, *out, oi, false);
}

// The .Scalar_out overloads: Scalar other, read through a 0-dim tensor over a local.
template <BinaryOp kOp>
Status scalar_kernel(const char* name, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, has_alpha(kOp) ? 5 : 4));
  const size_t oi = has_alpha(kOp) ? 3 : 2;
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, oi, "out"));
  Scalar alpha;
  alpha.i = 1;
  if (has_alpha(kOp)) {
    VKRT_ASSIGN_OR_RETURN(alpha, scalar_arg(a, 2, "alpha"));
  }
  binary::ScalarBox box;
  VKRT_ASSIGN_OR_RETURN(Tensor scalar, box.tensor(other));
  return arith<kOp>(a, *self, scalar, binary::promote_with_scalar(self->dtype(), other), alpha, *out, oi, true);
}

Status add_out(KernelContext&, std::span<EValue* const> args) {
  return tensor_kernel<BinaryOp::Add>("aten::add.out", args);
}
Status sub_out(KernelContext&, std::span<EValue* const> args) {
  return tensor_kernel<BinaryOp::Sub>("aten::sub.out", args);
}
Status mul_out(KernelContext&, std::span<EValue* const> args) {
  return tensor_kernel<BinaryOp::Mul>("aten::mul.out", args);
}
Status div_out(KernelContext&, std::span<EValue* const> args) {
  return tensor_kernel<BinaryOp::Div>("aten::div.out", args);
}
Status add_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return scalar_kernel<BinaryOp::Add>("aten::add.Scalar_out", args);
}
Status sub_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return scalar_kernel<BinaryOp::Sub>("aten::sub.Scalar_out", args);
}
Status mul_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return scalar_kernel<BinaryOp::Mul>("aten::mul.Scalar_out", args);
}
Status div_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return scalar_kernel<BinaryOp::Div>("aten::div.Scalar_out", args);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::add.out", add_out);
VKRT_REGISTER_KERNEL("aten::sub.out", sub_out);
VKRT_REGISTER_KERNEL("aten::mul.out", mul_out);
VKRT_REGISTER_KERNEL("aten::div.out", div_out);
VKRT_REGISTER_KERNEL("aten::add.Scalar_out", add_scalar_out);
VKRT_REGISTER_KERNEL("aten::sub.Scalar_out", sub_scalar_out);
VKRT_REGISTER_KERNEL("aten::mul.Scalar_out", mul_scalar_out);
VKRT_REGISTER_KERNEL("aten::div.Scalar_out", div_scalar_out);

}  // namespace vkrt::portable
