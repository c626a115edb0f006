// Output stage shared by the int8 kernels: int32 accumulators → requantize (CMSIS double
// rounding) → + output offset → clamp → int8. Vectorized when the CPU allows, else
// arith::requantize per element; both give the same bytes.
#pragma once

#include <cstdint>

namespace vkrt::compute {

struct RequantizeRow {
  const int32_t* multiplier = nullptr;  // per channel (indexed like acc) or per tensor ([0] only)
  const int32_t* shift = nullptr;
  bool per_channel = true;
  int32_t output_offset = 0;
  int32_t activation_min = -128;
  int32_t activation_max = 127;
};

// out[i] = clamp(requantize(acc[i], m[i], s[i]) + offset, min, max) for i < count, where the
// requantization parameters are taken at channel `first_channel + i` when per_channel.
void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out);

}  // namespace vkrt::compute
