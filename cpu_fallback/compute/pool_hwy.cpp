// The int8 pools' rows (pool.h) on Highway vectors, one copy per target (hwy_targets.h).
//
// A window is summed a vector of channels at a time in int16 lanes (kPoolInt16Taps taps at most:
// |Σx| <= 2^15; a larger window adds such sums into int32 lanes), each tap widened as it is
// loaded, and the sums stay in registers across the taps; then widened to int32 for the average:
//   * CMSIS-NN's rounded C division in float: the average of int8 values has |q| <= 128.5, and
//     fewer than 2^16 taps keep |sum ± count/2| below 2^24, exact in float. The correctly rounded
//     quotient is then within |q|·2^-24 < 2^-16 of the exact one, while a quotient that is not
//     an integer is at least 1/count > 2^-16 from one, so truncating it gives C's quotient.
//   * TOSA's apply_scale_32(sum − count·input_zp, reciprocal_scale(count)) in 64-bit lanes: the
//     product plus 2^(shift−1) plus 2^62 is non-negative and below 2^64, so a logical shift right
//     by `shift`, less 2^(62−shift), is the arithmetic one (AVX2 has no 64-bit arithmetic shift).
// The maximum needs no widening: int8 lanes, a whole vector of channels per step.
#include "compute/hwy_targets.h"

#include "compute/pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/pool_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "arith/fixed_point.h"
#include "compute/output_stage_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::compute::HWY_NAMESPACE {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3

// One output pixel's window: its first tap inside the input, the taps along each axis, and the
// distance between its rows.
struct PixelWindow {
  const int8_t* first;
  int32_t rows, columns;
  int64_t row_stride;
  int32_t count() const { return rows * columns; }
};

HWY_INLINE PixelWindow window_of(const PoolWindows& w, const int8_t* input, int64_t b, int64_t oy, int64_t ox) {
  int32_t ky0, ky1, kx0, kx1;
  pool_taps(oy, w.stride_h, w.pad_top, w.kernel_h, w.in_h, &ky0, &ky1);
  pool_taps(ox, w.stride_w, w.pad_left, w.kernel_w, w.in_w, &kx0, &kx1);
  const int64_t y = oy * w.stride_h - w.pad_top + ky0, x = ox * w.stride_w - w.pad_left + kx0;
  return PixelWindow{input + ((b * w.in_h + y) * w.in_w + x) * w.channels, ky1 - ky0, kx1 - kx0,
                     int64_t(w.in_w) * w.channels};
}

// Calls tap(pointer to channel 0 of the tap) for each of the window's taps.
template <class Tap>
HWY_INLINE void for_each_tap(const PixelWindow& win, int32_t channels, const Tap& tap) {
  const int8_t* row = win.first;
  for (int32_t ky = 0; ky < win.rows; ++ky, row += win.row_stride) {
    const int8_t* t = row;
    for (int32_t kx = 0; kx < win.columns; ++kx, t += channels) tap(t);
  }
}

// Calls block(c, vectors) over the channels in blocks of 2 or 1 whole vectors of `step` channels
// from channel c. Where the channels do not fill whole vectors, the last block ends at the last
// channel and overlaps the one before (those channels computed again: the same bytes, no loads
// past the end). Fewer channels than one vector: block(0, 0), one partial vector.
template <class Block>
HWY_INLINE void for_each_block(int32_t channels, int32_t step, const Block& block) {
  if (channels < step) return block(0, 0);
  int32_t c = 0;
  for (; c + 2 * step <= channels; c += 2 * step) block(c, 2);
  if (c + step <= channels) block(c, 1), c += step;
  if (c < channels) block(channels - step, 1);
}

