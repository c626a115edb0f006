// aten::slice_copy.Tensor_out and aten::select_copy.int_out.
//
// Schemas:
//   slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
//                         SymInt step=1, *, Tensor(a!) out)                        -> 7 args
//   select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)    -> 5 args
// Slice bounds follow PyTorch: negative start/end count from the end, then both are clamped
// to [0, size] with end >= start; step must be positive. The copy reads self through its
// strides with the dim's stride scaled by step, starting at start.
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status slice_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::slice_copy.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 5, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 5, "out", *out, self->dtype()));
  if (self->rank() == 0) return a.error(0, "self", "cannot slice a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> start_arg, optional_int_arg(a, 2, "start"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> end_arg, optional_int_arg(a, 3, "end"));
  VKRT_ASSIGN_OR_RETURN(int64_t step, a.int_value(4, "step"));
  if (step <= 0) return a.error(4, "step", "must be positive, got " + std::to_string(step));

  const int64_t size = self->size(dim);
  auto clamp_index = [size](int64_t v) {
    if (v < 0) v = v < -size ? 0 : v + size;  // avoids overflow for INT64_MIN
    return v > size ? size : v;
  };
  const int64_t start = clamp_index(start_arg.value_or(0));
  int64_t end = clamp_index(end_arg.value_or(size));
  if (end < start) end = start;
  const int64_t length = (end - start + step - 1) / step;

  Shape shape = Shape::of(self->sizes());
  shape.dims[dim] = int32_t(length);
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, shape.view()));
  Strides in_strides = strides_of(*self);
  const int64_t base = start * in_strides[dim];
  in_strides[dim] *= step;
  strided_copy(*self, in_strides, base, *out, strides_of(*out), 0, shape.view());
  return Status::ok();
}

Status select_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::select_copy.int_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  if (self->rank() == 0) return a.error(0, "self", "cannot select from a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(int64_t index, a.int_value(2, "index"));
  const int64_t size = self->size(dim);
  if (index < -size || index >= size) {
    return a.error(2, "index", "index " + std::to_string(index) + " out of range for dim " +
                                   std::to_string(dim) + " of size " + std::to_string(size));
  }
  if (index < 0) index += size;

  Shape shape;
  Strides in_strides{};
  for (int d = 0; d < self->rank(); ++d) {
    if (d == dim) continue;
    in_strides[shape.rank] = self->strides()[d];
    shape.dims[shape.rank++] = self->size(d);
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));
  strided_copy(*self, in_strides, index * self->strides()[dim], *out, strides_of(*out), 0, shape.view());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::slice_copy.Tensor_out", slice_copy_out);
VKRT_REGISTER_KERNEL("aten::select_copy.int_out", select_copy_out);

}  // namespace vkrt::portable
