// Byte-moving cortex_m ops: quantized_activation (LUT), transpose, pad (cortex-m-ops.md §2, §4.9).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace vkrt::cortex_m {

// out[i] = lut[in[i] + 128]   (256-entry int8 table built ahead of time)
void activation_lut_s8(const int8_t* input, int64_t count, const int8_t* lut, int8_t* output);

// out[o0,o1,o2,o3] = in[i] with i[perm[d]] = o[d], for rank <= 4 (unused leading dims are size 1).
// Tensors are addressed through element strides, so any memory order works.
struct TransposeParams {
  int rank = 0;
  std::array<int32_t, 4> out_sizes{1, 1, 1, 1};
  std::array<int64_t, 4> out_strides{};
  std::array<int64_t, 4> in_strides{};  // already permuted: stride of the input dim perm[d]
};
void transpose_bytes(const TransposeParams& p, size_t element_size, const void* input, void* output);

// Constant pad of a 4-D tensor in physical (memory) order: output dims = pre + in + post.
struct PadParams {
  std::array<int32_t, 4> in_dims{1, 1, 1, 1};
  std::array<int32_t, 4> pre{}, post{};
  int8_t pad_value = 0;
};
void pad_s8(const PadParams& p, const int8_t* input, int8_t* output);

}  // namespace vkrt::cortex_m
