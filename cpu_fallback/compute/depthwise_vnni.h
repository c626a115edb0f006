// The AVX-512 VNNI path of compute::depthwise_s8 (channel multiplier 1), bit-exact with the
// other paths; see depthwise_vnni.cpp for the method. Internal to vkrt_compute.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compute/depthwise_s8.h"

namespace vkrt::compute {

// True when this CPU has AVX-512 VNNI and the layer fits the method: channel multiplier 1, an
// input offset in [-127, 128] (int8 zero points: padding is then a byte value) and an input
// column span that is not mostly skipped by the stride; for int8 output, an activation range
// inside int8.
bool depthwise_vnni_usable(const DepthwiseS8Params& p, bool int32_sums);
// Workspace for `threads` workers: repacked weights and per-channel constants (shared) plus a
// block of interleaved input columns per worker.
size_t depthwise_vnni_scratch_bytes(const DepthwiseS8Params& p, int threads);
// Computes the layer on `threads` workers and returns true, or returns false without writing
// anything when an int8 output's multiplier is INT32_MIN (its rounding is not merged exactly;
// the caller takes another path). Preconditions: depthwise_vnni_usable(p, to.s32 != nullptr),
// exec.scratch.size() >= depthwise_vnni_scratch_bytes(p, threads). Rows of all batches are split
// over the workers.
bool depthwise_vnni(const DepthwiseS8Params& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                    const DepthwiseS8Output& to, const Exec& exec, int threads);

}  // namespace vkrt::compute
