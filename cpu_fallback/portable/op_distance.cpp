// Pairwise distances: aten::_cdist_forward.out and aten::_pdist_forward.out.
//
// Schemas:
//   _cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out) -> 6
//   _pdist_forward.out(Tensor self, float p=2, *, Tensor(a!) out)                           -> 4
// As upstream: floating dtypes only, inputs and out of one dtype; p >= 0; compute_mode None
// or 0..2 (every mode computes directly). cdist: x1 [..., P, M], x2 [..., R, M] with
// broadcasting batch dims -> out [batch..., P, R]. pdist: self [N, M] -> out [N*(N-1)/2],
// the upper triangle row by row. Norms: p = 0 counts differing coordinates, 1 sums |d|,
// 2 is Euclidean, inf takes the max |d| (a NaN difference is skipped there, as upstream's
// std::max does), any other p is (sum |d|^p)^(1/p). Computed in double.
#include <cmath>

#include "reduce_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// The p-norm of the difference of two rows of m elements (each read with its own step).
struct Norm {
  double p;
  double distance(const Tensor& a, int64_t a_off, const Tensor& b, int64_t b_off, int64_t step_a,
                  int64_t step_b, int64_t m) const {
    double agg = 0;
    for (int64_t k = 0; k < m; ++k) {
      const double d = std::fabs(load_elem<double>(a.data(), a.dtype(), a_off + k * step_a) -
                                 load_elem<double>(b.data(), b.dtype(), b_off + k * step_b));
      if (p == 0.0) agg += d == 0 ? 0.0 : 1.0;
      else if (p == 1.0) agg += d;
      else if (p == 2.0) agg += d * d;
      else if (std::isinf(p)) agg = agg < d ? d : agg;
      else agg += std::pow(d, p);
    }
    if (p == 0.0 || p == 1.0 || std::isinf(p)) return agg;
    if (p == 2.0) return std::sqrt(agg);
    return std::pow(agg, 1.0 / p);
  }
};

Status check_p(const KernelArgs& a, size_t i, double p) {
  if (p >= 0) return Status::ok();
  return a.error(i, "p", "must be non-negative, got " + std::to_string(p));
}

Status cdist_forward_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_cdist_forward.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * x1, tensor_arg(a, 0, "x1"));
  VKRT_ASSIGN_OR_RETURN(Tensor * x2, tensor_arg(a, 1, "x2"));
  VKRT_ASSIGN_OR_RETURN(double p, a.double_value(2, "p"));
  VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> mode, optional_int_arg(a, 3, "compute_mode"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "x1", *x1));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "x2", *x2, x1->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 4, "out", *out, x1->dtype()));
  if (x1->rank() < 2) return a.error(0, "x1", "expected rank >= 2, got " + std::to_string(x1->rank()));
  if (x2->rank() < 2) return a.error(1, "x2", "expected rank >= 2, got " + std::to_string(x2->rank()));
  const int r1 = x1->rank(), r2 = x2->rank();
  const int64_t m = x1->size(r1 - 1);
  if (x2->size(r2 - 1) != m) {
    return a.error(1, "x2", "last dim " + std::to_string(x2->size(r2 - 1)) + " differs from x1's " +
                                std::to_string(m));
  }
  VKRT_RETURN_IF_ERROR(check_p(a, 2, p));
  if (mode && (*mode < 0 || *mode > 2)) {
    return a.error(3, "compute_mode", "must be 0, 1 or 2, got " + std::to_string(*mode));
  }
  Shape batch;
  if (!broadcast_shapes(x1->sizes().first(size_t(r1 - 2)), x2->sizes().first(size_t(r2 - 2)), batch) ||
      batch.rank + 2 > kMaxRank) {
    return a.error(1, "x2", "batch dims " + shape_string(x2->sizes().first(size_t(r2 - 2))) +
                                " do not broadcast with x1's " + shape_string(x1->sizes().first(size_t(r1 - 2))));
  }
  const int64_t rows1 = x1->size(r1 - 2), rows2 = x2->size(r2 - 2);
  Shape out_shape = batch;
  out_shape.dims[out_shape.rank++] = int32_t(rows1);
  out_shape.dims[out_shape.rank++] = int32_t(rows2);
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, out_shape.view()));
  if (out->numel() == 0) return Status::ok();

  // Batch strides of each operand, broadcast to the batch shape (aligned from the right).
  std::array<Strides, 3> s{};
  for (int d = 0; d < batch.rank; ++d) {
    s[0][d] = out->strides()[d];
    const int d1 = d - (batch.rank - (r1 - 2)), d2 = d - (batch.rank - (r2 - 2));
    s[1][d] = (d1 >= 0 && x1->size(d1) != 1) ? x1->strides()[d1] : 0;
    s[2][d] = (d2 >= 0 && x2->size(d2) != 1) ? x2->strides()[d2] : 0;
  }
  const Norm norm{p};
  const int ro = out->rank();
  StridedWalker<3> w(batch.view(), s);
  for (int64_t b = 0; b < batch.numel(); ++b, w.next()) {
    for (int64_t i = 0; i < rows1; ++i) {
      for (int64_t j = 0; j < rows2; ++j) {
        const double dist = norm.distance(*x1, w.offset(1) + i * x1->strides()[r1 - 2], *x2,
                                          w.offset(2) + j * x2->strides()[r2 - 2], x1->strides()[r1 - 1],
                                          x2->strides()[r2 - 1], m);
        store_elem<double>(out->data(), out->dtype(),
                           w.offset(0) + i * out->strides()[ro - 2] + j * out->strides()[ro - 1], dist);
      }
    }
  }
  return Status::ok();
}

Status pdist_forward_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::_pdist_forward.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(double p, a.double_value(1, "p"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "self", *self));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  if (self->rank() != 2) return a.error(0, "self", "expected rank 2, got " + std::to_string(self->rank()));
  VKRT_RETURN_IF_ERROR(check_p(a, 1, p));
  const int64_t n = self->size(0), m = self->size(1);
  const int64_t pairs = n * (n - 1) / 2;
  if (pairs > INT32_MAX) return a.error(0, "self", "too many rows");
  const int32_t out_size[1] = {int32_t(pairs)};
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, out_size));
  const Norm norm{p};
  const int64_t row = self->strides()[0], col = self->strides()[1], step = out->strides()[0];
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j, ++o) {
      store_elem<double>(out->data(), out->dtype(), o * step,
                         norm.distance(*self, i * row, *self, j * row, col, col, m));
    }
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::_cdist_forward.out", cdist_forward_out);
VKRT_REGISTER_KERNEL("aten::_pdist_forward.out", pdist_forward_out);

}  // namespace vkrt::portable
