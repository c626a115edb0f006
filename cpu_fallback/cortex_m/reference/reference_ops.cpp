#include "cortex_m/reference/reference_ops.h"

#include <algorithm>
#include <vector>

#include "arith/fixed_point.h"

namespace vkrt::cortex_m::reference {

using arith::wrap_add;
using arith::wrap_mul;

namespace {
int8_t output_stage(int32_t acc, int32_t mult, int32_t shift, int32_t offset, int32_t lo, int32_t hi) {
  const int32_t v = wrap_add(arith::requantize(acc, mult, shift), offset);
  return int8_t(std::clamp(v, lo, hi));
}
}  // namespace

void conv2d_s8(const Conv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  const int kc = p.in_ch / p.groups, per_group = p.out_ch / p.groups;
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.out_h; ++oy)
      for (int ox = 0; ox < p.out_w; ++ox)
        for (int oc = 0; oc < p.out_ch; ++oc) {
          const int g = oc / per_group;
          int32_t acc = bias ? bias[oc] : 0;
          for (int ky = 0; ky < p.kernel_h; ++ky)
            for (int kx = 0; kx < p.kernel_w; ++kx)
              for (int c = 0; c < kc; ++c) {
                const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
                const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
                if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
                const int32_t x = input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + g * kc + c];
                const int32_t w = weight[((oc * p.kernel_h + ky) * p.kernel_w + kx) * kc + c];
                acc = wrap_add(acc, wrap_mul(x + p.input_offset, w));
              }
          output[((b * p.out_h + oy) * p.out_w + ox) * p.out_ch + oc] =
              output_stage(acc, multiplier[oc], shift[oc], p.output_offset, p.activation_min, p.activation_max);
        }
}

void depthwise_conv2d_s8(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  const int out_ch = p.in_ch * p.ch_mult;
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.out_h; ++oy)
      for (int ox = 0; ox < p.out_w; ++ox)
        for (int ic = 0; ic < p.in_ch; ++ic)
          for (int m = 0; m < p.ch_mult; ++m) {
            const int oc = ic * p.ch_mult + m;
            int32_t acc = bias ? bias[oc] : 0;
            for (int ky = 0; ky < p.kernel_h; ++ky)
              for (int kx = 0; kx < p.kernel_w; ++kx) {
                const int iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
                const int ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
                if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
                const int32_t x = input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + ic];
                acc = wrap_add(acc, wrap_mul(x + p.input_offset, weight[(ky * p.kernel_w + kx) * out_ch + oc]));
              }
            output[((b * p.out_h + oy) * p.out_w + ox) * out_ch + oc] =
                output_stage(acc, multiplier[oc], shift[oc], p.output_offset, p.activation_min, p.activation_max);
          }
}

void fully_connected_s8(const LinearParams& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
                        const int32_t* multipliers, const int32_t* shifts, bool per_channel, int8_t* output) {
  for (int64_t b = 0; b < p.batches; ++b)
    for (int o = 0; o < p.out_features; ++o) {
      int32_t acc = bias ? bias[o] : 0;
      for (int i = 0; i < p.in_features; ++i)
        acc = wrap_add(acc, wrap_mul(int32_t(input[b * p.in_features + i]) + p.input_offset,
                                     int32_t(weights[int64_t(o) * p.in_features + i]) + p.filter_offset));
      const int c = per_channel ? o : 0;
      output[b * p.out_features + o] =
          output_stage(acc, multipliers[c], shifts[c], p.output_offset, p.activation_min, p.activation_max);
    }
}

void batch_matmul_s8(const BatchMatmulParams& p, const int8_t* lhs, const int8_t* rhs_transposed, int8_t* output) {
  for (int b = 0; b < p.batches; ++b)
    for (int i = 0; i < p.rows; ++i)
      for (int j = 0; j < p.cols; ++j) {
        int32_t acc = 0;
        for (int k = 0; k < p.depth; ++k)
          acc = wrap_add(acc, wrap_mul(int32_t(lhs[(int64_t(b) * p.rows + i) * p.depth + k]) + p.lhs_offset,
                                       int32_t(rhs_transposed[(int64_t(b) * p.cols + j) * p.depth + k]) + p.rhs_offset));
        output[(int64_t(b) * p.rows + i) * p.cols + j] =
            output_stage(acc, p.multiplier, p.shift, p.output_offset, p.activation_min, p.activation_max);
      }
}

