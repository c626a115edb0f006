// cortex_m::quantized_avg_pool2d.out
//   sum = Σ in[taps]; cnt = |taps|; avg = sum > 0 ? (sum + cnt/2)/cnt : (sum − cnt/2)/cnt  (C division)
//   out = clamp(avg, act_min, act_max)
// The per-channel division is exact in double precision (|sum| < 2^31, so the quotient's
// distance to the next integer, ≥ 1/cnt, is far above the rounding error) and vectorizes.
#include "cortex_m/avg_pool2d.h"

#include <algorithm>

#include "arith/fixed_point.h"
#include "cortex_m/cpu_features.h"
#include "cortex_m/kernel_util.h"
#include "compute/simd_avx512.h"

namespace vkrt::cortex_m {
namespace {

template <typename T>
VKRT_CLONES
void add_tap(int32_t* acc, const T* in, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c) acc[c] += in[c];
}

template <typename T>
VKRT_CLONES
void divide_row(const int32_t* sum, int32_t count, int32_t lo, int32_t hi, int32_t channels, T* out) {
  const int32_t half = count / 2;
  const double inv_count = double(count);
  for (int32_t c = 0; c < channels; ++c) {
    const int32_t s = sum[c];
    const int32_t rounded = s > 0 ? s + half : s - half;
    int32_t avg = int32_t(double(rounded) / inv_count);  // truncation = C integer division
    avg = avg < lo ? lo : avg;
    out[c] = T(avg > hi ? hi : avg);
  }
}

#if defined(__x86_64__)
// int8 windows of at most 256 taps on AVX-512BW: 64 channels at a time, sums in int16 (|sum| <=
// 256·128 = 2^15: exact), no scratch. The C division is done in float: |sum ± count/2| < 2^24
// and count <= 256, so the correctly rounded quotient is within |q|·2^-24 < 1/count of the
// exact one, never across an integer (a non-integer quotient is at least 1/count away from
// one); truncating it gives the C quotient exactly.
constexpr int32_t kInt16WindowTaps = 256;

VKRT_TARGET_AVX512 void avg_pool_s8_avx512(const PoolParams& p, const int8_t* input, int8_t* output, int64_t r0,
                                           int64_t r1) {
  const __m512i lo = _mm512_set1_epi32(p.activation_min), hi = _mm512_set1_epi32(p.activation_max);
  const __m512i zero = _mm512_setzero_si512();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / p.out_h;
    const int32_t oy = int32_t(r % p.out_h);
    int32_t ky0, ky1;
    pool_window(oy, p.stride_h, p.pad_h, p.kernel_h, p.in_h, &ky0, &ky1);
    const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
    for (int32_t ox = 0; ox < p.out_w; ++ox) {
      int32_t kx0, kx1;
      pool_window(ox, p.stride_w, p.pad_w, p.kernel_w, p.in_w, &kx0, &kx1);
      const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
      const int32_t count = (ky1 - ky0) * (kx1 - kx0);
      const __m512i half = _mm512_set1_epi32(count / 2);
      const __m512 divisor = _mm512_set1_ps(float(count));
      int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * p.channels;
      for (int32_t c = 0; c < p.channels; c += 64) {
        const int32_t left = p.channels - c;
        const __mmask64 m = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
        __m512i sum_lo = zero, sum_hi = zero;  // int16: channels c..c+31, c+32..c+63
        for (int32_t ky = ky0; ky < ky1; ++ky) {
          const int8_t* row = input + ((b * p.in_h + iy0 + ky) * p.in_w + ix0 + kx0) * p.channels + c;
          for (int32_t kx = 0; kx < kx1 - kx0; ++kx) {
            const __m512i x = _mm512_maskz_loadu_epi8(m, row + int64_t(kx) * p.channels);
            sum_lo = _mm512_add_epi16(sum_lo, _mm512_cvtepi8_epi16(_mm512_castsi512_si256(x)));
            sum_hi = _mm512_add_epi16(sum_hi, _mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(x, 1)));
          }
        }
        const __m512i sums[4] = {_mm512_cvtepi16_epi32(_mm512_castsi512_si256(sum_lo)),
                                 _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(sum_lo, 1)),
                                 _mm512_cvtepi16_epi32(_mm512_castsi512_si256(sum_hi)),
                                 _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(sum_hi, 1))};
        for (int q = 0; q < 4 && q * 16 < left; ++q) {
          // s > 0 ? s + half : s − half, then C (truncating) division.
          const __mmask16 positive = _mm512_cmpgt_epi32_mask(sums[q], zero);
          const __m512i rounded = _mm512_mask_add_epi32(_mm512_sub_epi32(sums[q], half), positive, sums[q], half);
          __m512i avg = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_cvtepi32_ps(rounded), divisor));
          avg = _mm512_min_epi32(_mm512_max_epi32(avg, lo), hi);
          const int n = left - q * 16 >= 16 ? 16 : left - q * 16;
          _mm512_mask_cvtsepi32_storeu_epi8(out + c + q * 16, n == 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u),
                                            avg);
        }
      }
    }
  }
}
#endif

