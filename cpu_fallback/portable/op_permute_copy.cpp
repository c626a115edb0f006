// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)  -> 4 args
//
// out.size(i) = self.size(dims[i]); dims may be negative (counted from the end) and must be
// a permutation of the dims. The copy reads self through its strides reordered by dims, so
// any dim order of self and out works.
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status permute_copy_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::permute_copy.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  std::array<int64_t, kMaxRank> dims{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "dims", dims));
  const int rank = self->rank();
  if (int(count) != rank) {
    return a.error(1, "dims", "has " + std::to_string(count) + " entries, self has rank " +
                                  std::to_string(rank));
  }
  Shape out_shape;
  out_shape.rank = rank;
  Strides in_strides{};
  std::array<bool, kMaxRank> seen{};
  for (int i = 0; i < rank; ++i) {
    int d = 0;
    if (!wrap_dim(dims[i], rank, d) || seen[d]) {
      return a.error(1, "dims", "is not a permutation of the " + std::to_string(rank) + " dims (entry " +
                                    std::to_string(i) + " = " + std::to_string(dims[i]) + ")");
    }
    seen[d] = true;
    out_shape.dims[i] = self->size(d);
    in_strides[i] = self->strides()[d];
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, out_shape.view()));
  strided_copy(*self, in_strides, 0, *out, strides_of(*out), 0, out_shape.view());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::permute_copy.out", permute_copy_out);

}  // namespace vkrt::portable
