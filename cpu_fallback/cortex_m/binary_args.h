// Argument handling shared by add/mul/div: equal shapes or the channel broadcast.
#pragma once

#include "cortex_m/elementwise.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

// Checks that `self`, `other` and `out` have equal sizes and memory order, or that one input
// holds exactly C elements of a 4-D output (C = its channel count, innermost in memory).
Result<ChannelBroadcast> channel_broadcast(const KernelArgs& args, size_t self_index, const Tensor& self,
                                           size_t other_index, const Tensor& other, size_t out_index, Tensor& out);

// A parsed add/mul/div call (PreparedCall): int8 or int16 self, other and out of self's dtype.
template <typename Params>
struct BinaryCall {
  Params p;
  ChannelBroadcast shape;
  Tensor* self = nullptr;
  Tensor* other = nullptr;
  Tensor* out = nullptr;
  bool s16() const { return self->dtype() == ScalarType::Short; }
};
// The call's tensors and dtypes (parse time).
Status binary_tensors(const KernelArgs& args, size_t self_index, size_t other_index, size_t out_index,
                      Tensor** self, Tensor** other, Tensor** out);
// Execute's checks: the out memory and the inputs' data.
Status binary_data(const KernelArgs& args, size_t self_index, size_t other_index, size_t out_index,
                   const Tensor& self, const Tensor& other, const Tensor& out);

}  // namespace vkrt::cortex_m
