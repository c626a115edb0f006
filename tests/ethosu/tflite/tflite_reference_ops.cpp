#include "tflite_reference_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arith/fixed_point.h"

namespace vkrt::ethosu::tflite::ref {

using arith::rounding_divide_by_pot;
using arith::saturating_mul_by_pot;
using arith::saturating_rounding_doubling_high_mul;

namespace {

template <typename T>
constexpr int32_t kMin = std::numeric_limits<T>::min();
template <typename T>
constexpr int32_t kMax = std::numeric_limits<T>::max();

template <typename T>
T clamp_to(int32_t v, Range r) {
  return static_cast<T>(std::min(std::max(v, r.min), r.max));
}

// Accumulators are int32 in TFLite; sums are formed in int64 and wrapped like the int32 registers.
inline int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

// gemmlowp 16-bit SaturatingRoundingDoublingHighMul.
int16_t srdhm16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t(a) * int32_t(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}
// reference_ops::SaturatingDoublingHighMul (no rounding).
int16_t sdhm16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t(a) * int32_t(b)) / (1 << 15));
}
// reference_ops::SaturatingLeftShift (int16).
int16_t saturating_left_shift16(int16_t v, int amount) {
  int64_t r = int64_t(v) * (int64_t(1) << std::clamp(amount, 0, 31));
  return static_cast<int16_t>(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}
// TFLite DownScaleInt32ToInt16Multiplier.
int16_t downscale_multiplier(int32_t m) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRoundingOffset) >> 16);
}

// gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl (Q0.31).
int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  constexpr int32_t kConstantTerm = 1895147668;    // exp(-1/8)
  constexpr int32_t kConstantOneThird = 715827883;  // 1/3
  const int32_t x = arith::wrap_add(a, 1 << 28);   // a + 1/8
  const int32_t x2 = saturating_rounding_doubling_high_mul(x, x);
  const int32_t x3 = saturating_rounding_doubling_high_mul(x2, x);
  const int32_t x4 = saturating_rounding_doubling_high_mul(x2, x2);
  const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const int32_t poly = rounding_divide_by_pot(
      arith::wrap_add(saturating_rounding_doubling_high_mul(arith::wrap_add(x4_over_4, x3), kConstantOneThird), x2), 1);
  return arith::wrap_add(kConstantTerm, saturating_rounding_doubling_high_mul(kConstantTerm, arith::wrap_add(x, poly)));
}

}  // namespace

// ---- quantisation helpers ------------------------------------------------------------------------

Multiplier quantize_multiplier(double real) {
  if (real == 0.0 || !std::isfinite(real)) return {};
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * double(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {};
  return {static_cast<int32_t>(q_fixed), shift};
}

int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(arith::wrap_shl(x, left), multiplier), right);
}

Range activation_range(Activation act, float out_scale, int32_t out_zp, int32_t qmin, int32_t qmax) {
  auto quantize = [&](float f) { return out_zp + static_cast<int32_t>(std::round(f / out_scale)); };
  switch (act) {
    case Activation::Relu: return {std::max(qmin, quantize(0.0f)), qmax};
    case Activation::Relu6: return {std::max(qmin, quantize(0.0f)), std::min(qmax, quantize(6.0f))};
    case Activation::ReluN1To1: return {std::max(qmin, quantize(-1.0f)), std::min(qmax, quantize(1.0f))};
    default: return {qmin, qmax};
  }
}

int compute_out_size(Padding padding, int image_size, int filter_size, int stride, int dilation) {
  const int effective_filter = (filter_size - 1) * dilation + 1;
  if (stride == 0) return 0;
  if (padding == Padding::Same) return (image_size + stride - 1) / stride;
  return (image_size + stride - effective_filter) / stride;
}

int compute_padding(int stride, int dilation, int in_size, int filter_size, int out_size) {
  const int effective_filter = (filter_size - 1) * dilation + 1;
  const int total = (out_size - 1) * stride + effective_filter - in_size;
  return total > 0 ? total / 2 : 0;
}

