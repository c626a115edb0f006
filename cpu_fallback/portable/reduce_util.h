// The reduce family's shared machinery: parsing dim arguments into a set of reduced dims,
// the output shape that follows (keepdim or not), and one strided walk that visits every
// output element with a cursor over the input elements it reduces.
//
//   ReducePlan p;
//   VKRT_RETURN_IF_ERROR(dim_list_plan(a, 1, "dim", *self, keepdim, DimListMode::kEmptyIsAll, p));
//   VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, p.out_shape.view()));
//   for_each_reduction<1>(p, {p.out_strides(*out)}, [&](auto offs, const ReduceCursor& c) {
//     c.each([&](int64_t k, int64_t in_off) { ... });   // k: row-major index among reduced dims
//   });
//
// No heap allocation; any dim order (inputs and outputs are indexed through their strides).
#pragma once

#include <array>
#include <initializer_list>
#include <cmath>
#include <optional>
#include <string>

#include "op_util.h"

namespace vkrt::portable {

struct ReducePlan {
  int rank = 0;                       // rank of self
  bool keepdim = false;
  std::array<bool, kMaxRank> reduce{};  // self dims that are reduced
  Shape kept;                         // sizes of the kept dims, in order
  Strides kept_in{};                  // self strides of the kept dims
  Shape reduced;                      // sizes of the reduced dims, in order
  Strides reduced_in{};               // self strides of the reduced dims
  Shape out_shape;

  int64_t reduced_count() const { return reduced.numel(); }
  int64_t kept_count() const { return kept.numel(); }

  // The strides of `out` (which has out_shape) for the kept dims, in order.
  Strides out_strides(const Tensor& out) const {
    Strides s{};
    for (int d = 0, k = 0; d < rank; ++d) {
      if (reduce[d]) continue;
      s[k] = out.strides()[keepdim ? d : k];
      ++k;
    }
    return s;
  }
};

// Fills the plan from `mask` (the reduced dims of self).
inline void build_plan(const Tensor& self, const std::array<bool, kMaxRank>& mask, bool keepdim,
                       ReducePlan& p) {
  p.rank = self.rank();
  p.keepdim = keepdim;
  p.reduce = mask;
  p.kept = {};
  p.reduced = {};
  p.out_shape = {};
  for (int d = 0; d < p.rank; ++d) {
    if (mask[d]) {
      p.reduced_in[p.reduced.rank] = self.strides()[d];
      p.reduced.dims[p.reduced.rank++] = self.size(d);
      if (keepdim) p.out_shape.dims[p.out_shape.rank++] = 1;
    } else {
      p.kept_in[p.kept.rank] = self.strides()[d];
      p.kept.dims[p.kept.rank++] = self.size(d);
      p.out_shape.dims[p.out_shape.rank++] = self.size(d);
    }
  }
}

enum class DimListMode {
  kEmptyIsAll,   // None or [] reduce every dim (sum, mean, amax, var, ...)
  kEmptyIsNone,  // None reduces every dim, [] reduces none (any.dims_out)
};

// An `int[]` / `int[]?` dim list argument: every dim in range (a 0-dim tensor accepts 0 and
// -1), none repeated.
inline Status dim_list_plan(const KernelArgs& a, size_t i, std::string_view name, const Tensor& self,
                            bool keepdim, DimListMode mode, ReducePlan& p) {
  const int rank = self.rank();
  std::array<bool, kMaxRank> mask{};
  std::array<int64_t, kMaxRank + 1> dims{};
  size_t count = 0;
  const bool none = a.is_none(i);
  if (!none) {
    VKRT_ASSIGN_OR_RETURN(count, a.int_list(i, name, dims));
  }
  if (none || (count == 0 && mode == DimListMode::kEmptyIsAll)) mask.fill(true);
  std::array<bool, kMaxRank> seen{};
  for (size_t j = 0; j < count; ++j) {
    int d = 0;
    if (!wrap_dim(dims[j], rank, d)) {
      return a.error(i, name, "dim " + std::to_string(dims[j]) + " out of range for a tensor of rank " +
                                  std::to_string(rank));
    }
    if (seen[d]) return a.error(i, name, "dim " + std::to_string(d) + " appears twice in the list");
    seen[d] = true;
    if (rank > 0) mask[d] = true;
  }
  build_plan(self, mask, keepdim, p);
  return Status::ok();
}

// An `int dim` (or `int? dim`, None = every dim) argument.
inline Status single_dim_plan(const KernelArgs& a, size_t i, std::string_view name, const Tensor& self,
                              bool keepdim, bool optional, ReducePlan& p) {
  std::array<bool, kMaxRank> mask{};
  if (optional && a.is_none(i)) {
    mask.fill(true);
  } else {
    VKRT_ASSIGN_OR_RETURN(int d, dim_arg(a, i, name, self.rank()));
    if (self.rank() > 0) mask[d] = true;
  }
  build_plan(self, mask, keepdim, p);
  return Status::ok();
}

// The input elements one output element reduces.
struct ReduceCursor {
  const ReducePlan* plan;
  int64_t base;  // self offset of the first reduced element

  // f(k, offset) for each reduced element: k its row-major index among the reduced dims
  // (the position along dim for a single-dim reduction), offset its element offset in self.
  template <typename F>
  void each(F&& f) const {
    const int64_t n = plan->reduced_count();
    StridedWalker<1> w(plan->reduced.view(), {plan->reduced_in}, {base});
    for (int64_t k = 0; k < n; ++k, w.next()) f(k, w.offset(0));
  }
};

// Calls f(out_offsets, cursor) for every output element (kept-dims index, row-major);
// out_offsets[j] is its element offset in the j-th output (strides from plan.out_strides).
template <size_t NOut, typename F>
void for_each_reduction(const ReducePlan& p, const std::array<Strides, NOut>& out_strides, F&& f) {
  std::array<Strides, NOut + 1> s{};
  for (size_t j = 0; j < NOut; ++j) s[j] = out_strides[j];
  s[NOut] = p.kept_in;
  StridedWalker<NOut + 1> outer(p.kept.view(), s);
  const int64_t n = p.kept_count();
  for (int64_t o = 0; o < n; ++o, outer.next()) {
    std::array<int64_t, NOut> offs{};
    for (size_t j = 0; j < NOut; ++j) offs[j] = outer.offset(j);
    f(offs, ReduceCursor{&p, outer.offset(NOut)});
  }
}

// NaN test that is false for integral and bool compute types.
template <typename C>
inline bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
  else return false;
}

}  // namespace vkrt::portable
