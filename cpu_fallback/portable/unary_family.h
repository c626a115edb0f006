// The unary elementwise family: one argument check, one dtype dispatch and one strided walk
// shared by every `<op>.out(Tensor self, ..., *, Tensor(a!) out)` kernel whose element i of
// out depends only on element i of self (op_unary_float.cpp, op_unary_real.cpp,
// op_unary_activation.cpp, op_clamp.cpp).
//
// A member op is a functor called with one element in the compute type C; what it returns
// is converted to out's dtype (store_elem, so floating -> integral saturates). The compute
// type follows ExecuTorch's portable kernels: Compute::Self is self's dtype (half and
// bfloat16 in float), Compute::Floating is double for a float64 self and float otherwise
// (the unary_ufunc_* patterns, which also read integers through float).
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "op_util.h"

namespace vkrt::portable {

// `v` rounded to the precision of dtype `t` (float16/bfloat16 round through their 16 bits;
// other dtypes are already exact in C).
template <typename C>
inline C round_to_dtype(C v, ScalarType t) {
  if (t == ScalarType::Half) return convert<C>(half_to_float(float_to_half(convert<float>(v))));
  if (t == ScalarType::BFloat16) return convert<C>(bfloat16_to_float(float_to_bfloat16(convert<float>(v))));
  return v;
}

// The Scalar as compute type C for a tensor of dtype `t` (check_overflow_scalar_cast): nullopt
// when it overflows `t`; rounded to t's precision otherwise.
template <typename C>
inline std::optional<C> scalar_cast_checked(const Scalar& s, ScalarType t) {
  if (scalar_overflows(s, t)) return std::nullopt;
  if (s.kind == Scalar::Kind::Int && t == ScalarType::Byte) {
    // -1 wraps to 255 as in C++'s int64 -> uint8 conversion.
    return convert<C>(static_cast<uint8_t>(static_cast<uint64_t>(s.i)));
  }
  return round_to_dtype<C>(s.as<C>(), t);
}

// PyTorch's NaN-propagating max and min (ExecuTorch's max_override/min_override).
template <typename C>
inline C nan_max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return a < b ? b : a;
}
template <typename C>
inline C nan_min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return b < a ? b : a;
}

// out[i] = f(self[i]) in compute type C, for every index of self's shape (out has it).
template <typename C, typename F>
inline Status unary_map(const Tensor& self, Tensor& out, F&& f) {
  using R = decltype(f(C{}));
  const int64_t numel = self.numel();
  StridedWalker<2> walk(self.sizes(), {strides_of(out), strides_of(self)});
  for (int64_t n = 0; n < numel; ++n, walk.next()) {
    const C x = load_elem<C>(self.data(), self.dtype(), walk.offset(1));
    store_elem<R>(out.data(), out.dtype(), walk.offset(0), f(x));
  }
  return Status::ok();
}

enum class Compute { Self, Floating };

// unary_map in the compute type K picks for self's dtype. `f` is a generic functor; it is
// instantiated for every compute type, so it must compile for bool and the integers too.
template <Compute K, typename F>
inline Status unary_dispatch(const Tensor& self, Tensor& out, F&& f) {
  if constexpr (K == Compute::Floating) {
    if (self.dtype() == ScalarType::Double) return unary_map<double>(self, out, f);
    return unary_map<float>(self, out, f);
  } else {
    return with_compute_type(self.dtype(), [&]<typename C>() -> Status { return unary_map<C>(self, out, f); });
  }
}

// What out's dtype must be.
enum class OutRule {
  SameAsSelf,  // out.dtype == self.dtype
  Floating,    // any floating dtype
  Bool,        // bool
  Any,         // any supported dtype
};

// The whole kernel for `<op>.out(Tensor self, *, Tensor(a!) out)` (3 arguments with the
// return slot): self's dtype in `in_set`, out's per `rule`, out resized to self's shape.
template <Compute K, typename F>
inline Status unary_kernel(const char* name, std::span<EValue* const> args, DtypeSet in_set, OutRule rule,
                           F&& f) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, 0, "self", *self, in_set));
  switch (rule) {
    case OutRule::SameAsSelf: VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "out", *out, self->dtype())); break;
    case OutRule::Floating: VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "out", *out)); break;
    case OutRule::Bool: VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "out", *out, ScalarType::Bool)); break;
    case OutRule::Any: break;
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, self->sizes()));
  return unary_dispatch<K>(*self, *out, f);
}

}  // namespace vkrt::portable
