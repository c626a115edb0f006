// cortex_m::quantized_transpose_conv2d — the mathematical transposed convolution (PyTorch
// conv_transpose2d with dilation 1, groups 1, output_padding 0; TFLite reference; CMSIS-NN
// main after fix 4a8f5b5d). Deliberately NOT the scatter-path bug of the CMSIS-NN version that
// ExecuTorch pins (wrong values when pad % stride != 0), see cortex-m-ops.md §4.6 and
// docs/cortex-m-kernels.md. Activations NHWC, weights OHWI [out_ch][kh][kw][in_ch].
#pragma once

#include <cstddef>
#include <cstdint>

#include "cortex_m/compute_core.h"

#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct TransposeConv2dParams {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0, out_ch = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int32_t input_offset = 0, output_offset = 0;
  int32_t activation_min = -128, activation_max = 127;
};

Status check_transpose_conv2d(const TransposeConv2dParams& p);
// acc[oy,ox,oc] = bias[oc] + Σ_{iy·sh + ky − ph == oy, ix·sw + kx − pw == ox} Σ_c (in + in_off)·w[oc,ky,kx,c]
// On the compute core's transposed convolution given transpose_conv2d_s8_scratch_bytes of scratch
// (an int32 output plane and the core's), else loops over the output pixels; the same bytes.
size_t transpose_conv2d_s8_scratch_bytes(const TransposeConv2dParams& p, int threads);
void transpose_conv2d_s8(const TransposeConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output,
                         const Exec& exec = {});

}  // namespace vkrt::cortex_m
