// Ops that index one dim through an integer tensor: aten::gather.out, aten::scatter.src_out,
// aten::scatter.value_out, aten::scatter_add.out, aten::index_select.out, aten::embedding.out.
//
// Schemas (native_functions.yaml; + out + the trailing return slot):
//   gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
//   scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//   scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
//   scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//   index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
//   embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//                 bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
// As ExecuTorch's portable kernels: every dtype (realhbbf16), out (and src) of self's dtype;
// gather/scatter indices are int64, index_select/embedding indices int64 or int32; index
// values must lie in [0, size) (negative values are errors, as in PyTorch for these ops);
// 0-dim tensors count as 1-element vectors. The family kernel walks the index tensor and
// maps each of its coordinates to a self/out coordinate with dim replaced by the index value.
#include "index_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

using namespace index_family;

enum class DimMode { Gather, ScatterSrc, ScatterValue, ScatterAdd };


// The gather/scatter family: checks (upstream's check_gather_args / check_scatter_add_args)
// then one walk over `index`.
Status dim_index_kernel(const char* name, DimMode mode, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const bool gather = mode == DimMode::Gather;
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  constexpr size_t out_i = 4;  // every schema here has 4 arguments before out
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(a, 2, "index"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_i, "out"));
  Tensor* src = nullptr;
  Scalar value;
  if (gather) {
    VKRT_RETURN_IF_ERROR(a.bool_value(3, "sparse_grad").status());
  } else if (mode == DimMode::ScatterValue) {
    VKRT_ASSIGN_OR_RETURN(value, scalar_arg(a, 3, "value"));
  } else {
    VKRT_ASSIGN_OR_RETURN(src, tensor_arg(a, 3, "src"));
    VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 3, "src", *src, *self, "self"));
  }
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, out_i, "out", *out, *self, "self"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  VKRT_RETURN_IF_ERROR(expect_index_dtype(a, 2, "index", *index, false));
  if (mode == DimMode::ScatterValue && scalar_overflows(value, self->dtype())) {
    return a.error(3, "value", std::string("value ") + std::to_string(value.to_double()) +
                                   " does not fit dtype " + scalar_type_name(self->dtype()));
  }

  const View sv = View::of(*self);
  const View iv = View::of(*index);
  View srcv;
  if (src) srcv = View::of(*src);
  if (index->numel() != 0) {
    if (iv.shape.rank != sv.shape.rank || (src && srcv.shape.rank != sv.shape.rank)) {
      return a.error(2, "index", "self, index" + std::string(src ? " and src" : "") +
                                     " must have the same number of dims (index has " +
                                     std::to_string(index->rank()) + ", self " + std::to_string(self->rank()) + ")");
    }
    for (int d = 0; d < sv.shape.rank; ++d) {
      if (d != dim && iv.shape.dims[d] > sv.shape.dims[d]) {
        return a.error(2, "index", "size " + std::to_string(iv.shape.dims[d]) + " of dim " + std::to_string(d) +
                                       " exceeds self's " + std::to_string(sv.shape.dims[d]));
      }
      if (src && iv.shape.dims[d] > srcv.shape.dims[d]) {
        return a.error(2, "index", "size " + std::to_string(iv.shape.dims[d]) + " of dim " + std::to_string(d) +
                                       " exceeds src's " + std::to_string(srcv.shape.dims[d]));
      }
    }
    VKRT_RETURN_IF_ERROR(check_index_range(a, 2, "index", *index, 0, sv.shape.dims[dim]));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_i, "out", *out, gather ? index->sizes() : self->sizes()));
  if (!gather) copy_into(*self, *out);
  if (index->numel() == 0) return Status::ok();

  const View ov = View::of(*out);
  const size_t es = self->element_size();
  const int rank = sv.shape.rank;
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    const C v = value.as<C>();
    Coords it(iv.shape);
    for (int64_t n = 0; n < index->numel(); ++n, it.next()) {
      std::array<int64_t, kMaxRank> c = it.c;
      c[dim] = load_index(*index, offset_of(it.c, iv.strides, rank));
      switch (mode) {
        case DimMode::Gather:
          move_elem(out->data(), offset_of(it.c, ov.strides, rank), self->data(), offset_of(c, sv.strides, rank), es);
          break;
        case DimMode::ScatterSrc:
          move_elem(out->data(), offset_of(c, ov.strides, rank), src->data(), offset_of(it.c, srcv.strides, rank), es);
          break;
        case DimMode::ScatterValue:
          store_elem<C>(out->data(), out->dtype(), offset_of(c, ov.strides, rank), v);
          break;
        case DimMode::ScatterAdd: {
          const int64_t o = offset_of(c, ov.strides, rank);
          const C x = load_elem<C>(out->data(), out->dtype(), o);
          const C y = load_elem<C>(src->data(), src->dtype(), offset_of(it.c, srcv.strides, rank));
          store_elem<C>(out->data(), out->dtype(), o, wrapping_add(x, y));
          break;
        }
      }
    }
    return Status::ok();
  });
}

