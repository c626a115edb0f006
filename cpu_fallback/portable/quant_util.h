// Helpers shared by the quantized_decomposed kernels (op_quantize.cpp, op_quant_*.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "op_util.h"

namespace vkrt::portable {

// The element offset of logical (row-major) index `flat` of `t`, through its strides.
// General enough for strided.h: parameter tensors (scales, zero points) are read by logical
// index whatever their dim order.
inline int64_t flat_offset(const Tensor& t, int64_t flat) {
  int64_t offset = 0;
  for (int d = t.rank() - 1; d >= 0; --d) {
    const int64_t size = t.size(d);
    if (size <= 0) return 0;
    offset += (flat % size) * t.strides()[d];
    flat /= size;
  }
  return offset;
}

// Element `flat` (logical index) of `t` as C.
template <typename C>
inline C load_flat(const Tensor& t, int64_t flat) {
  return load_elem<C>(t.data(), t.dtype(), flat_offset(t, flat));
}

// ExecuTorch's quantize_val (kernels/quantized/cpu/op_quantize.cpp): the product
// inv_scale * x in the input's type (float, or double for a float64 input), rounded to float,
// rounded half to even (nearbyint under the default rounding mode), plus the int32 zero point
// in float, converted to int64 and clamped with max(quant_min) then min(quant_max).
// Upstream converts NaN and out-of-range floats with an undefined cast; here NaN gives
// quant_min (what x86 yields) and +-inf saturate.
template <typename X>
inline int64_t quantize_value(X x, float inv_scale, int32_t zero_point, int64_t quant_min, int64_t quant_max) {
  const float product = static_cast<float>(inv_scale * x);
  const float sum = static_cast<float>(zero_point) + std::nearbyint(product);
  if (std::isnan(sum)) return quant_min;
  int64_t q = convert<int64_t>(sum);
  if (q < quant_min) q = quant_min;
  if (q > quant_max) q = quant_max;
  return q;
}

// True when `t` is one of the floating dtypes ExecuTorch's ET_FORALL_FLOATH_TYPES lists
// (float32, float64, float16; no bfloat16).
inline bool is_floath_dtype(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half;
}

inline std::string dtype_str(ScalarType t) { return scalar_type_name(t); }

}  // namespace vkrt::portable
