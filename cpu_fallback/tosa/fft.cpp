// FFT2D and RFFT2D (TOSA 1.0 EXT-FFT, the spec's FFT2D.tosac / RFFT2D.tosac): unnormalised 2D
// DFTs of fp32 [N,H,W] tensors, H and W powers of two.
//
// The spec defines each output as a direct sum whose angle is reduced first:
//   a = sign * 2*pi * ((iy*oy mod H)/H + (ix*ox mod W)/W),   out += x * exp(-i*a).
// We compute exactly those sums, in double, but in separable order: exp(-i(a_y + a_x)) =
// exp(-i*a_y) * exp(-i*a_x), so for one output row oy we first mix the H input rows with the
// column twiddles into one row of W complex values, then take that row's 1D DFT. That is
// O(H*W + W*out_w) per output row instead of O(H*W) per output element. Each output is still a
// plain sum of products with the exact (reduced-angle) twiddles; double accumulation keeps its
// error (~(H+W) * 2^-53 of sum|x|) far below the final rounding to fp32.
#include <atomic>
#include <cmath>
#include <memory>
#include <new>
#include <numbers>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

// TOSA level 8K's MAX_KERNEL, the level limit on H and W; it also bounds the scratch.
constexpr int64_t kMaxFftSize = 8192;
// Below this many multiply-adds a transform runs on the calling thread (as the convolutions).
constexpr double kParallelMinMacs = 1 << 20;

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// cos and sin of 2*pi*k/size, size a power of two, 0 <= k < size. The angle is split into whole
// quarter turns (applied exactly by swapping and negating) and a remainder in [0, pi/2), so the
// quarter turns themselves give exact 0 and +-1 and the rest is as accurate as libm's cos/sin.
struct Twiddle {
  double c, s;
};
Twiddle twiddle(int64_t k, int64_t size) {
  if (size < 4) return size == 2 && k == 1 ? Twiddle{-1.0, 0.0} : Twiddle{1.0, 0.0};
  const int64_t quarter = size / 4;
  const double a = 2.0 * std::numbers::pi * double(k % quarter) / double(size);
  const double c = std::cos(a), s = std::sin(a);
  switch (k / quarter) {
    case 0: return {c, s};
    case 1: return {-s, c};   // a + pi/2
    case 2: return {-c, -s};  // a + pi
    default: return {s, -c};  // a + 3pi/2
  }
}

// One transform's operands. `in_im` is null for RFFT2D (a real input).
struct FftJob {
  const float* in_re;
  const float* in_im;
  float* out_re;
  float* out_im;
  int64_t H, W, out_w;
  double sign;           // +1 forward, -1 inverse
  const Twiddle* table;  // twiddle(k, L) for k < L = max(H, W)
  int64_t L;
};

// exp(-i * sign * 2*pi * k/period), k already reduced modulo the power-of-two period <= L.
inline Twiddle rotation(const FftJob& job, int64_t k, int64_t period) {
  const Twiddle t = job.table[k * (job.L / period)];
  return {t.c, -job.sign * t.s};
}

// Output rows [begin, end) of all N*H rows; `mix` is scratch of 2*W doubles (re, im pairs).
void fft_rows(const FftJob& job, int64_t begin, int64_t end, double* mix) {
  const int64_t H = job.H, W = job.W;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t n = row / H, oy = row % H;
    // mix[ix] = sum over iy of x[n, iy, ix] * exp(-i*sign*2*pi*(iy*oy mod H)/H).
    for (int64_t ix = 0; ix < 2 * W; ++ix) mix[ix] = 0.0;
    for (int64_t iy = 0; iy < H; ++iy) {
      const Twiddle w = rotation(job, (iy * oy) & (H - 1), H);
      const float* re = job.in_re + (n * H + iy) * W;
      if (job.in_im) {
        const float* im = job.in_im + (n * H + iy) * W;
        for (int64_t ix = 0; ix < W; ++ix) {
          mix[2 * ix] += double(re[ix]) * w.c - double(im[ix]) * w.s;
          mix[2 * ix + 1] += double(re[ix]) * w.s + double(im[ix]) * w.c;
        }
      } else {
        for (int64_t ix = 0; ix < W; ++ix) {
          mix[2 * ix] += double(re[ix]) * w.c;
          mix[2 * ix + 1] += double(re[ix]) * w.s;
        }
      }
    }
    // out[n, oy, ox] = sum over ix of mix[ix] * exp(-i*sign*2*pi*(ix*ox mod W)/W).
    float* out_re = job.out_re + (n * H + oy) * job.out_w;
    float* out_im = job.out_im + (n * H + oy) * job.out_w;
    for (int64_t ox = 0; ox < job.out_w; ++ox) {
      double sum_re = 0.0, sum_im = 0.0;
      for (int64_t ix = 0; ix < W; ++ix) {
        const Twiddle w = rotation(job, (ix * ox) & (W - 1), W);
        sum_re += mix[2 * ix] * w.c - mix[2 * ix + 1] * w.s;
        sum_im += mix[2 * ix] * w.s + mix[2 * ix + 1] * w.c;
      }
      out_re[ox] = float(sum_re);
      out_im[ox] = float(sum_im);
    }
    // RFFT2D: at (0 or H/2, 0 or W/2) every angle is a multiple of pi; the spec skips those
    // sin terms, so the imaginary part is exactly 0 (even for non-finite inputs).
    if (!job.in_im && (oy == 0 || 2 * oy == H)) {
      out_im[0] = 0.0f;
      if (W > 1) out_im[W / 2] = 0.0f;
    }
  }
}

