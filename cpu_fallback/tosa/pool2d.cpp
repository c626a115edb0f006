// AVG_POOL2D and MAX_POOL2D (tosa.md §7) over NHWC: the integer pools on the compute core
// (compute/pool.h, with TOSA's reciprocal-scale average), fp32 as the spec's loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "arith/fixed_point.h"
#include "compute/exec.h"
#include "compute/pool.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

// TOSA's MAX_KERNEL at level 8K; keeps the tap count of a window well inside uint32.
constexpr int64_t kMaxPoolKernel = 8192;

// Shared size rules (tosa.md §7): 0 <= pad < kernel, stride >= 1, exact output size.
Status check_pool(const char* op, const TensorRef& input, std::span<const int32_t, 2> kernel, std::span<const int32_t, 2> stride,
                  std::span<const int32_t, 4> pad, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "input", input, 4));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, input.dtype));
  if (input.dtype != DType::Int8 && input.dtype != DType::Int16 && input.dtype != DType::Fp32)
    return make_error(Error::NotSupported, op, ": dtype ", dtype_name(input.dtype), " not supported (int8, int16, fp32)");
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || kernel[i] > kMaxPoolKernel)
      return make_error(Error::InvalidArgument, op, ": kernel[", i, "] = ", kernel[i], " out of range");
    if (stride[i] < 1 || stride[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, op, ": stride[", i, "] = ", stride[i], " out of range");
  }
  for (int i = 0; i < 4; ++i)
    if (pad[i] < 0 || pad[i] >= kernel[i / 2])
      return make_error(Error::InvalidArgument, op, ": pad[", i, "] = ", pad[i], " must be in [0, kernel ",
                        kernel[i / 2], ")");
  // OH = (IH + pad_top + pad_bottom - kernel_y) / stride_y + 1, exact (same as the conv rule
  // with dilation 1).
  const int64_t oh = window_output_size(input.dim(1), pad[0], pad[1], kernel[0], 1, stride[0]);
  const int64_t ow = window_output_size(input.dim(2), pad[2], pad[3], kernel[1], 1, stride[1]);
  if (oh < 1 || ow < 1)
    return make_error(Error::InvalidArgument, op, ": input ", shape_string(input.shape), " with kernel ", kernel[0],
                      "x", kernel[1], " and the given pad/stride has no exact output size");
  const int64_t expected[4] = {input.dim(0), oh, ow, input.dim(3)};
  // The compute core's pools take their sizes in int32: the input's, and the output's, which
  // padding may make a little larger.
  for (int i = 0; i < 4; ++i)
    if (input.dim(i) > INT32_MAX || expected[i] > INT32_MAX)
      return make_error(Error::NotSupported, op, ": dimension ", i, " of ", shape_string(input.shape), " too large");
  return expect_shape(op, "output", output, expected);
}

// Visits the in-bounds taps of the window of output (n, oy, ox) for channel c: f(input flat index).
template <typename F>
void for_each_tap(const TensorRef& input, std::span<const int32_t, 2> kernel, std::span<const int32_t, 2> stride,
                  std::span<const int32_t, 4> pad,
                  int64_t n, int64_t oy, int64_t ox, int64_t c, F&& f) {
  const int64_t IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  for (int64_t ky = 0; ky < kernel[0]; ++ky) {
    const int64_t y = oy * stride[0] - pad[0] + ky;
    if (y < 0 || y >= IH) continue;
    for (int64_t kx = 0; kx < kernel[1]; ++kx) {
      const int64_t x = ox * stride[1] - pad[2] + kx;
      if (x < 0 || x >= IW) continue;
      f(((n * IH + y) * IW + x) * C + c);
    }
  }
}

template <typename F>
void for_each_output(const TensorRef& output, F&& f) {
  for (int64_t n = 0; n < output.dim(0); ++n)
    for (int64_t oy = 0; oy < output.dim(1); ++oy)
      for (int64_t ox = 0; ox < output.dim(2); ++ox)
        for (int64_t c = 0; c < output.dim(3); ++c)
          f(n, oy, ox, c, ((n * output.dim(1) + oy) * output.dim(2) + ox) * output.dim(3) + c);
}

// The spec's loop, one output element at a time (detail::avg_pool2d_reference).
template <typename T>
void avg_pool_int_reference(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  const T* in = input.as<const T>();
  T* out = output.as<T>();
  for_each_output(output, [&](int64_t n, int64_t oy, int64_t ox, int64_t c, int64_t o) {
    int64_t acc = 0;
    uint32_t count = 0;
    for_each_tap(input, a.kernel, a.stride, a.pad, n, oy, ox, c, [&](int64_t i) {
      acc += int64_t(in[i]) - a.input_zp;  // padding taps excluded from sum and count
      ++count;
    });
    // count >= 1 because pad < kernel. TOSA holds acc in i32; a window sum beyond it (kernel
    // over 2^16 taps of int16) wraps like the device.
    const arith::ReciprocalScale rs = arith::reciprocal_scale(count);
    const int64_t r = int64_t(arith::apply_scale_32(wrap32(acc), rs.multiplier, rs.shift, false)) + a.output_zp;
    out[o] = T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  });
}

