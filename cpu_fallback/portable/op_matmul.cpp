// Matrix products: aten::addmm.out, aten::mm.out, aten::bmm.out.
//
// Schemas:
//   addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//             Tensor(a!) out)                                  -> 7 args
//   mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)        -> 4 args
//   bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)       -> 4 args
// addmm: out[n,p] = beta * self (broadcast to [n,p]) + alpha * (mat1[n,m] @ mat2[m,p]); self
// is always read, so with beta == 0 a NaN/inf in self still gives NaN, as ExecuTorch's portable
// kernel computes it (PyTorch skips self when beta == 0). All tensors share one dtype
// (floating or integral, not bool).
//
// Numerics. float32 products whose matrices are all contiguous row-major (default dim order)
// and whose out overlaps no operand run on the compute core's GEMM (compute/gemm_f32.h, with
// the method's threads): each element is a float accumulation, one fused multiply-add per
// depth in depth order, as upstream's portable vec_matmul accumulates in the element type
// (upstream: `sum += x * y` in float, unfused; addmm then `sum * alpha + self * beta` in float).
// The result is the same at every ISA level and thread count, and differs from a sum in
// double by at most k·2^-24·Σ|a·b| (float rounding of k steps). addmm's alpha and beta are
// applied in double to that float sum. Every other case (other dtypes, strided or permuted
// operands) reads operands through their strides and accumulates floating products in double,
// integral ones in int64 (wrapping).
#include "compute/context_runner.h"
#include "compute/exec.h"
#include "compute/gemm_f32.h"
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

struct Operand {
  size_t index;
  const char* name;
  const Tensor* tensor;
};

// Every operand must have self's dtype, and that dtype must not be bool.
Status check_matmul_dtypes(const KernelArgs& a, const Tensor& self, std::initializer_list<Operand> rest) {
  if (self.dtype() == ScalarType::Bool) return a.error(0, "self", "bool tensors are not supported");
  for (const Operand& op : rest) {
    if (op.tensor->dtype() != self.dtype()) {
      return a.error(op.index, op.name, std::string("dtype ") + scalar_type_name(op.tensor->dtype()) +
                                            " differs from self dtype " + scalar_type_name(self.dtype()));
    }
  }
  return Status::ok();
}

// out[b] = beta * bias + alpha * lhs[b] @ rhs[b] for b < batches; bias may be null.
template <typename Acc>
void matmul(const Tensor& lhs, const Tensor& rhs, Tensor& out, const Tensor* bias, const Strides& bias_strides,
            Acc alpha, Acc beta, bool batched) {
  const int o = batched ? 1 : 0;  // first matrix dim
  const int64_t batches = batched ? lhs.size(0) : 1;
  const int64_t n = lhs.size(o), m = lhs.size(o + 1), p = rhs.size(o + 1);
  const auto ls = lhs.strides(), rs = rhs.strides(), os = out.strides();
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t lb = batched ? b * ls[0] : 0, rb = batched ? b * rs[0] : 0, ob = batched ? b * os[0] : 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        Acc acc = 0;
        for (int64_t k = 0; k < m; ++k) {
          const Acc x = load_elem<Acc>(lhs.data(), lhs.dtype(), lb + i * ls[o] + k * ls[o + 1]);
          const Acc y = load_elem<Acc>(rhs.data(), rhs.dtype(), rb + k * rs[o] + j * rs[o + 1]);
          acc = wrapping_add(acc, wrapping_mul(x, y));
        }
        Acc result = wrapping_mul(alpha, acc);
        if (bias != nullptr) {
          const Acc c = load_elem<Acc>(bias->data(), bias->dtype(), i * bias_strides[0] + j * bias_strides[1]);
          result = wrapping_add(result, wrapping_mul(beta, c));
        }
        store_elem<Acc>(out.data(), out.dtype(), ob + i * os[o] + j * os[o + 1], result);
      }
    }
  }
}

bool overlaps(const Tensor& a, const Tensor& b) {
  const auto a0 = reinterpret_cast<uintptr_t>(a.data()), b0 = reinterpret_cast<uintptr_t>(b.data());
  return a.nbytes() > 0 && b.nbytes() > 0 && a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// The float32 product on compute::gemm_f32 (see the numerics above) when lhs, rhs and out are
// contiguous row-major and out overlaps neither them nor bias; false (nothing written) otherwise.
bool matmul_f32(KernelContext& ctx, const Tensor& lhs, const Tensor& rhs, Tensor& out, const Tensor* bias,
                const Strides& bias_strides, double alpha, double beta, bool batched) {
  if (lhs.dtype() != ScalarType::Float || !lhs.is_default_dim_order() || !rhs.is_default_dim_order() ||
      !out.is_default_dim_order() || out.numel() == 0)
    return false;
  if (overlaps(out, lhs) || overlaps(out, rhs) || (bias != nullptr && overlaps(out, *bias))) return false;
  const int o = batched ? 1 : 0;
  const int64_t batches = batched ? lhs.size(0) : 1;
  compute::GemmF32 g;
  g.m = lhs.size(o), g.k = lhs.size(o + 1), g.n = rhs.size(o + 1);
  g.lda = g.k, g.ldb = g.n, g.ldc = g.n;
  compute::ContextRunner threads(ctx);
  const compute::Exec exec{{}, &threads};
  float* c = out.data_as<float>();
  for (int64_t b = 0; b < batches; ++b) {
    g.a = lhs.data_as<const float>() + b * g.m * g.k;
    g.b = rhs.data_as<const float>() + b * g.k * g.n;
    g.c = c + b * g.m * g.n;
    compute::gemm_f32(g, exec);
  }
  if (bias != nullptr) {  // addmm (not batched): the same expression as the strided loop's
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        const double self = load_elem<double>(bias->data(), bias->dtype(), i * bias_strides[0] + j * bias_strides[1]);
        c[i * g.n + j] = float(alpha * double(c[i * g.n + j]) + beta * self);
      }
  }
  return true;
}

