// Argument handling shared by add/mul/div: equal shapes or the channel broadcast.
#pragma once

#include "cortex_m/elementwise.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

// Checks that `self`, `other` and `out` have equal sizes and memory order, or that one input
// holds exactly C elements of a 4-D output (C = its channel count, innermost in memory).
Result<ChannelBroadcast> channel_broadcast(const KernelArgs& args, size_t self_index, const Tensor& self,
                                           size_t other_index, const Tensor& other, size_t out_index, Tensor& out);

}  // namespace vkrt::cortex_m
