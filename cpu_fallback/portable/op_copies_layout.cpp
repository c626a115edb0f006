// Copies that rearrange, convert, broadcast or tile (copies.h):
//
//   copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)        -> 5 args
//   copy_(Tensor(a!) self, Tensor src, bool non_blocking=False)                          -> 4 args
//   _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//                Tensor(a!) out)                                                          -> 5 args
//   repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)                         -> 4 args
//   stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)                            -> 4 args
//   pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)                -> 4 args
//   pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)            -> 4 args
//   dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None,
//                                       Tensor(a!) out)                                   -> 4 args
//
// copy / copy_ broadcast src to self's shape and convert it to self's dtype (out has self's
// dtype); _to_copy converts to out's dtype; stack converts every input to out's dtype (which
// each must be castable to). Floating -> integral conversions truncate and saturate.
#include "copies.h"
#include "vkrt/kernel.h"

#include <cstring>

namespace vkrt::portable {
namespace {

// True when `src` broadcasts to exactly `shape` (PyTorch's expand rules).
bool broadcasts_to(const Tensor& src, std::span<const int32_t> shape) {
  if (src.rank() > int(shape.size())) return false;
  const int shift = int(shape.size()) - src.rank();
  for (int d = 0; d < src.rank(); ++d) {
    if (src.size(d) != 1 && src.size(d) != shape[size_t(d + shift)]) return false;
  }
  return true;
}

// Writes src, broadcast to dst's shape and converted to its dtype, into dst.
Status broadcast_copy(const KernelArgs& a, size_t src_i, const Tensor& src, Tensor& dst) {
  if (src.dtype() != dst.dtype() && !is_supported_dtype(src.dtype())) {
    return a.error(src_i, "src", std::string("cannot convert from dtype ") + scalar_type_name(src.dtype()));
  }
  if (!broadcasts_to(src, dst.sizes())) {
    return a.error(src_i, "src", "shape " + shape_string(src.sizes()) + " does not broadcast to " +
                                     shape_string(dst.sizes()));
  }
  strided_copy(src, broadcast_strides(src, dst.sizes()), 0, dst, strides_of(dst), 0, dst.sizes());
  return Status::ok();
}

Status copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * src, any_tensor_arg(a, 1, "src"));
  VKRT_RETURN_IF_ERROR(expect_blocking(a, 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  if (src->dtype() != self->dtype() && !is_supported_dtype(self->dtype())) {
    return a.error(0, "self", std::string("cannot convert to dtype ") + scalar_type_name(self->dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  return broadcast_copy(a, 1, *src, *out);
}

Status copy_inplace(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::copy_", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * src, any_tensor_arg(a, 1, "src"));
  VKRT_RETURN_IF_ERROR(expect_blocking(a, 2));
  if (src->dtype() != self->dtype() && !is_supported_dtype(self->dtype())) {
    return a.error(0, "self", std::string("cannot convert to dtype ") + scalar_type_name(self->dtype()));
  }
  return broadcast_copy(a, 1, *src, *self);
}

Status to_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_to_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_RETURN_IF_ERROR(expect_blocking(a, 1));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 3, "out"));
  if (!a.is_none(2)) {
    // ExecuTorch accepts only torch.contiguous_format (0) here; out then has the default order.
    VKRT_ASSIGN_OR_RETURN(int64_t format, a.int_value(2, "memory_format"));
    if (format != 0) {
      return a.error(2, "memory_format", "only None or contiguous (0) is supported, got " + std::to_string(format));
    }
    if (!out->is_default_dim_order()) return a.error(3, "out", "memory_format is contiguous but out is not");
  }
  return copy_view_to_out(a, 3, "out", *self, view_of(*self), *out, OutDtype::Convert);
}

Status repeat_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::repeat.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  std::array<int64_t, kMaxRank> repeats{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "repeats", repeats));
  const int rank = int(count);
  if (rank < self->rank()) {
    return a.error(1, "repeats", "has " + std::to_string(count) + " entries, fewer than self's rank " +
                                     std::to_string(self->rank()));
  }
  // self padded with leading size-1 dims to `rank`; out.size(d) = repeats[d] * that.
  const int lead = rank - self->rank();
  View tile;  // self as a view of out's rank
  tile.shape.rank = rank;
  Shape out_shape, tiles;
  out_shape.rank = tiles.rank = rank;
  for (int d = 0; d < rank; ++d) {
    const int64_t s = d < lead ? 1 : self->size(d - lead);
    if (repeats[d] < 0) {
      return a.error(1, "repeats", "entry " + std::to_string(d) + " is negative (" + std::to_string(repeats[d]) + ")");
    }
    const int64_t n = saturating_mul(repeats[d], s);
    if (n > INT32_MAX || repeats[d] > INT32_MAX) {
      return a.error(1, "repeats", "entry " + std::to_string(d) + " makes the result too large");
    }
    out_shape.dims[d] = int32_t(n);
    tiles.dims[d] = int32_t(repeats[d]);
    tile.shape.dims[d] = int32_t(s);
    tile.strides[d] = d < lead ? 0 : self->strides()[d - lead];
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, out_shape.view()));
  if (out->numel() == 0) return Status::ok();
  // One strided copy of self per tile; the tile walk yields each tile's offset in out.
  Strides out_strides = strides_of(*out), tile_steps{};
  for (int d = 0; d < rank; ++d) tile_steps[d] = out_strides[d] * tile.shape.dims[d];
  StridedWalker<1> walk(tiles.view(), {tile_steps});
  for (int64_t t = 0, n = tiles.numel(); t < n; ++t, walk.next()) {
    strided_copy(*self, tile.strides, 0, *out, out_strides, walk.offset(0), tile.shape.view());
  }
  return Status::ok();
}

