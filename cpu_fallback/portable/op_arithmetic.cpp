// aten::{add,sub,mul,div}.out and .Scalar_out: elementwise binary arithmetic with PyTorch
// broadcasting and type promotion.
//
// Schemas (native_functions.yaml):
//   add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)   -> 5 args
//   sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)   -> 5 args
//   mul.out(Tensor self, Tensor other, *, Tensor(a!) out)                   -> 4 args
//   div.out(Tensor self, Tensor other, *, Tensor(a!) out)                   -> 4 args
//   add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> 5 args
//   (sub.Scalar_out likewise; mul/div.Scalar_out(Tensor self, Scalar other, *, out) -> 4 args)
// (each + the trailing return slot, pte-format.md §9.5). The result is computed in
// promote_types(self, other) (float32 for div of integers: true division) and cast to out's
// dtype, which must be castable from it (c10::canCast), as ExecuTorch's portable ops do; the
// .Scalar_out overloads need out to have exactly the result dtype. A Scalar other promotes
// only across categories (int tensor * 1.5 -> float32).
// Integer results wrap on overflow; bool add/mul are logical or/and.
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

enum class BinaryOp { Add, Sub, Mul, Div };

template <typename C>
C apply(BinaryOp op, C x, C y, C alpha) {
  switch (op) {
    case BinaryOp::Add: return wrapping_add(x, wrapping_mul(alpha, y));
    case BinaryOp::Sub: return wrapping_sub(x, wrapping_mul(alpha, y));
    case BinaryOp::Mul: return wrapping_mul(x, y);
    case BinaryOp::Div:
      if constexpr (std::is_floating_point_v<C>) return x / y;
      return C{};  // not reached: division always computes in a floating type
  }
  return C{};
}

// PyTorch's result type of `tensor op scalar`: a scalar only promotes across categories
// (bool < integral < floating), to int64 or the default float32 (c10 result_type rules).
ScalarType scalar_result_type(ScalarType self, const Scalar& other) {
  if (is_float_dtype(self)) return self;
  if (other.is_floating()) return ScalarType::Float;
  if (self == ScalarType::Bool && other.kind == Scalar::Kind::Int) return ScalarType::Long;
  return self;
}

