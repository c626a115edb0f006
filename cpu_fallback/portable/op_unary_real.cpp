// Elementwise ops that keep or test the value: aten::<op>.out for abs, neg, sign, round,
// ceil, floor, trunc, bitwise_not, logical_not, isinf, isnan and _conj_physical.
//
// Schema: <op>.out(Tensor self, *, Tensor(a!) out)  -> 3 args.
// Dtypes and semantics as ExecuTorch's portable kernels:
//   abs, neg        integral and floating (not bool); out = self's dtype; integers wrap
//                   (abs(INT_MIN) = INT_MIN, neg of uint8 wraps); abs is `x < 0 ? -x : x`.
//   sign            every supported dtype, out = self's dtype; bool is copied; NaN stays NaN
//                   (PyTorch 1.13 gives 0 for NaN).
//   round           integral and floating, out = self's dtype; integers unchanged; floats round
//                   half to even.
//   ceil/floor/trunc integral and floating, out = self's dtype; computed in float (double for
//                   float64) like ExecuTorch's unary_ufunc_realhbf16, so integers beyond 2^24
//                   round through float (PyTorch 1.13 leaves integers unchanged).
//   bitwise_not     integral or bool, out = self's dtype.
//   logical_not     any supported self and out dtype: out = (self == 0).
//   isinf/isnan     any supported self; out must be bool.
//   _conj_physical  complex dtypes only (complex32, complex64, complex128), out = self's dtype:
//                   the imaginary parts negated.
#include <cmath>

#include "unary_family.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

template <typename C>
constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

Status abs_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::abs.out", args, DtypeSet::RealHBF16, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_same_v<C, bool>) return x;
                                       else if constexpr (kIsInt<C>) return x < 0 ? wrapping_sub(C(0), x) : x;
                                       else return x < 0 ? -x : x;
                                     });
}

Status neg_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::neg.out", args, DtypeSet::RealHBF16, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_same_v<C, bool>) return x;
                                       else if constexpr (kIsInt<C>) return wrapping_sub(C(0), x);
                                       else return -x;
                                     });
}

Status sign_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::sign.out", args, DtypeSet::RealHBBF16, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_same_v<C, bool>) {
                                         return x;
                                       } else {
                                         if constexpr (std::is_floating_point_v<C>) {
                                           if (std::isnan(x)) return x;
                                         }
                                         return C(int(x > C(0)) - int(x < C(0)));
                                       }
                                     });
}

Status round_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::round.out", args, DtypeSet::RealHBF16, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_floating_point_v<C>) {
                                         // Half to even: the halfway case goes to the even neighbour.
                                         const C r = std::round(x);
                                         if (std::fabs(x - std::trunc(x)) == C(0.5)) return C(2) * std::round(x / C(2));
                                         return r;
                                       } else {
                                         return x;
                                       }
                                     });
}

#define VKRT_ROUNDING_UNARY(op, fn)                                                                   \
  Status op##_out(KernelContext&, std::span<EValue* const> args) {                                    \
    return unary_kernel<Compute::Floating>("aten::" #op ".out", args, DtypeSet::RealHBF16,            \
                                           OutRule::SameAsSelf, []<typename C>(C x) -> C { return fn(x); }); \
  }
VKRT_ROUNDING_UNARY(ceil, std::ceil)
VKRT_ROUNDING_UNARY(floor, std::floor)
VKRT_ROUNDING_UNARY(trunc, std::trunc)
#undef VKRT_ROUNDING_UNARY

Status bitwise_not_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Self>("aten::bitwise_not.out", args, DtypeSet::IntB, OutRule::SameAsSelf,
                                     []<typename C>(C x) -> C {
                                       if constexpr (std::is_same_v<C, bool>) return !x;
                                       else if constexpr (kIsInt<C>) return static_cast<C>(~x);
                                       else return x;  // not reached: floating dtypes are refused
                                     });
}

Status logical_not_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::logical_not.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, self->sizes()));
  // Read as bool (x != 0; NaN is true) whatever the dtype.
  return unary_map<bool>(*self, *out, [](bool x) { return !x; });
}

Status isinf_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Floating>("aten::isinf.out", args, DtypeSet::RealHBBF16, OutRule::Bool,
                                         []<typename C>(C x) -> bool { return std::isinf(x); });
}

Status isnan_out(KernelContext&, std::span<EValue* const> args) {
  return unary_kernel<Compute::Floating>("aten::isnan.out", args, DtypeSet::RealHBBF16, OutRule::Bool,
                                         []<typename C>(C x) -> bool { return std::isnan(x); });
}

// Both tensors are read as real tensors of shape S + [2] (strides doubled, in parts, and a last
// dim of stride 1): parts [.., 0] are copied, parts [.., 1] negated.
Status conj_physical_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_conj_physical.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, a.tensor(0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, a.tensor(1, "out"));
  if (!is_complex(self->dtype())) {
    return a.error(0, "self", std::string("expected a complex dtype (complex32, complex64 or complex128), got ") +
                                  scalar_type_name(self->dtype()));
  }
  if (out->dtype() != self->dtype()) {
    return a.error(1, "out", std::string("expected self's dtype ") + scalar_type_name(self->dtype()) + ", got " +
                                 scalar_type_name(out->dtype()));
  }
  if (self->rank() >= kMaxRank) return a.error(0, "self", "rank leaves no room for the parts dim");
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, self->sizes()));
  if (self->numel() > 0 && (self->data() == nullptr || out->data() == nullptr)) {
    return a.op_error(Error::InvalidArgument, "tensor without data");
  }
  const ScalarType part = complex_part_type(self->dtype());
  Shape parts = Shape::of(self->sizes());
  Strides in = strides_of(*self), o = strides_of(*out);
  for (int d = 0; d < parts.rank; ++d) in[d] *= 2, o[d] *= 2;
  in[parts.rank] = 1, o[parts.rank] = 1;
  parts.dims[parts.rank++] = 2;
  StridedWalker<2> walk(parts.view(), {o, in});
  for (int64_t n = 0; n < parts.numel(); ++n, walk.next()) {
    const double v = load_elem<double>(self->data(), part, walk.offset(1));
    store_elem<double>(out->data(), part, walk.offset(0), n % 2 == 1 ? -v : v);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::abs.out", abs_out);
VKRT_REGISTER_KERNEL("aten::neg.out", neg_out);
VKRT_REGISTER_KERNEL("aten::sign.out", sign_out);
VKRT_REGISTER_KERNEL("aten::round.out", round_out);
VKRT_REGISTER_KERNEL("aten::ceil.out", ceil_out);
VKRT_REGISTER_KERNEL("aten::floor.out", floor_out);
VKRT_REGISTER_KERNEL("aten::trunc.out", trunc_out);
VKRT_REGISTER_KERNEL("aten::bitwise_not.out", bitwise_not_out);
VKRT_REGISTER_KERNEL("aten::logical_not.out", logical_not_out);
VKRT_REGISTER_KERNEL("aten::isinf.out", isinf_out);
VKRT_REGISTER_KERNEL("aten::isnan.out", isnan_out);
VKRT_REGISTER_KERNEL("aten::_conj_physical.out", conj_physical_out);

}  // namespace vkrt::portable
