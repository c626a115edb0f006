// MATMUL (tosa.md §6): A [N,H,C] x B [N,C,W] -> [N,H,W].
// int8 -> int32 (wraps modulo 2^32), int16 -> int48 (clamped), fp32 -> fp32.
//
// Each batch is one GEMM of the compute core: H rows of A by W columns over a depth of C. The
// int8 GEMM reads B as rows of depth ([W][C], a fully connected layer's weights), so each batch's
// B is transposed into the scratch first (C·W bytes against H·C·W multiply-adds); the zero points
// are its offsets (−zp), its int32 sums wrap as the definition's do. The fp32 GEMM reads B as it
// is, and so does the int16 one (compute/gemm_s16.h, which packs it per call; int48 sums, no
// zero points for int16).
#include <algorithm>
#include <cstring>

#include "compute/exec.h"
#include "compute/gemm_f32.h"
#include "compute/gemm_s16.h"
#include "compute/gemm_s8.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "MATMUL";

template <typename TIn, typename TOut, typename Finish>
void matmul_impl(const TensorRef& A, const TensorRef& B, const MatmulAttr& attrs, const TensorRef& out,
                 Finish finish) {
  using Acc = std::conditional_t<std::is_same_v<TIn, float>, float, int64_t>;
  const TIn* a = A.as<const TIn>();
  const TIn* b = B.as<const TIn>();
  TOut* o = out.as<TOut>();
  const int64_t N = A.dim(0), H = A.dim(1), C = A.dim(2), W = B.dim(2);
  const Acc a_zp = Acc(attrs.a_zp), b_zp = Acc(attrs.b_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) {
        Acc acc = 0;
        for (int64_t c = 0; c < C; ++c) {
          const Acc p = (Acc(a[(n * H + h) * C + c]) - a_zp) * (Acc(b[(n * C + c) * W + w]) - b_zp);
          if constexpr (std::is_same_v<Acc, float>) acc += p;
          else acc = int64_t(uint64_t(acc) + uint64_t(p));  // wraps instead of overflowing
        }
        o[(n * H + h) * W + w] = finish(acc);
      }
}

// Batch n of an int8 MATMUL as the int8 GEMM takes it (B transposed into `bt`).
compute::GemmS8 int8_gemm(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output,
                          int64_t n, const int8_t* bt) {
  const int64_t H = a.dim(1), C = a.dim(2), W = b.dim(2);
  compute::GemmS8 g;
  g.m = H, g.n = int32_t(W), g.k = int32_t(C);
  g.a = a.data ? a.as<const int8_t>() + n * H * C : nullptr, g.a_stride = C;
  g.b = bt, g.b_stride = C;
  g.a_offset = -attrs.a_zp, g.b_offset = -attrs.b_zp;
  g.c32 = output.data ? output.as<int32_t>() + n * H * W : nullptr, g.c_stride = W;
  return g;
}

// Batch n of an int16 MATMUL as the int16 GEMM takes it: B read in place, int48 sums out.
compute::GemmS16 int16_gemm(const TensorRef& a, const TensorRef& b, const TensorRef& output, int64_t n) {
  const int64_t H = a.dim(1), C = a.dim(2), W = b.dim(2);
  compute::GemmS16 g;
  g.m = H, g.n = int32_t(W), g.k = int32_t(C);
  g.a = a.data ? a.as<const int16_t>() + n * H * C : nullptr, g.a_stride = C;
  g.b = b.data ? b.as<const int16_t>() + n * C * W : nullptr, g.b_column_stride = 1, g.b_depth_stride = W;
  g.out.stage = compute::S16OutputStage::kInt48;
  g.out.out64 = output.data ? output.as<int64_t>() + n * H * W : nullptr;
  return g;
}

// Whether the GEMMs take these operands: their depth and columns are int32.
bool gemm_applies(const TensorRef& a, const TensorRef& b) {
  return a.dim(2) <= INT32_MAX && b.dim(2) <= INT32_MAX && a.dim(1) > 0 && a.dim(2) > 0 && b.dim(2) > 0;
}

size_t transposed_b_bytes(const TensorRef& b) { return (size_t(b.dim(1)) * size_t(b.dim(2)) + 63) / 64 * 64; }

// B [C][W] into [W][C], in 32x32 blocks so that both sides stay in cache.
void transpose_b(const int8_t* b, int64_t C, int64_t W, int8_t* bt) {
  constexpr int64_t kBlock = 32;
  for (int64_t c0 = 0; c0 < C; c0 += kBlock)
    for (int64_t w0 = 0; w0 < W; w0 += kBlock) {
      const int64_t c1 = std::min(C, c0 + kBlock), w1 = std::min(W, w0 + kBlock);
      for (int64_t c = c0; c < c1; ++c)
        for (int64_t w = w0; w < w1; ++w) bt[w * C + c] = b[c * W + w];
    }
}

// Products of at most this many rows of A per batch run as rows of B scaled and summed into
// each output row, without the transpose: it costs a pass over B, more than one row's products
// (avx2, 512x512: a one-row product 4.2 GMAC/s this way, 2.4 through the transpose and the GEMM;
// at 8 and 16 rows this way 4.2, and 17 rows through the GEMM 28).
constexpr int64_t kRowsWithoutTranspose = 1;