// out = self op other (alpha applies to other for add/sub), computed in `common`.
Status binary_compute(const KernelArgs& a, BinaryOp op, const Tensor& self, const Tensor& other, Tensor& out,
                      size_t out_index, const Scalar& alpha, ScalarType common, bool scalar_other = false) {
  const bool has_alpha = op == BinaryOp::Add || op == BinaryOp::Sub;
  if (op == BinaryOp::Div && !is_float_dtype(common)) common = ScalarType::Float;
  if (op == BinaryOp::Sub && common == ScalarType::Bool) {
    return a.op_error(Error::InvalidArgument,
                      "subtraction of two bool tensors is not supported (use logical_xor)");
  }
  if (scalar_other && out.dtype() != common) {
    // The .Scalar_out overloads: out must have exactly the result dtype (upstream).
    return a.error(out_index, "out", std::string("expected dtype ") + scalar_type_name(common) + ", got " +
                                         scalar_type_name(out.dtype()));
  }
  if (!can_cast(common, out.dtype())) {
    return a.error(out_index, "out",
                   std::string("result dtype ") + scalar_type_name(common) +
                       " cannot be cast to out dtype " + scalar_type_name(out.dtype()));
  }
  if (has_alpha) {
    // ExecuTorch's check_alpha_type: a floating alpha needs a floating result, a bool alpha a
    // bool result.
    if (alpha.is_floating() && !is_float_dtype(common)) {
      return a.error(2, "alpha", std::string("floating alpha with an integral result dtype ") +
                                     scalar_type_name(common));
    }
    if (alpha.is_bool() && common != ScalarType::Bool) {
      return a.error(2, "alpha", "bool alpha is only supported for bool results");
    }
  }
  Shape shape;
  if (!broadcast_shapes(self.sizes(), other.sizes(), shape)) {
    return a.error(1, "other", "shape " + shape_string(other.sizes()) +
                                   " does not broadcast with self shape " + shape_string(self.sizes()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", out, shape.view()));

  return with_compute_type(common, [&]<typename C>() -> Status {
    const C alpha_c = alpha.as<C>();
    const int64_t numel = shape.numel();
    constexpr ScalarType kC = CppTypeToScalar<C>::value;
    const bool flat = kC != ScalarType::Bool && self.dtype() == kC && other.dtype() == kC &&
                      out.dtype() == kC && self.same_layout(out) && other.same_layout(out) &&
                      out.is_default_dim_order();
    if (flat) {
      const C* x = self.data_as<const C>();
      const C* y = other.data_as<const C>();
      C* z = out.data_as<C>();
      for (int64_t n = 0; n < numel; ++n) z[n] = apply<C>(op, x[n], y[n], alpha_c);
      return Status::ok();
    }
    StridedWalker<3> walk(shape.view(), {strides_of(out), broadcast_strides(self, shape.view()),
                                         broadcast_strides(other, shape.view())});
    for (int64_t n = 0; n < numel; ++n, walk.next()) {
      const C x = load_elem<C>(self.data(), self.dtype(), walk.offset(1));
      const C y = load_elem<C>(other.data(), other.dtype(), walk.offset(2));
      store_elem<C>(out.data(), out.dtype(), walk.offset(0), apply<C>(op, x, y, alpha_c));
    }
    return Status::ok();
  });
}

// The .out overloads: Tensor other.
Status binary_kernel(const char* name, BinaryOp op, std::span<EValue* const> args) {
  const bool has_alpha = op == BinaryOp::Add || op == BinaryOp::Sub;
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, has_alpha ? 5 : 4));
  const size_t out_index = has_alpha ? 3 : 2;
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  Scalar alpha;  // Int 1
  alpha.i = 1;
  if (has_alpha) {
    VKRT_ASSIGN_OR_RETURN(alpha, scalar_arg(a, 2, "alpha"));
  }
  return binary_compute(a, op, *self, *other, *out, out_index, alpha,
                        promote_types(self->dtype(), other->dtype()));
}

// The .Scalar_out overloads: Scalar other, read through a 0-dim tensor over a local.
Status binary_scalar_kernel(const char* name, BinaryOp op, std::span<EValue* const> args) {
  const bool has_alpha = op == BinaryOp::Add || op == BinaryOp::Sub;
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, has_alpha ? 5 : 4));
  const size_t out_index = has_alpha ? 3 : 2;
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  Scalar alpha;
  alpha.i = 1;
  if (has_alpha) {
    VKRT_ASSIGN_OR_RETURN(alpha, scalar_arg(a, 2, "alpha"));
  }
  union {
    int64_t i;
    double d;
    uint8_t b;
  } value{};
  ScalarType dtype = ScalarType::Long;
  switch (other.kind) {
    case Scalar::Kind::Int: value.i = other.i; break;
    case Scalar::Kind::Double: value.d = other.d; dtype = ScalarType::Double; break;
    case Scalar::Kind::Bool: value.b = other.b ? 1 : 0; dtype = ScalarType::Bool; break;
  }
  VKRT_ASSIGN_OR_RETURN(Tensor scalar, Tensor::make(dtype, std::span<const int32_t>(), &value));
  return binary_compute(a, op, *self, scalar, *out, out_index, alpha, scalar_result_type(self->dtype(), other),
                        true);
}

Status add_out(KernelContext&, std::span<EValue* const> args) {
  return binary_kernel("aten::add.out", BinaryOp::Add, args);
}
Status sub_out(KernelContext&, std::span<EValue* const> args) {
  return binary_kernel("aten::sub.out", BinaryOp::Sub, args);
}
Status mul_out(KernelContext&, std::span<EValue* const> args) {
  return binary_kernel("aten::mul.out", BinaryOp::Mul, args);
}
Status div_out(KernelContext&, std::span<EValue* const> args) {
  return binary_kernel("aten::div.out", BinaryOp::Div, args);
}
Status add_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary_scalar_kernel("aten::add.Scalar_out", BinaryOp::Add, args);
}
Status sub_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary_scalar_kernel("aten::sub.Scalar_out", BinaryOp::Sub, args);
}
Status mul_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary_scalar_kernel("aten::mul.Scalar_out", BinaryOp::Mul, args);
}
Status div_scalar_out(KernelContext&, std::span<EValue* const> args) {
  return binary_scalar_kernel("aten::div.Scalar_out", BinaryOp::Div, args);
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
