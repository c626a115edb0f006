// ARGMAX and REDUCE_ALL/ANY/MAX/MIN/PRODUCT/SUM (tosa.md §12).
// Both walk the input as [outer, axis, inner] (row-major around `axis`).
#include <cmath>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
};
AxisSplit split(const TensorRef& t, int axis) {
  AxisSplit s;
  for (int d = 0; d < axis; ++d) s.outer *= t.dim(d);
  s.length = t.dim(axis);
  for (int d = axis + 1; d < t.rank(); ++d) s.inner *= t.dim(d);
  return s;
}

template <typename T>
void argmax_impl(const TensorRef& input, const ArgmaxAttr& a, const TensorRef& output) {
  const T* in = input.as<const T>();
  int32_t* out = output.as<int32_t>();
  const AxisSplit s = split(input, a.axis);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      const T* p = in + o * s.length * s.inner + i;
      int64_t best_index = 0;
      bool have = false;  // a (non-ignored) candidate has been seen
      T best{};
      for (int64_t k = 0; k < s.length; ++k) {
        const T v = p[k * s.inner];
        if constexpr (std::is_same_v<T, float>) {
          if (std::isnan(v)) {
            // PROPAGATE: the first NaN wins; IGNORE: NaNs are skipped.
            if (a.nan_mode == NanMode::Propagate) {
              best_index = k;
              break;
            }
            continue;
          }
        }
        if (!have || v > best) {  // strict: the first occurrence of the maximum wins
          best = v;
          best_index = k;
          have = true;
        }
      }
      out[o * s.inner + i] = int32_t(best_index);
    }
}

template <typename T, typename Combine>
void reduce_impl(const TensorRef& input, int axis, const TensorRef& output, Combine combine) {
  const T* in = input.as<const T>();
  T* out = output.as<T>();
  const AxisSplit s = split(input, axis);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      const T* p = in + o * s.length * s.inner + i;
      T acc = p[0];
      for (int64_t k = 1; k < s.length; ++k) acc = combine(acc, p[k * s.inner]);
      out[o * s.inner + i] = acc;
    }
}

bool reduce_supports(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::All:
    case ReduceOp::Any: return t == DType::Bool;
    case ReduceOp::Max:
    case ReduceOp::Min: return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Fp32;
    case ReduceOp::Product: return t == DType::Fp32;
    case ReduceOp::Sum: return t == DType::Int32 || t == DType::Fp32;
  }
  return false;
}

float float_extremum(float a, float b, bool want_max, NanMode mode) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (mode == NanMode::Ignore) return na ? b : a;
    return std::numeric_limits<float>::quiet_NaN();
  }
  return want_max ? (a > b ? a : b) : (a < b ? a : b);
}

}  // namespace

Status check_argmax(const TensorRef& input, const ArgmaxAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "ARGMAX";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  const DType t = input.dtype;
  if (t != DType::Int8 && t != DType::Int16 && t != DType::Int32 && t != DType::Fp32)
    return make_error(Error::NotSupported, op, ": dtype ", dtype_name(t), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, DType::Int32));
  if (attrs.axis < 0 || attrs.axis >= input.rank())
    return make_error(Error::InvalidArgument, op, ": axis ", attrs.axis, " outside [0, ", input.rank(), ")");
  if (input.dim(attrs.axis) < 1)
    return make_error(Error::InvalidArgument, op, ": axis ", attrs.axis, " is empty");
  if (t == DType::Fp32 && attrs.nan_mode != NanMode::Propagate && attrs.nan_mode != NanMode::Ignore)
    return make_error(Error::InvalidArgument, op, ": invalid nan_mode ", uint32_t(attrs.nan_mode));
  std::array<int64_t, kMaxRank> expected{};
  int r = 0;
  for (int d = 0; d < input.rank(); ++d)
    if (d != attrs.axis) expected[size_t(r++)] = input.dim(d);
  return expect_shape(op, "output", output, std::span<const int64_t>(expected.data(), size_t(r)));
}

