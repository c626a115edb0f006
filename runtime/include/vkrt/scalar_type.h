// Element types, numbered as ExecuTorch's ScalarType (schema/scalar_type.fbs upstream).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vkrt {

enum class ScalarType : int8_t {
  Byte = 0,   // uint8
  Char = 1,   // int8
  Short = 2,  // int16
  Int = 3,    // int32
  Long = 4,   // int64
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,    // two float16 parts (real, imaginary)
  ComplexFloat = 9,   // two float32 parts
  ComplexDouble = 10, // two float64 parts
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

// True for the values the program schema defines.
bool is_valid_scalar_type(int value);
// Bytes per element; 0 for values that are not valid scalar types.
size_t element_size(ScalarType t);
// Lower-case PyTorch-style name: "float32", "int8", "bool", ...
const char* scalar_type_name(ScalarType t);
bool is_floating(ScalarType t);   // Half, Float, Double, BFloat16
bool is_integral(ScalarType t, bool include_bool);
bool is_complex(ScalarType t);    // ComplexHalf, ComplexFloat, ComplexDouble
// The dtype of a complex type's real and imaginary parts (ComplexHalf -> Half, ComplexFloat ->
// Float, ComplexDouble -> Double); `t` itself for any other type.
ScalarType complex_part_type(ScalarType t);

// C++ type for a ScalarType, for kernels that switch on dtype.
template <typename T> struct CppTypeToScalar;
template <> struct CppTypeToScalar<uint8_t> { static constexpr ScalarType value = ScalarType::Byte; };
template <> struct CppTypeToScalar<int8_t> { static constexpr ScalarType value = ScalarType::Char; };
template <> struct CppTypeToScalar<int16_t> { static constexpr ScalarType value = ScalarType::Short; };
template <> struct CppTypeToScalar<int32_t> { static constexpr ScalarType value = ScalarType::Int; };
template <> struct CppTypeToScalar<int64_t> { static constexpr ScalarType value = ScalarType::Long; };
template <> struct CppTypeToScalar<float> { static constexpr ScalarType value = ScalarType::Float; };
template <> struct CppTypeToScalar<double> { static constexpr ScalarType value = ScalarType::Double; };
template <> struct CppTypeToScalar<bool> { static constexpr ScalarType value = ScalarType::Bool; };

}  // namespace vkrt