// ---- convolutions, fully connected, pooling ------------------------------------------------------

template <typename T>
void conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter, const int32_t* bias,
            T* output) {
  for (int b = 0; b < g.batches; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox)
        for (int oc = 0; oc < g.out_ch; ++oc) {
          const int iy0 = oy * g.stride_h - g.pad_h, ix0 = ox * g.stride_w - g.pad_w;
          int64_t acc = 0;
          for (int fy = 0; fy < g.filter_h; ++fy) {
            const int iy = iy0 + g.dilation_h * fy;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int fx = 0; fx < g.filter_w; ++fx) {
              const int ix = ix0 + g.dilation_w * fx;
              if (ix < 0 || ix >= g.in_w) continue;
              const T* in = input + ((size_t(b) * g.in_h + iy) * g.in_w + ix) * g.in_ch;
              const T* f = filter + ((size_t(oc) * g.filter_h + fy) * g.filter_w + fx) * g.in_ch;
              for (int ic = 0; ic < g.in_ch; ++ic)
                acc += int64_t(int32_t(f[ic]) + s.filter_offset) * (int32_t(in[ic]) + s.input_offset);
            }
          }
          int32_t v = wrap32(acc);
          if (bias) v = arith::wrap_add(v, bias[oc]);
          v = multiply_by_quantized_multiplier(v, s.at(oc)) + s.output_offset;
          output[((size_t(b) * g.out_h + oy) * g.out_w + ox) * g.out_ch + oc] = clamp_to<T>(v, s.act);
        }
}

template <typename T>
void depthwise_conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter,
                      const int32_t* bias, T* output) {
  const int multiplier = g.out_ch / g.in_ch;
  for (int b = 0; b < g.batches; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox)
        for (int ic = 0; ic < g.in_ch; ++ic)
          for (int m = 0; m < multiplier; ++m) {
            const int oc = ic * multiplier + m;
            const int iy0 = oy * g.stride_h - g.pad_h, ix0 = ox * g.stride_w - g.pad_w;
            int64_t acc = 0;
            for (int fy = 0; fy < g.filter_h; ++fy) {
              const int iy = iy0 + g.dilation_h * fy;
              if (iy < 0 || iy >= g.in_h) continue;
              for (int fx = 0; fx < g.filter_w; ++fx) {
                const int ix = ix0 + g.dilation_w * fx;
                if (ix < 0 || ix >= g.in_w) continue;
                const int32_t in = input[((size_t(b) * g.in_h + iy) * g.in_w + ix) * g.in_ch + ic];
                const int32_t f = filter[(size_t(fy) * g.filter_w + fx) * g.out_ch + oc];
                acc += int64_t(f + s.filter_offset) * (in + s.input_offset);
              }
            }
            int32_t v = wrap32(acc);
            if (bias) v = arith::wrap_add(v, bias[oc]);
            v = multiply_by_quantized_multiplier(v, s.at(oc)) + s.output_offset;
            output[((size_t(b) * g.out_h + oy) * g.out_w + ox) * g.out_ch + oc] = clamp_to<T>(v, s.act);
          }
}

