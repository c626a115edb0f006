// Reshapes that copy: aten::view_copy.out, aten::unsqueeze_copy.out and the
// aten::squeeze_copy overloads.
//
// Schemas:
//   view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)        -> 4 args
//   unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out)         -> 4 args
//   squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)    -> 4 args
//   squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)       -> 4 args
//   squeeze_copy.out(Tensor self, *, Tensor(a!) out)                    -> 3 args
// Elements keep their logical row-major order. Memory planners often place a view's output
// at its input's address; the copy is then skipped (copy_util.h).
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// Checks dtype, sizes the output and copies; `shape` is the computed result shape.
Status finish_reshape(const KernelArgs& a, size_t out_index, const Tensor& self, Tensor& out,
                      const Shape& shape) {
  VKRT_RETURN_IF_ERROR(expect_dtype(a, out_index, "out", out, self.dtype()));
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", out, shape.view()));
  reshape_copy(self, out);
  return Status::ok();
}

Status view_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::view_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  std::array<int64_t, kMaxRank> size{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "size", size));
  Shape shape;
  shape.rank = int(count);
  int inferred = -1;
  int64_t known = 1;
  for (int d = 0; d < shape.rank; ++d) {
    if (size[d] == -1 && inferred < 0) {
      inferred = d;
    } else if (size[d] < 0 || size[d] > INT32_MAX) {
      return a.error(1, "size", "invalid size " + std::to_string(size[d]) + " at dim " + std::to_string(d));
    } else {
      known = saturating_mul(known, size[d]);
      shape.dims[d] = int32_t(size[d]);
    }
  }
  if (inferred >= 0) {
    if (known == 0 || self->numel() % known != 0) {
      return a.error(1, "size", "cannot infer the -1 dim: shape " + shape_string(self->sizes()) +
                                    " does not divide into the given sizes");
    }
    shape.dims[inferred] = int32_t(self->numel() / known);
  }
  if (shape.numel() != self->numel()) {
    std::string given;
    for (size_t d = 0; d < count; ++d) given += (d ? ", " : "") + std::to_string(size[d]);
    return a.error(1, "size", "[" + given + "] does not match " + std::to_string(self->numel()) +
                                  " elements of self " + shape_string(self->sizes()));
  }
  return finish_reshape(a, 2, *self, *out, shape);
}

Status unsqueeze_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::unsqueeze_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  if (self->rank() >= kMaxRank) return a.error(0, "self", "rank too large to unsqueeze");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank() + 1));
  Shape shape;
  shape.rank = self->rank() + 1;
  for (int d = 0, s = 0; d < shape.rank; ++d) shape.dims[d] = d == dim ? 1 : self->size(s++);
  return finish_reshape(a, 2, *self, *out, shape);
}

// Drops the size-1 dims of self that `squeeze[d]` marks.
Status squeeze(const KernelArgs& a, size_t out_index, const Tensor& self, Tensor& out,
               const std::array<bool, kMaxRank>& squeeze) {
  Shape shape;
  for (int d = 0; d < self.rank(); ++d) {
    if (!(squeeze[d] && self.size(d) == 1)) shape.dims[shape.rank++] = self.size(d);
  }
  return finish_reshape(a, out_index, self, out, shape);
}

Status squeeze_copy_dims_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::squeeze_copy.dims_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  std::array<int64_t, kMaxRank> dims{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "dim", dims));
  std::array<bool, kMaxRank> marked{};
  for (size_t i = 0; i < count; ++i) {
    int d = 0;
    if (!wrap_dim(dims[i], self->rank(), d)) {
      return a.error(1, "dim", "dim " + std::to_string(dims[i]) + " out of range for rank " +
                                   std::to_string(self->rank()));
    }
    marked[d] = true;
  }
  return squeeze(a, 2, *self, *out, marked);
}

Status squeeze_copy_dim_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::squeeze_copy.dim_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  std::array<bool, kMaxRank> marked{};
  marked[dim] = true;
  return squeeze(a, 2, *self, *out, marked);
}

Status squeeze_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::squeeze_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 1, "out"));
  std::array<bool, kMaxRank> all{};
  all.fill(true);
  return squeeze(a, 1, *self, *out, all);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::view_copy.out", view_copy_out);
VKRT_REGISTER_KERNEL("aten::unsqueeze_copy.out", unsqueeze_copy_out);
VKRT_REGISTER_KERNEL("aten::squeeze_copy.dims_out", squeeze_copy_dims_out);
VKRT_REGISTER_KERNEL("aten::squeeze_copy.dim_out", squeeze_copy_dim_out);
VKRT_REGISTER_KERNEL("aten::squeeze_copy.out", squeeze_copy_out);

}  // namespace vkrt::portable