Status gather_out(KernelContext&, std::span<EValue* const> args) {
  return dim_index_kernel("aten::gather.out", DimMode::Gather, args);
}
Status scatter_src_out(KernelContext&, std::span<EValue* const> args) {
  return dim_index_kernel("aten::scatter.src_out", DimMode::ScatterSrc, args);
}
Status scatter_value_out(KernelContext&, std::span<EValue* const> args) {
  return dim_index_kernel("aten::scatter.value_out", DimMode::ScatterValue, args);
}
Status scatter_add_out(KernelContext&, std::span<EValue* const> args) {
  return dim_index_kernel("aten::scatter_add.out", DimMode::ScatterAdd, args);
}

// out = self with dim `dim` replaced by index.numel() entries: out[..., j, ...] =
// self[..., index[j], ...].
Status index_select_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::index_select.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * index, tensor_arg(a, 2, "index"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  const View sv = View::of(*self);
  if (sv.shape.dims[dim] == 0) return a.error(1, "dim", "indexes a dim of size 0");
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 3, "out", *out, *self, "self"));
  VKRT_RETURN_IF_ERROR(expect_index_dtype(a, 2, "index", *index, true));
  if (index->rank() > 1) return a.error(2, "index", "must be 0-dim or 1-D, got rank " + std::to_string(index->rank()));
  if (self->rank() == 0 && index->numel() != 1) {
    return a.error(2, "index", "indexing a 0-dim tensor needs exactly one index");
  }
  VKRT_RETURN_IF_ERROR(check_index_range(a, 2, "index", *index, 0, sv.shape.dims[dim]));
  Shape shape = Shape::of(self->sizes());
  if (shape.rank > 0) shape.dims[dim] = int32_t(index->numel());
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));

  const View ov = View::of(*out);
  const int64_t istride = index->rank() ? index->strides()[0] : 0;
  const size_t es = self->element_size();
  Coords it(ov.shape);
  for (int64_t n = 0; n < out->numel(); ++n, it.next()) {
    std::array<int64_t, kMaxRank> c = it.c;
    c[dim] = load_index(*index, it.c[dim] * istride);
    move_elem(out->data(), offset_of(it.c, ov.strides, ov.shape.rank), self->data(),
              offset_of(c, sv.strides, sv.shape.rank), es);
  }
  return Status::ok();
}

// out[i..., :] = weight[indices[i...], :]; padding_idx, scale_grad_by_freq and sparse only
// matter for the gradient (ignored, as upstream does).
Status embedding_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::embedding.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 0, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 1, "indices"));
  VKRT_RETURN_IF_ERROR(a.int_value(2, "padding_idx").status());
  VKRT_RETURN_IF_ERROR(a.bool_value(3, "scale_grad_by_freq").status());
  VKRT_RETURN_IF_ERROR(a.bool_value(4, "sparse").status());
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 5, "out"));
  if (weight->rank() != 2) return a.error(0, "weight", "must be 2-D, got rank " + std::to_string(weight->rank()));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 5, "out", *out, *weight, "weight"));
  VKRT_RETURN_IF_ERROR(expect_index_dtype(a, 1, "indices", *indices, true));
  if (indices->rank() + 1 > kMaxRank) return a.error(1, "indices", "rank too large");
  VKRT_RETURN_IF_ERROR(check_index_range(a, 1, "indices", *indices, 0, weight->size(0)));
  Shape shape = Shape::of(indices->sizes());
  shape.dims[shape.rank++] = weight->size(1);
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, shape.view()));

  const Strides os = strides_of(*out);
  const Strides is = strides_of(*indices);
  const int r = indices->rank();
  const size_t es = weight->element_size();
  const int64_t w_row = weight->strides()[0], w_col = weight->strides()[1];
  Coords it(shape);
  for (int64_t n = 0; n < out->numel(); ++n, it.next()) {
    const int64_t row = load_index(*indices, offset_of(it.c, is, r));
    move_elem(out->data(), offset_of(it.c, os, r + 1), weight->data(), row * w_row + it.c[r] * w_col, es);
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::gather.out", gather_out);
VKRT_REGISTER_KERNEL("aten::scatter.src_out", scatter_src_out);
VKRT_REGISTER_KERNEL("aten::scatter.value_out", scatter_value_out);
VKRT_REGISTER_KERNEL("aten::scatter_add.out", scatter_add_out);
VKRT_REGISTER_KERNEL("aten::index_select.out", index_select_out);
VKRT_REGISTER_KERNEL("aten::embedding.out", embedding_out);

}  // namespace vkrt::portable
