// Transposed int8 convolutions as a GEMM and a scatter (col2im), their int32 sums:
//
//   sums[b][oy][ox][oc] = bias[oc] + Σ (x[b][iy][ix][c] + x_offset)·(w[oc][ky][kx][c] + w_offset)
//                         over c and the (iy, ix, ky, kx) with iy·stride_h + ky + offset_h = oy and
//                         ix·stride_w + kx + offset_w = ox,
//
// wrapping modulo 2^32 (as CMSIS-NN's and TOSA's int32 sums). Both kernel families call it:
// cortex_m's quantized_transpose_conv2d (offset −pad, then its requantize) and TOSA's int8
// TRANSPOSE_CONV2D (offset out_pad_top / out_pad_left, int32 out).
//
// Each input pixel's channels times every tap's weights is one row of the int8 GEMM (gemm_s8.h,
// B the weights reordered tap-major once a call), over bands of input rows; the band's products
// are then added into the output pixels their taps reach, all of a pixel's channels at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/exec.h"

namespace vkrt::compute {

struct TransposeConvS8 {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0, out_ch = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int32_t offset_h = 0, offset_w = 0;  // output row of input row 0's tap 0
  int32_t input_offset = 0, weight_offset = 0;
  const int8_t* input = nullptr;   // [batches][in_h][in_w][in_ch]
  const int8_t* weight = nullptr;  // [out_ch][kernel_h][kernel_w][in_ch]
  const int32_t* bias = nullptr;   // per channel, one value (bias_per_channel false), or null
  bool bias_per_channel = true;
  int32_t* sums = nullptr;  // [batches][out_h][out_w][out_ch]
};

// Scratch transpose_conv_s8_sums takes on `threads` threads (its GEMM's, its products' band and
// the reordered weights), or 0 where it does not apply (in_ch past int32, out_ch·kernel_h·kernel_w
// past int32).
size_t transpose_conv_s8_scratch_bytes(const TransposeConvS8& c, int threads);
// Computes c.sums; false, computing nothing, with less scratch than transpose_conv_s8_scratch_bytes.
bool transpose_conv_s8_sums(const TransposeConvS8& c, const Exec& exec);

}  // namespace vkrt::compute
