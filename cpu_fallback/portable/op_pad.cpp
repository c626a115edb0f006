// Padding: aten::constant_pad_nd.out and aten::{reflection,replication}_pad{1,2,3}d.out.
//
// Schemas (each + the trailing return slot, pte-format.md §9.5):
//   constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) -> 5 args
//   reflection_pad<n>d.out(Tensor self, SymInt[2n] padding, *, Tensor(a!) out)        -> 4 args
//   replication_pad<n>d.out(...) likewise
// Pads are (before, after) pairs from the last dim backwards. One kernel serves all: each out
// index maps, per padded dim, to a source index (or to "the fill value" for constant
// padding); everything is read and written through the strides, so any dim order works.
// As ExecuTorch's portable kernels: out has self's dtype (any supported dtype);
// constant_pad_nd takes at most rank pairs of non-negative pads (PyTorch also crops with
// negative pads; ExecuTorch refuses them) and a value that fits the dtype without overflow;
// reflection/replication pad<n>d take a rank n+1 or n+2 self, pads that leave a non-negative
// size, and for reflection pads smaller than the padded dim.
#include <cstring>
#include <limits>

#include "create_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

enum class PadMode { Constant, Reflect, Replicate };

struct PadSpec {
  std::array<int64_t, kMaxRank> before{};  // per dim of self; after = out size - size - before
};

// The source index along a dim of `size` elements for out index j, or -1 for the fill value.
int64_t source_index(PadMode mode, int64_t j, int64_t size, int64_t before) {
  const int64_t k = j - before;
  if (k >= 0 && k < size) return k;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Replicate: return k < 0 ? 0 : size - 1;
    case PadMode::Reflect: return k < 0 ? -k : 2 * (size - 1) - k;
  }
  return -1;
}

// out = pad(self): out already has the padded shape.
Status pad_compute(const KernelArgs& a, PadMode mode, const Tensor& self, const PadSpec& spec,
                   const uint8_t* fill_bytes, Tensor& out, size_t out_index) {
  const int rank = self.rank();
  // Every index a non-constant mode produces must lie in the dim (checked once per dim).
  if (mode != PadMode::Constant) {
    for (int d = 0; d < rank; ++d) {
      for (int64_t j = 0; j < out.size(d); ++j) {
        const int64_t s = source_index(mode, j, self.size(d), spec.before[d]);
        if (s < 0 || s >= self.size(d)) {
          return a.error(out_index, "out", "padding of dim " + std::to_string(d) + " reads outside self");
        }
      }
    }
  }
  const size_t es = element_size(self.dtype());
  const auto* in = static_cast<const uint8_t*>(self.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const Strides in_strides = strides_of(self);
  const Strides out_strides = strides_of(out);
  std::array<int64_t, kMaxRank> index{};
  const int64_t numel = out.numel();
  for (int64_t n = 0; n < numel; ++n) {
    int64_t in_off = 0, out_off = 0;
    bool fill = false;
    for (int d = 0; d < rank; ++d) {
      out_off += index[d] * out_strides[d];
      const int64_t s = source_index(mode, index[d], self.size(d), spec.before[d]);
      if (s < 0) fill = true;
      else in_off += s * in_strides[d];
    }
    std::memcpy(dst + size_t(out_off) * es, fill ? fill_bytes : in + size_t(in_off) * es, es);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out.size(d)) break;
      index[d] = 0;
    }
  }
  return Status::ok();
}

// The padded shape: pad pairs (before, after) apply from the last dim backwards.
Status padded_shape(const KernelArgs& a, size_t pad_index, const char* pad_name, const Tensor& self,
                    std::span<const int64_t> pads, PadSpec& spec, Shape& shape) {
  shape = Shape::of(self.sizes());
  for (size_t p = 0; p < pads.size() / 2; ++p) {
    const int d = self.rank() - 1 - int(p);
    const int64_t before = pads[2 * p], after = pads[2 * p + 1];
    const int64_t lim = std::numeric_limits<int32_t>::max();
    if (before < -lim || before > lim || after < -lim || after > lim) {
      return a.error(pad_index, pad_name, "pad of dim " + std::to_string(d) + " is out of range");
    }
    const int64_t size = int64_t(self.size(d)) + before + after;
    if (size < 0 || size > lim) {
      return a.error(pad_index, pad_name, "padding gives dim " + std::to_string(d) + " size " +
                                              std::to_string(size));
    }
    spec.before[d] = before;
    shape.dims[d] = int32_t(size);
  }
  return Status::ok();
}

