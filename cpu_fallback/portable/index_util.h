// Shared pieces of the indexing family (gather/scatter, index/index_put, masked ops, the
// *_scatter and reordering ops): coordinates walked in row-major order, index values read
// from integer tensors, dtype-agnostic element moves and the checks they share.
//
// Every op of the family is "for every coordinate of some iteration shape, find the source
// and destination elements, then move (or combine) one element": the kernels differ only in
// how they map coordinates, so they share Coords, element moves and index reads from here.
#pragma once

#include <cstring>
#include <string>

#include "copy_util.h"
#include "op_util.h"

namespace vkrt::portable::index_family {

// A multi-index over a shape, advanced in row-major order.
struct Coords {
  std::array<int64_t, kMaxRank> c{};
  Shape shape;

  explicit Coords(const Shape& s) : shape(s) {}
  void next() {
    for (int d = shape.rank - 1; d >= 0; --d) {
      if (++c[d] < shape.dims[d]) return;
      c[d] = 0;
    }
  }
};

// Element offset of `coords` (first `rank` entries) through `strides`.
inline int64_t offset_of(const std::array<int64_t, kMaxRank>& coords, const Strides& strides, int rank) {
  int64_t off = 0;
  for (int d = 0; d < rank; ++d) off += coords[d] * strides[d];
  return off;
}

// A tensor seen as having at least one dim: 0-dim tensors read as shape [1] (PyTorch's
// "nonzero_dim" rule of gather/scatter, which treat scalars like 1-element vectors).
struct View {
  Shape shape;
  Strides strides{};
  static View of(const Tensor& t) {
    View v;
    v.shape = Shape::of(t.sizes());
    v.strides = strides_of(t);
    if (v.shape.rank == 0) {
      v.shape.rank = 1;
      v.shape.dims[0] = 1;
      v.strides[0] = 0;
    }
    return v;
  }
};

// Copies one element of `esize` bytes (dtypes are equal: the family's data movement never
// converts unless said).
inline void move_elem(void* dst, int64_t di, const void* src, int64_t si, size_t esize) {
  std::memcpy(static_cast<uint8_t*>(dst) + di * int64_t(esize),
              static_cast<const uint8_t*>(src) + si * int64_t(esize), esize);
}

// An index value (int64, int32, uint8 or bool tensor) at element offset `off`.
inline int64_t load_index(const Tensor& t, int64_t off) {
  switch (t.dtype()) {
    case ScalarType::Long: return t.data_as<const int64_t>()[off];
    case ScalarType::Int: return t.data_as<const int32_t>()[off];
    default: return load_elem<int64_t>(t.data(), t.dtype(), off);
  }
}

// InvalidArgument unless `t` is int64 (or int32 too when `allow_int`).
inline Status expect_index_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                                 bool allow_int) {
  if (t.dtype() == ScalarType::Long || (allow_int && t.dtype() == ScalarType::Int)) return Status::ok();
  return a.error(i, name, std::string("expected dtype ") + (allow_int ? "int64 or int32" : "int64") +
                              ", got " + scalar_type_name(t.dtype()));
}

// Checks every value of the index tensor `t` (argument i) lies in [lo, hi); the error names
// the first value out of range.
inline Status check_index_range(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                                int64_t lo, int64_t hi) {
  if (t.numel() == 0) return Status::ok();
  const Strides s = strides_of(t);
  Coords it(Shape::of(t.sizes()));
  for (int64_t n = 0; n < t.numel(); ++n, it.next()) {
    const int64_t v = load_index(t, offset_of(it.c, s, t.rank()));
    if (v < lo || v >= hi) {
      return a.error(i, name, "index " + std::to_string(v) + " out of range [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + ")");
    }
  }
  return Status::ok();
}

// Copies self into out (same shape; layouts may differ) unless they are the same tensor.
inline void copy_into(const Tensor& self, Tensor& out) {
  if (self.data() == out.data() && self.same_layout(out)) return;
  copy_same_shape(self, out);
}

}  // namespace vkrt::portable::index_family
