// cortex_m::quantized_conv2d — CMSIS-NN arm_convolve_wrapper_s8 / arm_convolve_wrapper_s16
// (cortex-m-ops.md §4.3, §4.8). Activations NHWC, weights OHWI [out_ch][kh][kw][in_ch/groups].
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cortex_m/compute_core.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct Conv2dParams {
  int32_t batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int32_t out_h = 0, out_w = 0, out_ch = 0;
  int32_t kernel_h = 1, kernel_w = 1;
  int32_t stride_h = 1, stride_w = 1;
  int32_t pad_h = 0, pad_w = 0;  // top = bottom, left = right (taps outside contribute 0)
  int32_t dilation_h = 1, dilation_w = 1;
  int32_t groups = 1;            // in_ch / weight's last dim
  int32_t input_offset = 0;      // = -input zero point (ignored by the s16 kernel)
  int32_t output_offset = 0;     // = +output zero point (ignored by the s16 kernel)
  int32_t activation_min = -128, activation_max = 127;
};

// InvalidArgument describing the first inconsistency (sizes, strides, groups, bounds).
Status check_conv2d(const Conv2dParams& p, bool int16_activations);

// Scratch for conv2d_s8 with `threads` workers (less when the weights were packed ahead).
size_t conv2d_s8_scratch_bytes(const Conv2dParams& p, int threads, const GemmS8PackedB* packed = nullptr);
// Weights packed once for every later conv2d_s8 call with the same weights, bias and scales (a
// loaded method does this for constant weights; ungrouped convolutions only): bytes needed
// (0: not packed), then the packing into caller-owned memory (null when not packed).
size_t conv2d_s8_packed_bytes(const Conv2dParams& p);
const GemmS8PackedB* conv2d_s8_pack_weights(const Conv2dParams& p, const int8_t* weight, const int32_t* bias,
                                            const int32_t* multiplier, const int32_t* shift,
                                            std::span<uint8_t> memory);
// int8 x int8 → int8; bias int32 [out_ch] or null; multiplier/shift [out_ch]. `packed`: from
// conv2d_s8_pack_weights, or null (ignored unless built from these arguments).
void conv2d_s8(const Conv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output, const Exec& exec,
               const GemmS8PackedB* packed = nullptr);
// The plain loop (no scratch, no threads): what conv2d_s8 falls back to.
void conv2d_s8_portable(const Conv2dParams& p, const int8_t* input, const int8_t* weight,
                        const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                        int8_t* output);
// int16 x int8 → int16 (A16W8) on the compute core's conv_s16. Offsets ignored. bias: int32
// (bias32) or int64 (bias64) or none: int64 bias uses CMSIS's 64-bit requantization with the
// reduced multiplier, the others the int32 accumulator's. Threads from exec; its vector path
// needs conv2d_s16_scratch_bytes of scratch (else the portable loop).
// Constant weights can be packed once ahead for it (conv2d_s16_pack_weights into
// conv2d_s16_packed_bytes of memory: 0 where the ISA level has no packed form); `packed` is used
// only when built from these weights.
size_t conv2d_s16_packed_bytes(const Conv2dParams& p);
const compute::ConvS16PackedWeights* conv2d_s16_pack_weights(const Conv2dParams& p, const int8_t* weight,
                                                             std::span<uint8_t> memory);
size_t conv2d_s16_scratch_bytes(const Conv2dParams& p, int threads, const compute::ConvS16PackedWeights* packed = nullptr);
void conv2d_s16(const Conv2dParams& p, const int16_t* input, const int8_t* weight,
                const int32_t* bias32, const int64_t* bias64, const int32_t* multiplier,
                const int32_t* shift, int16_t* output, const Exec& exec = {},
                const compute::ConvS16PackedWeights* packed = nullptr);

}  // namespace vkrt::cortex_m