Status constant_pad_nd_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::constant_pad_nd.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  std::array<int64_t, 2 * kMaxRank> pads{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "pad", pads));
  VKRT_ASSIGN_OR_RETURN(Scalar value, scalar_arg(a, 2, "value"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  if (count % 2 != 0) return a.error(1, "pad", "has " + std::to_string(count) + " items, not a multiple of 2");
  if (int(count / 2) > self->rank()) {
    return a.error(1, "pad", "pads " + std::to_string(count / 2) + " dims of a rank " +
                                 std::to_string(self->rank()) + " tensor");
  }
  for (size_t i = 0; i < count; ++i) {
    if (pads[i] < 0) return a.error(1, "pad", "negative pad " + std::to_string(pads[i]) + " is not supported");
  }
  VKRT_RETURN_IF_ERROR(check_scalar_fits(a, 2, "value", value, self->dtype()));
  PadSpec spec;
  Shape shape;
  VKRT_RETURN_IF_ERROR(padded_shape(a, 1, "pad", *self, std::span<const int64_t>(pads.data(), count), spec, shape));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, shape.view()));
  alignas(8) uint8_t fill[8] = {};
  VKRT_RETURN_IF_ERROR(with_compute_type(self->dtype(), [&]<typename C>() -> Status {
    store_elem<C>(fill, self->dtype(), 0, value.as<C>());
    return Status::ok();
  }));
  return pad_compute(a, PadMode::Constant, *self, spec, fill, *out, 3);
}

// reflection_pad<n>d / replication_pad<n>d.
Status pad_nd_kernel(const char* name, PadMode mode, int n, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(a, 0, "self"));
  std::array<int64_t, 2 * kMaxRank> pads{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(1, "padding", pads));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  if (int(count) != 2 * n) {
    return a.error(1, "padding", "expected " + std::to_string(2 * n) + " items, got " + std::to_string(count));
  }
  if (self->rank() != n + 1 && self->rank() != n + 2) {
    return a.error(0, "self", "expected rank " + std::to_string(n + 1) + " or " + std::to_string(n + 2) +
                                  ", got shape " + shape_string(self->sizes()));
  }
  if (mode == PadMode::Reflect) {
    for (int p = 0; p < n; ++p) {
      const int64_t size = self->size(self->rank() - 1 - p);
      if (pads[2 * p] >= size || pads[2 * p + 1] >= size) {
        return a.error(1, "padding", "reflection pads must be smaller than the padded dim (" +
                                         std::to_string(size) + ")");
      }
    }
  }
  PadSpec spec;
  Shape shape;
  VKRT_RETURN_IF_ERROR(padded_shape(a, 1, "padding", *self, std::span<const int64_t>(pads.data(), count), spec, shape));
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, shape.view()));
  return pad_compute(a, mode, *self, spec, nullptr, *out, 2);
}

#define VKRT_PAD_KERNEL(kind, mode, n)                                              \
  Status kind##_pad##n##d_out(KernelContext&, std::span<EValue* const> args) {      \
    return pad_nd_kernel("aten::" #kind "_pad" #n "d.out", PadMode::mode, n, args); \
  }
VKRT_PAD_KERNEL(reflection, Reflect, 1)
VKRT_PAD_KERNEL(reflection, Reflect, 2)
VKRT_PAD_KERNEL(reflection, Reflect, 3)
VKRT_PAD_KERNEL(replication, Replicate, 1)
VKRT_PAD_KERNEL(replication, Replicate, 2)
VKRT_PAD_KERNEL(replication, Replicate, 3)
#undef VKRT_PAD_KERNEL

}  // namespace

VKRT_REGISTER_KERNEL("aten::constant_pad_nd.out", constant_pad_nd_out);
VKRT_REGISTER_KERNEL("aten::reflection_pad1d.out", reflection_pad1d_out);
VKRT_REGISTER_KERNEL("aten::reflection_pad2d.out", reflection_pad2d_out);
VKRT_REGISTER_KERNEL("aten::reflection_pad3d.out", reflection_pad3d_out);
VKRT_REGISTER_KERNEL("aten::replication_pad1d.out", replication_pad1d_out);
VKRT_REGISTER_KERNEL("aten::replication_pad2d.out", replication_pad2d_out);
VKRT_REGISTER_KERNEL("aten::replication_pad3d.out", replication_pad3d_out);

}  // namespace vkrt::portable
