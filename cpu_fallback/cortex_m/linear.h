// cortex_m::quantized_linear — CMSIS-NN arm_fully_connected_s8 / _s16 (cortex-m-ops.md §4.1, §4.8).
// input [batches][in], weights [out][in]; per-tensor multiplier/shift.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cortex_m/compute_core.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct LinearParams {
  int64_t batches = 1;
  int32_t in_features = 0, out_features = 0;
  int32_t input_offset = 0;   // = −input zp
  int32_t filter_offset = 0;  // = −weight zp
  int32_t output_offset = 0;  // = +output zp
  int32_t multiplier = 0, shift = 0;
  int32_t activation_min = -128, activation_max = 127;
};

Status check_linear(const LinearParams& p, bool int16_activations);
// Scratch for linear_s8 with `threads` workers (less when the weights were packed ahead).
size_t linear_s8_scratch_bytes(const LinearParams& p, int threads, const GemmS8PackedB* packed = nullptr);
// Weights packed once for every later linear_s8 call with the same weights, bias/kernel_sum and
// parameters (a loaded method does this for constant weights): bytes needed (0: nothing to
// gain on this CPU), then the packing into caller-owned memory (null when not packed).
size_t linear_s8_packed_bytes(const LinearParams& p);
const GemmS8PackedB* linear_s8_pack_weights(const LinearParams& p, const int8_t* weights, const int32_t* bias,
                                            const int32_t* kernel_sum, std::span<uint8_t> memory);
// bias[out] (scalar/DSP form) or kernel_sum[out] (MVE form: bias + in_off·Σ_i(w + w_off), so the
// input offset is not applied again), or neither. Both forms are equal modulo 2^32. `packed`:
// from linear_s8_pack_weights, or null (ignored unless built from these arguments).
void linear_s8(const LinearParams& p, const int8_t* input, const int8_t* weights, const int32_t* bias,
               const int32_t* kernel_sum, int8_t* output, const Exec& exec,
               const GemmS8PackedB* packed = nullptr);
// arm_fully_connected_per_channel_s8: one multiplier/shift per output (not emitted by ExecuTorch,
// kept for completeness and for CMSIS-NN's per-channel vectors).
void linear_s8_per_channel(const LinearParams& p, const int8_t* input, const int8_t* weights,
                           const int32_t* bias, const int32_t* multipliers, const int32_t* shifts,
                           int8_t* output, const Exec& exec);
// int16 input, int8 weights, int64 bias (CMSIS's type) or int32 bias or none: 64-bit
// accumulation, reduced multiplier (arm_nn_requantize_s64). The compute core's conv_s16 over
// 1x1 pixels; threads from exec, and its vector path with linear_s16_scratch_bytes of scratch.
// Constant weights can be packed once ahead for it (linear_s16_pack_weights into
// linear_s16_packed_bytes of memory: 0 where the ISA level has no packed form); `packed` is used
// where it was built from these weights and sizes, else they are packed into the scratch per call.
size_t linear_s16_packed_bytes(const LinearParams& p);
const compute::ConvS16PackedWeights* linear_s16_pack_weights(const LinearParams& p, const int8_t* weights,
                                                             std::span<uint8_t> memory);
size_t linear_s16_scratch_bytes(const LinearParams& p, int threads,
                                const compute::ConvS16PackedWeights* packed = nullptr);
void linear_s16(const LinearParams& p, const int16_t* input, const int8_t* weights, const int64_t* bias64,
                const int32_t* bias32, int16_t* output, const Exec& exec = {},
                const compute::ConvS16PackedWeights* packed = nullptr);

}  // namespace vkrt::cortex_m
