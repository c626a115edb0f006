// Single-output view copies (copies.h): each op computes a View of self and copies it.
//
// Schemas (argument count includes out and the trailing return slot):
//   alias_copy.out(Tensor self, *, Tensor(a!) out)                                   -> 3
//   detach_copy.out / lift_fresh_copy.out / et_copy::_h2d_copy.out /
//     et_copy::_d2h_copy.out (Tensor self, *, Tensor(a!) out)                          -> 3
//   t_copy.out(Tensor self, *, Tensor(a!) out)                                        -> 3
//   transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out)        -> 5
//   as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
//                       SymInt? storage_offset=None, *, Tensor(a!) out)               -> 6
//   diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, out)      -> 6
//   narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, out)        -> 6
//   unfold_copy.out(Tensor self, int dimension, int size, int step, *, out)           -> 6
//   view_as_real_copy.out(Tensor self, *, Tensor(a!) out)                             -> 3
// All keep self's dtype except unfold_copy, which (as ExecuTorch's kernel) converts to any
// out dtype among the supported ones, and view_as_real_copy (complex self, real out). The
// host-to-device and device-to-host copies are plain copies: vkrt's portable kernels run on
// the host.
#include "copies.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// The family kernel: `Op` provides kName, kSchemaArgs (schema arguments before out),
// kDtype and `static Result<View> view(const KernelArgs&, const Tensor& self)`.
template <typename Op>
Status view_kernel(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a(Op::kName, args);
  constexpr size_t out_i = Op::kSchemaArgs;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_i + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, out_i, "out"));
  VKRT_ASSIGN_OR_RETURN(View v, Op::view(a, *self));
  return copy_view_to_out(a, out_i, "out", *self, v, *out, Op::kDtype);
}

// Copies of the whole tensor.
template <const char* Name>
struct Identity {
  static constexpr const char* kName = Name;
  static constexpr size_t kSchemaArgs = 1;
  static constexpr OutDtype kDtype = OutDtype::Same;
  static Result<View> view(const KernelArgs&, const Tensor& self) { return view_of(self); }
};
constexpr char kAlias[] = "aten::alias_copy.out";
constexpr char kDetach[] = "aten::detach_copy.out";
constexpr char kLiftFresh[] = "aten::lift_fresh_copy.out";
constexpr char kH2d[] = "et_copy::_h2d_copy.out";
constexpr char kD2h[] = "et_copy::_d2h_copy.out";

// Swaps dims d0 and d1 of v.
void swap_dims(View& v, int d0, int d1) {
  std::swap(v.shape.dims[d0], v.shape.dims[d1]);
  std::swap(v.strides[d0], v.strides[d1]);
}

struct TCopy {
  static constexpr const char* kName = "aten::t_copy.out";
  static constexpr size_t kSchemaArgs = 1;
  static constexpr OutDtype kDtype = OutDtype::Same;
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    if (self.rank() > 2) {
      return a.error(0, "self", "expected a tensor of rank <= 2, got rank " + std::to_string(self.rank()));
    }
    View v = view_of(self);
    if (self.rank() == 2) swap_dims(v, 0, 1);
    return v;
  }
};

struct TransposeCopy {
  static constexpr const char* kName = "aten::transpose_copy.int_out";
  static constexpr size_t kSchemaArgs = 3;
  static constexpr OutDtype kDtype = OutDtype::Same;
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    VKRT_ASSIGN_OR_RETURN(int d0, dim_arg(a, 1, "dim0", self.rank()));
    VKRT_ASSIGN_OR_RETURN(int d1, dim_arg(a, 2, "dim1", self.rank()));
    View v = view_of(self);
    if (self.rank() > 0) swap_dims(v, d0, d1);
    return v;
  }
};

