// Transposed convolutions as a GEMM and a scatter (col2im):
//
//   sums[b][oy][ox][oc] = bias[oc] + Σ (x[b][iy][ix][c] + x_offset)·(w[oc][ky][kx][c] + w_offset)
//                         over c and the (iy, ix, ky, kx) with iy·stride_h + ky + offset_h = oy and
//                         ix·stride_w + kx + offset_w = ox.
//
// int8: int32 sums wrapping modulo 2^32 (as CMSIS-NN's and TOSA's), for cortex_m's
// quantized_transpose_conv2d (offset −pad, then its requantize) and TOSA's int8 TRANSPOSE_CONV2D
// (offset out_pad_top / out_pad_left). int16 activations by int8 weights (TOSA's int16
// TRANSPOSE_CONV2D; input offset 0): the sum in int64 (wrapping, as TOSA's loops), then TOSA's
// int48 accumulator, clamp48(clamp48(sum) + clamp48(bias)). fp32 (no offsets): TOSA's fp32
// TRANSPOSE_CONV2D; the bias comes first and the taps in input order, where TOSA's loops sum each
// output's taps and add the bias last: the two differ by float rounding only.
//
// Each input pixel's channels times every tap's weights is one row of the GEMM (gemm_s8.h,
// gemm_f32.h, or for int16 conv_s16.h's A16W8 convolution as a 1x1 one; B the weights reordered
// tap-major once a call), over bands of input rows; the band's products are then added into the
// output pixels their taps reach, all of a pixel's channels at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/exec.h"

namespace vkrt::compute {

struct TransposeConvShape {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0, out_ch = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int32_t offset_h = 0, offset_w = 0;  // output row (column) of input row (column) 0's tap 0
};

template <typename In, typename Sum, typename Weight = In>
struct TransposeConv {
  TransposeConvShape shape;
  int32_t input_offset = 0, weight_offset = 0;  // int8; int16 has the weight offset only
  const In* input = nullptr;       // [batches][in_h][in_w][in_ch]
  const Weight* weight = nullptr;  // [out_ch][kernel_h][kernel_w][in_ch]
  const Sum* bias = nullptr;   // per channel, one value (bias_per_channel false), or null
  bool bias_per_channel = true;
  Sum* sums = nullptr;  // [batches][out_h][out_w][out_ch]
};
using TransposeConvS8 = TransposeConv<int8_t, int32_t>;
using TransposeConvS16 = TransposeConv<int16_t, int64_t, int8_t>;  // sums: int48 in int64
using TransposeConvF32 = TransposeConv<float, float>;

// Scratch the GEMM form takes on `threads` threads (the reordered weights, a band's products and
// the GEMM's own), or 0 where it does not apply (in_ch or out_ch·kernel_h·kernel_w past int32;
// int16: in_ch from 2^24 on, where a tap's partial sum could leave int48, or an input offset).
size_t transpose_conv_scratch_bytes(const TransposeConvS8& c, int threads);
size_t transpose_conv_scratch_bytes(const TransposeConvS16& c, int threads);
size_t transpose_conv_scratch_bytes(const TransposeConvF32& c, int threads);
// Computes c.sums; false, computing nothing, with less scratch than transpose_conv_scratch_bytes.
bool transpose_conv(const TransposeConvS8& c, const Exec& exec);
bool transpose_conv(const TransposeConvS16& c, const Exec& exec);
bool transpose_conv(const TransposeConvF32& c, const Exec& exec);

}  // namespace vkrt::compute