void avg_pool_rows_s8(const PoolWindows& w, const PoolOutput& o, const int8_t* input, int8_t* output,
                      int64_t first_row, int64_t last_row) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;  // twice d32's lanes: one step's channels
  const hn::Half<decltype(d16)> d16_half;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const hn::Rebind<float, decltype(d32)> df;
  const hn::Repartition<uint64_t, decltype(d32)> du64;
  const hn::Repartition<int64_t, decltype(d32)> d64;
  using V32 = hn::Vec<decltype(d32)>;
  const int32_t step = int32_t(hn::Lanes(d16));
  const bool cmsis = o.average == PoolAverage::kCmsisNn;
  const V32 zero = hn::Zero(d32), offset = hn::Set(d32, o.output_zp), lo = hn::Set(d32, o.lo),
            hi = hn::Set(d32, o.hi);
  // A window's constants, for all its channels; derived again only where the tap count changes
  // (at the borders), since reciprocal_scale divides.
  int32_t count = 0;
  V32 half = zero, multiplier = zero, zero_points = zero;
  auto divisor = hn::Zero(df);
  auto rounding = hn::Zero(du64), excess = hn::Zero(du64);
  int shift = 0;
  for (int64_t r = first_row; r < last_row; ++r) {
    const int64_t b = r / w.out_h, oy = r % w.out_h;
    for (int64_t ox = 0; ox < w.out_w; ++ox) {
      const PixelWindow win = window_of(w, input, b, oy, ox);
      if (const int32_t taps = win.count(); taps != count) {
        count = taps;
        if (cmsis) {
          half = hn::Set(d32, count / 2);
          divisor = hn::Set(df, float(count));
        } else {
          const arith::ReciprocalScale rs = arith::reciprocal_scale(uint32_t(count));
          shift = rs.shift;  // 30 + ceil(log2(count)) <= 56 (TOSA's kernels have at most 2^26 taps)
          multiplier = hn::Set(d32, rs.multiplier);
          zero_points = hn::Set(d32, int32_t(uint32_t(count) * uint32_t(o.input_zp)));  // modulo 2^32
          rounding = hn::Set(du64, (uint64_t{1} << (shift - 1)) + (uint64_t{1} << 62));
          excess = hn::Set(du64, uint64_t{1} << (62 - shift));
        }
      }
      auto average = [&](V32 sum) HWY_ATTR {
        if (cmsis) {
          const V32 rounded = hn::IfThenElse(sum > zero, hn::Add(sum, half), hn::Sub(sum, half));
          return hn::ConvertTo(d32, hn::Div(hn::ConvertTo(df, rounded), divisor));  // truncates
        }
        const V32 v = hn::Sub(sum, zero_points);
        const V32 v_odd = hn::BitCast(d32, hn::ShiftRight<32>(hn::BitCast(du64, v)));
        auto scaled = [&](hn::Vec<decltype(d64)> product) HWY_ATTR {
          return hn::Sub(hn::ShiftRightSame(hn::Add(hn::BitCast(du64, product), rounding), shift), excess);
        };
        const auto even = scaled(hn::MulEven(v, multiplier)), odd = scaled(hn::MulEven(v_odd, multiplier));
        return hn::OddEven(hn::BitCast(d32, hn::ShiftLeft<32>(odd)), hn::BitCast(d32, even));
      };
      int8_t* to = output + ((b * w.out_h + oy) * w.out_w + ox) * w.channels;
      if (count > kPoolInt16Taps) {
        // A larger window: int16 sums over kPoolInt16Taps taps at a time, added into int32.
        auto wide_block = [&](int32_t c, int32_t n) HWY_ATTR {
          V32 first = zero, second = zero;
          auto part = hn::Zero(d16);
          int32_t taps_in_part = 0;
          auto flush = [&]() HWY_ATTR {
            first = hn::Add(first, hn::PromoteTo(d32, hn::LowerHalf(d16_half, part)));
            second = hn::Add(second, hn::PromoteTo(d32, hn::UpperHalf(d16_half, part)));
            part = hn::Zero(d16);
            taps_in_part = 0;
          };
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            part = hn::Add(part, hn::PromoteTo(d16, n == step ? hn::LoadU(d8, tap + c) : LoadPartial(d8, tap + c, n)));
            if (++taps_in_part == kPoolInt16Taps) flush();
          });
          flush();
          StoreS8x2(d32, average(first), average(second), offset, lo, hi, to + c, n);
        };
        for_each_block(w.channels, step, [&](int32_t c, int vectors) HWY_ATTR {
          if (vectors == 0) return wide_block(0, w.channels);
          for (int v = 0; v < vectors; ++v) wide_block(c + v * step, step);
        });
        continue;
      }
      auto store = [&](hn::Vec<decltype(d16)> sum, int32_t c, int32_t n) HWY_ATTR {
        const V32 first = average(hn::PromoteTo(d32, hn::LowerHalf(d16_half, sum)));
        const V32 second = average(hn::PromoteTo(d32, hn::UpperHalf(d16_half, sum)));
        StoreS8x2(d32, first, second, offset, lo, hi, to + c, n);
      };
      for_each_block(w.channels, step, [&](int32_t c, int vectors) HWY_ATTR {
        auto sum0 = hn::Zero(d16), sum1 = hn::Zero(d16);
        if (vectors == 2) {  // two sums in flight
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            sum0 = hn::Add(sum0, hn::PromoteTo(d16, hn::LoadU(d8, tap + c)));
            sum1 = hn::Add(sum1, hn::PromoteTo(d16, hn::LoadU(d8, tap + c + step)));
          });
          store(sum0, c, step);
          store(sum1, c + step, step);
        } else if (vectors == 1) {
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            sum0 = hn::Add(sum0, hn::PromoteTo(d16, hn::LoadU(d8, tap + c)));
          });
          store(sum0, c, step);
        } else {
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            sum0 = hn::Add(sum0, hn::PromoteTo(d16, LoadPartial(d8, tap, w.channels)));
          });
          store(sum0, 0, w.channels);
        }
      });
    }
  }
}

