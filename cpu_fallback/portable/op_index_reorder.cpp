// Copies with a coordinate map: aten::select_scatter.out, aten::slice_scatter.out,
// aten::tril.out, aten::flip.out, aten::roll.out, aten::repeat_interleave.Tensor_out.
//
// Schemas (+ out + the trailing return slot):
//   select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
//   slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None,
//                     SymInt step=1, *, Tensor(a!) out)
//   tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out)
//   flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
//   roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
//   repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out)
// As ExecuTorch's portable kernels: every dtype (realhbbf16) with out of self's dtype; the
// *_scatter ops convert src from any dtype to self's; roll needs one dim per shift (upstream
// refuses PyTorch's flattening roll with dims=[]); repeat_interleave takes int32/int64
// repeats, out of the same dtype. Most are expressed as strided copies (copy_util.h) with a
// base offset and reordered or negated strides.
#include <algorithm>

#include "index_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

using namespace index_family;

Status select_scatter_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::select_scatter.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(a, 1, "src"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 4, "out", *out, *self, "self"));
  if (self->rank() == 0) return a.error(0, "self", "cannot select from a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 2, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(int64_t index, a.int_value(3, "index"));
  const int64_t size = self->size(dim);
  if (index < -size || index >= size) {
    return a.error(3, "index", "index " + std::to_string(index) + " out of range for dim " + std::to_string(dim) +
                                   " of size " + std::to_string(size));
  }
  if (index < 0) index += size;
  Shape slice;
  for (int d = 0; d < self->rank(); ++d) {
    if (d != dim) slice.dims[slice.rank++] = self->size(d);
  }
  if (src->rank() != slice.rank || !std::equal(src->sizes().begin(), src->sizes().end(), slice.dims.begin())) {
    return a.error(1, "src", "expected shape " + shape_string(slice.view()) + ", got " + shape_string(src->sizes()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, self->sizes()));
  copy_into(*self, *out);
  const Strides os_full = strides_of(*out);  // after the resize
  Strides os_slice{};
  for (int d = 0, k = 0; d < self->rank(); ++d) {
    if (d != dim) os_slice[k++] = os_full[d];
  }
  strided_copy(*src, strides_of(*src), 0, *out, os_slice, index * os_full[dim], slice.view());
  return Status::ok();
}

Status slice_scatter_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::slice_scatter.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(a, 1, "src"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 6, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 6, "out", *out, *self, "self"));
  if (self->rank() == 0) return a.error(0, "self", "cannot slice a 0-dim tensor");
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 2, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> start_arg, optional_int_arg(a, 3, "start"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> end_arg, optional_int_arg(a, 4, "end"));
  VKRT_ASSIGN_OR_RETURN(int64_t step, a.int_value(5, "step"));
  if (step <= 0) return a.error(5, "step", "must be positive, got " + std::to_string(step));
  const int64_t size = self->size(dim);
  auto clamp_index = [size](int64_t v) {
    if (v < 0) v = v < -size ? 0 : v + size;
    return v > size ? size : v;
  };
  const int64_t start = clamp_index(start_arg.value_or(0));
  int64_t end = clamp_index(end_arg.value_or(size));
  if (end < start) end = start;
  const int64_t length = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a huge step
  Shape slice = Shape::of(self->sizes());
  slice.dims[dim] = int32_t(length);
  if (src->rank() != slice.rank || !std::equal(src->sizes().begin(), src->sizes().end(), slice.dims.begin())) {
    return a.error(1, "src", "expected shape " + shape_string(slice.view()) + ", got " + shape_string(src->sizes()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 6, "out", *out, self->sizes()));
  copy_into(*self, *out);
  Strides os = strides_of(*out);
  const int64_t base = start * os[dim];
  os[dim] *= step;
  strided_copy(*src, strides_of(*src), 0, *out, os, base, slice.view());
  return Status::ok();
}

// Keeps elements with col - row <= diagonal of every (row, col) matrix; the rest become 0.
Status tril_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::tril.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int64_t diagonal, a.int_value(1, "diagonal"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "out", *out, *self, "self"));
  if (self->rank() < 2) return a.error(0, "self", "must have at least 2 dims, got " + std::to_string(self->rank()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  const int r = self->rank();
  const Strides ss = strides_of(*self), os = strides_of(*out);
  const size_t es = self->element_size();
  const uint64_t zero = 0;  // all-zero bytes are 0 in every dtype
  Coords it(Shape::of(self->sizes()));
  for (int64_t n = 0; n < self->numel(); ++n, it.next()) {
    const int64_t o = offset_of(it.c, os, r);
    if (it.c[r - 1] - it.c[r - 2] <= diagonal) {
      move_elem(out->data(), o, self->data(), offset_of(it.c, ss, r), es);
    } else {
      move_elem(out->data(), o, &zero, 0, es);
    }
  }
  return Status::ok();
}

// Reads dims `dims` backwards: a base offset at their last element and negated strides.
Status flip_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::flip.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "out", *out, *self, "self"));
  std::array<int64_t, kMaxRank> dims{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "dims", dims));
  std::array<bool, kMaxRank> flipped{};
  for (size_t k = 0; k < count; ++k) {
    int d = 0;
    if (!wrap_dim(dims[k], self->rank(), d)) {
      return a.error(1, "dims", "dim " + std::to_string(dims[k]) + " out of range for a tensor of rank " +
                                    std::to_string(self->rank()));
    }
    if (flipped[d]) return a.error(1, "dims", "dim " + std::to_string(d) + " appears more than once");
    flipped[d] = true;
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  if (self->numel() == 0) return Status::ok();
  Strides ss = strides_of(*self);
  int64_t base = 0;
  for (int d = 0; d < self->rank(); ++d) {
    if (!flipped[d]) continue;
    base += int64_t(self->size(d) - 1) * ss[d];
    ss[d] = -ss[d];
  }
  strided_copy(*self, ss, base, *out, strides_of(*out), 0, self->sizes());
  return Status::ok();
}

