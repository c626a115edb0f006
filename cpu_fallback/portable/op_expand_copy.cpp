// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//   -> 5 args
//
// PyTorch's expand: `size` has at least self's rank; self's dims align with its last
// entries; -1 keeps the dim; a self dim of size 1 may grow to any size, other dims must
// match; new leading dims must be given explicitly (not -1). The copy reads self through
// stride 0 along expanded dims.
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status expand_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::expand_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool implicit, a.bool_value(2, "implicit"));
  (void)implicit;  // only affects autograd tracing
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  std::array<int64_t, kMaxRank> size{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "size", size));
  const int rank = int(count);
  if (rank < self->rank()) {
    return a.error(1, "size", "has " + std::to_string(count) + " entries, fewer than self's rank " +
                                  std::to_string(self->rank()));
  }
  Shape shape;
  shape.rank = rank;
  Strides in_strides{};
  const int lead = rank - self->rank();
  for (int d = 0; d < rank; ++d) {
    const int64_t want = size[d];
    if (d < lead) {
      if (want < 0 || want > INT32_MAX) {
        return a.error(1, "size", "new leading dim " + std::to_string(d) + " must be given explicitly, got " +
                                      std::to_string(want));
      }
      shape.dims[d] = int32_t(want);
      continue;
    }
    const int32_t have = self->size(d - lead);
    if (want == -1 || want == have) {
      shape.dims[d] = have;
      in_strides[d] = self->strides()[d - lead];
    } else if (have == 1 && want >= 0 && want <= INT32_MAX) {
      shape.dims[d] = int32_t(want);  // stride 0: repeat the single element
    } else {
      return a.error(1, "size", "cannot expand dim " + std::to_string(d) + " of size " + std::to_string(have) +
                                    " to " + std::to_string(want));
    }
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));
  strided_copy(*self, in_strides, 0, *out, strides_of(*out), 0, shape.view());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::expand_copy.out", expand_copy_out);

}  // namespace vkrt::portable
