// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
//   -> 5 args
//
// out = condition ? self : other, all three broadcast together. condition is bool (uint8
// accepted, as PyTorch still does with a deprecation warning). self and other promote to a
// common dtype, which out must have (ExecuTorch's check).
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status where_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::where.self_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * cond, tensor_arg(a, 0, "condition"));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 1, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * other, tensor_arg(a, 2, "other"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  if (cond->dtype() != ScalarType::Bool && cond->dtype() != ScalarType::Byte) {
    return a.error(0, "condition", std::string("expected dtype bool (or uint8), got ") +
                                       scalar_type_name(cond->dtype()));
  }
  const ScalarType common = promote_types(self->dtype(), other->dtype());
  if (out->dtype() != common) {
    return a.error(3, "out", std::string("expected the result dtype ") + scalar_type_name(common) + ", got " +
                                 scalar_type_name(out->dtype()));
  }
  Shape partial, shape;
  if (!broadcast_shapes(cond->sizes(), self->sizes(), partial)) {
    return a.error(1, "self", "shape " + shape_string(self->sizes()) +
                                  " does not broadcast with condition shape " + shape_string(cond->sizes()));
  }
  if (!broadcast_shapes(partial.view(), other->sizes(), shape)) {
    return a.error(2, "other", "shape " + shape_string(other->sizes()) +
                                   " does not broadcast with " + shape_string(partial.view()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));
  return with_compute_type(common, [&]<typename C>() -> Status {
    StridedWalker<4> walk(shape.view(), {strides_of(*out), broadcast_strides(*cond, shape.view()),
                                         broadcast_strides(*self, shape.view()),
                                         broadcast_strides(*other, shape.view())});
    for (int64_t n = 0, numel = shape.numel(); n < numel; ++n, walk.next()) {
      const bool pick_self = load_elem<bool>(cond->data(), cond->dtype(), walk.offset(1));
      const C v = pick_self ? load_elem<C>(self->data(), self->dtype(), walk.offset(2))
                            : load_elem<C>(other->data(), other->dtype(), walk.offset(3));
      store_elem<C>(out->data(), out->dtype(), walk.offset(0), v);
    }
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::where.self_out", where_out);

}  // namespace vkrt::portable
