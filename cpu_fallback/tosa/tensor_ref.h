// TensorRef: the borrowed tensor view every TOSA CPU kernel works on, and the TOSA element types.
//
// Independent of any graph IR: the VGF CPU executor (vgf/cpu/) and tests build TensorRefs over
// their own buffers. Layout is TOSA's (tosa.md §1): row-major, packed, feature maps NHWC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace vkrt::tosa {

// Highest tensor rank the kernels accept (TOSA 1.0 MAX_RANK for the level 8K profile is 6).
inline constexpr int kMaxRank = 6;

// Element types, numbered as the `.tosa` serialization's DType enum (tosa.md §3).
// Storage: Bool 1 byte (0 or 1), Int8 int8_t, Int16 int16_t, Int32 int32_t,
// Int48 int64_t (values kept within [-2^47, 2^47-1]), Fp32 float, Fp16 / Bf16 uint16_t bits,
// Shape int64_t. Int4 and Fp8 are not supported by any kernel (dtype_size() returns 0).
// Unsigned data exist only through RESCALE's input_unsigned / output_unsigned flags: a uint8
// tensor is an Int8 TensorRef whose bytes are read as unsigned, uint16 likewise with Int16.
enum class DType : uint32_t {
  Unknown = 0,
  Bool = 1,
  Int4 = 2,
  Int8 = 3,
  Int16 = 4,
  Int32 = 5,
  Int48 = 6,
  Fp32 = 7,
  Fp16 = 8,
  Bf16 = 9,
  Shape = 10,
  Fp8E4M3 = 11,
  Fp8E5M2 = 12,
};

// Bytes per stored element (see DType); 0 for types no kernel supports.
size_t dtype_size(DType t);
// "int8", "fp32", "int48", ...; "unknown(<n>)" style names are not produced: unknown values give "invalid".
const char* dtype_name(DType t);

// A borrowed tensor: element type, dims (row-major, outermost first) and data.
// The caller owns both the dims array and the data and keeps them alive for the call.
// `data` must hold num_elements() * dtype_size(dtype) bytes, suitably aligned for the element
// type. Inputs are never written through `data` (it is non-const only so that one type serves
// inputs and outputs). A rank-0 tensor (empty shape) holds one element.
struct TensorRef {
  DType dtype = DType::Unknown;
  std::span<const int64_t> shape;
  void* data = nullptr;

  int rank() const { return int(shape.size()); }
  int64_t dim(int i) const { return shape[size_t(i)]; }
  // Product of the dims (1 for rank 0). Only meaningful for shapes that passed check_shape().
  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  template <typename T>
  T* as() const { return static_cast<T*>(data); }
};

}  // namespace vkrt::tosa