template <typename T>
Status avg_pool(const PoolParams& p, const T* input, T* output, const Exec& exec) {
  // A window without taps exists iff some output coordinate has none along an axis.
  for (int32_t oy = 0; oy < p.out_h; ++oy) {
    int32_t b, e;
    pool_window(oy, p.stride_h, p.pad_h, p.kernel_h, p.in_h, &b, &e);
    if (b >= e && p.batches > 0 && p.out_w > 0 && p.channels > 0)
      return Status(Error::InvalidArgument, "output row " + std::to_string(oy) + " has no input taps");
  }
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    int32_t b, e;
    pool_window(ox, p.stride_w, p.pad_w, p.kernel_w, p.in_w, &b, &e);
    if (b >= e && p.batches > 0 && p.out_h > 0 && p.channels > 0)
      return Status(Error::InvalidArgument, "output column " + std::to_string(ox) + " has no input taps");
  }
  // Sums of fewer than 2^16 taps of int16 (plus the rounding half) stay in int32; bigger windows are rejected.
  if (int64_t(p.kernel_h) * p.kernel_w >= (int64_t(1) << 16))
    return Status(Error::InvalidArgument, "pooling window too large");
  const double adds = double(p.batches) * p.out_h * p.out_w * p.channels * p.kernel_h * p.kernel_w;
  const int64_t rows = int64_t(p.batches) * p.out_h;
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 1) {
    if (cpu_features().avx512bw && int64_t(p.kernel_h) * p.kernel_w <= kInt16WindowTaps) {
      // ~50 G additions/s per thread: a worker pays for its wake-up from about 2M additions.
      const int workers = int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(adds / 2097152.0) + 1, rows})));
      if (workers == 1) {
        avg_pool_s8_avx512(p, input, output, 0, rows);
      } else {
        exec.parallel_chunks(workers, rows,
                             [&](int, int64_t r0, int64_t r1) { avg_pool_s8_avx512(p, input, output, r0, r1); });
      }
      return Status::ok();
    }
  }
#endif
  const int threads = std::max(1, std::min(exec.num_threads(), int(adds / 524288.0) + 1));
  const size_t per_task = align_up(size_t(p.channels) * 4);
  const bool vector = exec.scratch.size() >= avg_pool2d_scratch_bytes(p, threads);
  uint8_t* base = reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(exec.scratch.data())));
  auto run_rows = [&](int t, int64_t r0, int64_t r1) {
    int32_t one_sum;
    int32_t* acc = vector ? reinterpret_cast<int32_t*>(base + size_t(t) * per_task) : &one_sum;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / p.out_h;
      const int32_t oy = int32_t(r % p.out_h);
      int32_t ky0, ky1;
      pool_window(oy, p.stride_h, p.pad_h, p.kernel_h, p.in_h, &ky0, &ky1);
      const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        int32_t kx0, kx1;
        pool_window(ox, p.stride_w, p.pad_w, p.kernel_w, p.in_w, &kx0, &kx1);
        const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
        const int32_t count = (ky1 - ky0) * (kx1 - kx0);
        T* out = output + ((b * p.out_h + oy) * p.out_w + ox) * p.channels;
        const int32_t c_step = vector ? p.channels : 1;
        for (int32_t c0 = 0; c0 < p.channels; c0 += c_step) {
          std::fill(acc, acc + c_step, 0);
          for (int32_t ky = ky0; ky < ky1; ++ky)
            for (int32_t kx = kx0; kx < kx1; ++kx)
              add_tap(acc, input + ((b * p.in_h + iy0 + ky) * p.in_w + ix0 + kx) * p.channels + c0, c_step);
          divide_row(acc, count, p.activation_min, p.activation_max, c_step, out + c0);
        }
      }
    }
  };
  if (vector)
    exec.parallel_chunks(threads, rows, run_rows);
  else
    run_rows(0, 0, rows);
  return Status::ok();
}

}  // namespace

