// Mask-driven ops: aten::masked_select.out, aten::masked_scatter.out, aten::nonzero.out.
//
// Schemas (+ out + the trailing return slot):
//   masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out)
//   masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
//   nonzero.out(Tensor self, *, Tensor(a!) out)
// As ExecuTorch's portable kernels: self of any dtype (realhbbf16), mask bool (PyTorch also
// takes a deprecated uint8 mask; upstream does not), out (and source) of self's dtype.
// self and mask broadcast together; the walk visits the broadcast shape in row-major order.
// masked_select and nonzero have data-dependent out shapes ([count] and [count, rank]):
// their outs are normally DYNAMIC_BOUND. masked_scatter consumes source's elements in its
// row-major order and fails when source has fewer than the mask's true count.
#include "index_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

using namespace index_family;

struct MaskWalk {
  Shape shape;
  Strides self_s{}, mask_s{};
};

// Checks self (argument 0), mask (argument 1) and their broadcast shape.
Status mask_args(const KernelArgs& a, const Tensor& self, const Tensor& mask, MaskWalk& w) {
  if (mask.dtype() != ScalarType::Bool) {
    return a.error(1, "mask", std::string("expected dtype Bool, got ") + scalar_type_name(mask.dtype()));
  }
  if (!broadcast_shapes(self.sizes(), mask.sizes(), w.shape)) {
    return a.error(1, "mask", "shape " + shape_string(mask.sizes()) + " does not broadcast with self shape " +
                                  shape_string(self.sizes()));
  }
  w.self_s = broadcast_strides(self, w.shape.view());
  w.mask_s = broadcast_strides(mask, w.shape.view());
  return Status::ok();
}

bool mask_at(const Tensor& mask, int64_t off) { return static_cast<const uint8_t*>(mask.data())[off] != 0; }

int64_t count_mask(const Tensor& mask, const MaskWalk& w) {
  int64_t count = 0;
  const int64_t numel = w.shape.numel();
  StridedWalker<1> walk(w.shape.view(), {w.mask_s});
  for (int64_t n = 0; n < numel; ++n, walk.next()) count += mask_at(mask, walk.offset(0));
  return count;
}

Status masked_select_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::masked_select.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(a, 1, "mask"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "out", *out, *self, "self"));
  MaskWalk w;
  VKRT_RETURN_IF_ERROR(mask_args(a, *self, *mask, w));
  const int64_t count = count_mask(*mask, w);
  const int32_t sizes[1] = {int32_t(count)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, sizes));
  const int64_t ostride = out->strides()[0];
  const size_t es = self->element_size();
  const int64_t numel = w.shape.numel();
  StridedWalker<2> walk(w.shape.view(), {w.self_s, w.mask_s});
  int64_t k = 0;
  for (int64_t n = 0; n < numel; ++n, walk.next()) {
    if (mask_at(*mask, walk.offset(1))) move_elem(out->data(), ostride * k++, self->data(), walk.offset(0), es);
  }
  return Status::ok();
}

Status masked_scatter_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::masked_scatter.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(a, 1, "mask"));
  VKRT_ASSIGN_OR_RETURN(Tensor * source, tensor_arg(a, 2, "source"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "source", *source, *self, "self"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 3, "out", *out, *self, "self"));
  MaskWalk w;
  VKRT_RETURN_IF_ERROR(mask_args(a, *self, *mask, w));
  const int64_t count = count_mask(*mask, w);
  if (count > source->numel()) {
    return a.error(2, "source", "has " + std::to_string(source->numel()) + " elements, the mask selects " +
                                    std::to_string(count));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, w.shape.view()));
  const size_t es = self->element_size();
  const int64_t numel = w.shape.numel();
  StridedWalker<3> walk(w.shape.view(), {strides_of(*out), w.self_s, w.mask_s});
  StridedWalker<1> src_walk(source->sizes(), {strides_of(*source)});
  for (int64_t n = 0; n < numel; ++n, walk.next()) {
    if (mask_at(*mask, walk.offset(2))) {
      move_elem(out->data(), walk.offset(0), source->data(), src_walk.offset(0), es);
      src_walk.next();
    } else {
      move_elem(out->data(), walk.offset(0), self->data(), walk.offset(1), es);
    }
  }
  return Status::ok();
}

Status nonzero_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::nonzero.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "out", *out, ScalarType::Long));
  if (out->rank() != 2) return a.error(1, "out", "must be 2-D, got rank " + std::to_string(out->rank()));
  const Shape shape = Shape::of(self->sizes());
  const Strides ss = strides_of(*self);
  const int64_t numel = self->numel();
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    int64_t count = 0;
    {
      StridedWalker<1> walk(shape.view(), {ss});
      for (int64_t n = 0; n < numel; ++n, walk.next()) count += load_elem<C>(self->data(), self->dtype(), walk.offset(0)) != C(0);
    }
    const int32_t sizes[2] = {int32_t(count), int32_t(self->rank())};
    VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, sizes));
    const int64_t s0 = out->strides()[0], s1 = out->strides()[1];
    int64_t* o = out->data_as<int64_t>();
    Coords it(shape);
    StridedWalker<1> walk(shape.view(), {ss});
    int64_t k = 0;
    for (int64_t n = 0; n < numel; ++n, walk.next(), it.next()) {
      if (load_elem<C>(self->data(), self->dtype(), walk.offset(0)) == C(0)) continue;
      for (int d = 0; d < self->rank(); ++d) o[k * s0 + d * s1] = it.c[d];
      ++k;
    }
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::masked_select.out", masked_select_out);
VKRT_REGISTER_KERNEL("aten::masked_scatter.out", masked_scatter_out);
VKRT_REGISTER_KERNEL("aten::nonzero.out", nonzero_out);

}  // namespace vkrt::portable