struct AsStridedCopy {
  static constexpr const char* kName = "aten::as_strided_copy.out";
  static constexpr size_t kSchemaArgs = 4;
  static constexpr OutDtype kDtype = OutDtype::Same;
  // The view indexes self's storage (its memory order), as PyTorch's as_strided does.
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    std::array<int64_t, kMaxRank> size{}, stride{};
    VKRT_ASSIGN_OR_RETURN(size_t n_size, a.int_list(1, "size", size));
    VKRT_ASSIGN_OR_RETURN(size_t n_stride, a.int_list(2, "stride", stride));
    VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> offset_arg, optional_int_arg(a, 3, "storage_offset"));
    if (n_size != n_stride) {
      return a.error(2, "stride", "has " + std::to_string(n_stride) + " entries, size has " +
                                      std::to_string(n_size));
    }
    const int64_t offset = offset_arg.value_or(0);
    if (offset < 0) return a.error(3, "storage_offset", "must be >= 0, got " + std::to_string(offset));
    View v;
    v.shape.rank = int(n_size);
    v.base = offset;
    bool empty = false;
    int64_t last = offset;  // the highest element offset the view reads (saturating)
    for (size_t d = 0; d < n_size; ++d) {
      if (size[d] < 0 || size[d] > INT32_MAX) {
        return a.error(1, "size", "invalid size " + std::to_string(size[d]) + " at dim " + std::to_string(d));
      }
      if (stride[d] < 0) {
        return a.error(2, "stride", "negative strides are not supported (dim " + std::to_string(d) + ": " +
                                        std::to_string(stride[d]) + ")");
      }
      v.shape.dims[d] = int32_t(size[d]);
      v.strides[d] = stride[d];
      if (size[d] == 0) empty = true;
      const int64_t reach = saturating_mul(stride[d], size[d] > 0 ? size[d] - 1 : 0);
      last = reach > INT64_MAX - last ? INT64_MAX : last + reach;
    }
    if (!empty && last >= self.numel()) {
      return a.error(1, "size", "the view reaches storage element " + std::to_string(last) +
                                    ", beyond self's " + std::to_string(self.numel()) + " elements");
    }
    return v;
  }
};

struct DiagonalCopy {
  static constexpr const char* kName = "aten::diagonal_copy.out";
  static constexpr size_t kSchemaArgs = 4;
  static constexpr OutDtype kDtype = OutDtype::Same;
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    VKRT_ASSIGN_OR_RETURN(int64_t offset, a.int_value(1, "offset"));
    if (self.rank() < 2) {
      return a.error(0, "self", "expected a tensor of rank >= 2, got rank " + std::to_string(self.rank()));
    }
    VKRT_ASSIGN_OR_RETURN(int d1, dim_arg(a, 2, "dim1", self.rank()));
    VKRT_ASSIGN_OR_RETURN(int d2, dim_arg(a, 3, "dim2", self.rank()));
    if (d1 == d2) return a.error(3, "dim2", "must differ from dim1 (both are " + std::to_string(d1) + ")");
    const int64_t n1 = self.size(d1), n2 = self.size(d2);
    int64_t length = 0;
    View v;
    if (offset >= 0) {
      if (offset < n2) length = std::min(n1, n2 - offset);
      if (length > 0) v.base = offset * self.strides()[d2];
    } else {
      if (offset > -n1) length = std::min(n1 + offset, n2);
      if (length > 0) v.base = -offset * self.strides()[d1];
    }
    for (int d = 0; d < self.rank(); ++d) {
      if (d == d1 || d == d2) continue;
      v.strides[v.shape.rank] = self.strides()[d];
      v.shape.dims[v.shape.rank++] = self.size(d);
    }
    v.strides[v.shape.rank] = self.strides()[d1] + self.strides()[d2];
    v.shape.dims[v.shape.rank++] = int32_t(length);
    return v;
  }
};

struct NarrowCopy {
  static constexpr const char* kName = "aten::narrow_copy.out";
  static constexpr size_t kSchemaArgs = 4;
  static constexpr OutDtype kDtype = OutDtype::Same;
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    if (self.rank() == 0) return a.error(0, "self", "cannot narrow a 0-dim tensor");
    VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self.rank()));
    VKRT_ASSIGN_OR_RETURN(int64_t start, a.int_value(2, "start"));
    VKRT_ASSIGN_OR_RETURN(int64_t length, a.int_value(3, "length"));
    const int64_t size = self.size(dim);
    if (start < -size || start > size) {
      return a.error(2, "start", "start " + std::to_string(start) + " out of range for dim " +
                                     std::to_string(dim) + " of size " + std::to_string(size));
    }
    if (start < 0) start += size;
    if (length < 0 || length > size - start) {
      return a.error(3, "length", "length " + std::to_string(length) + " from start " + std::to_string(start) +
                                      " exceeds dim " + std::to_string(dim) + " of size " + std::to_string(size));
    }
    View v = view_of(self);
    v.shape.dims[dim] = int32_t(length);
    v.base = start * v.strides[dim];
    return v;
  }
};