// out[c] = self[c - shift (mod size)] per rolled dim.
Status roll_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::roll.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 3, "out", *out, *self, "self"));
  if (self->rank() == 0) return a.error(0, "self", "cannot roll a 0-dim tensor");
  std::array<int64_t, kMaxRank> shifts{}, dims{};
  VKRT_ASSIGN_OR_RETURN(size_t nshift, a.int_list(1, "shifts", shifts));
  VKRT_ASSIGN_OR_RETURN(size_t ndim, a.int_list(2, "dims", dims));
  if (nshift == 0) return a.error(1, "shifts", "is empty");
  if (nshift != ndim) {
    return a.error(2, "dims", "has " + std::to_string(ndim) + " entries, shifts has " + std::to_string(nshift) +
                                  " (a roll of the flattened tensor, dims=[], is not supported, as upstream)");
  }
  std::array<int64_t, kMaxRank> shift{};  // per dim, in [0, size)
  for (size_t k = 0; k < ndim; ++k) {
    int d = 0;
    if (!wrap_dim(dims[k], self->rank(), d)) {
      return a.error(2, "dims", "dim " + std::to_string(dims[k]) + " out of range for a tensor of rank " +
                                    std::to_string(self->rank()));
    }
    const int64_t size = self->size(d);
    if (size == 0) continue;
    int64_t s = shifts[k] % size;  // in (-size, size): no overflow
    if (s < 0) s += size;
    shift[d] = (shift[d] + s) % size;
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  const int r = self->rank();
  const Strides ss = strides_of(*self), os = strides_of(*out);
  const size_t es = self->element_size();
  Coords it(Shape::of(self->sizes()));
  std::array<int64_t, kMaxRank> c{};
  for (int64_t n = 0; n < self->numel(); ++n, it.next()) {
    for (int d = 0; d < r; ++d) {
      c[d] = it.c[d] - shift[d];
      if (c[d] < 0) c[d] += self->size(d);
    }
    move_elem(out->data(), offset_of(it.c, os, r), self->data(), offset_of(c, ss, r), es);
  }
  return Status::ok();
}

// out = [0]*repeats[0] ++ [1]*repeats[1] ++ ...
Status repeat_interleave_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::repeat_interleave.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * repeats, tensor_arg(a, 0, "repeats"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> output_size, optional_int_arg(a, 1, "output_size"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_index_dtype(a, 0, "repeats", *repeats, true));
  if (repeats->rank() != 1) return a.error(0, "repeats", "must be 1-D, got rank " + std::to_string(repeats->rank()));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "out", *out, *repeats, "repeats"));
  const int64_t rs = repeats->strides()[0];
  int64_t sum = 0;
  for (int64_t i = 0; i < repeats->numel(); ++i) {
    const int64_t v = load_index(*repeats, i * rs);
    if (v < 0) return a.error(0, "repeats", "has a negative value " + std::to_string(v));
    if (v > INT32_MAX || sum + v > INT32_MAX) return a.error(0, "repeats", "sum exceeds the maximum tensor size");
    sum += v;
  }
  if (output_size && *output_size != sum) {
    return a.error(1, "output_size", std::to_string(*output_size) + " differs from the sum of repeats " +
                                         std::to_string(sum));
  }
  const int32_t sizes[1] = {int32_t(sum)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, sizes));
  const int64_t os = out->strides()[0];
  int64_t k = 0;
  for (int64_t i = 0; i < repeats->numel(); ++i) {
    const int64_t v = load_index(*repeats, i * rs);
    for (int64_t j = 0; j < v; ++j, ++k) {
      if (out->dtype() == ScalarType::Long) {
        out->data_as<int64_t>()[k * os] = i;
      } else {
        out->data_as<int32_t>()[k * os] = int32_t(i);
      }
    }
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::select_scatter.out", select_scatter_out);
VKRT_REGISTER_KERNEL("aten::slice_scatter.out", slice_scatter_out);
VKRT_REGISTER_KERNEL("aten::tril.out", tril_out);
VKRT_REGISTER_KERNEL("aten::flip.out", flip_out);
VKRT_REGISTER_KERNEL("aten::roll.out", roll_out);
VKRT_REGISTER_KERNEL("aten::repeat_interleave.Tensor_out", repeat_interleave_out);

}  // namespace vkrt::portable
