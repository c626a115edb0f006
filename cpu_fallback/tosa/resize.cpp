// RESIZE (tosa.md §11): NEAREST and BILINEAR, integer (exact, unnormalised) and fp32.
#include <cmath>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "RESIZE";

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Source coordinates of one output coordinate along an axis (integer modes).
struct Axis {
  int64_t i0, i1, d;  // clamped neighbours and the fractional part in units of 1/scale_n
};
Axis source(int64_t o, int64_t scale_n, int64_t scale_d, int64_t offset, int64_t in_size) {
  const int64_t v = o * scale_d + offset;
  const int64_t i = floor_div(v, scale_n);
  Axis a;
  a.d = v - i * scale_n;
  a.i0 = std::max<int64_t>(i, 0);
  a.i1 = std::min<int64_t>(i + 1, in_size - 1);
  // i may lie beyond the input at the far border; TOSA clamps both neighbours into range.
  a.i0 = std::min<int64_t>(a.i0, in_size - 1);
  a.i1 = std::max<int64_t>(a.i1, 0);
  return a;
}

template <typename TIn, typename TOut>
void resize_int(const TensorRef& input, const ResizeAttr& a, const TensorRef& output) {
  const TIn* in = input.as<const TIn>();
  TOut* out = output.as<TOut>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const int64_t yn = a.scale[0], yd = a.scale[1], xn = a.scale[2], xd = a.scale[3];
  auto at = [&](int64_t n, int64_t y, int64_t x, int64_t c) { return int64_t(in[((n * IH + y) * IW + x) * C + c]); };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy) {
      const Axis ya = source(oy, yn, yd, a.offset[0], IH);
      for (int64_t ox = 0; ox < OW; ++ox) {
        const Axis xa = source(ox, xn, xd, a.offset[1], IW);
        TOut* o = out + ((n * OH + oy) * OW + ox) * C;
        for (int64_t c = 0; c < C; ++c) {
          if (a.mode == ResizeMode::Nearest) {
            const int64_t y = 2 * ya.d >= yn ? ya.i1 : ya.i0;
            const int64_t x = 2 * xa.d >= xn ? xa.i1 : xa.i0;
            o[c] = TOut(at(n, y, x, c));
          } else {
            // No normalisation: the result is scaled by yn * xn (a RESCALE follows).
            const int64_t r = at(n, ya.i0, xa.i0, c) * (yn - ya.d) * (xn - xa.d) +
                              at(n, ya.i0, xa.i1, c) * (yn - ya.d) * xa.d +
                              at(n, ya.i1, xa.i0, c) * ya.d * (xn - xa.d) +
                              at(n, ya.i1, xa.i1, c) * ya.d * xa.d;
            o[c] = TOut(r);
          }
        }
      }
    }
}

void resize_float(const TensorRef& input, const ResizeAttr& a, const TensorRef& output) {
  const float* in = input.as<const float>();
  float* out = output.as<float>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2);
  const int64_t yn = a.scale[0], yd = a.scale[1], xn = a.scale[2], xd = a.scale[3];
  auto at = [&](int64_t n, int64_t y, int64_t x, int64_t c) { return in[((n * IH + y) * IW + x) * C + c]; };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy) {
      const Axis ya = source(oy, yn, yd, a.offset[0], IH);
      const float dy = float(ya.d) / float(yn);
      for (int64_t ox = 0; ox < OW; ++ox) {
        const Axis xa = source(ox, xn, xd, a.offset[1], IW);
        const float dx = float(xa.d) / float(xn);
        float* o = out + ((n * OH + oy) * OW + ox) * C;
        for (int64_t c = 0; c < C; ++c) {
          if (a.mode == ResizeMode::Nearest) {
            o[c] = at(n, dy >= 0.5f ? ya.i1 : ya.i0, dx >= 0.5f ? xa.i1 : xa.i0, c);
          } else {
            o[c] = at(n, ya.i0, xa.i0, c) * (1.0f - dy) * (1.0f - dx) + at(n, ya.i0, xa.i1, c) * (1.0f - dy) * dx +
                   at(n, ya.i1, xa.i0, c) * dy * (1.0f - dx) + at(n, ya.i1, xa.i1, c) * dy * dx;
          }
        }
      }
    }
}

}  // namespace