struct UnfoldCopy {
  static constexpr const char* kName = "aten::unfold_copy.out";
  static constexpr size_t kSchemaArgs = 4;
  static constexpr OutDtype kDtype = OutDtype::Convert;
  static Result<View> view(const KernelArgs& a, const Tensor& self) {
    if (self.rank() >= kMaxRank) return a.error(0, "self", "rank too large to unfold");
    VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dimension", self.rank()));
    VKRT_ASSIGN_OR_RETURN(int64_t size, a.int_value(2, "size"));
    VKRT_ASSIGN_OR_RETURN(int64_t step, a.int_value(3, "step"));
    // A 0-dim tensor unfolds as if it had one dim of size 1 (PyTorch).
    const int64_t extent = self.rank() > 0 ? self.size(dim) : 1;
    const int64_t dim_stride = self.rank() > 0 ? self.strides()[dim] : 1;
    if (size < 0 || size > extent) {
      return a.error(2, "size", "size " + std::to_string(size) + " out of range [0, " + std::to_string(extent) +
                                    "] for dimension " + std::to_string(dim));
    }
    if (step <= 0) return a.error(3, "step", "must be positive, got " + std::to_string(step));
    View v = view_of(self);
    if (self.rank() > 0) {
      v.shape.dims[dim] = int32_t((extent - size) / step + 1);
      v.strides[dim] = dim_stride * step;
    }
    v.strides[v.shape.rank] = dim_stride;
    v.shape.dims[v.shape.rank++] = int32_t(size);
    return v;
  }
};

// view_as_real_copy.out: a complex self of shape S as a real out of shape S + [2] holding
// each element's (real, imaginary) parts. Self is read as a real tensor of that shape (its
// strides doubled, in parts, with a last dim of stride 1), so any dim order of self and out
// works. As ExecuTorch's kernel, out may be float16, float32 or float64 (the parts convert);
// PyTorch's own result dtype is the parts' (complex32 -> float16, complex64 -> float32,
// complex128 -> float64).
Status view_as_real_copy_kernel(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::view_as_real_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 1, "out"));
  if (!is_complex(self->dtype())) {
    return a.error(0, "self", std::string("expected a complex dtype (complex32, complex64 or complex128), got ") +
                                  scalar_type_name(self->dtype()));
  }
  const ScalarType part = complex_part_type(self->dtype());
  const ScalarType od = out->dtype();
  if (od != ScalarType::Half && od != ScalarType::Float && od != ScalarType::Double) {
    return a.error(1, "out", std::string("expected dtype float16, float32 or float64 (") + scalar_type_name(part) +
                                 " for " + scalar_type_name(self->dtype()) + " self), got " + scalar_type_name(od));
  }
  if (self->rank() >= kMaxRank) {
    return a.error(0, "self", "rank " + std::to_string(self->rank()) + " leaves no room for the parts dim");
  }
  View v = view_of(*self);
  for (int d = 0; d < v.shape.rank; ++d) v.strides[d] *= 2;
  v.strides[v.shape.rank] = 1;
  v.shape.dims[v.shape.rank++] = 2;
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, v.shape.view()));
  const int64_t numel = v.shape.numel();
  StridedWalker<2> walk(v.shape.view(), {strides_of(*out), v.strides});
  for (int64_t n = 0; n < numel; ++n, walk.next()) {
    store_elem<double>(out->data(), od, walk.offset(0), load_elem<double>(self->data(), part, walk.offset(1)));
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::alias_copy.out", view_kernel<Identity<kAlias>>);
VKRT_REGISTER_KERNEL("aten::detach_copy.out", view_kernel<Identity<kDetach>>);
VKRT_REGISTER_KERNEL("aten::lift_fresh_copy.out", view_kernel<Identity<kLiftFresh>>);
VKRT_REGISTER_KERNEL("et_copy::_h2d_copy.out", view_kernel<Identity<kH2d>>);
VKRT_REGISTER_KERNEL("et_copy::_d2h_copy.out", view_kernel<Identity<kD2h>>);
VKRT_REGISTER_KERNEL("aten::t_copy.out", view_kernel<TCopy>);
VKRT_REGISTER_KERNEL("aten::transpose_copy.int_out", view_kernel<TransposeCopy>);
VKRT_REGISTER_KERNEL("aten::as_strided_copy.out", view_kernel<AsStridedCopy>);
VKRT_REGISTER_KERNEL("aten::diagonal_copy.out", view_kernel<DiagonalCopy>);
VKRT_REGISTER_KERNEL("aten::narrow_copy.out", view_kernel<NarrowCopy>);
VKRT_REGISTER_KERNEL("aten::unfold_copy.out", view_kernel<UnfoldCopy>);
VKRT_REGISTER_KERNEL("aten::view_as_real_copy.out", view_as_real_copy_kernel);

}  // namespace vkrt::portable
