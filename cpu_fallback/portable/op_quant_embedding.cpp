// quantized_decomposed::embedding_{byte,2bit,4bit}.{out,dtype_out} (ExecuTorch
// kernels/quantized/cpu/op_embedding.cpp, embeddingxb.cpp): rows of a quantized weight picked
// by `indices` and dequantized with per-row (or per-row-group) scales and zero points. One
// kernel for the three widths: only the weight element read differs.
//
// Schemas (+ out + the trailing return slot):
//   embedding_<w>.out(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//       int weight_quant_min, int weight_quant_max, Tensor indices, *, Tensor(a!) out)  -> 8 args
//   embedding_<w>.dtype_out(..., Tensor indices, ScalarType? dtype=None, *, Tensor(a!) out)
//                                                                                    -> 9 args
// weight: 2-D; byte: uint8 or int8 values; 2bit/4bit: uint8 holding 4 or 2 values per byte
// (2-bit: value k of a byte in bits 2k..2k+1, minus 2; 4-bit: the high nibble first, minus 8),
// so embedding_dim = weight.size(1) * (8 / bits). weight_scales: float32/float16/bfloat16,
// [num_rows] or [num_rows, groups] (groups divides embedding_dim); zero points (optional): the
// same shape, out's dtype. indices: int64 (byte) or int32/int64 (2bit/4bit), each in
// [0, num_rows) (upstream checks this for byte only; here it is an error for all).
// out: float32/float16/bfloat16 of shape indices.shape + [embedding_dim]; out[..., j] =
// (w[idx, j] - zp[idx, g]) * scale[idx, g] in float, g = j / (embedding_dim / groups).
// Upstream's .out reads scales and zero points as out's C type whatever their dtype; here
// every tensor is read as its own dtype (the same values whenever the dtypes agree).
#include <algorithm>

#include "quant_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

bool is_embedding_float(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16;
}

// Value `j` of a row of the weight (row element offset `row_offset`, column stride `col`).
float weight_value(const Tensor& w, int bits, int64_t row_offset, int64_t col, int64_t j) {
  if (bits == 8) return load_elem<float>(w.data(), w.dtype(), row_offset + j * col);
  const int per_byte = 8 / bits;
  const uint8_t byte = static_cast<const uint8_t*>(w.data())[row_offset + (j / per_byte) * col];
  if (bits == 4) return float(((j % 2) ? (byte & 0x0F) : (byte >> 4)) - 8);
  return float(((byte >> (2 * (j % 4))) & 3) - 2);
}