Status stack_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::stack.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(auto items, tensor_list_arg(a, 0, "tensors"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  if (items.empty()) return a.error(0, "tensors", "is empty");
  const Tensor& first = items[0]->to_tensor();
  if (first.rank() >= kMaxRank) return a.error(0, "tensors", "rank too large to stack");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", first.rank() + 1));
  for (size_t k = 0; k < items.size(); ++k) {
    const Tensor& t = items[k]->to_tensor();
    if (t.dtype() != out->dtype() &&
        (!is_supported_dtype(t.dtype()) || !is_supported_dtype(out->dtype()) || !can_cast(t.dtype(), out->dtype()))) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " has dtype " + scalar_type_name(t.dtype()) +
                                       ", which cannot be written to out dtype " + scalar_type_name(out->dtype()));
    }
    if (!std::equal(t.sizes().begin(), t.sizes().end(), first.sizes().begin(), first.sizes().end())) {
      return a.error(0, "tensors", "item " + std::to_string(k) + " has shape " + shape_string(t.sizes()) +
                                       ", item 0 has " + shape_string(first.sizes()));
    }
  }
  if (items.size() > size_t(INT32_MAX)) return a.error(0, "tensors", "too many tensors");
  Shape shape;  // first's shape with the stacked dim inserted
  shape.rank = first.rank() + 1;
  for (int d = 0, s = 0; d < shape.rank; ++d) shape.dims[d] = d == dim ? int32_t(items.size()) : first.size(s++);
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));
  // Item k is out's slab at index k along dim: walk it in out's shape with dim of size 1.
  const Strides out_strides = strides_of(*out);
  Shape slab = shape;
  slab.dims[dim] = 1;
  for (size_t k = 0; k < items.size(); ++k) {
    const Tensor& t = items[k]->to_tensor();
    Strides in_strides{};
    for (int d = 0, s = 0; d < shape.rank; ++d) in_strides[d] = d == dim ? 0 : t.strides()[s++];
    strided_copy(t, in_strides, 0, *out, out_strides, int64_t(k) * out_strides[dim], slab.view());
  }
  return Status::ok();
}

