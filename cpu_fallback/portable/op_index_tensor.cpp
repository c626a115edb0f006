// Advanced indexing: aten::index.Tensor_out, aten::index_put.out, aten::index_put_.
//
// Schemas (+ out + the trailing return slot):
//   index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
//   index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
//                 Tensor(a!) out)
//   index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)
// PyTorch's advanced indexing, as ExecuTorch's portable kernels implement it: each index is
// None (the whole dim), an int64/int32 tensor (negative values count from the end), or a
// bool/uint8 mask covering as many dims as it has (as if replaced by mask.nonzero()'s
// columns). The integer indices broadcast to one shape B; when the indexed dims are
// adjacent, B replaces them in place, otherwise B comes first. index_put writes `values`
// (broadcast to that result shape) at the indexed positions, adding when `accumulate`.
// Upstream's index_put_ handles only its "special case": no accumulate, exactly one
// non-None int64/int32 1-D index with values in [0, size), values shaped like self with
// the indexed dim replaced by the index length; everything else is an error there and here.
// Any dim order works (upstream requires the default one).
#include <algorithm>

#include "index_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

using namespace index_family;

// One indexed dim of self and where its index values come from.
struct IndexSource {
  const Tensor* t = nullptr;
  bool mask = false;
  int mask_dim = 0;    // which coordinate of the mask's true elements (masks)
  int self_dim = 0;    // the dim of self it indexes
  int64_t count = 0;   // number of true elements (masks)
  Strides bstrides{};  // strides reading t broadcast to B (integer indices)
};

struct IndexPlan {
  std::array<IndexSource, kMaxRank> src;
  int nsrc = 0;
  Shape b;              // broadcast shape of the indices
  bool adjacent = true; // indexed dims contiguous: B goes where they are
  int start = 0;        // first indexed dim of self (adjacent) / 0
  Shape result;         // shape of self[indices]
  std::array<int, kMaxRank> rest_dims{};  // dims of self not indexed, in order
  int nrest = 0;
};

// The coordinate (in its mask_dim) of the q-th true element of a mask (row-major order).
int64_t mask_coord(const IndexSource& s, int64_t q) {
  const Tensor& m = *s.t;
  if (s.count == 1) q = 0;
  const Strides ms = strides_of(m);
  Coords it(Shape::of(m.sizes()));
  int64_t seen = 0;
  for (int64_t n = 0; n < m.numel(); ++n, it.next()) {
    if (load_index(m, offset_of(it.c, ms, m.rank())) != 0) {
      if (seen == q) return it.c[s.mask_dim];
      ++seen;
    }
  }
  return 0;
}

int64_t count_true(const Tensor& m) {
  const Strides ms = strides_of(m);
  Coords it(Shape::of(m.sizes()));
  int64_t n_true = 0;
  for (int64_t n = 0; n < m.numel(); ++n, it.next()) n_true += load_index(m, offset_of(it.c, ms, m.rank())) != 0;
  return n_true;
}

