// CLAMP (tosa.md §9, §12): out = min(max(in, min_val), max_val); floats honour nan_mode.
#include <cmath>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {

using namespace detail;

Status check_clamp(const TensorRef& input, const ClampAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "CLAMP";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  const DType t = input.dtype;
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, t));
  VKRT_RETURN_IF_ERROR(expect_same_shape(op, "output", output, input));
  if (t == DType::Fp32) {
    // The bounds are values of the input type: checked (and used) as floats.
    const float lo = float(attrs.min_fp), hi = float(attrs.max_fp);
    if (std::isnan(lo) || std::isnan(hi) || hi < lo)
      return make_error(Error::InvalidArgument, op, ": bounds [", double(lo), ", ", double(hi),
                        "] are not an interval");
    if (attrs.nan_mode != NanMode::Propagate && attrs.nan_mode != NanMode::Ignore)
      return make_error(Error::InvalidArgument, op, ": invalid nan_mode ", uint32_t(attrs.nan_mode));
  } else if (t == DType::Int8 || t == DType::Int16 || t == DType::Int32) {
    if (attrs.min_int < type_min(t) || attrs.max_int > type_max(t) || attrs.max_int < attrs.min_int)
      return make_error(Error::InvalidArgument, op, ": bounds [", attrs.min_int, ", ", attrs.max_int,
                        "] are not an interval within the ", dtype_name(t), " range");
  } else {
    return make_error(Error::NotSupported, op, ": dtype ", dtype_name(t), " not supported");
  }
  return Status::ok();
}

Status clamp(const TensorRef& input, const ClampAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_clamp(input, attrs, output));
  const int64_t n = input.num_elements();
  if (input.dtype == DType::Fp32) {
    const float* in = input.as<const float>();
    float* out = output.as<float>();
    const float lo = float(attrs.min_fp), hi = float(attrs.max_fp);
    // Two loops, so that the one without IGNORE has no select at all.
    if (attrs.nan_mode == NanMode::Ignore) {
      for (int64_t i = 0; i < n; ++i) out[i] = clamp_f32(in[i], lo, hi, true);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = clamp_f32(in[i], lo, hi, false);
    }
    return Status::ok();
  }
  dispatch_numeric(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.as<const T>();
    T* out = output.as<T>();
    const T lo = T(attrs.min_int), hi = T(attrs.max_int);
    for (int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], lo), hi);
  });
  return Status::ok();
}

}  // namespace vkrt::tosa
