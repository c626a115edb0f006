// The int8 residual add as TOSA graphs carry it, in one pass: each int8 input RESCALEd to int32,
// the int32 ADD, and the sum RESCALEd back to int8 (then a CLAMP, as a narrower range):
//
//   out[i] = clamp(apply_scale_32(a_mult·a[i] + b_mult·b[i] + bias, out_mult, out_shift,
//                                 double_round) + out_zp, lo, hi)
//
// The caller has checked that the input RESCALEs are this affine map over every int8 value and
// that the sum stays within int32 for every pair (tosa::plan_residual_add), so the one formula is
// the four ops' exactly. XNNPACK's network has one operator for the same work.
#pragma once

#include <cstdint>

namespace vkrt::compute {

struct ResidualAddS8 {
  int32_t a_mult = 0, b_mult = 0, bias = 0;
  int32_t out_mult = 0;   // >= 0
  int32_t out_shift = 32;  // TOSA's, in [32, 62]: the product's high word shifted by out_shift − 32
  bool double_round = false;
  int32_t out_zp = 0;
  int32_t lo = -128, hi = 127;  // within int8
};

// out[i] for i < count: the Highway loop at avx2 and above (x86-64), else the portable one; the
// same bytes.
void residual_add_s8(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count);

}  // namespace vkrt::compute
