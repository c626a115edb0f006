// Reductions over dims: aten::mean.out and aten::sum.IntList_out.
//
// Schemas:
//   mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//            Tensor(a!) out)                                                      -> 6 args
//   sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                   Tensor(a!) out)                                               -> 6 args
// dim None or [] reduces every dim. dtype, when given, must be out's dtype. mean needs a
// floating out; floating sums accumulate in double, integral sums in int64 (wrapping), then
// cast to out's dtype.
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

struct Reduction {
  Shape kept;          // sizes of the kept dims, in order
  Strides kept_in{};   // self strides of the kept dims
  Strides kept_out{};  // out strides of the kept dims
  Shape reduced;       // sizes of the reduced dims
  Strides reduced_in{};
};

Status reduce_kernel(const char* name, bool is_mean, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool keepdim, a.bool_value(2, "keepdim"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, 3, "dtype"));
  if (dtype && *dtype != int64_t(out->dtype())) {
    return a.error(3, "dtype", "dtype " + std::to_string(*dtype) + " differs from out dtype " +
                                   scalar_type_name(out->dtype()));
  }
  if (is_mean) VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 4, "out", *out));

  const int rank = self->rank();
  std::array<bool, kMaxRank> reduce{};
  std::array<int64_t, kMaxRank> dims{};
  size_t count = 0;
  if (!a.is_none(1)) {
    VKRT_ASSIGN_OR_RETURN(count, a.int_list(1, "dim", dims));
  }
  if (count == 0) reduce.fill(true);
  for (size_t i = 0; i < count; ++i) {
    int d = 0;
    if (!wrap_dim(dims[i], rank, d)) {
      return a.error(1, "dim", "dim " + std::to_string(dims[i]) + " out of range for rank " + std::to_string(rank));
    }
    if (rank > 0 && reduce[d]) return a.error(1, "dim", "dim " + std::to_string(d) + " appears twice");
    if (rank > 0) reduce[d] = true;
  }

  Reduction r;
  Shape out_shape;
  for (int d = 0; d < rank; ++d) {
    if (reduce[d]) {
      r.reduced_in[r.reduced.rank] = self->strides()[d];
      r.reduced.dims[r.reduced.rank++] = self->size(d);
      if (keepdim) out_shape.dims[out_shape.rank++] = 1;
    } else {
      r.kept_in[r.kept.rank] = self->strides()[d];
      r.kept.dims[r.kept.rank++] = self->size(d);
      out_shape.dims[out_shape.rank++] = self->size(d);
    }
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, out_shape.view()));
  // The out dim of a kept self dim: the same dim with keepdim, else its rank among kept dims.
  for (int d = 0, k = 0; d < rank; ++d) {
    if (reduce[d]) continue;
    r.kept_out[k] = out->strides()[keepdim ? d : k];
    ++k;
  }
  const int64_t reduced_count = r.reduced.numel();
  const int64_t kept_count = r.kept.numel();

  const bool integral_sum = !is_mean && !is_float_dtype(out->dtype()) && !is_float_dtype(self->dtype());
  auto run = [&]<typename Acc>() -> Status {
    StridedWalker<2> outer(r.kept.view(), {r.kept_out, r.kept_in});
    for (int64_t o = 0; o < kept_count; ++o, outer.next()) {
      Acc acc = 0;
      StridedWalker<1> inner(r.reduced.view(), {r.reduced_in}, {outer.offset(1)});
      for (int64_t n = 0; n < reduced_count; ++n, inner.next()) {
        acc = wrapping_add(acc, load_elem<Acc>(self->data(), self->dtype(), inner.offset(0)));
      }
      if constexpr (std::is_floating_point_v<Acc>) {
        if (is_mean) acc /= Acc(reduced_count);
      }
      store_elem<Acc>(out->data(), out->dtype(), outer.offset(0), acc);
    }
    return Status::ok();
  };
  return integral_sum ? run.template operator()<int64_t>() : run.template operator()<double>();
}

Status mean_out(KernelContext&, std::span<EValue* const> args) {
  return reduce_kernel("aten::mean.out", true, args);
}
Status sum_out(KernelContext&, std::span<EValue* const> args) {
  return reduce_kernel("aten::sum.IntList_out", false, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::mean.out", mean_out);
VKRT_REGISTER_KERNEL("aten::sum.IntList_out", sum_out);

}  // namespace vkrt::portable