// Validates `indices` (argument 1) against self and builds the plan.
Status make_plan(const KernelArgs& a, const Tensor& self, IndexPlan& p) {
  const EValue& list = a.at(1);
  if (!list.is_optional_tensor_list() && !list.is_tensor_list()) {
    return a.error(1, "indices", std::string("expected a Tensor?[] list, got ") + tag_name(list.tag()));
  }
  const auto items = list.boxed_items();
  int self_dim = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    // Built only for an error message (no allocation on success).
    auto item = [k] { return "item " + std::to_string(k) + " "; };
    if (items[k] == nullptr || items[k]->is_none()) {
      ++self_dim;
      continue;
    }
    if (!items[k]->is_tensor() || items[k]->tensor_ptr() == nullptr) {
      return a.error(1, "indices", item() + "is not a Tensor or None");
    }
    const Tensor& t = items[k]->to_tensor();
    if (t.numel() > 0 && t.data() == nullptr) return a.error(1, "indices", item() + "has no data");
    const ScalarType dt = t.dtype();
    if (dt == ScalarType::Long || dt == ScalarType::Int) {
      if (self_dim >= self.rank()) return a.error(1, "indices", "too many indices for a tensor of rank " + std::to_string(self.rank()));
      const int64_t size = self.size(self_dim);
      VKRT_RETURN_IF_ERROR(check_index_range(a, 1, "indices", t, -size, size));
      IndexSource& s = p.src[p.nsrc++];
      s = IndexSource{};
      s.t = &t;
      s.self_dim = self_dim++;
    } else if (dt == ScalarType::Bool || dt == ScalarType::Byte) {
      if (t.rank() == 0) return a.error(1, "indices", item() + "is a 0-dim mask (not supported)");
      if (self_dim + t.rank() > self.rank()) return a.error(1, "indices", "too many indices for a tensor of rank " + std::to_string(self.rank()));
      for (int j = 0; j < t.rank(); ++j) {
        if (t.size(j) != self.size(self_dim + j)) {
          return a.error(1, "indices", item() + "(a mask of shape " + shape_string(t.sizes()) +
                                           ") does not match self's shape " + shape_string(self.sizes()) +
                                           " at dim " + std::to_string(self_dim + j));
        }
      }
      const int64_t n_true = count_true(t);
      for (int j = 0; j < t.rank(); ++j) {
        IndexSource& s = p.src[p.nsrc++];
        s = IndexSource{};
        s.t = &t;
        s.mask = true;
        s.mask_dim = j;
        s.self_dim = self_dim++;
        s.count = n_true;
      }
    } else {
      return a.error(1, "indices", item() + "has dtype " + scalar_type_name(dt) +
                                       " (expected int64, int32, bool or uint8)");
    }
  }
  if (self_dim > self.rank()) {
    return a.error(1, "indices", "too many indices for a tensor of rank " + std::to_string(self.rank()));
  }
  // Broadcast the index shapes (a mask contributes [count]).
  p.b = Shape{};
  for (int k = 0; k < p.nsrc; ++k) {
    const IndexSource& s = p.src[k];
    Shape one;
    if (s.mask) {
      one.rank = 1;
      one.dims[0] = int32_t(s.count);
    } else {
      one = Shape::of(s.t->sizes());
    }
    Shape merged;
    if (!broadcast_shapes(p.b.view(), one.view(), merged)) {
      return a.error(1, "indices", "index shapes do not broadcast together (" + shape_string(p.b.view()) +
                                       " vs " + shape_string(one.view()) + ")");
    }
    p.b = merged;
  }
  for (int k = 0; k < p.nsrc; ++k) {
    IndexSource& s = p.src[k];
    if (!s.mask) s.bstrides = broadcast_strides(*s.t, p.b.view());
  }
  // Adjacency and the result shape.
  for (int k = 1; k < p.nsrc; ++k) p.adjacent = p.adjacent && p.src[k].self_dim == p.src[k - 1].self_dim + 1;
  p.start = (p.adjacent && p.nsrc > 0) ? p.src[0].self_dim : 0;
  std::array<bool, kMaxRank> indexed{};
  for (int k = 0; k < p.nsrc; ++k) indexed[p.src[k].self_dim] = true;
  p.nrest = 0;
  for (int d = 0; d < self.rank(); ++d) {
    if (!indexed[d]) p.rest_dims[p.nrest++] = d;
  }
  if (p.nrest + p.b.rank > kMaxRank) return a.error(1, "indices", "result rank exceeds the maximum");
  p.result = Shape{};
  auto push = [&](int32_t v) { p.result.dims[p.result.rank++] = v; };
  if (p.nsrc == 0) {
    p.result = Shape::of(self.sizes());
  } else if (p.adjacent) {
    for (int d = 0; d < p.start; ++d) push(self.size(d));
    for (int d = 0; d < p.b.rank; ++d) push(p.b.dims[d]);
    for (int d = p.start + p.nsrc; d < self.rank(); ++d) push(self.size(d));
  } else {
    for (int d = 0; d < p.b.rank; ++d) push(p.b.dims[d]);
    for (int r = 0; r < p.nrest; ++r) push(self.size(p.rest_dims[r]));
  }
  return Status::ok();
}

// The self coordinate of result coordinate `x`.
void self_coords(const IndexPlan& p, const Tensor& self, const std::array<int64_t, kMaxRank>& x,
                 std::array<int64_t, kMaxRank>& c) {
  const int b_first = p.adjacent ? p.start : 0;
  std::array<int64_t, kMaxRank> bc{};
  for (int d = 0; d < p.b.rank; ++d) bc[d] = x[b_first + d];
  for (int k = 0; k < p.nsrc; ++k) {
    const IndexSource& s = p.src[k];
    int64_t v;
    if (s.mask) {
      v = mask_coord(s, p.b.rank ? bc[p.b.rank - 1] : 0);
    } else {
      v = load_index(*s.t, offset_of(bc, s.bstrides, p.b.rank));
      if (v < 0) v += self.size(s.self_dim);
    }
    c[s.self_dim] = v;
  }
  // The other dims, in order, from the coordinates around B.
  int xi = p.adjacent ? 0 : p.b.rank;
  for (int r = 0; r < p.nrest; ++r) {
    if (p.adjacent && xi == p.start) xi += p.b.rank;
    c[p.rest_dims[r]] = x[xi++];
  }
}

