#include "copy_util.h"

#include <cstring>

namespace vkrt::portable {
namespace {

struct Word16 {  // a complex128 element
  uint64_t lo, hi;
};

template <typename Word>
void copy_words(const void* in, int64_t in_base, const Strides& in_strides, void* out,
                int64_t out_base, const Strides& out_strides, std::span<const int32_t> shape,
                int64_t numel) {
  const Word* src = static_cast<const Word*>(in);
  Word* dst = static_cast<Word*>(out);
  StridedWalker<2> walk(shape, {out_strides, in_strides}, {out_base, in_base});
  for (int64_t n = 0; n < numel; ++n, walk.next()) dst[walk.offset(0)] = src[walk.offset(1)];
}

template <typename C>
void copy_converting(const Tensor& in, const Strides& in_strides, int64_t in_base, Tensor& out,
                     const Strides& out_strides, int64_t out_base, std::span<const int32_t> shape,
                     int64_t numel) {
  StridedWalker<2> walk(shape, {out_strides, in_strides}, {out_base, in_base});
  for (int64_t n = 0; n < numel; ++n, walk.next()) {
    store_elem<C>(out.data(), out.dtype(), walk.offset(0),
                  load_elem<C>(in.data(), in.dtype(), walk.offset(1)));
  }
}

}  // namespace

Result<Tensor*> any_tensor_arg(const KernelArgs& a, size_t i, std::string_view name) {
  VKRT_ASSIGN_OR_RETURN(Tensor * t, a.tensor(i, name));
  if (t->element_size() == 0) {
    return a.error(i, name, "tensor has an invalid dtype");
  }
  if (t->numel() > 0 && t->data() == nullptr) {
    return a.error(i, name, "tensor has no data (an input that was not set?)");
  }
  return t;
}

void strided_copy(const Tensor& in, const Strides& in_strides, int64_t in_base, Tensor& out,
                  const Strides& out_strides, int64_t out_base, std::span<const int32_t> shape) {
  int64_t numel = 1;
  for (int32_t s : shape) numel *= s;
  if (numel == 0) return;
  if (in.dtype() == out.dtype()) {
    switch (in.element_size()) {
      case 1: return copy_words<uint8_t>(in.data(), in_base, in_strides, out.data(), out_base, out_strides, shape, numel);
      case 2: return copy_words<uint16_t>(in.data(), in_base, in_strides, out.data(), out_base, out_strides, shape, numel);
      case 4: return copy_words<uint32_t>(in.data(), in_base, in_strides, out.data(), out_base, out_strides, shape, numel);
      case 8: return copy_words<uint64_t>(in.data(), in_base, in_strides, out.data(), out_base, out_strides, shape, numel);
      case 16: return copy_words<Word16>(in.data(), in_base, in_strides, out.data(), out_base, out_strides, shape, numel);
      default: return;
    }
  }
  // Integers (and bool) convert exactly through int64; anything floating through double.
  if (is_float_dtype(in.dtype()) || is_float_dtype(out.dtype())) {
    copy_converting<double>(in, in_strides, in_base, out, out_strides, out_base, shape, numel);
  } else {
    copy_converting<int64_t>(in, in_strides, in_base, out, out_strides, out_base, shape, numel);
  }
}

void copy_same_shape(const Tensor& in, Tensor& out) {
  if (in.dtype() == out.dtype() && in.same_layout(out)) {
    // Same bytes in the same order; memmove because a planner may alias the two.
    if (in.data() != out.data() && in.nbytes() > 0) std::memmove(out.data(), in.data(), in.nbytes());
    return;
  }
  strided_copy(in, strides_of(in), 0, out, strides_of(out), 0, out.sizes());
}

void reshape_copy(const Tensor& in, Tensor& out) {
  if (in.is_default_dim_order() && out.is_default_dim_order()) {
    if (in.data() != out.data() && in.nbytes() > 0) std::memmove(out.data(), in.data(), in.nbytes());
    return;
  }
  // Walk both tensors in their own logical order; element n of one is element n of the other.
  const size_t bytes = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  StridedWalker<1> in_walk(in.sizes(), {strides_of(in)});
  StridedWalker<1> out_walk(out.sizes(), {strides_of(out)});
  for (int64_t n = 0; n < in.numel(); ++n, in_walk.next(), out_walk.next()) {
    std::memcpy(dst + out_walk.offset(0) * int64_t(bytes), src + in_walk.offset(0) * int64_t(bytes), bytes);
  }
}

}  // namespace vkrt::portable
