// Accumulating reductions: sum, mean, prod, var, var_mean.
//
// Schemas (argument count includes the out tensor(s) and the return slot):
//   sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//                   Tensor(a!) out)                                                   -> 6
//   mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
//            Tensor(a!) out)                                                          -> 6
//   mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)            -> 4
//   prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)                  -> 4
//   prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
//                Tensor(a!) out)                                                      -> 6
//   var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *,
//           Tensor(a!) out)                                                           -> 6
//   var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                      bool keepdim=False, Tensor(a!) out)                            -> 6
//   var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//                           bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1)     -> 7
// dim None or [] reduces every dim. A given dtype must equal out's dtype.
// sum: any dtype in and out; floating sums accumulate in double, integral ones in int64
//   (wrapping), then convert to out's dtype; a bool out accumulates as "any nonzero".
// mean: out floating; without dtype self must be floating too (as upstream); accumulates in
//   double; the mean of nothing is NaN.
// prod: multiplies in out's compute type (ints wrap). prod.out's out must be int64 for an
//   integral or bool self and self's dtype otherwise (unless dtype is given); prod.int_out
//   accepts any out dtype (as upstream). The product of nothing is 1.
// var / var_mean: floating self and outs (var_mean's two outs share one dtype); two passes
//   in double; denominator N - correction (correction 1 by default, unbiased -> 1 or 0).
//   Where N is 0 or the denominator is <= 0 every result is NaN (upstream; PyTorch gives inf
//   or NaN there). out0 is the variance, out1 the mean.
#include <cmath>

#include "reduce_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// sum and mean over a dim list.
Status sum_mean_kernel(const char* name, bool is_mean, bool has_dim, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  // With a dim list: self, dim, keepdim, dtype, out; mean.dtype_out: self, dtype, out.
  const size_t dtype_i = has_dim ? 3 : 1, out_i = has_dim ? 4 : 2;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_i + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  bool keepdim = false;
  if (has_dim) {
    VKRT_ASSIGN_OR_RETURN(keepdim, a.bool_value(2, "keepdim"));
  }
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, dtype_i, "dtype"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_i, "out"));
  VKRT_RETURN_IF_ERROR(check_dtype_matches_out(a, dtype_i, "dtype", dtype, *out));
  if (is_mean) {
    VKRT_RETURN_IF_ERROR(expect_float_dtype(a, out_i, "out", *out));
    if (!dtype) VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "self", *self));
  }
  ReducePlan p;
  if (has_dim) {
    VKRT_RETURN_IF_ERROR(dim_list_plan(a, 1, "dim", *self, keepdim, DimListMode::kEmptyIsAll, p));
  } else {
    std::array<bool, kMaxRank> all{};
    all.fill(true);
    build_plan(*self, all, false, p);
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_i, "out", *out, p.out_shape.view()));

  const bool integral = !is_float_dtype(out->dtype()) && !is_float_dtype(self->dtype());
  const int64_t n = p.reduced_count();
  auto run = [&]<typename Acc>() -> Status {
    for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
      Acc acc = 0;
      c.each([&](int64_t, int64_t off) {
        acc = wrapping_add(acc, load_elem<Acc>(self->data(), self->dtype(), off));
      });
      if constexpr (std::is_floating_point_v<Acc>) {
        if (is_mean) acc /= Acc(n);
      }
      store_elem<Acc>(out->data(), out->dtype(), offs[0], acc);
    });
    return Status::ok();
  };
  // A bool out accumulates in bool (or), as upstream's sum in the out type does.
  if (!is_mean && out->dtype() == ScalarType::Bool) return run.template operator()<bool>();
  return (integral && !is_mean) ? run.template operator()<int64_t>() : run.template operator()<double>();
}

// prod.out (no dim) and prod.int_out.
Status prod_kernel(const char* name, bool has_dim, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const size_t dtype_i = has_dim ? 3 : 1, out_i = has_dim ? 4 : 2;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_i + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  bool keepdim = false;
  if (has_dim) {
    VKRT_ASSIGN_OR_RETURN(keepdim, a.bool_value(2, "keepdim"));
  }
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, dtype_i, "dtype"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_i, "out"));
  VKRT_RETURN_IF_ERROR(check_dtype_matches_out(a, dtype_i, "dtype", dtype, *out));
  ReducePlan p;
  if (has_dim) {
    VKRT_RETURN_IF_ERROR(single_dim_plan(a, 1, "dim", *self, keepdim, false, p));
  } else {
    if (!dtype) {
      const ScalarType want = is_float_dtype(self->dtype()) ? self->dtype() : ScalarType::Long;
      VKRT_RETURN_IF_ERROR(expect_dtype(a, out_i, "out", *out, want));
    }
    std::array<bool, kMaxRank> all{};
    all.fill(true);
    build_plan(*self, all, false, p);
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_i, "out", *out, p.out_shape.view()));
  return with_compute_type(out->dtype(), [&]<typename C>() -> Status {
    for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
      C acc = C(1);
      c.each([&](int64_t, int64_t off) {
        acc = wrapping_mul(acc, load_elem<C>(self->data(), self->dtype(), off));
      });
      store_elem<C>(out->data(), out->dtype(), offs[0], acc);
    });
    return Status::ok();
  });
}

