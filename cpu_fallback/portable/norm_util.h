// Helpers of the "norm" family (pooling, normalisation, upsampling, convolution): argument
// readers for the list, optional and dtype-set arguments these schemas use, and a view of a
// 3-D [C, H, W] or 4-D [N, C, H, W] tensor as (n, c, h, w) through its strides.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "op_util.h"

namespace vkrt::portable::norm {

// ExecuTorch's REALHBF16 (every supported dtype but bool).
inline bool is_real_dtype(ScalarType t) { return is_supported_dtype(t) && t != ScalarType::Bool; }

// InvalidArgument unless `t` is real (REALHBF16).
inline Status expect_real_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t) {
  if (is_real_dtype(t.dtype())) return Status::ok();
  return a.error(i, name, std::string("expected a real dtype (uint8, int8, int16, int32, int64, float16, "
                                      "bfloat16, float32, float64), got ") +
                              scalar_type_name(t.dtype()));
}

// A `Tensor?` argument: null for None, otherwise as tensor_arg.
inline Result<Tensor*> optional_tensor_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i < a.size() && a.is_none(i)) return static_cast<Tensor*>(nullptr);
  return tensor_arg(a, i, name);
}

// InvalidArgument unless `t` is rank 1 with `n` elements.
inline Status expect_vector(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t, int64_t n) {
  if (t.rank() == 1 && t.size(0) == n) return Status::ok();
  return a.error(i, name, "expected shape [" + std::to_string(n) + "], got " + shape_string(t.sizes()));
}

// InvalidArgument unless `t` has exactly `sizes`.
inline Status expect_shape(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                           std::span<const int32_t> sizes) {
  bool same = t.rank() == int(sizes.size());
  for (int d = 0; same && d < t.rank(); ++d) same = t.size(d) == sizes[d];
  if (same) return Status::ok();
  return a.error(i, name, "expected shape " + shape_string(sizes) + ", got " + shape_string(t.sizes()));
}

// A list of per-spatial-dim parameters (kernel_size, stride, padding, ...): `count` entries,
// or one entry that applies to every dim, or (allow_empty) none, which gives `fallback`.
// Every entry must be in [minimum, INT32_MAX].
template <size_t N>
Status spatial_param(const KernelArgs& a, size_t i, std::string_view name, size_t count, bool allow_empty,
                     const std::array<int64_t, N>& fallback, int64_t minimum, std::array<int64_t, N>& values) {
  std::array<int64_t, kMaxRank> items{};
  VKRT_ASSIGN_OR_RETURN(size_t n, a.int_list(i, name, items));
  if (n == 0 && allow_empty) {
    values = fallback;
    return Status::ok();
  }
  if (n != 1 && n != count) {
    return a.error(i, name, "expected " + std::string(allow_empty ? "0, " : "") + "1 or " + std::to_string(count) +
                                " entries, got " + std::to_string(n));
  }
  for (size_t d = 0; d < count; ++d) {
    values[d] = items[n == 1 ? 0 : d];
    if (values[d] < minimum || values[d] > INT32_MAX) {
      return a.error(i, name, "entry " + std::to_string(values[d]) + " is out of range (minimum " +
                                  std::to_string(minimum) + ")");
    }
  }
  return Status::ok();
}

// A `float[]?` argument: nullopt for None.
inline Result<std::optional<std::span<const double>>> optional_double_list_arg(const KernelArgs& a, size_t i,
                                                                              std::string_view name) {
  if (a.is_none(i)) return std::optional<std::span<const double>>();
  if (!a.at(i).is_double_list()) {
    Status st = a.error(i, name, std::string("expected a DoubleList or None, got ") + tag_name(a.at(i).tag()));
    return Status(Error::InvalidType, st.message());
  }
  return std::optional<std::span<const double>>(a.at(i).double_list());
}

// A `float?` argument: nullopt for None.
inline Result<std::optional<double>> optional_double_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (a.is_none(i)) return std::optional<double>();
  VKRT_ASSIGN_OR_RETURN(double v, a.double_value(i, name));
  return std::optional<double>(v);
}

// A `bool[N]` argument.
template <size_t N>
Status bool_array_arg(const KernelArgs& a, size_t i, std::string_view name, std::array<bool, N>& values) {
  if (!a.at(i).is_bool_list()) {
    Status st = a.error(i, name, std::string("expected a BoolList, got ") + tag_name(a.at(i).tag()));
    return Status(Error::InvalidType, st.message());
  }
  const auto list = a.at(i).bool_list();
  if (list.size() != N) {
    return a.error(i, name, "expected " + std::to_string(N) + " entries, got " + std::to_string(list.size()));
  }
  for (size_t k = 0; k < N; ++k) values[k] = list[k];
  return Status::ok();
}

// A 3-D [C, H, W] or 4-D [N, C, H, W] tensor seen as (n, c, h, w); a 3-D one has n == 1.
struct Image {
  int64_t n = 1, c = 0, h = 0, w = 0;
  int64_t sn = 0, sc = 0, sh = 0, sw = 0;

  static Image of(const Tensor& t) {
    Image im;
    const auto s = t.strides();
    const int o = t.rank() - 3;  // 0 or 1
    if (o == 1) {
      im.n = t.size(0);
      im.sn = s[0];
    }
    im.c = t.size(o);
    im.h = t.size(o + 1);
    im.w = t.size(o + 2);
    im.sc = s[o];
    im.sh = s[o + 1];
    im.sw = s[o + 2];
    return im;
  }
  int64_t at(int64_t ni, int64_t ci, int64_t y, int64_t x) const { return ni * sn + ci * sc + y * sh + x * sw; }
};

// Strides of dims [from, rank) of `t` (for walking the trailing dims of one slice).
inline Strides tail_strides(const Tensor& t, int from) {
  Strides s{};
  for (int d = from; d < t.rank(); ++d) s[d - from] = t.strides()[d];
  return s;
}

}  // namespace vkrt::portable::norm
