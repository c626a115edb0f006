// Selecting reductions: amax, amin, max/min (with indices and unary), argmax, argmin, any.
//
// Schemas (argument count includes the out tensor(s) and the return slot):
//   amax.out / amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> 5
//   max.dim_max / min.dim_min(Tensor self, int dim, bool keepdim=False, *,
//                             Tensor(a!) max, Tensor(b!) max_values)  (values, indices) -> 6
//   max.unary_out / min.unary_out(Tensor self, *, Tensor(a!) out)                        -> 3
//   argmax.out / argmin.out(Tensor self, int? dim=None, bool keepdim=False, *,
//                           Tensor(a!) out)                                              -> 5
//   any.all_out(Tensor self, *, Tensor(a!) out)                                          -> 3
//   any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)    -> 5
//   any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)                 -> 5
// As upstream's portable kernels:
// - amax/amin, max/min.dim: every supported dtype (bool included); the values out has self's
//   dtype, indices int64. NaN wins (the first NaN for indices). Ties keep the first index.
//   Reducing an empty dim into a non-empty out is an error.
// - max/min.unary_out: out 0-dim of any dtype self casts to (can_cast); computed in out's
//   dtype; the first NaN wins; an empty self gives -inf / +inf (lowest / highest for
//   integral outs) where PyTorch raises.
// - argmax/argmin: every supported dtype but bool; out int64; dim None = the flat index
//   over every dim. NaN wins (first NaN).
// - any: every supported dtype in; out bool or uint8. any.dims_out with dim [] reduces
//   nothing (out = self != 0); dim None reduces every dim.
#include <cmath>
#include <limits>

#include "reduce_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// True when `v` should replace the running extreme `acc` (is_max: larger; NaN wins and
// stays).
template <typename C>
inline bool better(C v, C acc, bool is_max) {
  if (is_nan(acc)) return false;
  if (is_nan(v)) return true;
  return is_max ? v > acc : v < acc;
}

// Fold over the reduced elements: the winning value and its index k.
template <typename C>
inline void select_extreme(const Tensor& self, const ReduceCursor& c, bool is_max, C& best, int64_t& best_k) {
  bool first = true;
  c.each([&](int64_t k, int64_t off) {
    const C v = load_elem<C>(self.data(), self.dtype(), off);
    if (first || better(v, best, is_max)) {
      best = v;
      best_k = k;
      first = false;
    }
  });
}

Status empty_dim_error(const KernelArgs& a, size_t i, std::string_view name, const ReducePlan& p) {
  if (p.reduced_count() == 0 && p.kept_count() > 0) {
    return a.error(i, name, "cannot reduce over a dim of size 0 (the result would be empty of values)");
  }
  return Status::ok();
}

// amax / amin
Status amax_kernel(const char* name, bool is_max, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool keepdim, a.bool_value(2, "keepdim"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  ReducePlan p;
  VKRT_RETURN_IF_ERROR(dim_list_plan(a, 1, "dim", *self, keepdim, DimListMode::kEmptyIsAll, p));
  VKRT_RETURN_IF_ERROR(empty_dim_error(a, 1, "dim", p));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, p.out_shape.view()));
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
      C best{};
      int64_t k = 0;
      select_extreme<C>(*self, c, is_max, best, k);
      store_elem<C>(out->data(), out->dtype(), offs[0], best);
    });
    return Status::ok();
  });
}

// max.dim_max / min.dim_min
Status max_dim_kernel(const char* name, bool is_max, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const char* values_name = is_max ? "max" : "min";
  const char* indices_name = is_max ? "max_values" : "min_indices";
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool keepdim, a.bool_value(2, "keepdim"));
  VKRT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(a, 3, values_name));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 4, indices_name));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, values_name, *values, self->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 4, indices_name, *indices, ScalarType::Long));
  ReducePlan p;
  VKRT_RETURN_IF_ERROR(single_dim_plan(a, 1, "dim", *self, keepdim, false, p));
  VKRT_RETURN_IF_ERROR(empty_dim_error(a, 1, "dim", p));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, values_name, *values, p.out_shape.view()));
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, indices_name, *indices, p.out_shape.view()));
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<2>(p, {p.out_strides(*values), p.out_strides(*indices)},
                          [&](auto offs, const ReduceCursor& c) {
                            C best{};
                            int64_t k = 0;
                            select_extreme<C>(*self, c, is_max, best, k);
                            store_elem<C>(values->data(), values->dtype(), offs[0], best);
                            static_cast<int64_t*>(indices->data())[offs[1]] = k;
                          });
    return Status::ok();
  });
}