Status index_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::index.Tensor_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "out", *out, *self, "self"));
  IndexPlan p;
  VKRT_RETURN_IF_ERROR(make_plan(a, *self, p));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, p.result.view()));
  const Strides ss = strides_of(*self), os = strides_of(*out);
  const size_t es = self->element_size();
  Coords it(p.result);
  std::array<int64_t, kMaxRank> c{};
  for (int64_t n = 0; n < out->numel(); ++n, it.next()) {
    self_coords(p, *self, it.c, c);
    move_elem(out->data(), offset_of(it.c, os, p.result.rank), self->data(), offset_of(c, ss, self->rank()), es);
  }
  return Status::ok();
}

// index_put on `out`, which already holds self's values.
Status index_put_into(const KernelArgs& a, const Tensor& self, const IndexPlan& p, const Tensor& values,
                      bool accumulate, Tensor& out) {
  Shape merged;
  if (values.rank() > p.result.rank || !broadcast_shapes(values.sizes(), p.result.view(), merged) ||
      merged.rank != p.result.rank ||
      !std::equal(merged.dims.begin(), merged.dims.begin() + merged.rank, p.result.dims.begin())) {
    return a.error(2, "values", "shape " + shape_string(values.sizes()) + " does not broadcast to the indexed shape " +
                                    shape_string(p.result.view()));
  }
  const Strides vs = broadcast_strides(values, p.result.view());
  const Strides os = strides_of(out);
  const int64_t numel = p.result.numel();
  return with_compute_type(self.dtype(), [&]<typename C>() -> Status {
    Coords it(p.result);
    std::array<int64_t, kMaxRank> c{};
    for (int64_t n = 0; n < numel; ++n, it.next()) {
      self_coords(p, self, it.c, c);
      const int64_t o = offset_of(c, os, out.rank());
      C v = load_elem<C>(values.data(), values.dtype(), offset_of(it.c, vs, p.result.rank));
      if (accumulate) v = wrapping_add(load_elem<C>(out.data(), out.dtype(), o), v);
      store_elem<C>(out.data(), out.dtype(), o, v);
    }
    return Status::ok();
  });
}

Status index_put_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::index_put.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 6));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(a, 2, "values"));
  VKRT_ASSIGN_OR_RETURN(bool accumulate, a.bool_value(3, "accumulate"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 4, "out"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "values", *values, *self, "self"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 4, "out", *out, *self, "self"));
  IndexPlan p;
  VKRT_RETURN_IF_ERROR(make_plan(a, *self, p));
  VKRT_RETURN_IF_ERROR(resize_output(a, 4, "out", *out, self->sizes()));
  // Check values before touching out.
  Shape merged;
  if (!broadcast_shapes(values->sizes(), p.result.view(), merged)) {
    return a.error(2, "values", "shape " + shape_string(values->sizes()) +
                                    " does not broadcast to the indexed shape " + shape_string(p.result.view()));
  }
  copy_into(*self, *out);
  return index_put_into(a, *self, p, *values, accumulate, *out);
}

Status index_put_inplace(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::index_put_", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(a, 2, "values"));
  VKRT_ASSIGN_OR_RETURN(bool accumulate, a.bool_value(3, "accumulate"));
  VKRT_RETURN_IF_ERROR(expect_same_dtype(a, 2, "values", *values, *self, "self"));
  if (accumulate) return a.error(3, "accumulate", "in-place index_put does not support accumulate (as upstream)");
  IndexPlan p;
  VKRT_RETURN_IF_ERROR(make_plan(a, *self, p));
  // Upstream's special case: one 1-D int64/int32 index with values in [0, size).
  if (p.nsrc != 1 || p.src[0].mask || p.src[0].t->rank() != 1) {
    return a.error(1, "indices", "in-place index_put needs exactly one non-None 1-D int64/int32 index (as upstream)");
  }
  const IndexSource& s = p.src[0];
  VKRT_RETURN_IF_ERROR(check_index_range(a, 1, "indices", *s.t, 0, self->size(s.self_dim)));
  if (values->rank() != self->rank() || !std::equal(values->sizes().begin(), values->sizes().end(), p.result.dims.begin())) {
    return a.error(2, "values", "shape " + shape_string(values->sizes()) + " must equal the indexed shape " +
                                    shape_string(p.result.view()) + " (as upstream)");
  }
  return index_put_into(a, *self, p, *values, false, *self);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::index.Tensor_out", index_out);
VKRT_REGISTER_KERNEL("aten::index_put.out", index_put_out);
VKRT_REGISTER_KERNEL("aten::index_put_", index_put_inplace);

}  // namespace vkrt::portable