Status embedding_kernel(const char* name, int bits, bool has_dtype, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const size_t out_index = has_dtype ? 7 : 6;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_index + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 0, "weight"));
  VKRT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(a, 1, "weight_scales"));
  VKRT_ASSIGN_OR_RETURN(Tensor * zps, a.optional_tensor(2, "weight_zero_points"));
  VKRT_ASSIGN_OR_RETURN(int64_t qmin, a.int_value(3, "weight_quant_min"));
  VKRT_ASSIGN_OR_RETURN(int64_t qmax, a.int_value(4, "weight_quant_max"));
  VKRT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(a, 5, "indices"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  if (zps != nullptr) {
    VKRT_ASSIGN_OR_RETURN(zps, tensor_arg(a, 2, "weight_zero_points"));
  }

  if (weight->rank() != 2) return a.error(0, "weight", "expected 2 dims, got " + shape_string(weight->sizes()));
  const bool weight_ok = weight->dtype() == ScalarType::Byte || (bits == 8 && weight->dtype() == ScalarType::Char);
  if (!weight_ok) {
    return a.error(0, "weight", std::string(bits == 8 ? "expected dtype uint8 or int8" : "expected dtype uint8") +
                                    ", got " + dtype_str(weight->dtype()));
  }
  const int64_t rows = weight->size(0);
  const int64_t dim = int64_t(weight->size(1)) * (8 / bits);
  if (scales->rank() != 1 && scales->rank() != 2) {
    return a.error(1, "weight_scales", "expected 1 or 2 dims, got " + shape_string(scales->sizes()));
  }
  if (scales->size(0) != rows) {
    return a.error(1, "weight_scales", "expected " + std::to_string(rows) + " rows (weight.size(0)), got " +
                                           std::to_string(scales->size(0)));
  }
  const int64_t groups = scales->rank() == 2 ? scales->size(1) : 1;
  if (groups <= 0 || dim % groups != 0) {
    return a.error(1, "weight_scales", std::to_string(groups) + " groups do not divide embedding dim " +
                                           std::to_string(dim));
  }
  if (!is_embedding_float(out->dtype())) {
    return a.error(out_index, "out", "expected dtype float32, float16 or bfloat16, got " + dtype_str(out->dtype()));
  }
  if (!is_embedding_float(scales->dtype())) {
    return a.error(1, "weight_scales", "expected dtype float32, float16 or bfloat16, got " + dtype_str(scales->dtype()));
  }
  if (zps != nullptr) {
    if (!std::equal(zps->sizes().begin(), zps->sizes().end(), scales->sizes().begin(), scales->sizes().end())) {
      return a.error(2, "weight_zero_points", "shape " + shape_string(zps->sizes()) + " differs from weight_scales " +
                                                  shape_string(scales->sizes()));
    }
    VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "weight_zero_points", *zps, out->dtype()));
  }
  const bool indices_ok =
      indices->dtype() == ScalarType::Long || (bits != 8 && indices->dtype() == ScalarType::Int);
  if (!indices_ok) {
    return a.error(5, "indices", std::string(bits == 8 ? "expected dtype int64" : "expected dtype int32 or int64") +
                                     ", got " + dtype_str(indices->dtype()));
  }
  if (qmin > qmax) {
    return a.error(3, "weight_quant_min", "quant_min " + std::to_string(qmin) + " > quant_max " + std::to_string(qmax));
  }
  if (has_dtype) {
    VKRT_ASSIGN_OR_RETURN(std::optional<int64_t> dtype, optional_int_arg(a, 6, "dtype"));
    if (dtype && *dtype != int64_t(out->dtype())) {
      return a.error(6, "dtype", "dtype " + std::to_string(*dtype) + " differs from out dtype " + dtype_str(out->dtype()));
    }
  }
  if (indices->rank() + 1 > kMaxRank) return a.error(5, "indices", "too many dims");
  Shape shape = Shape::of(indices->sizes());
  shape.dims[shape.rank++] = int32_t(dim);
  if (dim > INT32_MAX) return a.error(0, "weight", "embedding dim too large");
  // Every index first, so that a bad one leaves out untouched.
  {
    StridedWalker<1> walk(indices->sizes(), {strides_of(*indices)});
    for (int64_t n = 0; n < indices->numel(); ++n, walk.next()) {
      const int64_t idx = load_elem<int64_t>(indices->data(), indices->dtype(), walk.offset(0));
      if (idx < 0 || idx >= rows) {
        return a.error(5, "indices", "index " + std::to_string(idx) + " out of range [0, " + std::to_string(rows) + ")");
      }
    }
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", *out, shape.view()));

  const int64_t group_size = dim / groups;
  Strides index_strides = strides_of(*indices);
  index_strides[indices->rank()] = 0;
  StridedWalker<2> walk(shape.view(), {strides_of(*out), index_strides});
  const int64_t col = weight->strides()[1];
  for (int64_t n = 0; n < out->numel(); ++n, walk.next()) {
    const int64_t j = n % dim;
    const int64_t row = load_elem<int64_t>(indices->data(), indices->dtype(), walk.offset(1));
    const int64_t g = j / group_size;
    const int64_t param = row * groups + g;
    const float scale = load_flat<float>(*scales, param);
    const float zp = zps != nullptr ? load_flat<float>(*zps, param) : 0.0f;
    const float w = weight_value(*weight, bits, row * weight->strides()[0], col, j);
    store_elem<float>(out->data(), out->dtype(), walk.offset(0), (w - zp) * scale);
  }
  return Status::ok();
}

#define VKRT_EMBEDDING_KERNELS(w, bits)                                                              \
  Status embedding_##w##_out(KernelContext&, std::span<EValue* const> args) {                        \
    return embedding_kernel("quantized_decomposed::embedding_" #w ".out", bits, false, args);        \
  }                                                                                                  \
  Status embedding_##w##_dtype_out(KernelContext&, std::span<EValue* const> args) {                  \
    return embedding_kernel("quantized_decomposed::embedding_" #w ".dtype_out", bits, true, args);   \
  }
VKRT_EMBEDDING_KERNELS(byte, 8)
VKRT_EMBEDDING_KERNELS(2bit, 2)
VKRT_EMBEDDING_KERNELS(4bit, 4)
#undef VKRT_EMBEDDING_KERNELS

}  // namespace

VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_byte.out", embedding_byte_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_byte.dtype_out", embedding_byte_dtype_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_2bit.out", embedding_2bit_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_2bit.dtype_out", embedding_2bit_dtype_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_4bit.out", embedding_4bit_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::embedding_4bit.dtype_out", embedding_4bit_dtype_out);

}  // namespace vkrt::portable