// pixel_shuffle moves channel blocks of S*S into SxS spatial blocks; pixel_unshuffle is its
// inverse. Both walk [lead..., C, H, S, W, S] (C the small channel count, H and W the small
// spatial sizes) with strides into the big-channel tensor and the big-spatial tensor.
Status pixel_shuffle_common(const char* name, const char* factor_name, bool shuffle,
                            std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int64_t factor, a.int_value(1, factor_name));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  const int rank = self->rank();
  if (rank < 3 || rank + 2 > kMaxRank) {
    return a.error(0, "self", "expected a tensor of rank 3 to " + std::to_string(kMaxRank - 2) + ", got rank " +
                                  std::to_string(rank));
  }
  if (factor <= 0 || factor > 32767) {
    return a.error(1, factor_name, "must be in [1, 32767], got " + std::to_string(factor));
  }
  const int64_t S = factor;
  const int c = rank - 3, h = rank - 2, w = rank - 1;
  Shape out_shape = Shape::of(self->sizes());
  int64_t C, H, W;  // the small channel count and spatial sizes
  if (shuffle) {
    if (self->size(c) % (S * S) != 0) {
      return a.error(1, factor_name, "its square " + std::to_string(S * S) + " does not divide the " +
                                         std::to_string(self->size(c)) + " channels");
    }
    C = self->size(c) / (S * S);
    H = self->size(h);
    W = self->size(w);
    if (H * S > INT32_MAX || W * S > INT32_MAX) return a.error(1, factor_name, "makes the result too large");
    out_shape.dims[c] = int32_t(C);
    out_shape.dims[h] = int32_t(H * S);
    out_shape.dims[w] = int32_t(W * S);
  } else {
    if (self->size(h) % S != 0 || self->size(w) % S != 0) {
      return a.error(1, factor_name, "does not divide the spatial size " +
                                         shape_string(self->sizes().subspan(size_t(h))));
    }
    C = self->size(c);
    H = self->size(h) / S;
    W = self->size(w) / S;
    if (C * S * S > INT32_MAX) return a.error(1, factor_name, "makes the result too large");
    out_shape.dims[c] = int32_t(C * S * S);
    out_shape.dims[h] = int32_t(H);
    out_shape.dims[w] = int32_t(W);
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, out_shape.view()));
  const Tensor& deep = shuffle ? *self : *out;  // the tensor with C*S*S channels
  const Tensor& wide = shuffle ? *out : *self;  // the tensor with H*S x W*S pixels
  Shape walk;
  walk.rank = rank + 2;
  Strides deep_s{}, wide_s{};
  for (int d = 0; d < c; ++d) {
    walk.dims[d] = self->size(d);
    deep_s[d] = deep.strides()[d];
    wide_s[d] = wide.strides()[d];
  }
  const int64_t dc = deep.strides()[c], dh = deep.strides()[h], dw = deep.strides()[w];
  const int64_t wc = wide.strides()[c], wh = wide.strides()[h], ww = wide.strides()[w];
  const int64_t sizes[5] = {C, H, S, W, S};
  const int64_t deep_tail[5] = {S * S * dc, dh, S * dc, dw, dc};
  const int64_t wide_tail[5] = {wc, S * wh, wh, S * ww, ww};
  for (int k = 0; k < 5; ++k) {
    walk.dims[c + k] = int32_t(sizes[k]);
    deep_s[c + k] = deep_tail[k];
    wide_s[c + k] = wide_tail[k];
  }
  if (shuffle) {
    strided_copy(*self, deep_s, 0, *out, wide_s, 0, walk.view());
  } else {
    strided_copy(*self, wide_s, 0, *out, deep_s, 0, walk.view());
  }
  return Status::ok();
}

Status pixel_shuffle_out(KernelContext&, std::span<EValue* const> args) {
  return pixel_shuffle_common("aten::pixel_shuffle.out", "upscale_factor", true, args);
}
Status pixel_unshuffle_out(KernelContext&, std::span<EValue* const> args) {
  return pixel_shuffle_common("aten::pixel_unshuffle.out", "downscale_factor", false, args);
}

// The contents of an "empty" tensor are unspecified; vkrt zero-fills it so that programs
// behave the same on every run.
Status empty_dim_order_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("dim_order_ops::_empty_dim_order.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  std::array<int64_t, kMaxRank> size{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(0, "size", size));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, a.tensor(2, "out"));
  if (out->element_size() == 0) return a.error(2, "out", "tensor has an invalid dtype");
  if (a.is_none(1)) {
    if (!out->is_default_dim_order()) return a.error(2, "out", "dim_order is None but out is not contiguous");
  } else {
    VKRT_RETURN_IF_ERROR(check_dim_order_arg(a, 1, "dim_order", *out));
  }
  Shape shape;
  shape.rank = int(count);
  for (size_t d = 0; d < count; ++d) {
    if (size[d] < 0 || size[d] > INT32_MAX) {
      return a.error(0, "size", "invalid size " + std::to_string(size[d]) + " at dim " + std::to_string(d));
    }
    shape.dims[d] = int32_t(size[d]);
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));
  if (out->numel() > 0) {
    if (out->data() == nullptr) return a.error(2, "out", "tensor has no data");
    std::memset(out->data(), 0, out->nbytes());
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::copy.out", copy_out);
VKRT_REGISTER_KERNEL("aten::copy_", copy_inplace);
VKRT_REGISTER_KERNEL("aten::_to_copy.out", to_copy_out);
VKRT_REGISTER_KERNEL("aten::repeat.out", repeat_out);
VKRT_REGISTER_KERNEL("aten::stack.out", stack_out);
VKRT_REGISTER_KERNEL("aten::pixel_shuffle.out", pixel_shuffle_out);
VKRT_REGISTER_KERNEL("aten::pixel_unshuffle.out", pixel_unshuffle_out);
VKRT_REGISTER_KERNEL("dim_order_ops::_empty_dim_order.out", empty_dim_order_out);

}  // namespace vkrt::portable
