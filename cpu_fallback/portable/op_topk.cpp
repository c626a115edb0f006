// aten::topk.values.
//
// Schema: topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//                     Tensor(a!) values, Tensor(b!) indices)                         -> 8 args
// As upstream: self of any supported dtype but bool; values has self's dtype, indices int64;
// 0 <= k <= size of dim (1 for a 0-dim self, which gives its value and index 0); both outs
// get self's shape with dim resized to k. NaN counts as larger than every number.
// The k best of each line are picked by k selection passes over the line (no scratch
// memory): each pass takes the best element that ranks after the previous pick, ties broken
// by the lower index. The result is always sorted (sorted=False allows any order).
#include "reduce_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// Strict order of (value, index) pairs: true when x ranks before y.
template <typename C>
inline bool ranks_before(C xv, int64_t xi, C yv, int64_t yi, bool largest) {
  // Upstream's order: NaN is larger than every number; NaNs tie with each other.
  auto less = [](C a, C b) { return (!is_nan(a) && is_nan(b)) || a < b; };
  const bool before = largest ? less(yv, xv) : less(xv, yv);
  const bool after = largest ? less(xv, yv) : less(yv, xv);
  if (before) return true;
  if (after) return false;
  return xi < yi;
}

Status topk_values(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::topk.values", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(int64_t k, a.int_value(1, "k"));
  VKRT_ASSIGN_OR_RETURN(int dim, dim_arg(a, 2, "dim", self->rank()));
  VKRT_ASSIGN_OR_RETURN(bool largest, a.bool_value(3, "largest"));
  VKRT_ASSIGN_OR_RETURN(bool sorted, a.bool_value(4, "sorted"));
  (void)sorted;
  VKRT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(a, 5, "values"));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 6, "indices"));
  if (self->dtype() == ScalarType::Bool) return a.error(0, "self", "bool is not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 5, "values", *values, self->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 6, "indices", *indices, ScalarType::Long));
  const int64_t length = self->rank() > 0 ? self->size(dim) : 1;
  if (k < 0 || k > length) {
    return a.error(1, "k", "k " + std::to_string(k) + " out of range [0, " + std::to_string(length) + "]");
  }
  Shape shape = Shape::of(self->sizes());
  if (self->rank() > 0) shape.dims[dim] = int32_t(k);
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "values", *values, shape.view()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 6, "indices", *indices, shape.view()));
  if (self->numel() == 0) return Status::ok();
  const int64_t picks = self->rank() > 0 ? k : 1;  // a 0-dim self always gives its element

  std::array<bool, kMaxRank> mask{};
  if (self->rank() > 0) mask[dim] = true;
  ReducePlan p;
  build_plan(*self, mask, true, p);
  const int64_t v_step = self->rank() > 0 ? values->strides()[dim] : 0;
  const int64_t i_step = self->rank() > 0 ? indices->strides()[dim] : 0;
  int64_t* index_data = static_cast<int64_t*>(indices->data());
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<2>(p, {p.out_strides(*values), p.out_strides(*indices)},
                          [&](auto offs, const ReduceCursor& c) {
      C prev_v{};
      int64_t prev_i = -1;
      for (int64_t r = 0; r < picks; ++r) {
        C best_v{};
        int64_t best_i = -1;
        c.each([&](int64_t j, int64_t off) {
          const C v = load_elem<C>(self->data(), self->dtype(), off);
          if (prev_i >= 0 && !ranks_before(prev_v, prev_i, v, j, largest)) return;
          if (best_i < 0 || ranks_before(v, j, best_v, best_i, largest)) {
            best_v = v;
            best_i = j;
          }
        });
        store_elem<C>(values->data(), values->dtype(), offs[0] + r * v_step, best_v);
        index_data[offs[1] + r * i_step] = best_i;
        prev_v = best_v;
        prev_i = best_i;
      }
    });
    return Status::ok();
  });
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::topk.values", topk_values);

}  // namespace vkrt::portable
