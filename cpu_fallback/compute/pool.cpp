// Integer pooling (pool.h): the portable loops, and the dispatch to the Highway rows
// (pool_hwy.cpp) and to threads.
//
// The portable loops sum a window a run of channels at a time: NHWC keeps a tap's channels
// contiguous, so the adds vectorise, and each window's scale is derived once, not per element.
#include "compute/pool.h"

#include <algorithm>

#include "arith/fixed_point.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"

namespace vkrt::compute {
namespace {

// One output pixel's window: its tap ranges and its input row at (y0, x0).
struct Window {
  int32_t ky0, ky1, kx0, kx1;
  int64_t y0, x0;
  int32_t count() const { return (ky1 - ky0) * (kx1 - kx0); }
};

Window window_of(const PoolWindows& w, int64_t oy, int64_t ox) {
  Window win;
  pool_taps(oy, w.stride_h, w.pad_top, w.kernel_h, w.in_h, &win.ky0, &win.ky1);
  pool_taps(ox, w.stride_w, w.pad_left, w.kernel_w, w.in_w, &win.kx0, &win.kx1);
  win.y0 = oy * w.stride_h - w.pad_top;
  win.x0 = ox * w.stride_w - w.pad_left;
  return win;
}

// A window's sum (modulo 2^32, as TOSA's int32 accumulator) to its output value.
struct Averager {
  PoolOutput out;
  int32_t count = 0;
  arith::ReciprocalScale scale;  // kTosa
  uint32_t zero_points = 0;      // kTosa: count·input_zp, modulo 2^32

  explicit Averager(const PoolOutput& o) : out(o) {}
  // For a window of `taps` taps; derived again only where the count changes (at the borders),
  // since reciprocal_scale divides.
  void set_count(int32_t taps) {
    if (taps == count) return;
    count = taps;
    if (out.average == PoolAverage::kTosa) {
      scale = arith::reciprocal_scale(uint32_t(taps));
      zero_points = uint32_t(taps) * uint32_t(out.input_zp);
    }
  }

  int32_t operator()(uint32_t sum) const {
    int64_t v;
    if (out.average == PoolAverage::kCmsisNn) {
      const int64_t s = int32_t(sum), half = count / 2;
      v = (s > 0 ? s + half : s - half) / count;  // C division: truncates
    } else {
      v = int64_t(arith::apply_scale_32(int32_t(sum - zero_points), scale.multiplier, scale.shift, false)) +
          out.output_zp;
    }
    return int32_t(std::clamp<int64_t>(v, out.lo, out.hi));
  }
};

template <typename T>
void avg_rows_portable(const PoolWindows& w, const PoolOutput& o, const T* input, T* output, int64_t r0,
                       int64_t r1) {
  constexpr int32_t kChunk = 256;  // channels summed at a time, on the stack
  uint32_t acc[kChunk];
  Averager average(o);
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / w.out_h, oy = r % w.out_h;
    for (int32_t ox = 0; ox < w.out_w; ++ox) {
      const Window win = window_of(w, oy, ox);
      average.set_count(win.count());
      T* to = output + ((b * w.out_h + oy) * w.out_w + ox) * w.channels;
      for (int32_t c0 = 0; c0 < w.channels; c0 += kChunk) {
        const int32_t n = std::min(kChunk, w.channels - c0);
        std::fill(acc, acc + n, 0u);
        for (int32_t ky = win.ky0; ky < win.ky1; ++ky)
          for (int32_t kx = win.kx0; kx < win.kx1; ++kx) {
            const T* tap = input + ((b * w.in_h + win.y0 + ky) * w.in_w + win.x0 + kx) * w.channels + c0;
            for (int32_t c = 0; c < n; ++c) acc[c] += uint32_t(int32_t(tap[c]));
          }
        for (int32_t c = 0; c < n; ++c) to[c0 + c] = T(average(acc[c]));
      }
    }
  }
}

template <typename T>
void max_rows_portable(const PoolWindows& w, const PoolOutput& o, const T* input, T* output, int64_t r0,
                       int64_t r1) {
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / w.out_h, oy = r % w.out_h;
    for (int32_t ox = 0; ox < w.out_w; ++ox) {
      const Window win = window_of(w, oy, ox);
      T* to = output + ((b * w.out_h + oy) * w.out_w + ox) * w.channels;
      auto tap = [&](int32_t ky, int32_t kx) {
        return input + ((b * w.in_h + win.y0 + ky) * w.in_w + win.x0 + kx) * w.channels;
      };
      std::copy_n(tap(win.ky0, win.kx0), w.channels, to);  // the first tap starts the maximum
      for (int32_t ky = win.ky0; ky < win.ky1; ++ky)
        for (int32_t kx = win.kx0; kx < win.kx1; ++kx) {
          const T* in = tap(ky, kx);
          for (int32_t c = 0; c < w.channels; ++c) to[c] = in[c] > to[c] ? in[c] : to[c];
        }
      for (int32_t c = 0; c < w.channels; ++c) to[c] = T(std::clamp<int32_t>(to[c], o.lo, o.hi));
    }
  }
}

