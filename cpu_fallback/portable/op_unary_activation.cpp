// Activations with parameters: aten::logit.out, aten::gelu.out, aten::elu.out,
// aten::leaky_relu.out, aten::glu.out.
//
// Schemas:
//   logit.out(Tensor self, float? eps=None, *, Tensor(a!) out)                        -> 4 args
//   gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)                   -> 4 args
//   elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *,
//           Tensor(a!) out)                                                            -> 6 args
//   leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)         -> 4 args
//   glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)                                -> 4 args
// Dtypes as ExecuTorch's portable kernels:
//   logit       self any supported dtype; out float32 or float64, computed in out's type;
//               with eps, x is clamped to [eps, 1 - eps] first (also for a negative eps,
//               where PyTorch does not clamp).
//   gelu        floating self, out = self's dtype; approximate "none" (erf) or "tanh".
//   elu         floating self, out = self's dtype: x <= 0 ? expm1(x * input_scale) * alpha * scale
//               : x * scale.
//   leaky_relu  floating self, out = self's dtype; negative_slope must fit the dtype (it is
//               rounded to it, as upstream casts it to CTYPE).
//   glu         floating self and out; dim in range with an even size; out = a * sigmoid(b)
//               for the two halves a, b of self along dim (computed in self's type).
// Half and bfloat16 compute in float.
#include <cmath>
#include <string_view>

#include "unary_family.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status logit_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::logit.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  std::optional<double> eps;
  if (!a.is_none(1)) {
    VKRT_ASSIGN_OR_RETURN(eps, a.double_value(1, "eps"));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 2, "out", *out, DtypeSet::Float));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  auto fn = [eps]<typename C>(C x) -> C {
    if (eps) {
      if (x < *eps) x = C(*eps);
      else if (x > 1 - *eps) x = C(1 - *eps);
    }
    return std::log(x / (C(1) - x));
  };
  if (out->dtype() == ScalarType::Double) return unary_map<double>(*self, *out, fn);
  return unary_map<float>(*self, *out, fn);
}

Status gelu_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::gelu.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  if (!a.at(1).is_string()) {
    return make_error(Error::InvalidType, a.op(), ": argument 1 (approximate): expected String");
  }
  const std::string_view approximate = a.at(1).to_string();
  const bool use_tanh = approximate == "tanh";
  if (!use_tanh && approximate != "none") {
    return a.error(1, "approximate", "expected \"none\" or \"tanh\", got \"" + std::string(approximate) + "\"");
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, DtypeSet::FloatHBF16));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  return unary_dispatch<Compute::Floating>(*self, *out, [use_tanh]<typename C>(C x) -> C {
    if (std::isinf(x)) return x > 0 ? x : C(0);
    if (use_tanh) {
      const C beta = C(M_SQRT2 * M_2_SQRTPI * 0.5);  // sqrt(2 / pi)
      const C kappa = C(0.044715f);
      return C(0.5) * x * (C(1) + std::tanh(beta * (x + kappa * x * x * x)));
    }
    return C(0.5) * x * (C(1) + std::erf(x * C(M_SQRT1_2)));
  });
}

Status elu_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::elu.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar alpha, scalar_arg(a, 1, "alpha"));
  VKRT_ASSIGN_OR_RETURN(Scalar scale, scalar_arg(a, 2, "scale"));
  VKRT_ASSIGN_OR_RETURN(Scalar input_scale, scalar_arg(a, 3, "input_scale"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, DtypeSet::FloatHBF16));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 4, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, self->sizes()));
  return unary_dispatch<Compute::Floating>(*self, *out, [&]<typename C>(C x) -> C {
    const C s = scale.as<C>();
    if (x <= C(0)) return std::expm1(x * input_scale.as<C>()) * (alpha.as<C>() * s);
    return x * s;
  });
}

Status leaky_relu_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::leaky_relu.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar slope, scalar_arg(a, 1, "negative_slope"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, DtypeSet::FloatHBF16));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  if (scalar_overflows(slope, self->dtype())) {
    return a.error(1, "negative_slope", std::string("value does not fit ") + scalar_type_name(self->dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  const ScalarType dtype = self->dtype();
  return unary_dispatch<Compute::Floating>(*self, *out, [&]<typename C>(C x) -> C {
    const C k = round_to_dtype<C>(slope.as<C>(), dtype);
    return x >= C(0) ? x : x * k;
  });
}

Status glu_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::glu.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, DtypeSet::FloatHBF16));
  if (self->rank() == 0) return a.error(0, "self", "glu needs a tensor with at least one dim");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  if (self->size(dim) % 2 != 0) {
    return a.error(1, "dim", "self has odd size " + std::to_string(self->size(dim)) + " along dim " +
                                 std::to_string(dim));
  }
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 2, "out", *out, DtypeSet::FloatHBF16));
  Shape shape = Shape::of(self->sizes());
  shape.dims[dim] /= 2;
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));
  const Strides in_strides = strides_of(*self);
  const int64_t second = int64_t(shape.dims[dim]) * in_strides[dim];
  const int64_t numel = shape.numel();
  auto run = [&]<typename C>() -> Status {
    StridedWalker<3> walk(shape.view(), {strides_of(*out), in_strides, in_strides}, {0, 0, second});
    for (int64_t n = 0; n < numel; ++n, walk.next()) {
      const C x = load_elem<C>(self->data(), self->dtype(), walk.offset(1));
      const C g = load_elem<C>(self->data(), self->dtype(), walk.offset(2));
      store_elem<C>(out->data(), out->dtype(), walk.offset(0), x * (C(1) / (C(1) + std::exp(-g))));
    }
    return Status::ok();
  };
  if (self->dtype() == ScalarType::Double) return run.operator()<double>();
  return run.operator()<float>();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::logit.out", logit_out);
VKRT_REGISTER_KERNEL("aten::gelu.out", gelu_out);
VKRT_REGISTER_KERNEL("aten::elu.out", elu_out);
VKRT_REGISTER_KERNEL("aten::leaky_relu.out", leaky_relu_out);
VKRT_REGISTER_KERNEL("aten::glu.out", glu_out);

}  // namespace vkrt::portable
