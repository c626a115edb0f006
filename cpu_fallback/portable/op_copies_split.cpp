// Copies into a list of outputs (copies.h): each item of `out` gets one View of self.
//
//   split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> () : 5 args
//   split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//                             Tensor(a!)[] out) -> ()                                       : 5 args
//   unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()                  : 4 args
// The trailing return slot repeats the list. As in ExecuTorch, every out item has the same
// dtype, which may differ from self's (values convert between the supported dtypes).
#include "copies.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// Checks the list (count, one dtype), sizes every item, then copies item_view(k) of self into
// out item k. item_view must be a pure function of k.
template <typename ItemView>
Status copy_to_list(const KernelArgs& a, size_t list_i, const Tensor& self, std::span<EValue* const> items,
                    size_t expected_count, ItemView&& item_view) {
  if (items.size() != expected_count) {
    return a.error(list_i, "out", "has " + std::to_string(items.size()) + " tensors, expected " +
                                      std::to_string(expected_count));
  }
  for (size_t k = 0; k < items.size(); ++k) {
    Tensor& t = items[k]->to_tensor();
    const ItemName name("out", k);
    if (t.dtype() != items[0]->to_tensor().dtype()) {
      return a.error(list_i, name.view(), std::string("dtype ") + scalar_type_name(t.dtype()) +
                                              " differs from out[0]'s " +
                                              scalar_type_name(items[0]->to_tensor().dtype()));
    }
    VKRT_RETURN_IF_ERROR(check_out_dtype(a, list_i, name.view(), self, t, OutDtype::Convert));
    VKRT_RETURN_IF_ERROR(resize_output(a, list_i, name.view(), t, item_view(k).shape.view()));
  }
  // Every item checked and sized: only now write any of them.
  for (size_t k = 0; k < items.size(); ++k) {
    Tensor& t = items[k]->to_tensor();
    const View v = item_view(k);
    strided_copy(self, v.strides, v.base, t, strides_of(t), 0, v.shape.view());
  }
  return Status::ok();
}

// Self narrowed to [start, start + length) along dim.
View chunk(const Tensor& self, int dim, int64_t start, int64_t length) {
  View v = view_of(self);
  v.shape.dims[dim] = int32_t(length);
  v.base = start * v.strides[dim];
  return v;
}

Status split_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::split_copy.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int64_t split_size, a.int_value(1, "split_size"));
  VKRT_ASSIGN_OR_RETURN(auto items, tensor_list_arg(a, 3, "out"));
  if (self->rank() == 0) return a.error(0, "self", "cannot split a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 2, "dim", self->rank()));
  const int64_t size = self->size(dim);
  if (split_size < 0 || (split_size == 0 && size != 0)) {
    return a.error(1, "split_size", "must be positive, got " + std::to_string(split_size));
  }
  // ceil(size / split_size) chunks; a 0-size dim still gives one (empty) chunk.
  const int64_t count = split_size >= size ? 1 : (size + split_size - 1) / split_size;
  return copy_to_list(a, 3, *self, items, size_t(count), [&](size_t k) {
    const int64_t start = int64_t(k) * split_size;
    return chunk(*self, dim, start, std::min(split_size, size - start));
  });
}

Status split_with_sizes_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::split_with_sizes_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(auto items, tensor_list_arg(a, 3, "out"));
  if (self->rank() == 0) return a.error(0, "self", "cannot split a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 2, "dim", self->rank()));
  // The sizes list is as long as out, which may exceed kMaxRank: read the items directly.
  const EValue& sizes_arg = a.at(1);
  if (!sizes_arg.is_int_list()) {
    Status st = a.error(1, "split_sizes", std::string("expected IntList, got ") + tag_name(sizes_arg.tag()));
    return Status(Error::InvalidType, st.message());
  }
  const auto sizes = sizes_arg.boxed_items();
  int64_t sum = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == nullptr || !sizes[k]->is_int()) return a.error(1, "split_sizes", "holds a non-Int item");
    const int64_t s = sizes[k]->to_int();
    if (s < 0 || s > self->size(dim)) {
      return a.error(1, "split_sizes", "entry " + std::to_string(k) + " (" + std::to_string(s) +
                                           ") out of range for dim " + std::to_string(dim) + " of size " +
                                           std::to_string(self->size(dim)));
    }
    sum += s;  // each entry <= INT32_MAX, at most a few thousand entries: no overflow
    if (sum > self->size(dim)) break;
  }
  if (sum != self->size(dim)) {
    return a.error(1, "split_sizes", "sum to " + std::to_string(sum) + " (or more), dim " + std::to_string(dim) +
                                         " has size " + std::to_string(self->size(dim)));
  }
  return copy_to_list(a, 3, *self, items, sizes.size(), [&](size_t k) {
    int64_t start = 0;
    for (size_t j = 0; j < k; ++j) start += sizes[j]->to_int();
    return chunk(*self, dim, start, sizes[k]->to_int());
  });
}

Status unbind_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::unbind_copy.int_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(auto items, tensor_list_arg(a, 2, "out"));
  if (self->rank() == 0) return a.error(0, "self", "cannot unbind a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  return copy_to_list(a, 2, *self, items, size_t(self->size(dim)), [&](size_t k) {
    View v;  // self without dim, at index k along it
    for (int d = 0; d < self->rank(); ++d) {
      if (d == dim) continue;
      v.strides[v.shape.rank] = self->strides()[d];
      v.shape.dims[v.shape.rank++] = self->size(d);
    }
    v.base = int64_t(k) * self->strides()[dim];
    return v;
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::split_copy.Tensor_out", split_copy_out);
VKRT_REGISTER_KERNEL("aten::split_with_sizes_copy.out", split_with_sizes_copy_out);
VKRT_REGISTER_KERNEL("aten::unbind_copy.int_out", unbind_copy_out);

}  // namespace vkrt::portable
