// Output stage shared by the int8 kernels: int32 accumulators → requantize (CMSIS double
// rounding, or TOSA's single rounding) → + output offset → clamp → int8. Vectorized when the CPU
// allows, else requantize_value per element; both give the same bytes.
#pragma once

#include <cstdint>

#include "arith/fixed_point.h"

namespace vkrt::compute {

struct RequantizeRow {
  const int32_t* multiplier = nullptr;  // per channel (indexed like acc) or per tensor ([0] only)
  const int32_t* shift = nullptr;
  bool per_channel = true;
  int32_t output_offset = 0;
  int32_t activation_min = -128;
  int32_t activation_max = 127;
  // false: CMSIS-NN's requantize, two roundings (arith::requantize, TFLite's and the devices').
  // true: one rounding, TOSA RESCALE's single_round with shift 31 - shift[c]:
  //   ⌊(acc·m + 2^(30−shift)) / 2^(31−shift)⌋ in 64 bits = arith::apply_scale_32(acc, m, 31 − shift, false).
  // Then every shift must lie in [-31, -1] and every multiplier be >= 0 (what a TOSA RESCALE with
  // shift 32..62 gives, tosa::conv_requantize): the vector stages take ⌊acc·m / 2^31⌋, which then
  // fits int32, and round once in the divide by 2^−shift that follows.
  bool single_round = false;
};

// One accumulator through the requantization alone (no offset, no clamp), channel c's scales:
// the portable loops' arithmetic and the oracle of the vector stages.
inline int32_t requantize_value(const RequantizeRow& spec, int32_t acc, int c) {
  return spec.single_round ? arith::apply_scale_32(acc, spec.multiplier[c], 31 - spec.shift[c], false)
                           : arith::requantize(acc, spec.multiplier[c], spec.shift[c]);
}

// out[i] = clamp(requantize(acc[i], m[i], s[i]) + offset, min, max) for i < count, where the
// requantization parameters are taken at channel `first_channel + i` when per_channel.
void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out);

}  // namespace vkrt::compute