size_t avg_pool2d_scratch_bytes(const PoolParams& p, int threads) {
  return size_t(std::max(threads, 1)) * align_up(size_t(p.channels) * 4) + 64;
}

Status avg_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output, const Exec& exec) {
  return avg_pool(p, input, output, exec);
}
Status avg_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output, const Exec& exec) {
  return avg_pool(p, input, output, exec);
}

namespace {

// quantized_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier,
//   shift, [scratch], out) + return: 11 arguments (10 without scratch). zero_point, multiplier
// and shift are ignored (input and output share qparams, §2); ceil_mode only changes the
// output size, which `out` must have (checked as upstream does).
constexpr char kAvgPoolOp[] = "cortex_m::quantized_avg_pool2d.out";

Result<PoolCall> parse_avg_pool_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(10, 11));
  const size_t out_index = args.size() - 2;
  PoolCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* input = c.input;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *out));
  int32_t kernel[2], stride[2], padding[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 1, "kernel_size", kernel, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 2, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "padding", padding, 0, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(bool ceil_mode, args.bool_value(4, "ceil_mode"));
  VKRT_RETURN_IF_ERROR(args.int_value(5, "zero_point").status());
  VKRT_RETURN_IF_ERROR(args.int_value(6, "multiplier").status());
  VKRT_RETURN_IF_ERROR(args.int_value(7, "shift").status());
  if (o.n != in.n || o.c != in.c) return args.error(out_index, "out", "batch/channels do not match input");
  // The output size the pooling parameters give (upstream's pooling_output_size), which the
  // out tensor must have.
  auto pooled = [ceil_mode](int64_t input, int64_t k, int64_t s, int64_t pad) {
    const int64_t numerator = input + 2 * pad - k;
    int64_t size = numerator / s + 1;
    if (ceil_mode && numerator % s != 0) ++size;
    if (ceil_mode && (size - 1) * s >= input + pad) --size;
    return size;
  };
  const int64_t want_h = pooled(in.h, kernel[0], stride[0], padding[0]);
  const int64_t want_w = pooled(in.w, kernel[1], stride[1], padding[1]);
  if (o.h != want_h || o.w != want_w)
    return args.error(out_index, "out", "spatial size " + std::to_string(o.h) + "x" + std::to_string(o.w) +
                                            " does not match the pooling parameters' " + std::to_string(want_h) + "x" +
                                            std::to_string(want_w));
  const bool s16 = input->dtype() == ScalarType::Short;
  PoolParams& p = c.p;
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.channels = in.c, p.out_h = o.h, p.out_w = o.w;
  p.kernel_h = kernel[0], p.kernel_w = kernel[1], p.stride_h = stride[0], p.stride_w = stride[1];
  p.pad_h = padding[0], p.pad_w = padding[1];
  p.activation_min = s16 ? -32768 : -128, p.activation_max = s16 ? 32767 : 127;
  if (Status s = check_pool(p, s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  return c;
}

Status quantized_avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kAvgPoolOp, argv);
  VKRT_ASSIGN_OR_RETURN(PoolCall c, prepared_or_parse(ctx, args, parse_avg_pool_call));
  VKRT_RETURN_IF_ERROR(pool_data(args, c));
  const PoolParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  const bool s16 = input->dtype() == ScalarType::Short;
  ContextRunner runner(ctx);
  const Exec exec = make_exec(ctx, runner, avg_pool2d_scratch_bytes(p, runner.num_threads()));
  Status s = s16 ? avg_pool2d_s16(p, input->data_as<int16_t>(), out->data_as<int16_t>(), exec)
                 : avg_pool2d_s8(p, input->data_as<int8_t>(), out->data_as<int8_t>(), exec);
  if (!s.is_ok()) return args.op_error(s.code(), s.message());
  return s;
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kAvgPoolOp, quantized_avg_pool2d_out, (prepare_parsed<kAvgPoolOp, parse_avg_pool_call>));

}  // namespace vkrt::cortex_m
