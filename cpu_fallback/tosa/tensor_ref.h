// TensorRef: the borrowed tensor view every TOSA CPU kernel works on. Its element types (DType)
// are the shared vocabulary's (vocabulary.h).
//
// Independent of any graph IR: the VGF CPU executor (vgf/cpu/) and tests build TensorRefs over
// their own buffers. Layout is TOSA's (tosa.md §1): row-major, packed, feature maps NHWC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cpu_fallback/tosa/vocabulary.h"

namespace vkrt::tosa {

// Highest tensor rank the kernels accept (TOSA 1.0 MAX_RANK for the level 8K profile is 6).
inline constexpr int kMaxRank = 6;

// Bytes per stored element (see DType); 0 for types no kernel supports (Int4, Fp8).
size_t dtype_size(DType t);
// dtype_name: vocabulary.h.

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
