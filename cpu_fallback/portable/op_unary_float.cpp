// Elementwise floating functions: aten::{sigmoid,tanh,exp,log,sqrt,rsqrt}.out.
//
// Schema: <op>.out(Tensor self, *, Tensor(a!) out)  -> 3 args.
// Integral and bool inputs are read as numbers (PyTorch promotes them to float); out must be
// floating. Values are computed in double and rounded once to out's dtype.
#include <cmath>

#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

using UnaryFn = double (*)(double);

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double tanh_fn(double x) { return std::tanh(x); }
double exp_fn(double x) { return std::exp(x); }
double log_fn(double x) { return std::log(x); }
double sqrt_fn(double x) { return std::sqrt(x); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }

Status unary_kernel(const char* name, UnaryFn fn, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "out", *out));
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, self->sizes()));
  StridedWalker<2> walk(self->sizes(), {strides_of(*out), strides_of(*self)});
  for (int64_t n = 0; n < self->numel(); ++n, walk.next()) {
    const double x = load_elem<double>(self->data(), self->dtype(), walk.offset(1));
    store_elem<double>(out->data(), out->dtype(), walk.offset(0), fn(x));
  }
  return Status::ok();
}

#define VKRT_UNARY_KERNEL(op, fn)                                          \
  Status op##_out(KernelContext&, std::span<EValue* const> args) {         \
    return unary_kernel("aten::" #op ".out", fn, args);                     \
  }
VKRT_UNARY_KERNEL(sigmoid, sigmoid)
VKRT_UNARY_KERNEL(tanh, tanh_fn)
VKRT_UNARY_KERNEL(exp, exp_fn)
VKRT_UNARY_KERNEL(log, log_fn)
VKRT_UNARY_KERNEL(sqrt, sqrt_fn)
VKRT_UNARY_KERNEL(rsqrt, rsqrt)
#undef VKRT_UNARY_KERNEL

}  // namespace

VKRT_REGISTER_KERNEL("aten::sigmoid.out", sigmoid_out);
VKRT_REGISTER_KERNEL("aten::tanh.out", tanh_out);
VKRT_REGISTER_KERNEL("aten::exp.out", exp_out);
VKRT_REGISTER_KERNEL("aten::log.out", log_out);
VKRT_REGISTER_KERNEL("aten::sqrt.out", sqrt_out);
VKRT_REGISTER_KERNEL("aten::rsqrt.out", rsqrt_out);

}  // namespace vkrt::portable