enum class VarForm { kUnbiased, kCorrection, kVarMean };

Status var_kernel(const char* name, VarForm form, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const bool two_outs = form == VarForm::kVarMean;
  VKRT_RETURN_IF_ERROR(expect_args(a, two_outs ? 7 : 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  double correction = 1.0;
  if (form == VarForm::kUnbiased) {
    VKRT_ASSIGN_OR_RETURN(bool unbiased, a.bool_value(2, "unbiased"));
    correction = unbiased ? 1.0 : 0.0;
  } else {
    VKRT_ASSIGN_OR_RETURN(std::optional<Scalar> c, optional_scalar_arg(a, 2, "correction"));
    if (c) correction = c->to_double();
  }
  VKRT_ASSIGN_OR_RETURN(bool keepdim, a.bool_value(3, "keepdim"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, two_outs ? "out0" : "out"));
  Tensor* mean_out = nullptr;
  if (two_outs) {
    VKRT_ASSIGN_OR_RETURN(mean_out, tensor_arg(a, 5, "out1"));
  }
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 4, two_outs ? "out0" : "out", *out));
  if (mean_out) VKRT_RETURN_IF_ERROR(expect_dtype(a, 5, "out1", *mean_out, out->dtype()));
  ReducePlan p;
  VKRT_RETURN_IF_ERROR(dim_list_plan(a, 1, "dim", *self, keepdim, DimListMode::kEmptyIsAll, p));
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, two_outs ? "out0" : "out", *out, p.out_shape.view()));
  if (mean_out) VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out1", *mean_out, p.out_shape.view()));

  const int64_t n = p.reduced_count();
  const double denom = double(n) - correction;
  const bool all_nan = n == 0 || !(denom > 0);
  const Strides mean_strides = mean_out ? p.out_strides(*mean_out) : Strides{};
  for_each_reduction<2>(p, {p.out_strides(*out), mean_strides}, [&](auto offs, const ReduceCursor& c) {
    double var = NAN, mean = NAN;
    if (!all_nan) {
      double sum = 0;
      c.each([&](int64_t, int64_t off) { sum += load_elem<double>(self->data(), self->dtype(), off); });
      mean = sum / double(n);
      double sq = 0;
      c.each([&](int64_t, int64_t off) {
        const double d = load_elem<double>(self->data(), self->dtype(), off) - mean;
        sq += d * d;
      });
      var = sq / denom;
    }
    store_elem<double>(out->data(), out->dtype(), offs[0], var);
    if (mean_out) store_elem<double>(mean_out->data(), mean_out->dtype(), offs[1], mean);
  });
  return Status::ok();
}

Status sum_out(KernelContext&, std::span<EValue* const> args) {
  return sum_mean_kernel("aten::sum.IntList_out", false, true, args);
}
Status mean_out(KernelContext&, std::span<EValue* const> args) {
  return sum_mean_kernel("aten::mean.out", true, true, args);
}
Status mean_dtype_out(KernelContext&, std::span<EValue* const> args) {
  return sum_mean_kernel("aten::mean.dtype_out", true, false, args);
}
Status prod_out(KernelContext&, std::span<EValue* const> args) {
  return prod_kernel("aten::prod.out", false, args);
}
Status prod_int_out(KernelContext&, std::span<EValue* const> args) {
  return prod_kernel("aten::prod.int_out", true, args);
}
Status var_out(KernelContext&, std::span<EValue* const> args) {
  return var_kernel("aten::var.out", VarForm::kUnbiased, args);
}
Status var_correction_out(KernelContext&, std::span<EValue* const> args) {
  return var_kernel("aten::var.correction_out", VarForm::kCorrection, args);
}
Status var_mean_correction_out(KernelContext&, std::span<EValue* const> args) {
  return var_kernel("aten::var_mean.correction_out", VarForm::kVarMean, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::sum.IntList_out", sum_out);
VKRT_REGISTER_KERNEL("aten::mean.out", mean_out);
VKRT_REGISTER_KERNEL("aten::mean.dtype_out", mean_dtype_out);
VKRT_REGISTER_KERNEL("aten::prod.out", prod_out);
VKRT_REGISTER_KERNEL("aten::prod.int_out", prod_int_out);
VKRT_REGISTER_KERNEL("aten::var.out", var_out);
VKRT_REGISTER_KERNEL("aten::var.correction_out", var_correction_out);
VKRT_REGISTER_KERNEL("aten::var_mean.correction_out", var_mean_correction_out);

}  // namespace vkrt::portable
