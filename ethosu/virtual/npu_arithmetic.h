// The virtual NPU's arithmetic: scaling an accumulator by (scale, shift) in the OFM_PRECISION
// rounding mode, and saturation.
//
// How the hardware rounds is in Arm's Ethos-U TRMs, which this project has not read; what is known
// is that Vela chooses (scale, shift) so that the NPU reproduces TFLite's reference kernels bit for
// bit (docs/ethos-u.md §7). The TFL mode is therefore modelled as TFLite's
// MultiplyByQuantizedMultiplier on a Q31 multiplier: for shift >= 31 the doubling high multiply
// rounded half up at bit 31, then a divide by 2^(shift - 31) rounded half away from zero; for
// shift < 31 one rounding half up at bit `shift` (TFLite's left-shift case). The tests against
// TFLite's semantics on Vela's own streams are what pins this down (tests/ethosu/virtual/).
#pragma once

#include <cstdint>

#include "ethosu/virtual/npu_registers.h"

namespace vkrt::ethosu::virtual_npu {

// floor(value / 2^shift + 1/2) for shift in [1, 63]; value unchanged for shift 0.
inline __int128 round_half_up_shift(__int128 value, int shift) {
  if (shift <= 0) return value;
  return (value + (__int128(1) << (shift - 1))) >> shift;
}

// value / 2^shift rounded half away from zero (TFLite's RoundingDivideByPOT).
inline __int128 round_half_away_shift(__int128 value, int shift) {
  if (shift <= 0) return value;
  const __int128 mask = (__int128(1) << shift) - 1;
  const __int128 remainder = value & mask;
  const __int128 threshold = (mask >> 1) + (value < 0 ? 1 : 0);
  return (value >> shift) + (remainder > threshold ? 1 : 0);
}

// value · scale / 2^shift in `mode`. Shifts above 62 give 0 or −1 for any 40-bit accumulator and
// are clamped there so that no shift is undefined.
inline int64_t scale_value(int64_t value, uint32_t scale, int shift, RoundingMode mode) {
  if (shift > 62) shift = 62;
  const __int128 product = __int128(value) * scale;
  __int128 result;
  switch (mode) {
    case RoundingMode::Truncate:
      result = shift > 0 ? (product >> shift) : product;
      break;
    case RoundingMode::Natural:
      result = round_half_up_shift(product, shift);
      break;
    case RoundingMode::Tfl:
    default:
      result = shift >= 31 ? round_half_away_shift(round_half_up_shift(product, 31), shift - 31)
                           : round_half_up_shift(product, shift);
      break;
  }
  // Any 40-bit value times a 32-bit scale fits; saturate what a hostile stream makes larger.
  if (result > INT64_MAX / 2) return INT64_MAX / 2;
  if (result < INT64_MIN / 2) return INT64_MIN / 2;
  return int64_t(result);
}

inline int64_t clamp_value(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace vkrt::ethosu::virtual_npu
