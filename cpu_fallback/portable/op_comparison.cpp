// Elementwise comparisons: aten::{eq,ne,lt,le,gt,ge}.Scalar_out and .Tensor_out.
//
// Schemas:
//   eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)  -> 4 args
//   eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)  -> 4 args  (broadcasting)
// (and the same for ne, lt, le, gt, ge). Values compare exactly: in double when either side
// is floating, else in int64. The result (true/false) is written in out's dtype, normally bool.
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

template <typename C>
bool compare(Cmp op, C x, C y) {
  switch (op) {
    case Cmp::Eq: return x == y;
    case Cmp::Ne: return x != y;
    case Cmp::Lt: return x < y;
    case Cmp::Le: return x <= y;
    case Cmp::Gt: return x > y;
    case Cmp::Ge: return x >= y;
  }
  return false;
}

Status compare_scalar(const char* name, Cmp op, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Scalar other, scalar_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  auto run = [&]<typename C>() {
    const C y = other.as<C>();
    StridedWalker<2> walk(self->sizes(), {strides_of(*out), strides_of(*self)});
    for (int64_t n = 0; n < self->numel(); ++n, walk.next()) {
      const C x = load_elem<C>(self->data(), self->dtype(), walk.offset(1));
      store_elem<bool>(out->data(), out->dtype(), walk.offset(0), compare<C>(op, x, y));
    }
  };
  if (is_float_dtype(self->dtype()) || other.is_floating()) {
    run.template operator()<double>();
  } else {
    run.template operator()<int64_t>();
  }
  return Status::ok();
}

Status compare_tensor(const char* name, Cmp op, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 1, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  Shape shape;
  if (!broadcast_shapes(self->sizes(), other->sizes(), shape)) {
    return a.error(1, "other", "shape " + shape_string(other->sizes()) +
                                   " does not broadcast with self shape " + shape_string(self->sizes()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));
  auto run = [&]<typename C>() {
    StridedWalker<3> walk(shape.view(), {strides_of(*out), broadcast_strides(*self, shape.view()),
                                         broadcast_strides(*other, shape.view())});
    for (int64_t n = 0, numel = shape.numel(); n < numel; ++n, walk.next()) {
      const C x = load_elem<C>(self->data(), self->dtype(), walk.offset(1));
      const C y = load_elem<C>(other->data(), other->dtype(), walk.offset(2));
      store_elem<bool>(out->data(), out->dtype(), walk.offset(0), compare<C>(op, x, y));
    }
  };
  if (is_float_dtype(self->dtype()) || is_float_dtype(other->dtype())) {
    run.template operator()<double>();
  } else {
    run.template operator()<int64_t>();
  }
  return Status::ok();
}

#define VKRT_COMPARISON_KERNELS(op, CMP)                                               \
  Status op##_scalar_out(KernelContext&, std::span<EValue* const> args) {              \
    return compare_scalar("aten::" #op ".Scalar_out", Cmp::CMP, args);                  \
  }                                                                                    \
  Status op##_tensor_out(KernelContext&, std::span<EValue* const> args) {              \
    return compare_tensor("aten::" #op ".Tensor_out", Cmp::CMP, args);                  \
  }
VKRT_COMPARISON_KERNELS(eq, Eq)
VKRT_COMPARISON_KERNELS(ne, Ne)
VKRT_COMPARISON_KERNELS(lt, Lt)
VKRT_COMPARISON_KERNELS(le, Le)
VKRT_COMPARISON_KERNELS(gt, Gt)
VKRT_COMPARISON_KERNELS(ge, Ge)
#undef VKRT_COMPARISON_KERNELS

}  // namespace

VKRT_REGISTER_KERNEL("aten::eq.Scalar_out", eq_scalar_out);
VKRT_REGISTER_KERNEL("aten::eq.Tensor_out", eq_tensor_out);
VKRT_REGISTER_KERNEL("aten::ne.Scalar_out", ne_scalar_out);
VKRT_REGISTER_KERNEL("aten::ne.Tensor_out", ne_tensor_out);
VKRT_REGISTER_KERNEL("aten::lt.Scalar_out", lt_scalar_out);
VKRT_REGISTER_KERNEL("aten::lt.Tensor_out", lt_tensor_out);
VKRT_REGISTER_KERNEL("aten::le.Scalar_out", le_scalar_out);
VKRT_REGISTER_KERNEL("aten::le.Tensor_out", le_tensor_out);
VKRT_REGISTER_KERNEL("aten::gt.Scalar_out", gt_scalar_out);
VKRT_REGISTER_KERNEL("aten::gt.Tensor_out", gt_tensor_out);
VKRT_REGISTER_KERNEL("aten::ge.Scalar_out", ge_scalar_out);
VKRT_REGISTER_KERNEL("aten::ge.Tensor_out", ge_tensor_out);

}  // namespace vkrt::portable
