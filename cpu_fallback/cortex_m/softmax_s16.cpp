#include "cortex_m/softmax_s16.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "arith/fixed_point.h"

namespace vkrt::cortex_m {
namespace {

constexpr int kLutSize = 513;  // 512 segments plus the end point (for the last slope)
using Lut = std::array<int16_t, kLutSize>;

// TFLite's gen_lut (2.6): samples at min + i·step scaled by 2^15, each nudged by half the error
// that linear interpolation would make at the segment's midpoint; the last entry is func(max).
// std::round rounds halves away from zero, as TfLiteRound does.
Lut make_lut(double (*func)(double), double min, double max) {
  Lut table{};
  const double step = (max - min) / (kLutSize - 1);
  const double half_step = step / 2.0;
  auto clamp16 = [](double v) { return int16_t(std::min(std::max(v, -32768.0), 32767.0)); };
  for (int i = 0; i < kLutSize - 1; ++i) {
    const double sample = std::round(func(min + i * step) * 32768.0);
    const double interpolated_mid = std::round((func(min + (i + 1) * step) * 32768.0 + sample) / 2.0);
    const double true_mid = std::round(func(min + i * step + half_step) * 32768.0);
    const double bias = std::round((interpolated_mid - true_mid) / 2.0);
    table[size_t(i)] = clamp16(sample - bias);
  }
  table[kLutSize - 1] = clamp16(std::round(func(max) * 32768.0));
  return table;
}

double exp_of(double x) { return std::exp(x); }
double one_over_one_plus(double x) { return 1.0 / (1.0 + x); }

const Lut& exp_lut() {
  static const Lut table = make_lut(exp_of, -10.0, 0.0);
  return table;
}
const Lut& reciprocal_lut() {
  static const Lut table = make_lut(one_over_one_plus, 0.0, 1.0);
  return table;
}

// Table lookup at a symmetric int16 argument: segment 256 + (v >> 7), linear in the low 7 bits,
// rounded; all in int16 as the C code stores it.
int16_t lookup(const Lut& lut, int16_t v) {
  const int index = 256 + (v >> 7);
  const int offset = v & 0x7f;
  const int16_t base = lut[size_t(index)];
  const int16_t slope = int16_t(lut[size_t(index) + 1] - base);
  const int16_t delta = int16_t((slope * offset + 64) >> 7);
  return int16_t(base + delta);
}

}  // namespace

const int16_t* softmax_s16_exp_table() { return exp_lut().data(); }
const int16_t* softmax_s16_reciprocal_table() { return reciprocal_lut().data(); }

Status softmax_s16(const SoftmaxS16Params& p, const int16_t* input, int16_t* output) {
  if (p.rows < 0 || p.row_size < 0) return Status(Error::InvalidArgument, "negative size");
  if (p.row_size > kSoftmaxS16MaxRow)
    return Status(Error::InvalidArgument, "row of " + std::to_string(p.row_size) + " elements: at most " +
                                              std::to_string(kSoftmaxS16MaxRow) + " (the int32 sum would overflow)");
  if (p.input_left_shift < -31 || p.input_left_shift > 30)
    return Status(Error::InvalidArgument, "input_left_shift outside [-31, 30]");
  if (p.row_size == 0) return Status::ok();
  const Lut& exp_table = exp_lut();
  const Lut& reciprocal_table = reciprocal_lut();
  for (int64_t r = 0; r < p.rows; ++r) {
    const int16_t* x = input + r * p.row_size;
    int16_t* y = output + r * p.row_size;
    const int16_t max = *std::max_element(x, x + p.row_size);
    int32_t sum = 0;  // ≤ 65536 · 32767 < 2^31
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t scaled = arith::requantize(int32_t(x[c]) - max, p.input_multiplier, p.input_left_shift);
      // x − max ≤ 0, so scaled ≤ 0 and scaled + 32767 ≤ 32767; clamp the low end (arm_nn_requantize
      // cannot overflow here: |x − max| < 2^16).
      const int16_t symmetric = int16_t(std::clamp(scaled + 32767, -32768, 32767));
      y[c] = lookup(exp_table, symmetric);  // the row's exp values, kept in the output (as CMSIS does)
      sum += y[c];
    }
    // The maximum element maps to exp(0) = 32767, so sum ≥ 32767 > 0 and clz(sum) ≥ 1.
    const int headroom = __builtin_clz(uint32_t(sum));
    // 1/sum: the sum's top bits as x + 1 in [1, 2), moved to the table's symmetric argument.
    // (The C code's int32 addition wraps when the normalised sum is within 2^13 of 2^31; the
    // wrapped value differs by 2^18, which the int16 argument below does not see.)
    const int32_t shifted_sum = int32_t((uint32_t(sum) << (headroom - 1)) + (1u << 13)) >> 14;
    const int16_t reciprocal = lookup(reciprocal_table, int16_t(shifted_sum - 98304));
    const int right_shift = 30 - headroom;
    for (int32_t c = 0; c < p.row_size; ++c) {
      const int32_t product = int32_t(y[c]) * reciprocal;  // < 2^30
      // Saturated: where one element holds the whole mass (a row of one), the rounded result
      // is 32768, which CMSIS's plain int16 cast turns into −32768 (probability −1).
      y[c] = int16_t(std::min(((product >> right_shift) + 1) >> 1, 32767));
    }
  }
  return Status::ok();
}

}  // namespace vkrt::cortex_m
