// The elementwise functions shared by binary.comp, unary.comp, cast.comp and the fused
// elementwise chains that the executor generates at init (vgf/vulkan/elementwise_fusion_codegen.cpp
// embeds this file's text; the chain expressions in vgf/vulkan/op_lowering_*.cpp call these
// functions), so a fused chain computes exactly what the single-op shaders compute.
// TOSA semantics: tosa.md §9 (binary), §12 (unary, CAST). Needs common.glsl (I64 helpers).
// Integer values travel as `int`, sign-extended from their element type; `bits` is that type's
// width (8, 16 or 32).
#ifndef VKRT_ELEMENTWISE_OPS_GLSL
#define VKRT_ELEMENTWISE_OPS_GLSL

// Low `bits` bits of v, sign-extended: what storing into an int8/int16 tensor keeps.
int ew_wrap(int v, int bits) { return bits == 32 ? v : bitfieldExtract(v, 0, bits); }
// v's low `bits` bits as an unsigned number (the logical shifts' view of a value).
uint ew_unsigned(int v, int bits) { return bits == 32 ? uint(v) : uint(v) & ((1u << uint(bits)) - 1u); }
// int32 MUL with shift > 0: the 64-bit product, rounded, shifted right.
int ew_mul_shift(int a, int b, int shift) {
  I64 prod = i64_add(i64_mul(a, b), i64_pow2(shift - 1));
  return i64_shr_low(prod, shift);
}
int ew_asr(int a, int b, bool round) {
  if (b <= 0 || b >= 32) return a;
  int r = a >> b;
  if (round && ((a >> (b - 1)) & 1) != 0) r += 1;
  return r;
}
int ew_lsl(int a, int b, int bits) { return (b < 0 || b >= 32) ? 0 : ew_wrap(a << b, bits); }
int ew_lsr(int a, int b, int bits) {
  return (b < 0 || b >= 32) ? 0 : ew_wrap(int(ew_unsigned(a, bits) >> uint(b)), bits);
}
int ew_intdiv(int a, int b) {
  if (b == 0) return 0;  // REQUIRE violated: any value, no crash
  if (a == int(0x80000000u) && b == -1) return a;
  return a / b;  // GLSL truncates toward zero
}
// fp32 MAXIMUM / MINIMUM: `propagate` = nan_mode PROPAGATE (a NaN operand wins).
float ew_fmaxmin(float a, float b, bool is_max, bool propagate) {
  bool a_nan = isnan(a), b_nan = isnan(b);
  if (a_nan || b_nan) {
    if (propagate || (a_nan && b_nan)) return a_nan ? a : b;
    return a_nan ? b : a;
  }
  return is_max ? max(a, b) : min(a, b);
}
// fp32 CLAMP: `ignore_nan` = nan_mode IGNORE (a NaN becomes lo).
float ew_fclamp(float x, float lo, float hi, bool ignore_nan) {
  if (isnan(x)) return ignore_nan ? lo : x;
  return min(max(x, lo), hi);
}
// tanh via exp of a non-positive argument (no overflow for large |x|).
float ew_tanh(float x) {
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}
// erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), enough for the stated fp32 tolerance.
float ew_erf(float x) {
  float s = sign(x);
  x = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * x);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                   0.254829592) * t * exp(-x * x);
  return s * y;
}
// fp32 -> int of `bits` bits: round to nearest even, saturate, NaN -> 0.
int ew_f2i(float x, int bits) {
  float lo = float(-(1 << (bits - 1)));  // exactly representable
  float hi_excl = -lo;                   // 2^(bits-1)
  if (isnan(x)) return 0;
  float rounded = roundEven(x);  // round first: 127.5 -> 128 must saturate to 127, not wrap
  if (rounded >= hi_excl) return int(uint(hi_excl) - 1u);
  if (rounded <= lo) return int(lo);
  return int(rounded);
}

#endif
