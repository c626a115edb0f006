// Clamping activations: aten::relu.out, aten::clamp.out, aten::hardtanh.out.
//
// Schemas:
//   relu.out(Tensor self, *, Tensor(a!) out)                                        -> 3 args
//   clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)   -> 5 args
//   hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> 5 args
// clamp is min(max(x, min), max) (so min > max gives max everywhere, as in PyTorch) and NaN
// inputs stay NaN. An integral self with a floating bound computes in float32 (PyTorch's
// result type), which out must be able to hold. bool tensors are rejected as in PyTorch.
#include <cmath>

#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// out = clamp(self, lo, hi) with optional bounds; `common` is the compute dtype.
Status clamp_impl(const KernelArgs& a, const Tensor& self, Tensor& out, size_t out_index,
                  const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  if (self.dtype() == ScalarType::Bool) return a.error(0, "self", "bool tensors are not supported");
  ScalarType common = self.dtype();
  if (!is_float_dtype(common) && ((lo && lo->is_floating()) || (hi && hi->is_floating()))) {
    common = ScalarType::Float;
  }
  if (!can_cast(common, out.dtype())) {
    return a.error(out_index, "out", std::string("result dtype ") + scalar_type_name(common) +
                                         " cannot be cast to out dtype " + scalar_type_name(out.dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", out, self.sizes()));
  return with_compute_type(common, [&]<typename C>() -> Status {
    const bool has_lo = lo.has_value(), has_hi = hi.has_value();
    const C lo_c = has_lo ? lo->as<C>() : C{};
    const C hi_c = has_hi ? hi->as<C>() : C{};
    StridedWalker<2> walk(self.sizes(), {strides_of(out), strides_of(self)});
    for (int64_t n = 0; n < self.numel(); ++n, walk.next()) {
      C x = load_elem<C>(self.data(), self.dtype(), walk.offset(1));
      if (has_lo && x < lo_c) x = lo_c;  // comparisons with NaN are false: NaN passes through
      if (has_hi && x > hi_c) x = hi_c;
      store_elem<C>(out.data(), out.dtype(), walk.offset(0), x);
    }
    return Status::ok();
  });
}

Status relu_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::relu.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "out", *out, self->dtype()));
  Scalar zero;  // Int 0
  return clamp_impl(a, *self, *out, 1, zero, std::nullopt);
}

Status clamp_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::clamp.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(std::optional<Scalar> lo, optional_scalar_arg(a, 1, "min"));
  VKRT_ASSIGN_OR_RETURN(std::optional<Scalar> hi, optional_scalar_arg(a, 2, "max"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  if (!lo && !hi) return a.op_error(Error::InvalidArgument, "at least one of min and max must be given");
  return clamp_impl(a, *self, *out, 3, lo, hi);
}

Status hardtanh_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::hardtanh.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar lo, scalar_arg(a, 1, "min_val"));
  VKRT_ASSIGN_OR_RETURN(Scalar hi, scalar_arg(a, 2, "max_val"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  return clamp_impl(a, *self, *out, 3, lo, hi);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::relu.out", relu_out);
VKRT_REGISTER_KERNEL("aten::clamp.out", clamp_out);
VKRT_REGISTER_KERNEL("aten::hardtanh.out", hardtanh_out);

}  // namespace vkrt::portable
