// CAST (tosa.md §12) to and from fp16, matching cpu_fallback/tosa/cast.cpp bit for bit:
//   fp16 -> x: the exact fp32 value (subnormals included), then the fp32 -> x rules of cast.comp
//   (float -> int rounds half to even and saturates, NaN -> 0; -> bool is x != 0);
//   x -> fp16: to fp32 first (exact for fp32, int8, int16; int32 rounds to nearest even, as the
//   CPU kernel does), then fp32 -> fp16 rounding to nearest even, overflow to infinity, NaN ->
//   quiet NaN without payload (vkrt/half.h). Both conversions work on the bits (no
//   shaderFloat16; not packHalf2x16, whose rounding the Vulkan spec leaves open). fp16 is stored as uint16.
// Variants: IN_T/OUT_T, IN_HALF or OUT_HALF, IN_FLOAT/OUT_FLOAT (fp32 side), OUT_BITS (int out).
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { CAST_PARAMS } p;  // push_constants.h

// IEEE binary16 bits -> fp32 (exact).
float half_to_float(uint h) {
  uint sign = (h & 0x8000u) << 16;
  uint exponent = (h >> 10) & 0x1Fu;
  uint mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return uintBitsToFloat(sign | 0x7F800000u | (mantissa << 13));  // inf / NaN
  if (exponent != 0u) return uintBitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in fp32.
  float magnitude = float(mantissa) * uintBitsToFloat(0x33800000u);  // 2^-24
  return (sign != 0u) ? -magnitude : magnitude;
}

// fp32 bits -> binary16 bits, round to nearest even.
uint float_to_half(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16) & 0x8000u;
  uint exponent = (x >> 23) & 0xFFu;
  uint mantissa = x & 0x7FFFFFu;
  if (exponent == 0xFFu) return sign | 0x7C00u | (mantissa != 0u ? 0x200u : 0u);  // NaN: quiet, no payload
  int e = int(exponent) - 127 + 15;  // rebiased exponent
  if (e >= 31) return sign | 0x7C00u;  // overflow (rounding below cannot reach here)
  if (e <= 0) {
    // Subnormal or zero: shift the full significand (implicit 1) right by 14 - e bits.
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to zero
    uint significand = mantissa | 0x800000u;
    uint shift = uint(14 - e);
    uint result = significand >> shift;
    uint rest = significand & ((1u << shift) - 1u);
    uint halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (result & 1u) != 0u)) result += 1u;
    return sign | result;
  }
  uint result = (uint(e) << 10) | (mantissa >> 13);
  uint rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u) != 0u)) result += 1u;  // may carry into inf
  return sign | result;
}

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
#ifdef IN_HALF
  float x = half_to_float(uint(data_in[idx]));
#ifdef OUT_FLOAT
  data_out[idx] = OUT_T(x);
#else
  if (p.out_bool != 0) { data_out[idx] = OUT_T(x != 0.0 ? 1 : 0); return; }
  int r;
  float lo = float(-(1 << (OUT_BITS - 1)));
  float hi_excl = -lo;
  // Round first, then saturate: 127.5 rounds to 128, which must give 127, not wrap to -128.
  float rounded = roundEven(x);
  if (isnan(x)) r = 0;
  else if (rounded >= hi_excl) r = int(uint(hi_excl) - 1u);
  else if (rounded <= lo) r = int(lo);
  else r = int(rounded);
  data_out[idx] = OUT_T(r);
#endif
#else  // OUT_HALF
#ifdef IN_FLOAT
  float x = float(data_in[idx]);
#else
  float x = float(int(data_in[idx]));
#endif
  data_out[idx] = OUT_T(float_to_half(x));
#endif
}