Status check_resize(const TensorRef& input, const ResizeAttr& a, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "input", input, 4));
  if (a.mode != ResizeMode::Nearest && a.mode != ResizeMode::Bilinear)
    return make_error(Error::InvalidArgument, kOp, ": invalid mode ", uint32_t(a.mode));
  const bool bilinear = a.mode == ResizeMode::Bilinear;
  DType want_out;
  switch (input.dtype) {
    case DType::Int8: want_out = bilinear ? DType::Int32 : DType::Int8; break;
    case DType::Int16: want_out = bilinear ? DType::Int48 : DType::Int16; break;
    case DType::Fp32: want_out = DType::Fp32; break;
    default:
      return make_error(Error::NotSupported, kOp, ": dtype ", dtype_name(input.dtype), " not supported (int8, int16, fp32)");
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "output", output, want_out));
  // ERROR_IF rules of tosa.md §11.
  const int64_t yn = a.scale[0], yd = a.scale[1], xn = a.scale[2], xd = a.scale[3];
  if (yn <= 0 || yd <= 0 || xn <= 0 || xd <= 0)
    return make_error(Error::InvalidArgument, kOp, ": scale values must be positive");
  if (yn > 2048 || xn > 2048)
    return make_error(Error::InvalidArgument, kOp, ": scale numerator above 2048");
  if (yd >= 16 * yn || xd >= 16 * xn)
    return make_error(Error::InvalidArgument, kOp, ": downscale below 1/16");
  for (int i = 0; i < 2; ++i) {
    const int64_t n = a.scale[2 * i];
    if (a.offset[i] < -n || a.offset[i] >= 16 * n)
      return make_error(Error::InvalidArgument, kOp, ": offset[", i, "] = ", a.offset[i], " outside [", -n, ", ",
                        16 * n, ")");
    if (a.border[i] < -16 * n || a.border[i] >= n)
      return make_error(Error::InvalidArgument, kOp, ": border[", i, "] = ", a.border[i], " outside [", -16 * n,
                        ", ", n, ")");
  }
  if (input.dim(1) >= 16384 || input.dim(2) >= 16384 || input.dim(1) < 1 || input.dim(2) < 1)
    return make_error(Error::InvalidArgument, kOp, ": input ", shape_string(input.shape),
                      " height/width must be in [1, 16384)");
  const int64_t num_h = (input.dim(1) - 1) * yn - a.offset[0] + a.border[0];
  const int64_t num_w = (input.dim(2) - 1) * xn - a.offset[1] + a.border[1];
  if (num_h < 0 || num_w < 0 || num_h % yd != 0 || num_w % xd != 0)
    return make_error(Error::InvalidArgument, kOp, ": scale/offset/border give no exact output size for input ",
                      shape_string(input.shape));
  const int64_t expected[4] = {input.dim(0), num_h / yd + 1, num_w / xd + 1, input.dim(3)};
  return expect_shape(kOp, "output", output, expected);
}

Status resize(const TensorRef& input, const ResizeAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_resize(input, attrs, output));
  const bool bilinear = attrs.mode == ResizeMode::Bilinear;
  switch (input.dtype) {
    case DType::Int8:
      if (bilinear) resize_int<int8_t, int32_t>(input, attrs, output);
      else resize_int<int8_t, int8_t>(input, attrs, output);
      break;
    case DType::Int16:
      if (bilinear) resize_int<int16_t, int64_t>(input, attrs, output);
      else resize_int<int16_t, int16_t>(input, attrs, output);
      break;
    default: resize_float(input, attrs, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
