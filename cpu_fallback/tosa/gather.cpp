// GATHER and SCATTER (tosa.md §10): row gathers/scatters along K of [N,K,C] by int32 indices.
#include <cstring>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {

using namespace detail;

Status check_gather(const TensorRef& values, const TensorRef& indices, const TensorRef& output) {
  constexpr const char* op = "GATHER";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "values", values));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "indices", indices));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "values", values, 3));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "indices", indices, 2));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "indices", indices, DType::Int32));
  const DType t = values.dtype;
  if (t != DType::Int8 && t != DType::Int16 && t != DType::Int32 && t != DType::Fp32 &&
      t != DType::Fp16 && t != DType::Bf16 && t != DType::Bool)
    return make_error(Error::NotSupported, op, ": values dtype ", dtype_name(t), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, t));
  if (indices.dim(0) != values.dim(0))
    return make_error(Error::InvalidArgument, op, ": indices batch ", indices.dim(0), " differs from values batch ",
                      values.dim(0));
  const int64_t expected[3] = {values.dim(0), indices.dim(1), values.dim(2)};
  return expect_shape(op, "output", output, expected);
}

Status gather(const TensorRef& values, const TensorRef& indices, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_gather(values, indices, output));
  const int64_t N = values.dim(0), K = values.dim(1), C = values.dim(2), W = indices.dim(1);
  const size_t row_bytes = size_t(C) * dtype_size(values.dtype);
  const auto* src = values.as<const uint8_t>();
  auto* dst = output.as<uint8_t>();
  const int32_t* idx = indices.as<const int32_t>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t w = 0; w < W; ++w) {
      const int32_t k = idx[n * W + w];
      // TOSA REQUIREs 0 <= k < K; an index from a file is not trusted.
      if (k < 0 || k >= K)
        return make_error(Error::InvalidArgument, "GATHER: index ", k, " at [", n, ",", w,
                          "] outside [0, ", K, ")");
      if (row_bytes) std::memcpy(dst + size_t(n * W + w) * row_bytes, src + size_t(n * K + k) * row_bytes, row_bytes);
    }
  return Status::ok();
}

Status check_scatter(const TensorRef& values_in, const TensorRef& indices, const TensorRef& input,
                     const TensorRef& output) {
  constexpr const char* op = "SCATTER";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "values_in", values_in));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "indices", indices));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "values_in", values_in, 3));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "indices", indices, 2));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "indices", indices, DType::Int32));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "input", input, values_in.dtype));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, values_in.dtype));
  const int64_t expected_input[3] = {values_in.dim(0), indices.dim(1), values_in.dim(2)};
  if (indices.dim(0) != values_in.dim(0))
    return make_error(Error::InvalidArgument, op, ": indices batch ", indices.dim(0), " differs from values_in batch ",
                      values_in.dim(0));
  VKRT_RETURN_IF_ERROR(expect_shape(op, "input", input, expected_input));
  return expect_same_shape(op, "output", output, values_in);
}

Status scatter(const TensorRef& values_in, const TensorRef& indices, const TensorRef& input,
               const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_scatter(values_in, indices, input, output));
  const int64_t N = values_in.dim(0), K = values_in.dim(1), C = values_in.dim(2), W = indices.dim(1);
  const size_t row_bytes = size_t(C) * dtype_size(values_in.dtype);
  const int32_t* idx = indices.as<const int32_t>();
  // Validate every index before writing anything, so an error leaves the output untouched.
  for (int64_t i = 0; i < N * W; ++i)
    if (idx[i] < 0 || idx[i] >= K)
      return make_error(Error::InvalidArgument, "SCATTER: index ", idx[i], " at [", i / W, ",", i % W,
                        "] outside [0, ", K, ")");
  const size_t total = size_t(N * K) * row_bytes;
  if (total && output.data != values_in.data) std::memmove(output.data, values_in.data, total);
  const auto* src = input.as<const uint8_t>();
  auto* dst = output.as<uint8_t>();
  if (row_bytes)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t w = 0; w < W; ++w)
        std::memcpy(dst + size_t(n * K + idx[n * W + w]) * row_bytes, src + size_t(n * W + w) * row_bytes, row_bytes);
  return Status::ok();
}

}  // namespace vkrt::tosa