template <typename T>
void transpose_conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter,
                      const int32_t* bias, T* output) {
  std::vector<int64_t> acc(size_t(g.batches) * g.out_h * g.out_w * g.out_ch, 0);
  for (int b = 0; b < g.batches; ++b)
    for (int iy = 0; iy < g.in_h; ++iy)
      for (int ix = 0; ix < g.in_w; ++ix) {
        const int oy0 = iy * g.stride_h - g.pad_h, ox0 = ix * g.stride_w - g.pad_w;
        const T* in = input + ((size_t(b) * g.in_h + iy) * g.in_w + ix) * g.in_ch;
        for (int fy = 0; fy < g.filter_h; ++fy) {
          const int oy = oy0 + fy;
          if (oy < 0 || oy >= g.out_h) continue;
          for (int fx = 0; fx < g.filter_w; ++fx) {
            const int ox = ox0 + fx;
            if (ox < 0 || ox >= g.out_w) continue;
            int64_t* out = acc.data() + ((size_t(b) * g.out_h + oy) * g.out_w + ox) * g.out_ch;
            for (int oc = 0; oc < g.out_ch; ++oc) {
              const T* f = filter + ((size_t(oc) * g.filter_h + fy) * g.filter_w + fx) * g.in_ch;
              for (int ic = 0; ic < g.in_ch; ++ic)
                out[oc] += int64_t(int32_t(in[ic]) + s.input_offset) * (int32_t(f[ic]) + s.filter_offset);
            }
          }
        }
      }
  for (size_t i = 0; i < acc.size(); ++i) {
    const int oc = int(i % size_t(g.out_ch));
    int32_t v = wrap32(acc[i]);
    if (bias) v = arith::wrap_add(v, bias[oc]);
    v = multiply_by_quantized_multiplier(v, s.at(oc)) + s.output_offset;
    output[i] = clamp_to<T>(v, s.act);
  }
}

template <typename T>
void fully_connected(int batches, int depth, int out_features, const OutputStage& s, const T* input,
                     const T* filter, const int32_t* bias, T* output) {
  for (int b = 0; b < batches; ++b)
    for (int o = 0; o < out_features; ++o) {
      int64_t acc = 0;
      const T* in = input + size_t(b) * depth;
      const T* f = filter + size_t(o) * depth;
      for (int d = 0; d < depth; ++d)
        acc += int64_t(int32_t(f[d]) + s.filter_offset) * (int32_t(in[d]) + s.input_offset);
      int32_t v = wrap32(acc);
      if (bias) v = arith::wrap_add(v, bias[o]);
      v = multiply_by_quantized_multiplier(v, s.at(o)) + s.output_offset;
      output[size_t(b) * out_features + o] = clamp_to<T>(v, s.act);
    }
}

namespace {
template <typename T, typename Reduce>
void pool(const PoolGeometry& g, const T* input, T* output, Reduce reduce) {
  for (int b = 0; b < g.batches; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox) {
        const int iy0 = oy * g.stride_h - g.pad_h, ix0 = ox * g.stride_w - g.pad_w;
        const int fy0 = std::max(0, -iy0), fy1 = std::min(g.filter_h, g.in_h - iy0);
        const int fx0 = std::max(0, -ix0), fx1 = std::min(g.filter_w, g.in_w - ix0);
        for (int c = 0; c < g.channels; ++c) {
          auto at = [&](int fy, int fx) {
            return int32_t(input[((size_t(b) * g.in_h + iy0 + fy) * g.in_w + ix0 + fx) * g.channels + c]);
          };
          output[((size_t(b) * g.out_h + oy) * g.out_w + ox) * g.channels + c] = reduce(fy0, fy1, fx0, fx1, at);
        }
      }
}
}  // namespace

template <typename T>
void average_pool(const PoolGeometry& g, Range act, const T* input, T* output) {
  pool<T>(g, input, output, [&](int fy0, int fy1, int fx0, int fx1, auto at) {
    int32_t acc = 0, count = 0;
    for (int fy = fy0; fy < fy1; ++fy)
      for (int fx = fx0; fx < fx1; ++fx) {
        acc += at(fy, fx);
        ++count;
      }
    if (count == 0) return clamp_to<T>(0, act);  // TFLite fails Eval; the caller rejects such windows
    acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
    return clamp_to<T>(acc, act);
  });
}

template <typename T>
void max_pool(const PoolGeometry& g, Range act, const T* input, T* output) {
  pool<T>(g, input, output, [&](int fy0, int fy1, int fx0, int fx1, auto at) {
    int32_t m = std::numeric_limits<T>::lowest();
    for (int fy = fy0; fy < fy1; ++fy)
      for (int fx = fx0; fx < fx1; ++fx) m = std::max(m, at(fy, fx));
    return clamp_to<T>(m, act);
  });
}

// ---- softmax -------------------------------------------------------------------------------------