Status addmm_out(KernelContext& ctx, std::span<EValue* const> args) {
  KernelArgs a("aten::addmm.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 7));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mat1, tensor_arg(a, 1, "mat1"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mat2, tensor_arg(a, 2, "mat2"));
  VKRT_ASSIGN_OR_RETURN(Scalar beta, scalar_arg(a, 3, "beta"));
  VKRT_ASSIGN_OR_RETURN(Scalar alpha, scalar_arg(a, 4, "alpha"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 5, "out"));
  VKRT_RETURN_IF_ERROR(check_matmul_dtypes(a, *self, {{1, "mat1", mat1}, {2, "mat2", mat2}, {5, "out", out}}));
  if (mat1->rank() != 2) return a.error(1, "mat1", "expected a 2-D tensor, got shape " + shape_string(mat1->sizes()));
  if (mat2->rank() != 2) return a.error(2, "mat2", "expected a 2-D tensor, got shape " + shape_string(mat2->sizes()));
  if (mat1->size(1) != mat2->size(0)) {
    return a.error(2, "mat2", "shape " + shape_string(mat2->sizes()) + " cannot multiply mat1 shape " +
                                  shape_string(mat1->sizes()));
  }
  const int32_t result[2] = {mat1->size(0), mat2->size(1)};
  Shape bias_shape;
  if (self->rank() > 2 || !broadcast_shapes(self->sizes(), result, bias_shape) ||
      bias_shape.dims[0] != result[0] || bias_shape.dims[1] != result[1]) {
    return a.error(0, "self", "shape " + shape_string(self->sizes()) + " does not broadcast to " +
                                  shape_string(result));
  }
  if (!is_float_dtype(self->dtype()) && (alpha.is_floating() || beta.is_floating())) {
    return a.op_error(Error::InvalidArgument, "floating alpha/beta need a floating dtype");
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 5, "out", *out, result));
  const Strides bias_strides = broadcast_strides(*self, result);
  if (matmul_f32(ctx, *mat1, *mat2, *out, self, bias_strides, alpha.as<double>(), beta.as<double>(), false))
    return Status::ok();
  if (is_float_dtype(self->dtype())) {
    matmul<double>(*mat1, *mat2, *out, self, bias_strides, alpha.as<double>(),
                   beta.as<double>(), false);
  } else {
    matmul<int64_t>(*mat1, *mat2, *out, self, bias_strides, alpha.as<int64_t>(),
                    beta.as<int64_t>(), false);
  }
  return Status::ok();
}

Status mm_kernel(KernelContext& ctx, const char* name, bool batched, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * mat2, tensor_arg(a, 1, "mat2"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(check_matmul_dtypes(a, *self, {{1, "mat2", mat2}, {2, "out", out}}));
  const int rank = batched ? 3 : 2;
  if (self->rank() != rank) {
    return a.error(0, "self", "expected a " + std::to_string(rank) + "-D tensor, got shape " + shape_string(self->sizes()));
  }
  if (mat2->rank() != rank) {
    return a.error(1, "mat2", "expected a " + std::to_string(rank) + "-D tensor, got shape " + shape_string(mat2->sizes()));
  }
  const int o = batched ? 1 : 0;
  if (self->size(o + 1) != mat2->size(o) || (batched && self->size(0) != mat2->size(0))) {
    return a.error(1, "mat2", "shape " + shape_string(mat2->sizes()) + " cannot multiply self shape " +
                                  shape_string(self->sizes()));
  }
  Shape result;
  result.rank = rank;
  if (batched) result.dims[0] = self->size(0);
  result.dims[o] = self->size(o);
  result.dims[o + 1] = mat2->size(o + 1);
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, result.view()));
  if (matmul_f32(ctx, *self, *mat2, *out, nullptr, {}, 1.0, 0.0, batched)) return Status::ok();
  if (is_float_dtype(self->dtype())) {
    matmul<double>(*self, *mat2, *out, nullptr, {}, 1.0, 0.0, batched);
  } else {
    matmul<int64_t>(*self, *mat2, *out, nullptr, {}, 1, 0, batched);
  }
  return Status::ok();
}

Status mm_out(KernelContext& ctx, std::span<EValue* const> args) { return mm_kernel(ctx, "aten::mm.out", false, args); }
Status bmm_out(KernelContext& ctx, std::span<EValue* const> args) { return mm_kernel(ctx, "aten::bmm.out", true, args); }

}  // namespace

VKRT_REGISTER_KERNEL("aten::addmm.out", addmm_out);
VKRT_REGISTER_KERNEL("aten::mm.out", mm_out);
VKRT_REGISTER_KERNEL("aten::bmm.out", bmm_out);

}  // namespace vkrt::portable