void batch_matmul_s16(const BatchMatmulParams& p, const int16_t* lhs, const int16_t* rhs_transposed, int16_t* output) {
  const int32_t reduced = arith::reduce_multiplier(p.multiplier);
  for (int64_t b = 0; b < p.batches; ++b)
    for (int64_t i = 0; i < p.rows; ++i)
      for (int64_t j = 0; j < p.cols; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < p.depth; ++k)
          acc += int64_t(lhs[(b * p.rows + i) * p.depth + k]) * rhs_transposed[(b * p.cols + j) * p.depth + k];
        const int32_t v = arith::requantize_s64(acc, reduced, p.shift);
        output[(b * p.rows + i) * p.cols + j] = int16_t(std::clamp(v, p.activation_min, p.activation_max));
      }
}

void transpose_conv2d_s8(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  const size_t plane = size_t(p.out_h) * p.out_w * p.out_ch;
  std::vector<int32_t> acc(plane);
  for (int b = 0; b < p.batches; ++b) {
    for (size_t i = 0; i < plane; ++i) acc[i] = bias ? bias[i % p.out_ch] : 0;
    for (int iy = 0; iy < p.in_h; ++iy)
      for (int ix = 0; ix < p.in_w; ++ix)
        for (int ky = 0; ky < p.kernel_h; ++ky)
          for (int kx = 0; kx < p.kernel_w; ++kx) {
            const int oy = iy * p.stride_h + ky - p.pad_h, ox = ix * p.stride_w + kx - p.pad_w;
            if (oy < 0 || oy >= p.out_h || ox < 0 || ox >= p.out_w) continue;
            for (int oc = 0; oc < p.out_ch; ++oc)
              for (int c = 0; c < p.in_ch; ++c) {
                const int32_t x = input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + c];
                const int32_t w = weight[((oc * p.kernel_h + ky) * p.kernel_w + kx) * p.in_ch + c];
                int32_t& a = acc[(size_t(oy) * p.out_w + ox) * p.out_ch + oc];
                a = wrap_add(a, wrap_mul(x + p.input_offset, w));
              }
          }
    for (size_t i = 0; i < plane; ++i) {
      const int oc = int(i % p.out_ch);
      output[b * plane + i] =
          output_stage(acc[i], multiplier[oc], shift[oc], p.output_offset, p.activation_min, p.activation_max);
    }
  }
}

void avg_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output) {
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.out_h; ++oy)
      for (int ox = 0; ox < p.out_w; ++ox)
        for (int c = 0; c < p.channels; ++c) {
          int32_t sum = 0, count = 0;
          for (int ky = 0; ky < p.kernel_h; ++ky)
            for (int kx = 0; kx < p.kernel_w; ++kx) {
              const int iy = oy * p.stride_h - p.pad_h + ky, ix = ox * p.stride_w - p.pad_w + kx;
              if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
              sum += input[((b * p.in_h + iy) * p.in_w + ix) * p.channels + c];
              ++count;
            }
          int32_t avg = count == 0 ? 0 : (sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count);
          output[((b * p.out_h + oy) * p.out_w + ox) * p.channels + c] =
              int8_t(std::clamp(avg, p.activation_min, p.activation_max));
        }
}

void max_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output) {
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.out_h; ++oy)
      for (int ox = 0; ox < p.out_w; ++ox)
        for (int c = 0; c < p.channels; ++c) {
          int32_t best = INT32_MIN;
          for (int ky = 0; ky < p.kernel_h; ++ky)
            for (int kx = 0; kx < p.kernel_w; ++kx) {
              const int iy = oy * p.stride_h - p.pad_h + ky, ix = ox * p.stride_w - p.pad_w + kx;
              if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
              best = std::max<int32_t>(best, input[((b * p.in_h + iy) * p.in_w + ix) * p.channels + c]);
            }
          output[((b * p.out_h + oy) * p.out_w + ox) * p.channels + c] =
              int8_t(std::clamp(best, p.activation_min, p.activation_max));
        }
}

}  // namespace vkrt::cortex_m::reference
