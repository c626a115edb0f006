// Tensor: a typed, shaped view over memory that someone else owns.
//
// Memory is owned by the Method (planned buffers), the Program (constants, used in place)
// or the caller (inputs it shares). Sizes are the logical sizes; for DYNAMIC_BOUND tensors
// the sizes given at load are the upper bound and kernels may shrink or regrow them within
// it with resize(). dim_order lists dims from outermost to innermost in memory
// (ExecuTorch's convention): [0,2,3,1] over sizes [N,C,H,W] is NHWC in memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "vkrt/error.h"
#include "vkrt/scalar_type.h"

namespace vkrt {

inline constexpr int kMaxRank = 16;

enum class ShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

class Tensor {
 public:
  Tensor() = default;

  // A tensor with the default (contiguous, row-major) dim order. Capacity = nbytes.
  // Fails with InvalidArgument on rank > kMaxRank or negative sizes.
  static Result<Tensor> make(ScalarType dtype, std::span<const int32_t> sizes, void* data,
                             ShapeDynamism dynamism = ShapeDynamism::Static);
  // A tensor with an explicit dim order (a permutation of 0..rank-1, else InvalidArgument).
  static Result<Tensor> make(ScalarType dtype, std::span<const int32_t> sizes,
                             std::span<const uint8_t> dim_order, void* data,
                             ShapeDynamism dynamism = ShapeDynamism::Static);

  ScalarType dtype() const { return dtype_; }
  int rank() const { return rank_; }
  std::span<const int32_t> sizes() const { return {sizes_.data(), size_t(rank_)}; }
  int32_t size(int dim) const { return sizes_[dim]; }
  std::span<const uint8_t> dim_order() const { return {dim_order_.data(), size_t(rank_)}; }
  // Strides in elements, per logical dim, derived from sizes and dim_order.
  std::span<const int64_t> strides() const { return {strides_.data(), size_t(rank_)}; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return vkrt::element_size(dtype_); }
  size_t nbytes() const { return size_t(numel_) * element_size(); }
  // Bytes available at data(): the upper-bound size for DYNAMIC_BOUND tensors.
  size_t capacity_bytes() const { return capacity_bytes_; }
  ShapeDynamism dynamism() const { return dynamism_; }
  // True when dim_order is 0,1,...,rank-1.
  bool is_default_dim_order() const;

  void* data() const { return data_; }
  template <typename T>
  T* data_as() const { return static_cast<T*>(data_); }
  void set_data(void* data) { data_ = data; }
  void set_capacity_bytes(size_t bytes) { capacity_bytes_ = bytes; }

  // Changes the logical sizes (same rank). Static tensors only accept their current sizes;
  // DYNAMIC_BOUND tensors accept any sizes whose byte size fits the capacity.
  Status resize(std::span<const int32_t> new_sizes);

  // Same dtype, sizes and dim order.
  bool same_layout(const Tensor& other) const;

 private:
  ScalarType dtype_ = ScalarType::Float;
  ShapeDynamism dynamism_ = ShapeDynamism::Static;
  int rank_ = 0;
  std::array<int32_t, kMaxRank> sizes_{};
  std::array<uint8_t, kMaxRank> dim_order_{};
  std::array<int64_t, kMaxRank> strides_{};
  int64_t numel_ = 1;
  size_t capacity_bytes_ = 0;
  void* data_ = nullptr;
};

}  // namespace vkrt