Status argmax(const TensorRef& input, const ArgmaxAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_argmax(input, attrs, output));
  dispatch_numeric(input.dtype, [&](auto tag) { argmax_impl<decltype(tag)>(input, attrs, output); });
  return Status::ok();
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::All: return "REDUCE_ALL";
    case ReduceOp::Any: return "REDUCE_ANY";
    case ReduceOp::Max: return "REDUCE_MAX";
    case ReduceOp::Min: return "REDUCE_MIN";
    case ReduceOp::Product: return "REDUCE_PRODUCT";
    case ReduceOp::Sum: return "REDUCE_SUM";
  }
  return "UNKNOWN_REDUCE_OP";
}

Status check_reduce(ReduceOp op, const TensorRef& input, const AxisAttr& attrs, const TensorRef& output) {
  const char* name = reduce_op_name(op);
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "output", output));
  if (!reduce_supports(op, input.dtype))
    return make_error(Error::NotSupported, name, ": dtype ", dtype_name(input.dtype), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "output", output, input.dtype));
  if (attrs.axis < 0 || attrs.axis >= input.rank())
    return make_error(Error::InvalidArgument, name, ": axis ", attrs.axis, " outside [0, ", input.rank(), ")");
  if (input.dim(attrs.axis) < 1)
    return make_error(Error::InvalidArgument, name, ": axis ", attrs.axis, " is empty");
  if (input.dtype == DType::Fp32 && (op == ReduceOp::Max || op == ReduceOp::Min) &&
      attrs.nan_mode != NanMode::Propagate && attrs.nan_mode != NanMode::Ignore)
    return make_error(Error::InvalidArgument, name, ": invalid nan_mode ", uint32_t(attrs.nan_mode));
  std::array<int64_t, kMaxRank> expected{};
  for (int d = 0; d < input.rank(); ++d) expected[size_t(d)] = d == attrs.axis ? 1 : input.dim(d);
  return expect_shape(name, "output", output, std::span<const int64_t>(expected.data(), size_t(input.rank())));
}

Status reduce(ReduceOp op, const TensorRef& input, const AxisAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_reduce(op, input, attrs, output));
  const int axis = attrs.axis;
  const NanMode nan = attrs.nan_mode;
  switch (op) {
    case ReduceOp::All:
    case ReduceOp::Any: {
      // Bool bytes: normalise to 0/1 so that any nonzero byte counts as true.
      const bool all = op == ReduceOp::All;
      reduce_impl<uint8_t>(input, axis, output, [all](uint8_t acc, uint8_t v) -> uint8_t {
        return all ? ((acc != 0 && v != 0) ? 1 : 0) : ((acc != 0 || v != 0) ? 1 : 0);
      });
      // A single-element axis copies the raw byte; normalise the output.
      uint8_t* out = output.as<uint8_t>();
      for (int64_t i = 0; i < output.num_elements(); ++i) out[i] = out[i] != 0 ? 1 : 0;
      break;
    }
    case ReduceOp::Max:
    case ReduceOp::Min: {
      const bool want_max = op == ReduceOp::Max;
      if (input.dtype == DType::Fp32) {
        reduce_impl<float>(input, axis, output,
                           [=](float a, float b) { return float_extremum(a, b, want_max, nan); });
      } else {
        dispatch_numeric(input.dtype, [&](auto tag) {
          using T = decltype(tag);
          reduce_impl<T>(input, axis, output, [=](T a, T b) { return want_max ? std::max(a, b) : std::min(a, b); });
        });
      }
      break;
    }
    case ReduceOp::Product:
      reduce_impl<float>(input, axis, output, [](float a, float b) { return a * b; });
      break;
    case ReduceOp::Sum:
      if (input.dtype == DType::Int32) {
        // TOSA REQUIREs partial sums to fit in i32; we wrap like the device.
        reduce_impl<int32_t>(input, axis, output, [](int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); });
      } else {
        reduce_impl<float>(input, axis, output, [](float a, float b) { return a + b; });
      }
      break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