SoftmaxParams prepare_softmax(double beta, double input_scale) {
  constexpr int kScaledDiffIntegerBits = 5;
  SoftmaxParams p;
  const double real = std::min(beta * input_scale * double(int64_t{1} << (31 - kScaledDiffIntegerBits)),
                               double((int64_t{1} << 31) - 1));
  const Multiplier m = quantize_multiplier(real);  // QuantizeMultiplierGreaterThanOne
  p.input_multiplier = m.multiplier;
  p.input_left_shift = m.shift;
  // CalculateInputRadius(5, shift, 31) = floor((2^5 − 1) · 2^26 / 2^shift).
  const double radius = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                        double(int64_t{1} << (31 - kScaledDiffIntegerBits)) / double(int64_t{1} << std::clamp(m.shift, 0, 62));
  p.diff_min = -static_cast<int>(std::floor(radius));
  return p;
}

int32_t exp_on_negative_values(int32_t a) {
  constexpr int kIntegerBits = 5;
  constexpr int kFractionalBits = 31 - kIntegerBits;
  constexpr int32_t kOneQuarter = 1 << (kFractionalBits - 2);
  constexpr int32_t kMask = kOneQuarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = (a & kMask) - kOneQuarter;
  // Rescale<0> from 5 integer bits: a saturating multiply by 2^5.
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      saturating_mul_by_pot(a_mod_quarter_minus_one_quarter, kIntegerBits));
  const int32_t remainder = arith::wrap_sub(a_mod_quarter_minus_one_quarter, a);
  struct Step {
    int exponent;
    int32_t multiplier;  // exp(-2^exponent) in Q0.31
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& s : kSteps) {
    if (kIntegerBits > s.exponent && (remainder & (int32_t(1) << (kFractionalBits + s.exponent))))
      result = saturating_rounding_doubling_high_mul(result, s.multiplier);
  }
  if (a == 0) result = std::numeric_limits<int32_t>::max();
  return result;
}

int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  // RoundingHalfSum(a, One) in Q0.31.
  const int64_t sum = int64_t(a) + std::numeric_limits<int32_t>::max();
  const int32_t half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  constexpr int32_t k48Over17 = 1515870810;       // Q2.29
  constexpr int32_t kNeg32Over17 = -1010580540;   // Q2.29
  constexpr int32_t kOneQ2 = 1 << 29;
  int32_t x = arith::wrap_add(k48Over17, saturating_rounding_doubling_high_mul(half_denominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = saturating_rounding_doubling_high_mul(half_denominator, x);
    const int32_t one_minus = arith::wrap_sub(kOneQ2, half_denominator_times_x);
    x = arith::wrap_add(x, saturating_mul_by_pot(saturating_rounding_doubling_high_mul(x, one_minus), 2));
  }
  return saturating_mul_by_pot(x, 1);  // ExactMulByPot<-1> then Rescale<0>
}