// out[h][·] = Σ_c (a[h][c] − a_zp)·(b[c][·] − b_zp), int32 wrapping, a row of B at a time: the
// loop over W vectorises.
void int8_rows(const int8_t* a, const int8_t* b, int64_t H, int64_t C, int64_t W, const MatmulAttr& zp, int32_t* out) {
  for (int64_t h = 0; h < H; ++h) {
    uint32_t* row = reinterpret_cast<uint32_t*>(out + h * W);
    std::fill_n(row, W, 0u);
    for (int64_t c = 0; c < C; ++c) {
      const int32_t x = int32_t(a[h * C + c]) - zp.a_zp;
      const int8_t* bc = b + c * W;
      for (int64_t w = 0; w < W; ++w) row[w] += uint32_t(x * (int32_t(bc[w]) - zp.b_zp));
    }
  }
}

}  // namespace

Status check_matmul(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "A", a));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "B", b));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "A", a, 3));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "B", b, 3));
  DType want_out;
  switch (a.dtype) {
    case DType::Int8: want_out = DType::Int32; break;
    case DType::Int16: want_out = DType::Int48; break;
    case DType::Fp32: want_out = DType::Fp32; break;
    default:
      return make_error(Error::NotSupported, kOp, ": dtype ", dtype_name(a.dtype), " not supported (int8, int16, fp32)");
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "B", b, a.dtype));
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "output", output, want_out));
  VKRT_RETURN_IF_ERROR(check_zero_point(kOp, "A_zp", a.dtype, attrs.a_zp));
  VKRT_RETURN_IF_ERROR(check_zero_point(kOp, "B_zp", b.dtype, attrs.b_zp));
  if (b.dim(0) != a.dim(0) || b.dim(1) != a.dim(2))
    return make_error(Error::InvalidArgument, kOp, ": A ", shape_string(a.shape), " and B ", shape_string(b.shape),
                      " do not match ([N,H,C] x [N,C,W])");
  const int64_t expected[3] = {a.dim(0), a.dim(1), b.dim(2)};
  return expect_shape(kOp, "output", output, expected);
}

void detail::matmul_reference(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs,
                              const TensorRef& output) {
  switch (a.dtype) {
    case DType::Int8: matmul_impl<int8_t, int32_t>(a, b, attrs, output, [](int64_t v) { return wrap32(v); }); break;
    case DType::Int16: matmul_impl<int16_t, int64_t>(a, b, attrs, output, [](int64_t v) { return clamp_int48(v); }); break;
    default: matmul_impl<float, float>(a, b, attrs, output, [](float v) { return v; }); break;
  }
}

size_t matmul_scratch_bytes(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output,
                            int threads) {
  if (!check_matmul(a, b, attrs, output).is_ok() || !gemm_applies(a, b)) return 0;
  if (a.dtype == DType::Int16) return compute::gemm_s16_scratch_bytes(int16_gemm(a, b, TensorRef{}, 0), threads);
  if (a.dtype != DType::Int8 || a.dim(1) <= kRowsWithoutTranspose) return 0;
  return transposed_b_bytes(b) + compute::gemm_s8_scratch_bytes(int8_gemm(a, b, attrs, output, 0, nullptr), threads);
}

Status matmul(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output,
              ParallelRunner* runner, std::span<uint8_t> scratch) {
  VKRT_RETURN_IF_ERROR(check_matmul(a, b, attrs, output));
  const int64_t N = a.dim(0), H = a.dim(1), C = a.dim(2), W = b.dim(2);
  if (a.dtype == DType::Fp32 && H > 0 && W > 0) {
    const compute::Exec exec{{}, runner};
    for (int64_t n = 0; n < N; ++n) {
      compute::GemmF32 g;
      g.m = H, g.n = W, g.k = C;
      g.a = a.as<const float>() + n * H * C, g.lda = C;
      g.b = b.as<const float>() + n * C * W, g.ldb = W;
      g.c = output.as<float>() + n * H * W, g.ldc = W;
      compute::gemm_f32(g, exec);
    }
    return Status::ok();
  }
  if (a.dtype == DType::Int8 && H <= kRowsWithoutTranspose) {
    for (int64_t n = 0; n < N; ++n)
      int8_rows(a.as<const int8_t>() + n * H * C, b.as<const int8_t>() + n * C * W, H, C, W, attrs,
                output.as<int32_t>() + n * H * W);
    return Status::ok();
  }
  if (a.dtype == DType::Int16 && gemm_applies(a, b)) {  // its int64 loops without the scratch
    const compute::Exec exec{scratch, runner};
    for (int64_t n = 0; n < N; ++n) compute::gemm_s16(int16_gemm(a, b, output, n), exec);
    return Status::ok();
  }
  const size_t need = matmul_scratch_bytes(a, b, attrs, output, threads_of(runner));
  if (a.dtype == DType::Int8 && need > 0 && scratch.size() >= need) {
    auto* bt = reinterpret_cast<int8_t*>(scratch.data());
    const compute::Exec exec{scratch.subspan(transposed_b_bytes(b)), runner};
    for (int64_t n = 0; n < N; ++n) {
      transpose_b(b.as<const int8_t>() + n * C * W, C, W, bt);
      compute::gemm_s8(int8_gemm(a, b, attrs, output, n, bt), exec);
    }
    return Status::ok();
  }
  matmul_reference(a, b, attrs, output);
  return Status::ok();
}

}  // namespace vkrt::tosa