// rows(r0, r1) over the output rows (all batches: row = b·out_h + oy), on several workers from
// about 1M taps·channels (tens of microseconds: a wake-up costs a few).
template <typename Rows>
void run_rows(const PoolWindows& w, const Exec& exec, const Rows& rows) {
  const int64_t total = int64_t(w.batches) * w.out_h;
  if (total <= 0 || w.out_w <= 0 || w.channels <= 0) return;
  const double work = double(total) * w.out_w * w.channels * w.kernel_h * w.kernel_w;
  const int workers = int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(work / 1048576.0) + 1, total})));
  if (workers == 1) return rows(int64_t(0), total);
  exec.parallel_chunks(workers, total, [&](int, int64_t r0, int64_t r1) { rows(r0, r1); });
}

}  // namespace

std::optional<PoolEmptyWindow> pool_empty_window(const PoolWindows& w) {
  if (w.batches <= 0 || w.channels <= 0) return std::nullopt;  // no windows
  // A window without taps exists iff some output coordinate has none along an axis.
  int32_t b, e;
  for (int32_t oy = 0; oy < w.out_h; ++oy) {
    pool_taps(oy, w.stride_h, w.pad_top, w.kernel_h, w.in_h, &b, &e);
    if (b >= e && w.out_w > 0) return PoolEmptyWindow{true, oy};
  }
  for (int32_t ox = 0; ox < w.out_w; ++ox) {
    pool_taps(ox, w.stride_w, w.pad_left, w.kernel_w, w.in_w, &b, &e);
    if (b >= e && w.out_h > 0) return PoolEmptyWindow{false, ox};
  }
  return std::nullopt;
}

void avg_pool(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output, const Exec& exec) {
#if defined(__x86_64__)
  if (has(Isa::Avx2)) {  // the Highway rows take int8
    const auto rows_fn = has(Isa::Avx512bw) ? N_AVX3::avg_pool_rows_s8 : N_AVX2::avg_pool_rows_s8;
    return run_rows(w, exec, [&](int64_t r0, int64_t r1) { rows_fn(w, out, input, output, r0, r1); });
  }
#endif
  run_rows(w, exec, [&](int64_t r0, int64_t r1) { avg_rows_portable(w, out, input, output, r0, r1); });
}

void avg_pool(const PoolWindows& w, const PoolOutput& out, const int16_t* input, int16_t* output, const Exec& exec) {
  run_rows(w, exec, [&](int64_t r0, int64_t r1) { avg_rows_portable(w, out, input, output, r0, r1); });
}

void max_pool(const PoolWindows& w, const PoolOutput& out, const int8_t* input, int8_t* output, const Exec& exec) {
#if defined(__x86_64__)
  if (has(Isa::Avx2)) {
    const auto rows_fn = has(Isa::Avx512bw) ? N_AVX3::max_pool_rows_s8 : N_AVX2::max_pool_rows_s8;
    return run_rows(w, exec, [&](int64_t r0, int64_t r1) { rows_fn(w, out, input, output, r0, r1); });
  }
#endif
  run_rows(w, exec, [&](int64_t r0, int64_t r1) { max_rows_portable(w, out, input, output, r0, r1); });
}

void max_pool(const PoolWindows& w, const PoolOutput& out, const int16_t* input, int16_t* output, const Exec& exec) {
  run_rows(w, exec, [&](int64_t r0, int64_t r1) { max_rows_portable(w, out, input, output, r0, r1); });
}

}  // namespace vkrt::compute