template <typename T>
bool softmax(const SoftmaxParams& p, int rows, int depth, const T* input, T* output) {
  constexpr int kAccumulationIntegerBits = 12;
  for (int r = 0; r < rows; ++r) {
    const T* in = input + size_t(r) * depth;
    T* out = output + size_t(r) * depth;
    int32_t max_in_row = std::numeric_limits<T>::min();
    for (int c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, int32_t(in[c]));
    auto scaled_exp = [&](int32_t diff) {
      const int32_t rescaled = saturating_rounding_doubling_high_mul(arith::wrap_shl(diff, p.input_left_shift),
                                                                     p.input_multiplier);
      return exp_on_negative_values(rescaled);
    };
    int32_t sum_of_exps = 0;  // Q12.19
    for (int c = 0; c < depth; ++c) {
      const int32_t diff = int32_t(in[c]) - max_in_row;
      if (diff >= p.diff_min)
        sum_of_exps = arith::wrap_add(sum_of_exps, rounding_divide_by_pot(scaled_exp(diff), kAccumulationIntegerBits));
    }
    // GetReciprocal(sum, 12): normalise the sum to [1, 2), 1/x by Newton-Raphson.
    const int headroom_plus_one = sum_of_exps == 0 ? 32 : __builtin_clz(uint32_t(sum_of_exps));
    const int num_bits_over_unit = kAccumulationIntegerBits - headroom_plus_one;
    const int32_t shifted_sum_minus_one =
        int32_t((uint64_t(uint32_t(sum_of_exps)) << headroom_plus_one) - (uint64_t(1) << 31));
    const int32_t shifted_scale = one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
    const int exponent = num_bits_over_unit + 31 - int(sizeof(T) * 8);
    if (exponent < 0 || exponent > 31) return false;
    for (int c = 0; c < depth; ++c) {
      const int32_t diff = int32_t(in[c]) - max_in_row;
      if (diff >= p.diff_min) {
        const int32_t unsat =
            rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted_scale, scaled_exp(diff)), exponent);
        out[c] = clamp_to<T>(unsat + kMin<T>, {kMin<T>, kMax<T>});
      } else {
        out[c] = std::numeric_limits<T>::min();
      }
    }
  }
  return true;
}

// ---- element-wise activations --------------------------------------------------------------------

template <typename T>
std::array<T, 256> make_lut(LutFunction f, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp) {
  std::array<T, 256> table{};
  const float inverse_scale = 1 / out_scale;
  for (int32_t v = kMin<T>; v <= kMax<T>; ++v) {
    const float dequantized = in_scale * float(v - in_zp);
    const float transformed = f == LutFunction::Logistic ? 1.0f / (1.0f + std::exp(-dequantized)) : std::tanh(dequantized);
    const float rescaled = std::round(transformed * inverse_scale);
    const int32_t quantized = static_cast<int32_t>(rescaled + float(out_zp));
    table[static_cast<uint8_t>(static_cast<T>(v))] = static_cast<T>(std::max(std::min(kMax<T>, quantized), kMin<T>));
  }
  return table;
}

bool prepare_hard_swish(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, HardSwishParams* p) {
  p->input_zero_point = in_zp;
  p->output_zero_point = out_zp;
  const float hires_input_scale = (1.0f / 128.0f) * in_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / out_scale;
  const Multiplier om = quantize_multiplier(output_multiplier);
  p->output_multiplier_exponent = om.shift;
  p->output_multiplier_fixedpoint_int16 = downscale_multiplier(om.multiplier);
  if (p->output_multiplier_exponent > 0) return false;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  const Multiplier rm = quantize_multiplier(reluish_multiplier);
  p->reluish_multiplier_exponent = rm.shift;
  p->reluish_multiplier_fixedpoint_int16 = downscale_multiplier(rm.multiplier);
  return true;
}

template <typename T>
T hard_swish(const HardSwishParams& p, T x) {
  const int16_t input_value = static_cast<int16_t>(int32_t(x) - p.input_zero_point);
  const int16_t hires = static_cast<int16_t>(input_value * (1 << 7));
  const int16_t preshift_output_scale = srdhm16(hires, p.output_multiplier_fixedpoint_int16);
  int16_t reluish = hires;
  if (p.reluish_multiplier_exponent > 0) reluish = saturating_left_shift16(reluish, p.reluish_multiplier_exponent - 1);
  reluish = srdhm16(reluish, p.reluish_multiplier_fixedpoint_int16);
  if (p.reluish_multiplier_exponent > 0) reluish = saturating_left_shift16(reluish, 1);
  if (p.reluish_multiplier_exponent < 0)
    reluish = static_cast<int16_t>(rounding_divide_by_pot(reluish, -p.reluish_multiplier_exponent));
  reluish = static_cast<int16_t>((int32_t(reluish) + (1 << 15)) >> 1);
  const int16_t preshift_output = sdhm16(reluish, preshift_output_scale);
  int16_t out = static_cast<int16_t>(rounding_divide_by_pot(preshift_output, -p.output_multiplier_exponent));
  out = static_cast<int16_t>(out + p.output_zero_point);
  return static_cast<T>(std::max<int32_t>(std::min<int32_t>(out, kMax<T>), kMin<T>));
}

