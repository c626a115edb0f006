// AVG_POOL2D and MAX_POOL2D (tosa.md §7) over NHWC: the integer average a pixel at a time with
// its channels contiguous, the rest as the spec's loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "arith/fixed_point.h"
#include "compute/isa.h"
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

// acc[c] += in[c] for one tap's channels, modulo 2^32: compiled for AVX-512, AVX2 and the baseline
// (VKRT_CLONES), as the cortex_m pool's tap loop is.
template <typename T>
VKRT_CLONES void add_tap(uint32_t* acc, const T* in, int64_t channels) {
  for (int64_t c = 0; c < channels; ++c) acc[c] += uint32_t(int32_t(in[c]));
}

// The same values a pixel at a time: the window's in-bounds taps are summed a run of channels
// at a time (contiguous in NHWC, so the adds vectorise; the reference loop reads each tap C
// elements apart), modulo 2^32 like the reference's int32 accumulator, and the window's
// reciprocal is derived once per pixel, not per element. The input zero point comes off once
// per window (count·zp; modulo 2^32 the same sums). A global average pool over 7x7x1280 went
// from 0.073 to 0.014 ms with the loop on the baseline ISA, then to 0.009-0.012 ms with the
// clones (Intel Xeon, avx2, one thread; mobilenet_v2_bench --layers).
template <typename T>
void avg_pool_int(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  constexpr int64_t kChunk = 512;  // channels summed at a time, on the stack
  const T* in = input.as<const T>();
  T* out = output.as<T>();
  const int64_t IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const int32_t in_zp = a.input_zp;
  uint32_t acc[kChunk];
  for (int64_t n = 0; n < output.dim(0); ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t y0 = std::max<int64_t>(oy * a.stride[0] - a.pad[0], 0);
        const int64_t y1 = std::min<int64_t>(oy * a.stride[0] - a.pad[0] + a.kernel[0], IH);
        const int64_t x0 = std::max<int64_t>(ox * a.stride[1] - a.pad[2], 0);
        const int64_t x1 = std::min<int64_t>(ox * a.stride[1] - a.pad[2] + a.kernel[1], IW);
        // At least one tap: pad < kernel (check_pool).
        const uint32_t count = uint32_t((y1 - y0) * (x1 - x0));
        const arith::ReciprocalScale rs = arith::reciprocal_scale(count);
        const uint32_t zero_points = count * uint32_t(in_zp);  // Σ zp over the taps, modulo 2^32
        T* to = out + ((n * OH + oy) * OW + ox) * C;
        for (int64_t c0 = 0; c0 < C; c0 += kChunk) {
          const int64_t cn = std::min(kChunk, C - c0);
          std::fill(acc, acc + cn, 0u);
          for (int64_t y = y0; y < y1; ++y)
            for (int64_t x = x0; x < x1; ++x) add_tap(acc, in + ((n * IH + y) * IW + x) * C + c0, cn);
          for (int64_t c = 0; c < cn; ++c) {
            const int32_t sum = int32_t(acc[c] - zero_points);
            const int64_t r = int64_t(arith::apply_scale_32(sum, rs.multiplier, rs.shift, false)) + a.output_zp;
            to[c0 + c] = T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
          }
        }
      }
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

template <typename T>
void max_pool(const TensorRef& input, const PoolAttr& a, const TensorRef& output) {
  const T* in = input.as<const T>();
  T* out = output.as<T>();
  for_each_output(output, [&](int64_t n, int64_t oy, int64_t ox, int64_t c, int64_t o) {
    bool first = true;
    T best{};
    for_each_tap(input, a.kernel, a.stride, a.pad, n, oy, ox, c, [&](int64_t i) {
      const T v = in[i];
      if constexpr (std::is_same_v<T, float>) {
        // nan_mode (tosa.md §12): PROPAGATE -> any NaN gives NaN; IGNORE -> NaNs skipped,
        // NaN only when every tap is NaN.
        if (first) { best = v; first = false; return; }
        if (std::isnan(best)) {
          if (a.nan_mode == NanMode::Ignore) best = v;
          return;
        }
        if (std::isnan(v)) {
          if (a.nan_mode == NanMode::Propagate) best = v;
          return;
        }
        if (v > best) best = v;
      } else {
        if (first || v > best) best = v;
        first = false;
      }
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

Status avg_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_avg_pool2d(input, attrs, output));
  switch (input.dtype) {
    case DType::Int8: avg_pool_int<int8_t>(input, attrs, output); break;
    case DType::Int16: avg_pool_int<int16_t>(input, attrs, output); break;
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

Status max_pool2d(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_max_pool2d(input, attrs, output));
  switch (input.dtype) {
    case DType::Int8: max_pool<int8_t>(input, attrs, output); break;
    case DType::Int16: max_pool<int16_t>(input, attrs, output); break;
    default: max_pool<float>(input, attrs, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