void max_pool_rows_s8(const PoolWindows& w, const PoolOutput& o, const int8_t* input, int8_t* output,
                      int64_t first_row, int64_t last_row) {
  const hn::ScalableTag<int8_t> d8;
  const int32_t step = int32_t(hn::Lanes(d8));
  const auto lo = hn::Set(d8, int8_t(o.lo)), hi = hn::Set(d8, int8_t(o.hi)), least = hn::Set(d8, int8_t(-128));
  for (int64_t r = first_row; r < last_row; ++r) {
    const int64_t b = r / w.out_h, oy = r % w.out_h;
    for (int64_t ox = 0; ox < w.out_w; ++ox) {
      const PixelWindow win = window_of(w, input, b, oy, ox);
      int8_t* to = output + ((b * w.out_h + oy) * w.out_w + ox) * w.channels;
      auto store = [&](hn::Vec<decltype(d8)> best, int32_t c, int32_t n) HWY_ATTR {
        StorePartial(d8, hn::Min(hn::Max(best, lo), hi), to + c, n);
      };
      for_each_block(w.channels, step, [&](int32_t c, int vectors) HWY_ATTR {
        auto best0 = least, best1 = least;
        if (vectors == 2) {
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            best0 = hn::Max(best0, hn::LoadU(d8, tap + c));
            best1 = hn::Max(best1, hn::LoadU(d8, tap + c + step));
          });
          store(best0, c, step);
          store(best1, c + step, step);
        } else if (vectors == 1) {
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR { best0 = hn::Max(best0, hn::LoadU(d8, tap + c)); });
          store(best0, c, step);
        } else {
          for_each_tap(win, w.channels, [&](const int8_t* tap) HWY_ATTR {
            best0 = hn::Max(best0, LoadPartial(d8, tap, w.channels));
          });
          store(best0, 0, w.channels);
        }
      });
    }
  }
}

#endif  // AVX2 or AVX3
}  // namespace vkrt::compute::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
