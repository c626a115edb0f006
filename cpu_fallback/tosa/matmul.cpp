// MATMUL (tosa.md §6): A [N,H,C] x B [N,C,W] -> [N,H,W].
// int8 -> int32 (wraps modulo 2^32), int16 -> int48 (clamped), fp32 -> fp32.
#include "cpu_fallback/tosa/conv_common.h"
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

Status matmul(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_matmul(a, b, attrs, output));
  switch (a.dtype) {
    case DType::Int8: matmul_impl<int8_t, int32_t>(a, b, attrs, output, [](int64_t v) { return wrap32(v); }); break;
    case DType::Int16: matmul_impl<int16_t, int64_t>(a, b, attrs, output, [](int64_t v) { return clamp_int48(v); }); break;
    default: matmul_impl<float, float>(a, b, attrs, output, [](float v) { return v; }); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
