// Walking tensors in logical (row-major) index order through their strides.
//
// Kernels index every tensor through its per-dim strides (which Tensor derives from the
// dim order), so contiguous and channels-last tensors, broadcast operands (stride 0) and
// permuted views (reordered strides) all go through the same loop. No heap allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "vkrt/tensor.h"

namespace vkrt::portable {

using Strides = std::array<int64_t, kMaxRank>;

// a * b for a, b >= 0, saturating at INT64_MAX.
inline int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > INT64_MAX / b) return INT64_MAX;
  return a * b;
}

// A shape held by value (rank <= kMaxRank).
struct Shape {
  std::array<int32_t, kMaxRank> dims{};
  int rank = 0;

  std::span<const int32_t> view() const { return {dims.data(), size_t(rank)}; }
  // Product of the dims, saturating at INT64_MAX (a shape computed from untrusted
  // arguments may not fit; any real tensor's numel does).
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n = saturating_mul(n, dims[d]);
    return n;
  }
  static Shape of(std::span<const int32_t> sizes) {
    Shape s;
    s.rank = int(sizes.size());
    for (int d = 0; d < s.rank; ++d) s.dims[d] = sizes[d];
    return s;
  }
};

inline Strides strides_of(const Tensor& t) {
  Strides s{};
  for (int d = 0; d < t.rank(); ++d) s[d] = t.strides()[d];
  return s;
}

// Strides that read `in` as if broadcast to `out_sizes` (dims aligned from the right; a
// missing or size-1 dim of `in` gets stride 0). The caller checked that `in` broadcasts.
inline Strides broadcast_strides(const Tensor& in, std::span<const int32_t> out_sizes) {
  Strides s{};
  const int out_rank = int(out_sizes.size());
  const int shift = out_rank - in.rank();
  for (int d = 0; d < out_rank; ++d) {
    const int in_dim = d - shift;
    s[d] = (in_dim >= 0 && in.size(in_dim) != 1) ? in.strides()[in_dim] : 0;
  }
  return s;
}

// True when `a` broadcasts with `b` (PyTorch rules); the result shape goes to `out`.
inline bool broadcast_shapes(std::span<const int32_t> a, std::span<const int32_t> b, Shape& out) {
  const int rank = int(a.size() > b.size() ? a.size() : b.size());
  if (rank > kMaxRank) return false;
  out.rank = rank;
  for (int d = 0; d < rank; ++d) {
    const int ai = d - (rank - int(a.size()));
    const int bi = d - (rank - int(b.size()));
    const int32_t as = ai >= 0 ? a[ai] : 1;
    const int32_t bs = bi >= 0 ? b[bi] : 1;
    if (as != bs && as != 1 && bs != 1) return false;
    out.dims[d] = as == 1 ? bs : as;
  }
  return true;
}

// Visits every index of `sizes` in row-major order, keeping one element offset per operand
// (each operand with its own strides). Usage:
//   StridedWalker<2> w(sizes, {out_strides, in_strides});
//   for (int64_t n = 0; n < numel; ++n, w.next()) out[w.offset(0)] = in[w.offset(1)];
template <size_t N>
class StridedWalker {
 public:
  StridedWalker(std::span<const int32_t> sizes, const std::array<Strides, N>& strides,
                const std::array<int64_t, N>& base = {})
      : rank_(int(sizes.size())), strides_(strides), offsets_(base) {
    for (int d = 0; d < rank_; ++d) sizes_[d] = sizes[d];
  }

  int64_t offset(size_t k) const { return offsets_[k]; }

  void next() {
    for (int d = rank_ - 1; d >= 0; --d) {
      ++index_[d];
      for (size_t k = 0; k < N; ++k) offsets_[k] += strides_[k][d];
      if (index_[d] < sizes_[d]) return;
      for (size_t k = 0; k < N; ++k) offsets_[k] -= strides_[k][d] * sizes_[d];
      index_[d] = 0;
    }
  }

 private:
  int rank_;
  std::array<int32_t, kMaxRank> sizes_{};
  std::array<int32_t, kMaxRank> index_{};
  std::array<Strides, N> strides_;
  std::array<int64_t, N> offsets_;
};

}  // namespace vkrt::portable
