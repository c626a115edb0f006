// Shapes shared by the binary elementwise ops (add, mul, div, minimum, maximum).
#pragma once

#include <array>
#include <cstdint>

namespace vkrt::cortex_m {

// add/mul/div: equal shapes, or a channel broadcast in NHWC memory: one operand holds C values
// applied to every pixel (cortex-m-ops.md §2, quantized_add).
struct ChannelBroadcast {
  int64_t size = 0;      // elements of the output
  int32_t channels = 1;  // C (innermost in memory)
  int small_operand = 0; // 0: none, 1: the first operand has C elements, 2: the second
  int64_t index1(int64_t i) const { return small_operand == 1 ? i % channels : i; }
  int64_t index2(int64_t i) const { return small_operand == 2 ? i % channels : i; }
};

// minimum/maximum: general broadcast over 4 dims, each operand addressed through strides
// (0 along broadcast dims). The output is walked in logical order through its own strides.
struct Broadcast4 {
  std::array<int32_t, 4> sizes{1, 1, 1, 1};
  std::array<int64_t, 4> out_strides{}, a_strides{}, b_strides{};
};
// Broadcast4 for contiguous tensors of dims a and b (NumPy rule); false when incompatible.
bool contiguous_broadcast(const std::array<int32_t, 4>& a, const std::array<int32_t, 4>& b, Broadcast4* out);

}  // namespace vkrt::cortex_m
