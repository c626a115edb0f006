// aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
//   -> 5 args (+ the trailing return slot)
//
// out = mask ? value : self, self and mask broadcast together. mask must be bool and out must
// have self's dtype (upstream's check_masked_fill_args); value is converted to that dtype
// (floating to integral truncates, saturating; to bool is "!= 0").
#include "binary_util.h"

namespace vkrt::portable {
namespace {

Status masked_fill_scalar_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::masked_fill.Scalar_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(a, 1, "mask"));
  VKRT_ASSIGN_OR_RETURN(Scalar value, scalar_arg(a, 2, "value"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "mask", *mask, ScalarType::Bool));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  Shape shape;
  VKRT_RETURN_IF_ERROR(binary::broadcast_out(a, *self, "self", *mask, 1, "mask", *out, 3, shape));
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    const C fill = value.as<C>();
    StridedWalker<3> walk(shape.view(), {strides_of(*out), broadcast_strides(*self, shape.view()),
                                         broadcast_strides(*mask, shape.view())});
    for (int64_t n = 0, numel = shape.numel(); n < numel; ++n, walk.next()) {
      const bool m = load_elem<bool>(mask->data(), mask->dtype(), walk.offset(2));
      const C v = m ? fill : load_elem<C>(self->data(), self->dtype(), walk.offset(1));
      store_elem<C>(out->data(), out->dtype(), walk.offset(0), v);
    }
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::masked_fill.Scalar_out", masked_fill_scalar_out);

}  // namespace vkrt::portable
