#include "op_util.h"

#include <array>
#include <cmath>
#include <limits>

namespace vkrt::portable {

std::string shape_string(std::span<const int32_t> sizes) {
  std::string s = "[";
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d) s += ", ";
    s += std::to_string(sizes[d]);
  }
  return s + "]";
}

Result<Tensor*> tensor_arg(const KernelArgs& a, size_t i, std::string_view name) {
  VKRT_ASSIGN_OR_RETURN(Tensor * t, a.tensor(i, name));
  if (!is_supported_dtype(t->dtype())) {
    return a.error(i, name, std::string("unsupported dtype ") + scalar_type_name(t->dtype()) +
                                " (supported: uint8, int8, int16, int32, int64, float16, bfloat16, "
                                "float32, float64, bool)");
  }
  if (t->numel() > 0 && t->data() == nullptr) {
    return a.error(i, name, "tensor has no data (an input that was not set?)");
  }
  return t;
}

Status expect_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                    ScalarType expected) {
  if (t.dtype() == expected) return Status::ok();
  return a.error(i, name, std::string("expected dtype ") + scalar_type_name(expected) + ", got " +
                              scalar_type_name(t.dtype()));
}

Status expect_float_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t) {
  if (is_float_dtype(t.dtype())) return Status::ok();
  return a.error(i, name,
                 std::string("expected a floating dtype (float16, bfloat16, float32, float64), got ") +
                     scalar_type_name(t.dtype()));
}

Status resize_output(const KernelArgs& a, size_t i, std::string_view name, Tensor& out,
                     std::span<const int32_t> sizes) {
  const auto current = out.sizes();
  if (current.size() == sizes.size()) {
    bool same = true;
    for (size_t d = 0; d < sizes.size(); ++d) same = same && current[d] == sizes[d];
    if (same) return Status::ok();
    if (out.dynamism() == ShapeDynamism::DynamicBound) {
      Status st = out.resize(sizes);
      if (st.is_ok()) return st;
      return a.error(i, name, "cannot resize to " + shape_string(sizes) + ": " + st.message());
    }
  }
  return a.error(i, name, "expected shape " + shape_string(sizes) + ", got " + shape_string(current));
}

Result<Scalar> scalar_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i >= a.size()) return a.error(i, name, "missing argument");
  const EValue& v = a.at(i);
  Scalar s;
  if (v.is_int()) {
    s.kind = Scalar::Kind::Int;
    s.i = v.to_int();
  } else if (v.is_double()) {
    s.kind = Scalar::Kind::Double;
    s.d = v.to_double();
  } else if (v.is_bool()) {
    s.kind = Scalar::Kind::Bool;
    s.b = v.to_bool();
  } else {
    // InvalidType, like KernelArgs' own tag errors.
    Status st = a.error(i, name, std::string("expected a Scalar (Int, Double or Bool), got ") + tag_name(v.tag()));
    return Status(Error::InvalidType, st.message());
  }
  return s;
}

Result<std::optional<Scalar>> optional_scalar_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i < a.size() && a.is_none(i)) return std::optional<Scalar>();
  VKRT_ASSIGN_OR_RETURN(Scalar s, scalar_arg(a, i, name));
  return std::optional<Scalar>(s);
}

Result<std::optional<int64_t>> optional_int_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i < a.size() && a.is_none(i)) return std::optional<int64_t>();
  VKRT_ASSIGN_OR_RETURN(int64_t v, a.int_value(i, name));
  return std::optional<int64_t>(v);
}

bool wrap_dim(int64_t dim, int rank, int& wrapped) {
  const int64_t extent = rank > 0 ? rank : 1;
  if (dim < -extent || dim >= extent) return false;
  wrapped = int(dim < 0 ? dim + extent : dim);
  return true;
}

Result<int> dim_arg(const KernelArgs& a, size_t i, std::string_view name, int rank) {
  VKRT_ASSIGN_OR_RETURN(int64_t dim, a.int_value(i, name));
  int wrapped = 0;
  if (!wrap_dim(dim, rank, wrapped)) {
    return a.error(i, name, "dim " + std::to_string(dim) + " out of range for a tensor of rank " +
                                std::to_string(rank));
  }
  return wrapped;
}

Status check_dim_order_arg(const KernelArgs& a, size_t i, std::string_view name, const Tensor& out) {
  if (i < a.size() && a.is_none(i)) return Status::ok();
  std::array<int64_t, kMaxRank> order{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(i, name, order));
  if (int(count) != out.rank()) {
    return a.error(i, name, "has " + std::to_string(count) + " entries, out has rank " +
                                std::to_string(out.rank()));
  }
  for (size_t d = 0; d < count; ++d) {
    if (order[d] != int64_t(out.dim_order()[d])) {
      return a.error(i, name, "does not match the dim order of out (dim " + std::to_string(d) +
                                  ": " + std::to_string(order[d]) + " vs " +
                                  std::to_string(int(out.dim_order()[d])) + ")");
    }
  }
  return Status::ok();
}

bool scalar_overflows(const Scalar& s, ScalarType t) {
  if (s.is_bool() || t == ScalarType::Bool) return false;
  double lo = 0, hi = 0;
  switch (t) {
    case ScalarType::Byte: lo = 0; hi = 255; break;
    case ScalarType::Char: lo = -128; hi = 127; break;
    case ScalarType::Short: lo = -32768; hi = 32767; break;
    case ScalarType::Int: lo = -2147483648.0; hi = 2147483647.0; break;
    case ScalarType::Long: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case ScalarType::Half: lo = -65504.0; hi = 65504.0; break;
    case ScalarType::BFloat16: lo = -3.3895313892515355e38; hi = 3.3895313892515355e38; break;
    case ScalarType::Float: lo = -double(std::numeric_limits<float>::max()); hi = -lo; break;
    default: return false;  // float64
  }
  if (s.is_floating()) {
    if (is_float_dtype(t)) return std::isfinite(s.d) && (s.d < lo || s.d > hi);
    return std::isnan(s.d) || s.d < lo || s.d > hi;
  }
  const int64_t i = s.i;
  if (t == ScalarType::Long) return false;
  if (t == ScalarType::Byte) return i > 255 || i < -255;  // negatives wrap, as c10 allows
  return double(i) < lo || double(i) > hi;
}

std::string scalar_string(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Int: return std::to_string(s.i);
    case Scalar::Kind::Bool: return s.b ? "true" : "false";
    case Scalar::Kind::Double: break;
  }
  if (std::isnan(s.d)) return "nan";
  if (std::isinf(s.d)) return s.d > 0 ? "inf" : "-inf";
  return std::to_string(s.d);
}

Status check_scalar_fits(const KernelArgs& a, size_t i, std::string_view name, const Scalar& s, ScalarType t) {
  if (!scalar_overflows(s, t)) return Status::ok();
  return a.error(i, name, "value " + scalar_string(s) + " cannot be converted to " + scalar_type_name(t) +
                              " without overflow");
}

}  // namespace vkrt::portable
