// Constant-filled outputs: aten::{full,full_like,ones,zeros,scalar_tensor,empty}.out and
// aten::fill.{Scalar_out,Tensor_out}.
//
// Schemas (each + the trailing return slot, pte-format.md §9.5):
//   full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)                      -> 4 args
//   full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
//                 Tensor(a!) out)                                                       -> 5 args
//   ones.out(SymInt[] size, *, Tensor(a!) out), zeros.out(...)                          -> 3 args
//   scalar_tensor.out(Scalar s, *, Tensor(a!) out)                                      -> 3 args
//   empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)       -> 4 args
//   fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)                       -> 4 args
//   fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out)                       -> 4 args
// Every op is one call of fill_kernel: a result shape (from a size list, a tensor, or 0-dim)
// and a value (a Scalar, checked for overflow against out's dtype as ExecuTorch's
// check_overflow_scalar_cast does, or a 0-dim tensor, converted without a check as upstream's
// static_cast). Any supported out dtype (ExecuTorch's realhbbf16); fill requires out's dtype
// to equal self's. empty.out only resizes (its data is left as it was).
#include "create_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// Where the fill value comes from.
struct FillValue {
  enum class Kind { Scalar, Tensor, None } kind = Kind::None;
  Scalar scalar;
  const Tensor* tensor = nullptr;
  size_t index = 0;  // the argument holding it
  const char* name = "";
};

// Resizes out (argument out_index) to `shape`, then writes the value to every element.
Status fill_kernel(const KernelArgs& a, std::span<const int32_t> shape, const FillValue& value, Tensor& out,
                   size_t out_index) {
  if (value.kind == FillValue::Kind::Scalar) {
    VKRT_RETURN_IF_ERROR(check_scalar_fits(a, value.index, value.name, value.scalar, out.dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", out, shape));
  if (value.kind == FillValue::Kind::None) return Status::ok();
  return with_compute_type(out.dtype(), [&]<typename C>() -> Status {
    const C v = value.kind == FillValue::Kind::Scalar
                    ? value.scalar.as<C>()
                    : load_elem<C>(value.tensor->data(), value.tensor->dtype(), 0);
    fill_all<C>(out, v);
    return Status::ok();
  });
}

FillValue scalar_value(const Scalar& s, size_t index, const char* name) {
  FillValue v;
  v.kind = FillValue::Kind::Scalar;
  v.scalar = s;
  v.index = index;
  v.name = name;
  return v;
}

Scalar int_scalar(int64_t i) {
  Scalar s;
  s.kind = Scalar::Kind::Int;
  s.i = i;
  return s;
}

Status full_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::full.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Shape shape, size_list_arg(a, 0, "size"));
  VKRT_ASSIGN_OR_RETURN(Scalar value, scalar_arg(a, 1, "fill_value"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  return fill_kernel(a, shape.view(), scalar_value(value, 1, "fill_value"), *out, 2);
}

Status full_like_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::full_like.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar value, scalar_arg(a, 1, "fill_value"));
  VKRT_RETURN_IF_ERROR(check_memory_format_arg(a, 2, "memory_format"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  return fill_kernel(a, self->sizes(), scalar_value(value, 1, "fill_value"), *out, 3);
}

Status ones_zeros(const char* name, int64_t one_or_zero, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Shape shape, size_list_arg(a, 0, "size"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  return fill_kernel(a, shape.view(), scalar_value(int_scalar(one_or_zero), 0, "size"), *out, 1);
}

Status ones_out(KernelContext&, std::span<EValue* const> args) { return ones_zeros("aten::ones.out", 1, args); }
Status zeros_out(KernelContext&, std::span<EValue* const> args) { return ones_zeros("aten::zeros.out", 0, args); }

Status scalar_tensor_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::scalar_tensor.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Scalar s, scalar_arg(a, 0, "s"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  return fill_kernel(a, std::span<const int32_t>(), scalar_value(s, 0, "s"), *out, 1);
}

Status empty_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::empty.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Shape shape, size_list_arg(a, 0, "size"));
  VKRT_RETURN_IF_ERROR(check_memory_format_arg(a, 1, "memory_format"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  return fill_kernel(a, shape.view(), FillValue{}, *out, 2);
}

// fill.*: self's shape; out's dtype must be self's.
Status fill_common(const KernelArgs& a, const Tensor& self, const FillValue& value, Tensor& out) {
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", out, self.dtype()));
  return fill_kernel(a, self.sizes(), value, out, 2);
}

Status fill_scalar_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::fill.Scalar_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar value, scalar_arg(a, 1, "value"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  return fill_common(a, *self, scalar_value(value, 1, "value"), *out);
}

Status fill_tensor_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::fill.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * value, tensor_arg(a, 1, "value"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  if (value->rank() != 0) {
    return a.error(1, "value", "expected a 0-dim tensor, got shape " + shape_string(value->sizes()));
  }
  FillValue v;
  v.kind = FillValue::Kind::Tensor;
  v.tensor = value;
  v.index = 1;
  v.name = "value";
  return fill_common(a, *self, v, *out);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::full.out", full_out);
VKRT_REGISTER_KERNEL("aten::full_like.out", full_like_out);
VKRT_REGISTER_KERNEL("aten::ones.out", ones_out);
VKRT_REGISTER_KERNEL("aten::zeros.out", zeros_out);
VKRT_REGISTER_KERNEL("aten::scalar_tensor.out", scalar_tensor_out);
VKRT_REGISTER_KERNEL("aten::empty.out", empty_out);
VKRT_REGISTER_KERNEL("aten::fill.Scalar_out", fill_scalar_out);
VKRT_REGISTER_KERNEL("aten::fill.Tensor_out", fill_tensor_out);

}  // namespace vkrt::portable
