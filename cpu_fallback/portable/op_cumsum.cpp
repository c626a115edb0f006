// Scans: aten::cumsum.out.
//
// Schema: cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)   -> 5 args
// As upstream: self and out of any supported dtype (a given dtype must equal out's); out has
// self's shape; self is converted to out's compute type and summed there (integers wrap, a
// bool out is "any so far"). A 0-dim self accepts dim 0 / -1.
#include "reduce_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Status cumsum_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::cumsum.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 1, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, 2, "dtype"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(check_dtype_matches_out(a, 2, "dtype", dtype, *out));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  if (self->numel() == 0) return Status::ok();

  // One scan per line along `dim`: the plan reduces `dim` with keepdim, so each output
  // element of the plan is the start of a line in self and out alike.
  std::array<bool, kMaxRank> mask{};
  if (self->rank() > 0) mask[dim] = true;
  ReducePlan p;
  build_plan(*self, mask, true, p);
  const int64_t out_step = self->rank() > 0 ? out->strides()[dim] : 0;
  return with_compute_type(out->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
      C acc = C(0);
      c.each([&](int64_t k, int64_t off) {
        acc = wrapping_add(acc, load_elem<C>(self->data(), self->dtype(), off));
        store_elem<C>(out->data(), out->dtype(), offs[0] + k * out_step, acc);
      });
    });
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::cumsum.out", cumsum_out);

}  // namespace vkrt::portable
