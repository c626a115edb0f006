#include "vkrt/tensor.h"

#include <string>

namespace vkrt {

namespace {
// Sizes are at most int32 each and rank <= 16, so the product can overflow int64 only in
// pathological files; checked multiplication keeps numel honest.
bool checked_numel(std::span<const int32_t> sizes, int64_t* out) {
  int64_t n = 1;
  for (int32_t s : sizes) {
    if (s < 0) return false;
    if (__builtin_mul_overflow(n, int64_t(s), &n)) return false;
  }
  *out = n;
  return true;
}

// Strides for `sizes` in `dim_order`. False when a product overflows int64: possible even for an
// empty tensor (a 0 dimension beside huge ones), which checked_numel accepts.
bool strides_for(std::span<const int32_t> sizes, const uint8_t* dim_order, int64_t* strides) {
  int64_t stride = 1;
  for (int i = int(sizes.size()) - 1; i >= 0; --i) {
    const int d = dim_order[i];
    strides[d] = stride;
    if (__builtin_mul_overflow(stride, int64_t(sizes[size_t(d)]), &stride)) return false;
  }
  return true;
}
}  // namespace

Result<Tensor> Tensor::make(ScalarType dtype, std::span<const int32_t> sizes, void* data,
                            ShapeDynamism dynamism) {
  uint8_t order[kMaxRank];
  if (sizes.size() > size_t(kMaxRank))
    return make_error(Error::InvalidArgument, "tensor rank ", sizes.size(), " exceeds ", kMaxRank);
  for (size_t i = 0; i < sizes.size(); ++i) order[i] = uint8_t(i);
  return make(dtype, sizes, std::span<const uint8_t>(order, sizes.size()), data, dynamism);
}

Result<Tensor> Tensor::make(ScalarType dtype, std::span<const int32_t> sizes,
                            std::span<const uint8_t> dim_order, void* data, ShapeDynamism dynamism) {
  if (vkrt::element_size(dtype) == 0)
    return make_error(Error::InvalidArgument, "unknown scalar type ", int(dtype));
  if (sizes.size() > size_t(kMaxRank))
    return make_error(Error::InvalidArgument, "tensor rank ", sizes.size(), " exceeds ", kMaxRank);
  if (dim_order.size() != sizes.size())
    return make_error(Error::InvalidArgument, "dim_order has ", dim_order.size(),
                      " entries for a tensor of rank ", sizes.size());
  uint32_t seen = 0;
  for (uint8_t d : dim_order) {
    if (d >= sizes.size() || (seen & (1u << d)))
      return make_error(Error::InvalidArgument, "dim_order is not a permutation of 0..",
                        sizes.size() - 1);
    seen |= 1u << d;
  }
  Tensor t;
  t.dtype_ = dtype;
  t.dynamism_ = dynamism;
  t.rank_ = int(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    t.sizes_[i] = sizes[i];
    t.dim_order_[i] = dim_order[i];
  }
  if (!checked_numel(sizes, &t.numel_))
    return make_error(Error::InvalidArgument, "tensor sizes are negative or their product overflows");
  int64_t bytes = 0;
  if (__builtin_mul_overflow(t.numel_, int64_t(vkrt::element_size(dtype)), &bytes))
    return make_error(Error::InvalidArgument, "tensor byte size overflows");
  if (!strides_for(sizes, t.dim_order_.data(), t.strides_.data()))
    return make_error(Error::InvalidArgument, "tensor strides overflow (sizes too large)");
  t.capacity_bytes_ = size_t(bytes);
  t.data_ = data;
  return t;
}

bool Tensor::is_default_dim_order() const {
  for (int i = 0; i < rank_; ++i)
    if (dim_order_[i] != i) return false;
  return true;
}

Status Tensor::resize(std::span<const int32_t> new_sizes) {
  if (int(new_sizes.size()) != rank_)
    return make_error(Error::InvalidArgument, "resize to rank ", new_sizes.size(),
                      " of a tensor of rank ", rank_);
  bool same = true;
  for (int i = 0; i < rank_; ++i) same = same && new_sizes[i] == sizes_[i];
  if (same) return Status::ok();
  if (dynamism_ == ShapeDynamism::Static) {
    std::string want, have;
    for (int i = 0; i < rank_; ++i) {
      want += (i ? "," : "") + std::to_string(new_sizes[i]);
      have += (i ? "," : "") + std::to_string(sizes_[i]);
    }
    return make_error(Error::NotSupported, "cannot resize a static tensor [", have, "] to [", want, "]");
  }
  int64_t n = 0;
  if (!checked_numel(new_sizes, &n) || size_t(n) * element_size() > capacity_bytes_)
    return make_error(Error::InvalidArgument, "new sizes exceed the tensor's upper bound (",
                      capacity_bytes_, " bytes)");
  int64_t strides[kMaxRank];
  if (!strides_for(new_sizes, dim_order_.data(), strides))
    return make_error(Error::InvalidArgument, "new sizes give strides that overflow");
  for (int i = 0; i < rank_; ++i) sizes_[i] = new_sizes[i], strides_[i] = strides[i];
  numel_ = n;
  return Status::ok();
}

bool Tensor::same_layout(const Tensor& o) const {
  if (dtype_ != o.dtype_ || rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (sizes_[i] != o.sizes_[i] || dim_order_[i] != o.dim_order_[i]) return false;
  return true;
}

}  // namespace vkrt
