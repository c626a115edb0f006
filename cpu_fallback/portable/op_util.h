// Argument helpers shared by the portable kernels, on top of KernelArgs.
//
// Every helper returns an error naming the op and the argument ("aten::add.out: argument 3
// (out): ..."), so kernels read like their schema and never touch an unchecked value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "element.h"
#include "strided.h"
#include "vkrt/kernel_args.h"

namespace vkrt::portable {

// A schema `Scalar`: the emitter writes Python ints as Int, floats as Double, bools as Bool
// (pte-format.md §9.3).
struct Scalar {
  enum class Kind { Int, Double, Bool } kind = Kind::Int;
  int64_t i = 0;
  double d = 0.0;
  bool b = false;

  bool is_floating() const { return kind == Kind::Double; }
  bool is_bool() const { return kind == Kind::Bool; }
  double to_double() const { return kind == Kind::Double ? d : kind == Kind::Int ? double(i) : double(b); }
  // The value in compute type C (floating to integral saturates, see convert()).
  template <typename C>
  C as() const {
    switch (kind) {
      case Kind::Double: return convert<C>(d);
      case Kind::Int: return convert<C>(i);
      case Kind::Bool: return convert<C>(b);
    }
    return C{};
  }
};

// "[2, 3, 4]"
std::string shape_string(std::span<const int32_t> sizes);

// InvalidArgument unless there are exactly `count` arguments: the schema's arguments, the
// out tensor(s) and the trailing return slot (pte-format.md §9.5).
inline Status expect_args(const KernelArgs& a, size_t count) { return a.expect_count(count, count); }

// A Tensor argument whose dtype the portable kernels support and whose data pointer is set
// when it has elements.
Result<Tensor*> tensor_arg(const KernelArgs& a, size_t i, std::string_view name);

// InvalidArgument unless `t` (argument i) has dtype `expected`.
Status expect_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                    ScalarType expected);
// InvalidArgument unless `t` is a floating dtype (float16, bfloat16, float32, float64).
Status expect_float_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t);

// Makes `out` (argument i) have `sizes`: nothing to do when it already has them; a
// DYNAMIC_BOUND tensor is resized within its capacity; anything else is an error naming the
// expected and actual shapes.
Status resize_output(const KernelArgs& a, size_t i, std::string_view name, Tensor& out,
                     std::span<const int32_t> sizes);

// A Scalar argument (Int, Double or Bool).
Result<Scalar> scalar_arg(const KernelArgs& a, size_t i, std::string_view name);
// A `Scalar?` argument: nullopt for None.
Result<std::optional<Scalar>> optional_scalar_arg(const KernelArgs& a, size_t i, std::string_view name);
// ExecuTorch's check_overflow_scalar_cast (c10::overflows) for a Scalar converted to dtype `t`:
// floating dtypes take inf and NaN but no finite value beyond their range; integral dtypes take
// no NaN and no value beyond their range, except that uint8 takes the negative integers that
// wrap (-1 -> 255, down to -255); bool takes anything, and a bool Scalar goes anywhere.
bool scalar_overflows(const Scalar& s, ScalarType t);
// "3", "-2.5", "nan", "true".
std::string scalar_string(const Scalar& s);
// InvalidArgument (naming argument i) when `s` overflows dtype `t`.
Status check_scalar_fits(const KernelArgs& a, size_t i, std::string_view name, const Scalar& s, ScalarType t);

// An `int?` argument: nullopt for None.
Result<std::optional<int64_t>> optional_int_arg(const KernelArgs& a, size_t i, std::string_view name);

// An `int dim` argument wrapped into [0, rank) (negative dims count from the end; a 0-dim
// tensor accepts 0 and -1 as PyTorch's maybe_wrap_dim does).
Result<int> dim_arg(const KernelArgs& a, size_t i, std::string_view name, int rank);
// Wraps `dim` into [0, max(rank, 1)); false when out of range.
bool wrap_dim(int64_t dim, int rank, int& wrapped);

// An `int[]?` dim_order argument of the dim-order copy ops: when present it must name a
// permutation of length rank and equal `out`'s dim order (the exporter sets the out tensor's
// dim order from it).
Status check_dim_order_arg(const KernelArgs& a, size_t i, std::string_view name, const Tensor& out);

// ----- dtype checks shared by the families ------------------------------------------------

// Dtype sets named after ExecuTorch's ET_SWITCH_* macros.
enum class DtypeSet {
  RealHBBF16,  // every supported dtype
  RealHBF16,   // all but bool
  FloatHBF16,  // float16, bfloat16, float32, float64
  Float,       // float32, float64
  IntB,        // uint8..int64 and bool
};

inline bool in_dtype_set(ScalarType t, DtypeSet s) {
  switch (s) {
    case DtypeSet::RealHBBF16: return is_supported_dtype(t);
    case DtypeSet::RealHBF16: return is_supported_dtype(t) && t != ScalarType::Bool;
    case DtypeSet::FloatHBF16: return is_float_dtype(t);
    case DtypeSet::Float: return t == ScalarType::Float || t == ScalarType::Double;
    case DtypeSet::IntB: return is_int_dtype(t) || t == ScalarType::Bool;
  }
  return false;
}

inline const char* dtype_set_name(DtypeSet s) {
  switch (s) {
    case DtypeSet::RealHBBF16: return "a supported dtype";
    case DtypeSet::RealHBF16: return "an integral or floating dtype (not bool)";
    case DtypeSet::FloatHBF16: return "a floating dtype (float16, bfloat16, float32, float64)";
    case DtypeSet::Float: return "float32 or float64";
    case DtypeSet::IntB: return "an integral dtype or bool";
  }
  return "?";
}

// InvalidArgument unless `t` (argument i) has a dtype of `s`.
inline Status expect_dtype_in(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                              DtypeSet s) {
  if (in_dtype_set(t.dtype(), s)) return Status::ok();
  return a.error(i, name, std::string("expected ") + dtype_set_name(s) + ", got " +
                              scalar_type_name(t.dtype()));
}

// InvalidArgument unless `t` has one of the dtypes in `allowed`.
inline Status expect_dtype_in(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                              std::initializer_list<ScalarType> allowed, std::string_view what) {
  for (ScalarType s : allowed) {
    if (t.dtype() == s) return Status::ok();
  }
  return a.error(i, name, std::string("expected dtype ") + std::string(what) + ", got " +
                              scalar_type_name(t.dtype()));
}

// InvalidArgument unless `dtype` (argument i, `ScalarType?`) is None or equals out's dtype.
inline Status check_dtype_matches_out(const KernelArgs& a, size_t i, std::string_view name,
                                      const std::optional<int64_t>& dtype, const Tensor& out) {
  if (!dtype || *dtype == int64_t(out.dtype())) return Status::ok();
  return a.error(i, name, "dtype " + std::to_string(*dtype) + " differs from out dtype " +
                              scalar_type_name(out.dtype()));
}

// InvalidArgument unless `t` (argument i) has the same dtype as `ref` (argument named ref_name).
inline Status expect_same_dtype(const KernelArgs& a, size_t i, std::string_view name, const Tensor& t,
                                const Tensor& ref, std::string_view ref_name) {
  if (t.dtype() == ref.dtype()) return Status::ok();
  return a.error(i, name, std::string("expected dtype ") + scalar_type_name(ref.dtype()) + " (that of " +
                              std::string(ref_name) + "), got " + scalar_type_name(t.dtype()));
}

}  // namespace vkrt::portable
