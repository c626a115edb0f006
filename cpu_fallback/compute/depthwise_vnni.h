// The AVX-512 VNNI path of cortex_m::quantized_depthwise_conv2d (channel multiplier 1), bit-exact
// with the reference loop; see depthwise_vnni.cpp for the method. Internal to vkrt_cortex_m.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/compute_core.h"

namespace vkrt::cortex_m {

// True when this CPU has AVX-512 VNNI and the layer fits the method: channel multiplier 1, an
// input offset in [-127, 128] (int8 zero points: padding is then a byte value) and an input
// column span that is not mostly skipped by the stride.
bool depthwise_vnni_usable(const DepthwiseConv2dParams& p);
// Workspace for `threads` workers: repacked weights and per-channel constants (shared) plus a
// block of interleaved input columns per worker.
size_t depthwise_vnni_scratch_bytes(const DepthwiseConv2dParams& p, int threads);
// Computes the layer on `threads` workers and returns true, or returns false without writing
// anything when a multiplier is INT32_MIN (its rounding is not merged exactly; the caller takes
// another path). Preconditions: depthwise_vnni_usable(p), exec.scratch.size() >=
// depthwise_vnni_scratch_bytes(p, threads). Rows of all batches are split over the workers.
bool depthwise_vnni(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                    const int32_t* multiplier, const int32_t* shift, int8_t* output, const Exec& exec, int threads);

}  // namespace vkrt::cortex_m