Status run_fft(const char* op, FftJob job, int64_t N, ParallelRunner* runner) {
  const int64_t rows = N * job.H;
  if (rows == 0) return Status::ok();
  std::unique_ptr<Twiddle[]> table(new (std::nothrow) Twiddle[size_t(job.L)]);
  if (!table) return make_error(Error::MemoryAllocationFailed, op, ": no memory for the twiddle table");
  for (int64_t k = 0; k < job.L; ++k) table[size_t(k)] = twiddle(k, job.L);
  job.table = table.get();

  const double macs = double(rows) * double(job.W) * double(job.H + job.out_w);
  std::atomic<bool> out_of_memory{false};
  split_over_threads(runner, rows, macs, kParallelMinMacs, [&](int64_t begin, int64_t end) {
    std::unique_ptr<double[]> mix(new (std::nothrow) double[size_t(2 * job.W)]);
    if (!mix) {
      out_of_memory = true;
      return;
    }
    fft_rows(job, begin, end, mix.get());
  });
  if (out_of_memory) return make_error(Error::MemoryAllocationFailed, op, ": no memory for a row of scratch");
  return Status::ok();
}

// The checks both ops share on input_real [N,H,W]: fp32, rank 3, H and W powers of two within
// the level limit. `what` is the op name.
Status check_fft_input(const char* op, const TensorRef& input_real) {
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input_real", input_real));
  if (input_real.dtype != DType::Fp32)
    return make_error(Error::NotSupported, op, ": input_real: dtype ", dtype_name(input_real.dtype),
                      " not supported (fp32 only)");
  VKRT_RETURN_IF_ERROR(expect_rank(op, "input_real", input_real, 3));
  const char* names[2] = {"H", "W"};
  for (int d = 1; d <= 2; ++d) {
    const int64_t v = input_real.dim(d);
    if (!power_of_two(v))
      return make_error(Error::InvalidArgument, op, ": ERROR_IF(!power_of_two(", names[d - 1], ")): ",
                        names[d - 1], " = ", v, " in input shape ", shape_string(input_real.shape));
    if (v > kMaxFftSize)
      return make_error(Error::InvalidArgument, op, ": ", names[d - 1], " = ", v,
                        " exceeds MAX_KERNEL ", kMaxFftSize, " (level 8K)");
  }
  return Status::ok();
}

Status check_fft_output(const char* op, const char* what, const TensorRef& t, std::span<const int64_t> shape) {
  VKRT_RETURN_IF_ERROR(check_tensor(op, what, t));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, what, t, DType::Fp32));
  return expect_shape(op, what, t, shape);
}

}  // namespace

Status check_fft2d(const TensorRef& input_real, const TensorRef& input_imag, const FftAttr& /*attrs*/,
                   const TensorRef& output_real, const TensorRef& output_imag) {
  constexpr const char* kOp = "FFT2D";
  VKRT_RETURN_IF_ERROR(check_fft_input(kOp, input_real));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input_imag", input_imag));
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "input_imag", input_imag, DType::Fp32));
  VKRT_RETURN_IF_ERROR(expect_same_shape(kOp, "input_imag", input_imag, input_real));
  VKRT_RETURN_IF_ERROR(check_fft_output(kOp, "output_real", output_real, input_real.shape));
  return check_fft_output(kOp, "output_imag", output_imag, input_real.shape);
}

Status fft2d(const TensorRef& input_real, const TensorRef& input_imag, const FftAttr& attrs,
             const TensorRef& output_real, const TensorRef& output_imag, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_fft2d(input_real, input_imag, attrs, output_real, output_imag));
  const int64_t H = input_real.dim(1), W = input_real.dim(2);
  FftJob job{input_real.as<const float>(), input_imag.as<const float>(), output_real.as<float>(),
             output_imag.as<float>(), H, W, W, attrs.inverse ? -1.0 : 1.0, nullptr, std::max(H, W)};
  return run_fft("FFT2D", job, input_real.dim(0), runner);
}

Status check_rfft2d(const TensorRef& input_real, const FftAttr& /*attrs*/, const TensorRef& output_real,
                    const TensorRef& output_imag) {
  constexpr const char* kOp = "RFFT2D";
  VKRT_RETURN_IF_ERROR(check_fft_input(kOp, input_real));
  const int64_t out_shape[3] = {input_real.dim(0), input_real.dim(1), input_real.dim(2) / 2 + 1};
  VKRT_RETURN_IF_ERROR(check_fft_output(kOp, "output_real", output_real, out_shape));
  return check_fft_output(kOp, "output_imag", output_imag, out_shape);
}

Status rfft2d(const TensorRef& input_real, const FftAttr& attrs, const TensorRef& output_real,
              const TensorRef& output_imag, ParallelRunner* runner) {
  VKRT_RETURN_IF_ERROR(check_rfft2d(input_real, attrs, output_real, output_imag));
  const int64_t H = input_real.dim(1), W = input_real.dim(2);
  FftJob job{input_real.as<const float>(), nullptr, output_real.as<float>(), output_imag.as<float>(),
             H, W, W / 2 + 1, 1.0, nullptr, std::max(H, W)};
  return run_fft("RFFT2D", job, input_real.dim(0), runner);
}

Status fft2d_twiddles(int64_t size, std::span<float> cos_sin) {
  if (!power_of_two(size) || size > kMaxFftSize)
    return make_error(Error::InvalidArgument, "FFT2D twiddles: size ", size,
                      " is not a power of two in [1, ", kMaxFftSize, "]");
  if (int64_t(cos_sin.size()) < 2 * size)
    return make_error(Error::InvalidArgument, "FFT2D twiddles: ", cos_sin.size(), " floats given, ",
                      2 * size, " needed");
  for (int64_t k = 0; k < size; ++k) {
    const Twiddle t = twiddle(k, size);
    cos_sin[size_t(2 * k)] = float(t.c);
    cos_sin[size_t(2 * k + 1)] = float(t.s);
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