// max.unary_out / min.unary_out
Status max_unary_kernel(const char* name, bool is_max, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  if (!can_cast(self->dtype(), out->dtype())) {
    return a.error(1, "out", std::string("cannot cast ") + scalar_type_name(self->dtype()) + " to " +
                                 scalar_type_name(out->dtype()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 1, "out", *out, {}));
  std::array<bool, kMaxRank> all{};
  all.fill(true);
  ReducePlan p;
  build_plan(*self, all, false, p);
  return with_compute_type(out->dtype(), [&]<typename C>() -> Status {
    using L = std::numeric_limits<C>;
    C best = is_max ? (L::has_infinity ? -L::infinity() : L::lowest())
                    : (L::has_infinity ? L::infinity() : L::max());
    // The compute value of an element as out's dtype holds it (half/bfloat16 rounding).
    auto as_out = [&](C v) {
      if (out->dtype() == ScalarType::Half) return C(half_to_float(float_to_half(convert<float>(v))));
      if (out->dtype() == ScalarType::BFloat16) return C(bfloat16_to_float(float_to_bfloat16(convert<float>(v))));
      return v;
    };
    const ReduceCursor c{&p, 0};
    c.each([&](int64_t, int64_t off) {
      if (is_nan(best)) return;
      const C v = as_out(load_elem<C>(self->data(), self->dtype(), off));
      if (is_nan(v) || (is_max ? v > best : v < best)) best = v;
    });
    store_elem<C>(out->data(), out->dtype(), 0, best);
    return Status::ok();
  });
}

// argmax / argmin
Status argmax_kernel(const char* name, bool is_max, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool keepdim, a.bool_value(2, "keepdim"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  if (self->dtype() == ScalarType::Bool) return a.error(0, "self", "bool is not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, ScalarType::Long));
  ReducePlan p;
  VKRT_RETURN_IF_ERROR(single_dim_plan(a, 1, "dim", *self, keepdim, true, p));
  if (p.reduced_count() == 0) return a.error(0, "self", "cannot take the arg extreme of an empty reduction");
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, p.out_shape.view()));
  return with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
      C best{};
      int64_t k = 0;
      select_extreme<C>(*self, c, is_max, best, k);
      static_cast<int64_t*>(out->data())[offs[0]] = k;
    });
    return Status::ok();
  });
}

enum class AnyForm { kAll, kDims, kDim };

Status any_kernel(const char* name, AnyForm form, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const size_t out_i = form == AnyForm::kAll ? 1 : 3;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_i + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  bool keepdim = false;
  if (form != AnyForm::kAll) {
    VKRT_ASSIGN_OR_RETURN(keepdim, a.bool_value(2, "keepdim"));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_i, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype_in(a, out_i, "out", *out, {ScalarType::Bool, ScalarType::Byte}, "bool or uint8"));
  ReducePlan p;
  if (form == AnyForm::kAll) {
    std::array<bool, kMaxRank> all{};
    all.fill(true);
    build_plan(*self, all, false, p);
  } else if (form == AnyForm::kDims) {
    VKRT_RETURN_IF_ERROR(dim_list_plan(a, 1, "dim", *self, keepdim, DimListMode::kEmptyIsNone, p));
  } else {
    VKRT_RETURN_IF_ERROR(single_dim_plan(a, 1, "dim", *self, keepdim, false, p));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_i, "out", *out, p.out_shape.view()));
  for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
    bool any = false;
    c.each([&](int64_t, int64_t off) { any = any || load_elem<bool>(self->data(), self->dtype(), off); });
    store_elem<bool>(out->data(), out->dtype(), offs[0], any);
  });
  return Status::ok();
}

Status amax_out(KernelContext&, std::span<EValue* const> args) { return amax_kernel("aten::amax.out", true, args); }
Status amin_out(KernelContext&, std::span<EValue* const> args) { return amax_kernel("aten::amin.out", false, args); }
Status max_dim_max(KernelContext&, std::span<EValue* const> args) {
  return max_dim_kernel("aten::max.dim_max", true, args);
}
Status min_dim_min(KernelContext&, std::span<EValue* const> args) {
  return max_dim_kernel("aten::min.dim_min", false, args);
}
Status max_unary_out(KernelContext&, std::span<EValue* const> args) {
  return max_unary_kernel("aten::max.unary_out", true, args);
}
Status min_unary_out(KernelContext&, std::span<EValue* const> args) {
  return max_unary_kernel("aten::min.unary_out", false, args);
}
Status argmax_out(KernelContext&, std::span<EValue* const> args) {
  return argmax_kernel("aten::argmax.out", true, args);
}
Status argmin_out(KernelContext&, std::span<EValue* const> args) {
  return argmax_kernel("aten::argmin.out", false, args);
}
Status any_all_out(KernelContext&, std::span<EValue* const> args) {
  return any_kernel("aten::any.all_out", AnyForm::kAll, args);
}
Status any_dims_out(KernelContext&, std::span<EValue* const> args) {
  return any_kernel("aten::any.dims_out", AnyForm::kDims, args);
}
Status any_out(KernelContext&, std::span<EValue* const> args) { return any_kernel("aten::any.out", AnyForm::kDim, args); }

}  // namespace

VKRT_REGISTER_KERNEL("aten::amax.out", amax_out);
VKRT_REGISTER_KERNEL("aten::amin.out", amin_out);
VKRT_REGISTER_KERNEL("aten::max.dim_max", max_dim_max);
VKRT_REGISTER_KERNEL("aten::min.dim_min", min_dim_min);
VKRT_REGISTER_KERNEL("aten::max.unary_out", max_unary_out);
VKRT_REGISTER_KERNEL("aten::min.unary_out", min_unary_out);
VKRT_REGISTER_KERNEL("aten::argmax.out", argmax_out);
VKRT_REGISTER_KERNEL("aten::argmin.out", argmin_out);
VKRT_REGISTER_KERNEL("aten::any.all_out", any_all_out);
VKRT_REGISTER_KERNEL("aten::any.dims_out", any_dims_out);
VKRT_REGISTER_KERNEL("aten::any.out", any_out);

}  // namespace vkrt::portable
