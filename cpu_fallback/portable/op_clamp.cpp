// Clamping: aten::relu.out, aten::clamp.out, aten::clamp.Tensor_out, aten::hardtanh.out.
//
// Schemas:
//   relu.out(Tensor self, *, Tensor(a!) out)                                          -> 3 args
//   clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)     -> 5 args
//   clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> 5 args
//   hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> 5 args
// As ExecuTorch's portable kernels:
//   relu      integral and floating self (not bool), out = self's dtype; NaN stays NaN.
//   clamp     any supported self (bool too: max/min of bools are or/and, where PyTorch 1.13
//             refuses bool); the result dtype is self's promoted with each given bound (a
//             floating bound makes an integral or bool self float32, an int bound makes a bool
//             self int64) and out must have exactly that dtype; a bound that does not fit out's
//             dtype (an integer beyond its range, a finite float beyond its range) is refused.
//   clamp.Tensor_out  self, min and max broadcast together; computed in their promoted dtype,
//             which out must be able to hold (c10::canCast).
//   hardtanh  integral and floating self, out = self's dtype; the bounds are converted to it
//             (a float bound truncates for integers) and must fit it.
// clamp is max(x, min) then min(., max) (min > max gives max), and a NaN input or bound gives NaN.
// Half and bfloat16 compute in float.
#include <cmath>

#include "unary_family.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// Clamps in compute type C with optional bounds already in C.
template <typename C>
C clamp_value(C x, bool has_lo, C lo, bool has_hi, C hi) {
  if (has_lo) x = nan_max(x, lo);
  if (has_hi) x = nan_min(x, hi);
  return x;
}

Status relu_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::relu.out", args, DtypeSet::RealHBF16, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_floating_point_v<C>) {
                                         if (std::isnan(x)) return x;
                                       }
                                       return x >= C(0) ? x : C(0);
                                     });
}

// ExecuTorch's promote_type_with_scalar.
ScalarType promote_with_scalar(ScalarType t, const Scalar& s) {
  if (s.is_floating()) return is_float_dtype(t) ? t : ScalarType::Float;
  if (s.kind == Scalar::Kind::Int) return t == ScalarType::Bool ? ScalarType::Long : t;
  return t;
}

// ExecuTorch's clamp check_bounds: the bound must be representable in out's dtype.
bool clamp_bound_fits(const Scalar& s, ScalarType out) {
  if (is_int_dtype(out)) {
    // scalar_to<int64_t>: a floating bound truncates (not reached: it makes the result floating).
    int64_t v = s.kind == Scalar::Kind::Int ? s.i : s.is_bool() ? int64_t(s.b) : convert<int64_t>(s.d);
    Scalar as_int;
    as_int.i = v;
    if (out == ScalarType::Byte) return v >= 0 && v <= 255;  // strictly in range, no wrapping
    return !scalar_overflows(as_int, out);
  }
  if (is_float_dtype(out)) {
    Scalar as_double;
    as_double.kind = Scalar::Kind::Double;
    as_double.d = s.to_double();
    return !scalar_overflows(as_double, out);
  }
  return true;
}

Status clamp_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::clamp.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(std::optional<Scalar> lo, optional_scalar_arg(a, 1, "min"));
  VKRT_ASSIGN_OR_RETURN(std::optional<Scalar> hi, optional_scalar_arg(a, 2, "max"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  if (!lo && !hi) return a.op_error(Error::InvalidArgument, "at least one of min and max must be given");
  ScalarType common = self->dtype();
  if (lo) common = promote_with_scalar(common, *lo);
  if (hi) common = promote_with_scalar(common, *hi);
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, common));
  if (lo && !clamp_bound_fits(*lo, common)) {
    return a.error(1, "min", std::string("value out of range of ") + scalar_type_name(common));
  }
  if (hi && !clamp_bound_fits(*hi, common)) {
    return a.error(2, "max", std::string("value out of range of ") + scalar_type_name(common));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  return with_compute_type(common, [&]<typename C>() -> Status {
    const C lo_c = lo ? lo->as<C>() : C{};
    const C hi_c = hi ? hi->as<C>() : C{};
    return unary_map<C>(*self, *out, [&](C x) { return clamp_value(x, lo.has_value(), lo_c, hi.has_value(), hi_c); });
  });
}