// The compute core's windows (compute/pool.h) for these NHWC tensors and attributes.
compute::PoolWindows pool_windows(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  return compute::PoolWindows{int32_t(input.dim(0)), int32_t(input.dim(1)), int32_t(input.dim(2)), int32_t(input.dim(3)),
                              int32_t(output.dim(1)), int32_t(output.dim(2)), a.kernel[0], a.kernel[1],
                              a.stride[0], a.stride[1], a.pad[0], a.pad[2]};
}

// The integer average on the compute core (TOSA's reciprocal-scale rounding), clamped to T.
template <typename T>
void avg_pool_int(const TensorRef& input, const PoolAttr& a, const TensorRef& output, ParallelRunner* runner) {
  compute::PoolOutput out;
  out.average = compute::PoolAverage::kTosa;
  out.input_zp = a.input_zp, out.output_zp = a.output_zp;
  out.lo = std::numeric_limits<T>::min(), out.hi = std::numeric_limits<T>::max();
  compute::avg_pool(pool_windows(input, a, output), out, input.as<const T>(), output.as<T>(),
                    compute::Exec{{}, runner});
}

template <typename T>
void max_pool_int(const TensorRef& input, const PoolAttr& a, const TensorRef& output, ParallelRunner* runner) {
  compute::PoolOutput out;
  out.lo = std::numeric_limits<T>::min(), out.hi = std::numeric_limits<T>::max();
  compute::max_pool(pool_windows(input, a, output), out, input.as<const T>(), output.as<T>(),
                    compute::Exec{{}, runner});
}

void avg_pool_float(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  const float* in = input.as<const float>();
  float* out = output.as<float>();
  for_each_output(output, [&](int64_t n, int64_t oy, int64_t ox, int64_t c, int64_t o) {
    float acc = 0;
    int64_t count = 0;
    for_each_tap(input, a.kernel, a.stride, a.pad, n, oy, ox, c, [&](int64_t i) {
      acc += in[i];
      ++count;
    });
    out[o] = acc / float(count);
  });
}

// The spec's loop for fp32, with its NaN rules.
void max_pool_float(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  const float* in = input.as<const float>();
  float* out = output.as<float>();
  for_each_output(output, [&](int64_t n, int64_t oy, int64_t ox, int64_t c, int64_t o) {
    bool first = true;
    float best = 0;
    for_each_tap(input, a.kernel, a.stride, a.pad, n, oy, ox, c, [&](int64_t i) {
      const float v = in[i];
      // nan_mode (tosa.md §12): PROPAGATE -> any NaN gives NaN; IGNORE -> NaNs skipped,
      // NaN only when every tap is NaN.
      if (first) {
        best = v;
        first = false;
        return;
      }
      if (std::isnan(best)) {
        if (a.nan_mode == NanMode::Ignore) best = v;
        return;
      }
      if (std::isnan(v)) {
        if (a.nan_mode == NanMode::Propagate) best = v;
        return;
      }
      if (v > best) best = v;
    });
    out[o] = best;
  });
}

}  // namespace

Status check_avg_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "AVG_POOL2D";
  VKRT_RETURN_IF_ERROR(check_pool(op, input, attrs.kernel, attrs.stride, attrs.pad, output));
  const DType want_acc = input.dtype == DType::Fp32 ? DType::Fp32 : DType::Int32;
  if (acc_dtype(attrs.acc_type) != want_acc)
    return make_error(Error::InvalidArgument, op, ": acc_type ", dtype_name(acc_dtype(attrs.acc_type)), " with ",
                      dtype_name(input.dtype), " input (expected ", dtype_name(want_acc), ")");
  VKRT_RETURN_IF_ERROR(check_zero_point(op, "input_zp", input.dtype, attrs.input_zp));
  return check_zero_point(op, "output_zp", output.dtype, attrs.output_zp);
}

void detail::avg_pool2d_reference(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output) {
  switch (input.dtype) {
    case DType::Int8: avg_pool_int_reference<int8_t>(input, attrs, output); break;
    case DType::Int16: avg_pool_int_reference<int16_t>(input, attrs, output); break;
    default: avg_pool_float(input, attrs, output); break;
  }
}

Status avg_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_avg_pool2d(input, attrs, output));
  switch (input.dtype) {
    case DType::Int8: avg_pool_int<int8_t>(input, attrs, output, runner); break;
    case DType::Int16: avg_pool_int<int16_t>(input, attrs, output, runner); break;
    default: avg_pool_float(input, attrs, output); break;
  }
  return Status::ok();
}

Status check_max_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "MAX_POOL2D";
  VKRT_RETURN_IF_ERROR(check_pool(op, input, attrs.kernel, attrs.stride, attrs.pad, output));
  if (input.dtype == DType::Fp32 && attrs.nan_mode != NanMode::Propagate && attrs.nan_mode != NanMode::Ignore)
    return make_error(Error::InvalidArgument, op, ": invalid nan_mode ", uint32_t(attrs.nan_mode));
  return Status::ok();
}

Status max_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_max_pool2d(input, attrs, output));
  switch (input.dtype) {
    case DType::Int8: max_pool_int<int8_t>(input, attrs, output, runner); break;
    case DType::Int16: max_pool_int<int16_t>(input, attrs, output, runner); break;
    default: max_pool_float(input, attrs, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
