// int8 depthwise convolution, NHWC, the one engine under cortex_m::quantized_depthwise_conv2d
// and TOSA DEPTHWISE_CONV2D:
//
//   acc[b,oy,ox,oc] = bias[oc] + Σ_{valid ky,kx} (in[b,iy,ix,oc / ch_mult] + input_offset)·w[ky,kx,oc]
//
// with iy = oy·stride_h − pad_h + ky·dilation_h (ix likewise); taps outside the input are
// skipped, i.e. padding holds −input_offset. Weights are [kh][kw][out_ch] (cortex_m IHWO with
// I = 1; TOSA [KH,KW,C,M] is the same bytes), output channel oc = ic·ch_mult + m. Sums wrap
// modulo 2^32 like the device. The sums then go through one of two output stages
// (DepthwiseS8Output): the CMSIS-NN requantize to int8 (cortex_m), or stored as int32 (TOSA,
// whose RESCALE follows).
//
// Paths, fastest first, all giving the same values: AVX-512 VNNI (depthwise_vnni.cpp; needs
// scratch); below VNNI on x86 rows written once with Highway (depthwise_rows_hwy.cpp: two taps
// per VPMADDWD on weights packed per call, 32 channels a step on AVX-512BW, 16 on AVX2; kernels
// of at most 64 taps); a NEON row (16); and a portable row (target_clones). The vector paths need
// ch_mult == 1 and input_offset in [-127, 128] (every int8 zero point): then (x + offset)·w fits
// int16 exactly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/exec.h"

namespace vkrt::compute {

struct DepthwiseS8Params {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t ch_mult = 1;  // out_ch = in_ch · ch_mult
  int32_t kernel_h = 1, kernel_w = 1;
  int32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int32_t input_offset = 0;
  // The int8 output stage only (DepthwiseS8Output::s8); ignored for int32 sums.
  int32_t output_offset = 0;
  int32_t activation_min = -128, activation_max = 127;
  bool single_round = false;  // RequantizeRow::single_round: TOSA's one rounding (shifts -31..-1)
  int32_t out_ch() const { return in_ch * ch_mult; }
};

// Where the sums go: exactly one of `s8` (requantized per channel by multiplier/shift as
// requantize_value, plus output_offset, clamped to the activation range) and `s32` (the sums).
struct DepthwiseS8Output {
  int8_t* s8 = nullptr;
  const int32_t* multiplier = nullptr;
  const int32_t* shift = nullptr;
  int32_t* s32 = nullptr;
};

// Scratch that lets depthwise_s8 take its vector paths on `threads` workers (less: the
// scratch-free loop, same values).
size_t depthwise_s8_scratch_bytes(const DepthwiseS8Params& p, bool int32_sums, int threads);

// Whether writing int8 through the engine's output stage beats writing the int32 sums and
// requantizing them in a second pass while they are in cache (TOSA's fused chains, which can do
// either): where the AVX-512 VNNI path runs the layer (about 2x at MobileNetV2's layers), and
// where the Highway rows do (AVX2, AVX-512BW: 1.02-1.38x and 1.00-1.20x in `tosa_bench`'s
// depthwise layers, Xeon, one thread, since their output stage derives its scales once per call
// and folds the double rounding). NEON is unmeasured and keeps the two passes.
bool depthwise_s8_int8_output_pays(const DepthwiseS8Params& p);

// The layer, split over output rows of all batches (the Highway rows: or over channel blocks,
// for a layer of few or uneven rows or a small one). Sizes as checked by the callers
// (non-negative, stride/dilation >= 1); bias may be null (zero).
void depthwise_s8(const DepthwiseS8Params& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                  const DepthwiseS8Output& out, const Exec& exec);

}  // namespace vkrt::compute