Status clamp_tensor_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::clamp.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  Tensor* lo = nullptr;
  Tensor* hi = nullptr;
  if (!a.is_none(1)) {
    VKRT_ASSIGN_OR_RETURN(lo, tensor_arg(a, 1, "min"));
  }
  if (!a.is_none(2)) {
    VKRT_ASSIGN_OR_RETURN(hi, tensor_arg(a, 2, "max"));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  if (!lo && !hi) return a.op_error(Error::InvalidArgument, "at least one of min and max must be given");
  ScalarType common = self->dtype();
  if (lo) common = promote_types(common, lo->dtype());
  if (hi) common = promote_types(common, hi->dtype());
  if (!can_cast(common, out->dtype())) {
    return a.error(3, "out", std::string("result dtype ") + scalar_type_name(common) +
                                 " cannot be cast to out dtype " + scalar_type_name(out->dtype()));
  }
  Shape shape = Shape::of(self->sizes());
  if (lo && !broadcast_shapes(self->sizes(), lo->sizes(), shape)) {
    return a.error(1, "min", "shape " + shape_string(lo->sizes()) + " does not broadcast with self shape " +
                                 shape_string(self->sizes()));
  }
  if (hi) {
    Shape both;
    if (!broadcast_shapes(shape.view(), hi->sizes(), both)) {
      return a.error(2, "max", "shape " + shape_string(hi->sizes()) + " does not broadcast with shape " +
                                   shape_string(shape.view()));
    }
    shape = both;
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));
  const Tensor& lo_t = lo ? *lo : *self;
  const Tensor& hi_t = hi ? *hi : *self;
  const int64_t numel = shape.numel();
  return with_compute_type(common, [&]<typename C>() -> Status {
    StridedWalker<4> walk(shape.view(), {strides_of(*out), broadcast_strides(*self, shape.view()),
                                         broadcast_strides(lo_t, shape.view()), broadcast_strides(hi_t, shape.view())});
    for (int64_t n = 0; n < numel; ++n, walk.next()) {
      const C x = load_elem<C>(self->data(), self->dtype(), walk.offset(1));
      const C l = lo ? load_elem<C>(lo->data(), lo->dtype(), walk.offset(2)) : C{};
      const C h = hi ? load_elem<C>(hi->data(), hi->dtype(), walk.offset(3)) : C{};
      store_elem<C>(out->data(), out->dtype(), walk.offset(0), clamp_value(x, lo != nullptr, l, hi != nullptr, h));
    }
    return Status::ok();
  });
}

Status hardtanh_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::hardtanh.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar lo, scalar_arg(a, 1, "min_val"));
  VKRT_ASSIGN_OR_RETURN(Scalar hi, scalar_arg(a, 2, "max_val"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, DtypeSet::RealHBF16));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  const ScalarType t = self->dtype();
  if (scalar_overflows(lo, t)) return a.error(1, "min_val", std::string("value does not fit ") + scalar_type_name(t));
  if (scalar_overflows(hi, t)) return a.error(2, "max_val", std::string("value does not fit ") + scalar_type_name(t));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  return with_compute_type(t, [&]<typename C>() -> Status {
    const C lo_c = *scalar_cast_checked<C>(lo, t);
    const C hi_c = *scalar_cast_checked<C>(hi, t);
    return unary_map<C>(*self, *out, [&](C x) { return clamp_value(x, true, lo_c, true, hi_c); });
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::relu.out", relu_out);
VKRT_REGISTER_KERNEL("aten::clamp.out", clamp_out);
VKRT_REGISTER_KERNEL("aten::clamp.Tensor_out", clamp_tensor_out);
VKRT_REGISTER_KERNEL("aten::hardtanh.out", hardtanh_out);

}  // namespace vkrt::portable
