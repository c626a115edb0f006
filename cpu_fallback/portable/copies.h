// The copies family (op_copies_*.cpp): ops whose result is one or more strided views of
// their input, copied into out.
//
// Each member op describes its result as a View of self's storage (shape, per-dim strides in
// elements, base offset) and hands it to copy_view_to_out, which checks out's dtype, sizes
// out (DYNAMIC_BOUND outs are resized) and copies through both tensors' strides. Because a
// View indexes self's memory directly, any dim order of self and out works. The ops with a
// `Tensor(a!)[] out` list (split, unbind) produce one View per list item.
#pragma once

#include <cstdio>
#include <string_view>

#include "copy_util.h"

namespace vkrt::portable {

// A strided view of a tensor's storage: element [i_0, ..., i_{r-1}] lives at
// base + sum(i_d * strides[d]) (in elements).
struct View {
  Shape shape;
  Strides strides{};
  int64_t base = 0;
};

// The whole tensor as a View.
inline View view_of(const Tensor& t) {
  View v;
  v.shape = Shape::of(t.sizes());
  v.strides = strides_of(t);
  return v;
}

// What dtype out may have relative to self.
enum class OutDtype {
  Same,     // equal to self's (any dtype: bytes are moved)
  Convert,  // any supported dtype (self's must be supported too unless equal); values convert
};

// "InvalidArgument unless out's dtype obeys `rule`"; item >= 0 names an item of a list.
inline Status check_out_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& self,
                              const Tensor& out, OutDtype rule) {
  if (out.dtype() == self.dtype()) return Status::ok();
  if (rule == OutDtype::Same) return expect_dtype(a, i, name, out, self.dtype());
  if (!is_supported_dtype(self.dtype())) {
    return a.error(i, name, std::string("cannot convert from dtype ") + scalar_type_name(self.dtype()));
  }
  if (!is_supported_dtype(out.dtype())) {
    return a.error(i, name, std::string("cannot convert to dtype ") + scalar_type_name(out.dtype()));
  }
  return Status::ok();
}

// Checks out's dtype, sizes out to v.shape and copies the view of self into it.
inline Status copy_view_to_out(const KernelArgs& a, size_t i, std::string_view name, const Tensor& self,
                               const View& v, Tensor& out, OutDtype rule) {
  VKRT_RETURN_IF_ERROR(check_out_dtype(a, i, name, self, out, rule));
  VKRT_RETURN_IF_ERROR(resize_output(a, i, name, out, v.shape.view()));
  strided_copy(self, v.strides, v.base, out, strides_of(out), 0, v.shape.view());
  return Status::ok();
}

// A short name for item k of a list argument ("out[3]") in a caller-provided buffer, so that
// error messages name the item without allocating on the success path.
struct ItemName {
  char buf[32];
  ItemName(std::string_view list, size_t k) {
    std::snprintf(buf, sizeof(buf), "%.*s[%zu]", int(list.size() < 16 ? list.size() : 16), list.data(), k);
  }
  std::string_view view() const { return buf; }
};

// A `Tensor[]` argument whose items are all tensors with data (any dtype).
inline Result<std::span<EValue* const>> tensor_list_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i >= a.size()) return a.error(i, name, "missing argument");
  const EValue& list = a.at(i);
  if (!list.is_tensor_list()) {
    Status st = a.error(i, name, std::string("expected TensorList, got ") + tag_name(list.tag()));
    return Status(Error::InvalidType, st.message());
  }
  const auto items = list.boxed_items();
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k] == nullptr || !items[k]->is_tensor() || items[k]->tensor_ptr() == nullptr) {
      return a.error(i, name, "item " + std::to_string(k) + " is not a Tensor");
    }
    const Tensor& t = items[k]->to_tensor();
    if (t.element_size() == 0) return a.error(i, name, "item " + std::to_string(k) + " has an invalid dtype");
    if (t.numel() > 0 && t.data() == nullptr) {
      return a.error(i, name, "item " + std::to_string(k) + " has no data");
    }
  }
  return items;
}

// Rejects a `bool non_blocking` argument that is true (no asynchronous copies on the CPU;
// ExecuTorch's kernels refuse it too).
inline Status expect_blocking(const KernelArgs& a, size_t i) {
  VKRT_ASSIGN_OR_RETURN(bool non_blocking, a.bool_value(i, "non_blocking"));
  if (non_blocking) return a.error(i, "non_blocking", "only blocking copies are supported");
  return Status::ok();
}

}  // namespace vkrt::portable
