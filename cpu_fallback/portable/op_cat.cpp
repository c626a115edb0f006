// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)  -> 4 args
//
// All inputs have out's rank and equal sizes except along dim; out.size(dim) is the sum.
// As in PyTorch, 1-D inputs of size [0] are skipped (legacy empty tensors). Inputs may have
// different dtypes and layouts: each is copied (and converted to out's dtype, which must be
// castable from it) into its slab of out through strides.
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

bool is_legacy_empty(const Tensor& t) { return t.rank() == 1 && t.size(0) == 0; }

Status cat_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::cat.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  const EValue& list = a.at(0);
  if (!list.is_tensor_list()) {
    return a.error(0, "tensors", std::string("expected TensorList, got ") + tag_name(list.tag()));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  const auto items = list.boxed_items();
  if (items.empty()) return a.error(0, "tensors", "is empty");

  // Validate every input and find the result shape from the first non-empty one.
  const Tensor* first = nullptr;
  int64_t total = 0;
  int dim = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k] == nullptr || !items[k]->is_tensor() || items[k]->tensor_ptr() == nullptr) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " is not a Tensor");
    }
    const Tensor& t = items[k]->to_tensor();
    if (t.numel() > 0 && t.data() == nullptr) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " has no data");
    }
    if (t.dtype() != out->dtype() &&
        (!is_supported_dtype(t.dtype()) || !is_supported_dtype(out->dtype()) || !can_cast(t.dtype(), out->dtype()))) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " has dtype " + scalar_type_name(t.dtype()) +
                                       ", which cannot be written to out dtype " + scalar_type_name(out->dtype()));
    }
    if (is_legacy_empty(t)) continue;
    if (first == nullptr) {
      first = &t;
      if (t.rank() == 0) return a.error(0, "tensors", "zero-dimensional tensors cannot be concatenated");
      VKRT_ASSIGN_OR_RETURN(dim, dim_arg(a, 1, "dim", t.rank()));
    }
    if (t.rank() != first->rank()) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " has rank " + std::to_string(t.rank()) +
                                       ", expected " + std::to_string(first->rank()));
    }
    for (int d = 0; d < t.rank(); ++d) {
      if (d != dim && t.size(d) != first->size(d)) {
        return a.error(0, "tensors", "item " + std::to_string(k) + " has shape " + shape_string(t.sizes()) +
                                         ", which differs from " + shape_string(first->sizes()) +
                                         " outside dim " + std::to_string(dim));
      }
    }
    total += t.size(dim);
  }
  if (first == nullptr) {  // every input is a legacy empty tensor: so is the result
    const int32_t empty[1] = {0};
    return resize_output(a, 2, "out", *out, empty);
  }
  if (total > INT32_MAX) return a.error(0, "tensors", "concatenated size too large");
  Shape shape = Shape::of(first->sizes());
  shape.dims[dim] = int32_t(total);
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));

  const Strides out_strides = strides_of(*out);
  int64_t offset_along_dim = 0;
  for (EValue* item : items) {
    const Tensor& t = item->to_tensor();
    if (is_legacy_empty(t)) continue;
    strided_copy(t, strides_of(t), 0, *out, out_strides, offset_along_dim * out_strides[dim], t.sizes());
    offset_along_dim += t.size(dim);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::cat.out", cat_out);

}  // namespace vkrt::portable
