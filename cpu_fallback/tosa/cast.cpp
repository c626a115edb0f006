// CAST (tosa.md §12) between Bool, Int8, Int16, Int32, Fp32, Fp16 and Bf16.
//   int -> int: narrowing keeps the low bits (two's complement wrap), widening sign-extends;
//   int -> bool: x != 0; bool -> int/float: 0 or 1;
//   int/float -> float: round to nearest even;
//   float -> int: saturate at the type's limits, otherwise round to nearest even; NaN -> 0
//   (undefined in TOSA; we pick 0 so the result is deterministic).
#include <cmath>
#include <cstring>

#include "vkrt/half.h"

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "CAST";

bool castable(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Fp32:
    case DType::Fp16:
    case DType::Bf16: return true;
    default: return false;
  }
}

// Round half to even, independent of the FPU rounding mode.
double round_half_even(double v) {
  const double fl = std::floor(v);
  const double diff = v - fl;  // exact
  if (diff > 0.5) return fl + 1;
  if (diff < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
}

// bfloat16 = the top 16 bits of an fp32, rounded to nearest even (vkrt/half.h).
uint16_t bf16_from_float(float f) { return vkrt::float_to_bfloat16(f); }
float float_from_bf16(uint16_t h) { return vkrt::bfloat16_to_float(h); }
// An integer to bf16 with a single rounding (int -> fp32 -> bf16 could round twice above 2^24):
// keep 8 significant bits of the exact double, rounded half to even, then narrow exactly.
uint16_t bf16_from_int(int64_t v) {
  if (v == 0) return 0;
  int e = 0;
  const double m = std::frexp(double(v), &e);  // |m| in [0.5, 1), exact for int32
  return bf16_from_float(float(std::ldexp(round_half_even(m * 256.0), e - 8)));
}
// fp16 goes through float: every value a TOSA tensor holds (fp32, or an integer rounded to fp32
// only beyond fp16's range) converts exactly to float, so this rounds once.
uint16_t fp16_from_double(double v) { return vkrt::float_to_half(float(v)); }
float float_from_fp16(uint16_t b) { return vkrt::half_to_float(b); }

// Reads element i as an exact value: integers (and bool) into `i64`, floats into `f64`.
struct Value {
  bool is_float;
  int64_t i64;
  double f64;
};
Value load(const TensorRef& t, int64_t i) {
  switch (t.dtype) {
    case DType::Bool: return {false, t.as<const uint8_t>()[i] != 0 ? 1 : 0, 0};
    case DType::Int8: return {false, t.as<const int8_t>()[i], 0};
    case DType::Int16: return {false, t.as<const int16_t>()[i], 0};
    case DType::Int32: return {false, t.as<const int32_t>()[i], 0};
    case DType::Fp32: return {true, 0, double(t.as<const float>()[i])};
    case DType::Fp16: return {true, 0, double(float_from_fp16(t.as<const uint16_t>()[i]))};
    default: return {true, 0, double(float_from_bf16(t.as<const uint16_t>()[i]))};
  }
}

// Float -> integer of type T: saturating, round half to even, NaN -> 0.
template <typename T>
T float_to_int(double v) {
  if (std::isnan(v)) return 0;
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (v <= double(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  return T(round_half_even(v));
}

void store(const TensorRef& t, int64_t i, const Value& v) {
  switch (t.dtype) {
    case DType::Bool:
      t.as<uint8_t>()[i] = (v.is_float ? v.f64 != 0.0 : v.i64 != 0) ? 1 : 0;
      break;
    case DType::Int8:
      t.as<int8_t>()[i] = v.is_float ? float_to_int<int8_t>(v.f64) : int8_t(v.i64);  // wraps
      break;
    case DType::Int16:
      t.as<int16_t>()[i] = v.is_float ? float_to_int<int16_t>(v.f64) : int16_t(v.i64);
      break;
    case DType::Int32:
      t.as<int32_t>()[i] = v.is_float ? float_to_int<int32_t>(v.f64) : int32_t(v.i64);
      break;
    case DType::Fp32:
      // double -> float rounds to nearest even; exact for fp16/bf16 sources, single rounding for ints.
      t.as<float>()[i] = v.is_float ? float(v.f64) : float(v.i64);
      break;
    case DType::Fp16:
      // Direct conversions (no intermediate fp32) so each value is rounded once.
      t.as<uint16_t>()[i] = fp16_from_double(v.is_float ? v.f64 : double(v.i64));
      break;
    default:
      t.as<uint16_t>()[i] = v.is_float ? bf16_from_float(float(v.f64)) : bf16_from_int(v.i64);
      break;
  }
}

}  // namespace

Status check_cast(const TensorRef& input, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  VKRT_RETURN_IF_ERROR(expect_same_shape(kOp, "output", output, input));
  if (!castable(input.dtype) || !castable(output.dtype))
    return make_error(Error::NotSupported, kOp, ": ", dtype_name(input.dtype), " -> ", dtype_name(output.dtype),
                      " not supported");
  return Status::ok();
}

Status cast(const TensorRef& input, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_cast(input, output));
  const int64_t n = input.num_elements();
  for (int64_t i = 0; i < n; ++i) store(output, i, load(input, i));
  return Status::ok();
}

}  // namespace vkrt::tosa
