// Element access and dtype rules shared by the portable kernels.
//
// Kernels pick one C++ compute type per call (with_compute_type) and read and write every
// tensor through load_elem / store_elem, which convert from and to the tensor's own dtype.
// That keeps mixed-dtype ops (int32 + float, quantize, dtype-converting copies) to one
// template instantiation per compute type instead of one per dtype combination.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "half.h"
#include "vkrt/error.h"
#include "vkrt/scalar_type.h"

namespace vkrt::portable {

// The dtypes portable kernels read and write: uint8, int8, int16, int32, int64, float16,
// bfloat16, float32, float64, bool.
inline bool is_supported_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Short: case ScalarType::Int:
    case ScalarType::Long: case ScalarType::Half: case ScalarType::Float: case ScalarType::Double:
    case ScalarType::Bool: case ScalarType::BFloat16:
      return true;
    default:
      return false;
  }
}

inline bool is_float_dtype(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float ||
         t == ScalarType::Double;
}
inline bool is_int_dtype(ScalarType t) {  // integral, bool excluded
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short ||
         t == ScalarType::Int || t == ScalarType::Long;
}

// Value conversion with the semantics kernels need and without undefined behaviour:
// to bool is "!= 0"; floating to integral truncates toward zero and saturates (NaN -> 0),
// where C++ leaves out-of-range conversions undefined; everything else is static_cast.
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return To(0);
    constexpr double lo = double(std::numeric_limits<To>::min());
    constexpr double hi = double(std::numeric_limits<To>::max());
    const double d = double(v);
    if (d <= lo) return std::numeric_limits<To>::min();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else {
    return static_cast<To>(v);
  }
}

// Reads element `i` (in elements from `base`) of a tensor of dtype `t` as C.
// `t` must satisfy is_supported_dtype (kernels check before their loops).
template <typename C>
inline C load_elem(const void* base, ScalarType t, int64_t i) {
  switch (t) {
    case ScalarType::Byte: return convert<C>(static_cast<const uint8_t*>(base)[i]);
    case ScalarType::Char: return convert<C>(static_cast<const int8_t*>(base)[i]);
    case ScalarType::Short: return convert<C>(static_cast<const int16_t*>(base)[i]);
    case ScalarType::Int: return convert<C>(static_cast<const int32_t*>(base)[i]);
    case ScalarType::Long: return convert<C>(static_cast<const int64_t*>(base)[i]);
    case ScalarType::Half: return convert<C>(half_to_float(static_cast<const uint16_t*>(base)[i]));
    case ScalarType::BFloat16:
      return convert<C>(bfloat16_to_float(static_cast<const uint16_t*>(base)[i]));
    case ScalarType::Float: return convert<C>(static_cast<const float*>(base)[i]);
    case ScalarType::Double: return convert<C>(static_cast<const double*>(base)[i]);
    case ScalarType::Bool:
      // Read the byte, not a bool: a file may hold values other than 0/1.
      return convert<C>(static_cast<const uint8_t*>(base)[i] != 0);
    default: return C{};
  }
}

// Writes `v` converted to dtype `t` into element `i`.
template <typename C>
inline void store_elem(void* base, ScalarType t, int64_t i, C v) {
  switch (t) {
    case ScalarType::Byte: static_cast<uint8_t*>(base)[i] = convert<uint8_t>(v); break;
    case ScalarType::Char: static_cast<int8_t*>(base)[i] = convert<int8_t>(v); break;
    case ScalarType::Short: static_cast<int16_t*>(base)[i] = convert<int16_t>(v); break;
    case ScalarType::Int: static_cast<int32_t*>(base)[i] = convert<int32_t>(v); break;
    case ScalarType::Long: static_cast<int64_t*>(base)[i] = convert<int64_t>(v); break;
    case ScalarType::Half:
      static_cast<uint16_t*>(base)[i] = float_to_half(convert<float>(v));
      break;
    case ScalarType::BFloat16:
      static_cast<uint16_t*>(base)[i] = float_to_bfloat16(convert<float>(v));
      break;
    case ScalarType::Float: static_cast<float*>(base)[i] = convert<float>(v); break;
    case ScalarType::Double: static_cast<double*>(base)[i] = convert<double>(v); break;
    case ScalarType::Bool: static_cast<uint8_t*>(base)[i] = convert<bool>(v) ? 1 : 0; break;
    default: break;
  }
}

// Calls f.template operator()<C>() with the compute type of dtype `t`: Half and BFloat16
// compute in float (as ExecuTorch's portable kernels do), every other type in itself.
template <typename F>
inline Status with_compute_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool: return f.template operator()<bool>();
    case ScalarType::Byte: return f.template operator()<uint8_t>();
    case ScalarType::Char: return f.template operator()<int8_t>();
    case ScalarType::Short: return f.template operator()<int16_t>();
    case ScalarType::Int: return f.template operator()<int32_t>();
    case ScalarType::Long: return f.template operator()<int64_t>();
    case ScalarType::Half:
    case ScalarType::BFloat16:
    case ScalarType::Float: return f.template operator()<float>();
    case ScalarType::Double: return f.template operator()<double>();
    default:
      return make_error(Error::Internal, "no compute type for dtype ", scalar_type_name(t));
  }
}

// PyTorch's promoteTypes (c10/core/ScalarType.cpp) restricted to the supported dtypes:
// bool < integral < floating; uint8 with a signed type needs int16 or wider; Half with
// BFloat16 gives float. Zero-dim tensors are not special-cased (ExecuTorch's kernels do not
// either; the exported out dtype already reflects PyTorch's result_type).
ScalarType promote_types(ScalarType a, ScalarType b);

// c10::canCast: no floating -> integral, no non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

// Integer arithmetic that wraps like PyTorch's CPU kernels instead of overflowing (which is
// undefined for signed types in C++). Floating and bool types use the plain operators.
template <typename T>
inline T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return a + b;
  }
}
template <typename T>
inline T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
inline T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Multiply in a type at least as wide as unsigned int so that uint16 * uint16 does not
    // promote to (signed) int and overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}

}  // namespace vkrt::portable