LeakyReluParams prepare_leaky_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float alpha) {
  LeakyReluParams p;
  p.input_offset = in_zp;
  p.output_offset = out_zp;
  // Float arithmetic, as TFLite's LeakyReluPrepare writes it (float scales and alpha).
  p.alpha = quantize_multiplier(in_scale * alpha / out_scale);
  p.identity = quantize_multiplier(in_scale / out_scale);
  return p;
}

template <typename T>
T leaky_relu(const LeakyReluParams& p, T x) {
  const int32_t v = int32_t(x) - p.input_offset;
  const int32_t out = p.output_offset + multiply_by_quantized_multiplier(v, v >= 0 ? p.identity : p.alpha);
  return static_cast<T>(std::min(kMax<T>, std::max(kMin<T>, out)));
}

bool prepare_add(float s1, int32_t zp1, float s2, int32_t zp2, float so, int32_t zpo, Range act, AddParams* p) {
  p->input1_offset = -zp1;
  p->input2_offset = -zp2;
  p->output_offset = zpo;
  p->left_shift = 20;
  p->act = act;
  const double twice_max_input_scale = 2 * double(std::max(s1, s2));
  const double real1 = s1 / twice_max_input_scale;
  const double real2 = s2 / twice_max_input_scale;
  const double real_out = twice_max_input_scale / ((1 << p->left_shift) * double(so));
  // QuantizeMultiplierSmallerThanOneExp: multipliers in (0, 1).
  for (double r : {real1, real2, real_out})
    if (!(r > 0.0 && r < 1.0)) return false;
  p->input1 = quantize_multiplier(real1);
  p->input2 = quantize_multiplier(real2);
  p->output = quantize_multiplier(real_out);
  return p->input1.shift <= 0 && p->input2.shift <= 0 && p->output.shift <= 0;
}

int32_t add_sub_value(const AddParams& p, int32_t x1, int32_t x2, bool subtract) {
  const int32_t a = multiply_by_quantized_multiplier(arith::wrap_shl(x1 + p.input1_offset, p.left_shift), p.input1);
  const int32_t b = multiply_by_quantized_multiplier(arith::wrap_shl(x2 + p.input2_offset, p.left_shift), p.input2);
  const int32_t raw = subtract ? arith::wrap_sub(a, b) : arith::wrap_add(a, b);
  const int32_t out = multiply_by_quantized_multiplier(raw, p.output) + p.output_offset;
  return std::min(std::max(out, p.act.min), p.act.max);
}

#define VKRT_TFLITE_REF_INSTANTIATE(T)                                                                               \
  template void conv2d<T>(const ConvGeometry&, const OutputStage&, const T*, const T*, const int32_t*, T*);          \
  template void depthwise_conv2d<T>(const ConvGeometry&, const OutputStage&, const T*, const T*, const int32_t*, T*); \
  template void transpose_conv2d<T>(const ConvGeometry&, const OutputStage&, const T*, const T*, const int32_t*, T*); \
  template void fully_connected<T>(int, int, int, const OutputStage&, const T*, const T*, const int32_t*, T*);       \
  template void average_pool<T>(const PoolGeometry&, Range, const T*, T*);                                           \
  template void max_pool<T>(const PoolGeometry&, Range, const T*, T*);                                               \
  template bool softmax<T>(const SoftmaxParams&, int, int, const T*, T*);                                            \
  template std::array<T, 256> make_lut<T>(LutFunction, float, int32_t, float, int32_t);                              \
  template T hard_swish<T>(const HardSwishParams&, T);                                                               \
  template T leaky_relu<T>(const LeakyReluParams&, T);

VKRT_TFLITE_REF_INSTANTIATE(int8_t)
VKRT_TFLITE_REF_INSTANTIATE(uint8_t)

}  // namespace vkrt::ethosu::tflite::ref
