// aten::_softmax.out and aten::_log_softmax.out.
//
// Schemas:
//   _softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)      -> 5 args
//   _log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)  -> 5 args
// Floating dtypes only; out has self's dtype and shape; half_to_float must be false (as in
// ExecuTorch's portable kernels). Each slice along dim is computed stably:
// softmax = exp(x - max) / sum(exp(x - max)); log_softmax = (x - max) - log(sum(exp(x - max))),
// accumulating in double.
#include <cmath>

#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status softmax_kernel(const char* name, bool log, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(bool half_to_float, a.bool_value(2, "half_to_float"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "self", *self));
  if (half_to_float) return a.error(2, "half_to_float", "must be false on the CPU");
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  if (self->numel() == 0) return Status::ok();

  // Outer walk over every dim but `dim` (its size set to 1); inner loop along `dim`.
  Shape outer = Shape::of(self->sizes());
  int64_t length = 1, in_step = 0, out_step = 0;
  if (self->rank() > 0) {
    length = self->size(dim);
    in_step = self->strides()[dim];
    out_step = out->strides()[dim];
    outer.dims[dim] = 1;
  }
  const ScalarType in_t = self->dtype(), out_t = out->dtype();
  StridedWalker<2> walk(outer.view(), {strides_of(*out), strides_of(*self)});
  for (int64_t o = 0; o < outer.numel(); ++o, walk.next()) {
    const int64_t in0 = walk.offset(1), out0 = walk.offset(0);
    double max = -INFINITY;
    for (int64_t k = 0; k < length; ++k) max = std::fmax(max, load_elem<double>(self->data(), in_t, in0 + k * in_step));
    double sum = 0.0;
    for (int64_t k = 0; k < length; ++k) sum += std::exp(load_elem<double>(self->data(), in_t, in0 + k * in_step) - max);
    const double log_sum = std::log(sum);
    for (int64_t k = 0; k < length; ++k) {
      const double shifted = load_elem<double>(self->data(), in_t, in0 + k * in_step) - max;
      store_elem<double>(out->data(), out_t, out0 + k * out_step, log ? shifted - log_sum : std::exp(shifted) / sum);
    }
  }
  return Status::ok();
}

Status softmax_out(KernelContext&, std::span<EValue* const> args) {
  return softmax_kernel("aten::_softmax.out", false, args);
}
Status log_softmax_out(KernelContext&, std::span<EValue* const> args) {
  return softmax_kernel("aten::_log_softmax.out", true, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::_softmax.out", softmax_out);
VKRT_REGISTER_KERNEL("aten::_log_softmax.out", log_softmax_out);

}  // namespace vkrt::portable
