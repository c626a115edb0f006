// Elementwise floating functions: aten::<op>.out for sigmoid, tanh, exp, log, sqrt, rsqrt,
// acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, erf, expm1, log10, log1p,
// log2 and reciprocal.
//
// Schema: <op>.out(Tensor self, *, Tensor(a!) out)  -> 3 args.
// As ExecuTorch's unary_ufunc_realhbbf16_to_floathbf16: self of any supported dtype (integers
// and bool are read as numbers), out of any floating dtype; computed in double for a float64
// self and in float otherwise (so int64 -> float64 goes through float, as in PyTorch), then
// rounded to out's dtype.
#include <cmath>

#include "unary_family.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

template <typename F>
Status float_unary(const char* name, std::span<EValue* const> args, F f) {
  return unary_kernel<Compute::Floating>(name, args, DtypeSet::RealHBBF16, OutRule::Floating, f);
}

// One kernel per op: `expr` is the value for element x (of type C, float or double).
#define VKRT_FLOAT_UNARY(op, expr)                                                   \
  Status op##_out(KernelContext&, std::span<EValue* const> args) {                   \
    return float_unary("aten::" #op ".out", args, []<typename C>(C x) -> C { return expr; }); \
  }
VKRT_FLOAT_UNARY(sigmoid, C(1) / (C(1) + std::exp(-x)))
VKRT_FLOAT_UNARY(tanh, std::tanh(x))
VKRT_FLOAT_UNARY(exp, std::exp(x))
VKRT_FLOAT_UNARY(log, std::log(x))
VKRT_FLOAT_UNARY(sqrt, std::sqrt(x))
VKRT_FLOAT_UNARY(rsqrt, C(1) / std::sqrt(x))
VKRT_FLOAT_UNARY(acos, std::acos(x))
VKRT_FLOAT_UNARY(acosh, std::acosh(x))
VKRT_FLOAT_UNARY(asin, std::asin(x))
VKRT_FLOAT_UNARY(asinh, std::asinh(x))
VKRT_FLOAT_UNARY(atan, std::atan(x))
VKRT_FLOAT_UNARY(atanh, std::atanh(x))
VKRT_FLOAT_UNARY(cos, std::cos(x))
VKRT_FLOAT_UNARY(cosh, std::cosh(x))
VKRT_FLOAT_UNARY(sin, std::sin(x))
VKRT_FLOAT_UNARY(sinh, std::sinh(x))
VKRT_FLOAT_UNARY(tan, std::tan(x))
VKRT_FLOAT_UNARY(erf, std::erf(x))
VKRT_FLOAT_UNARY(expm1, std::expm1(x))
VKRT_FLOAT_UNARY(log10, std::log10(x))
VKRT_FLOAT_UNARY(log1p, std::log1p(x))
VKRT_FLOAT_UNARY(log2, std::log2(x))
VKRT_FLOAT_UNARY(reciprocal, C(1) / x)
#undef VKRT_FLOAT_UNARY

}  // namespace

VKRT_REGISTER_KERNEL("aten::sigmoid.out", sigmoid_out);
VKRT_REGISTER_KERNEL("aten::tanh.out", tanh_out);
VKRT_REGISTER_KERNEL("aten::exp.out", exp_out);
VKRT_REGISTER_KERNEL("aten::log.out", log_out);
VKRT_REGISTER_KERNEL("aten::sqrt.out", sqrt_out);
VKRT_REGISTER_KERNEL("aten::rsqrt.out", rsqrt_out);
VKRT_REGISTER_KERNEL("aten::acos.out", acos_out);
VKRT_REGISTER_KERNEL("aten::acosh.out", acosh_out);
VKRT_REGISTER_KERNEL("aten::asin.out", asin_out);
VKRT_REGISTER_KERNEL("aten::asinh.out", asinh_out);
VKRT_REGISTER_KERNEL("aten::atan.out", atan_out);
VKRT_REGISTER_KERNEL("aten::atanh.out", atanh_out);
VKRT_REGISTER_KERNEL("aten::cos.out", cos_out);
VKRT_REGISTER_KERNEL("aten::cosh.out", cosh_out);
VKRT_REGISTER_KERNEL("aten::sin.out", sin_out);
VKRT_REGISTER_KERNEL("aten::sinh.out", sinh_out);
VKRT_REGISTER_KERNEL("aten::tan.out", tan_out);
VKRT_REGISTER_KERNEL("aten::erf.out", erf_out);
VKRT_REGISTER_KERNEL("aten::expm1.out", expm1_out);
VKRT_REGISTER_KERNEL("aten::log10.out", log10_out);
VKRT_REGISTER_KERNEL("aten::log1p.out", log1p_out);
VKRT_REGISTER_KERNEL("aten::log2.out", log2_out);
VKRT_REGISTER_KERNEL("aten::reciprocal.out", reciprocal_out);

}  // namespace vkrt::portable
