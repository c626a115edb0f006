// Shared helpers for every vkrt compute shader.
// Conventions (docs/vulkan-executor.md "Shader ABI"): set 0, storage buffers at bindings 0..k in
// the order each shader documents; a 1-D or 2-D grid of 64-wide workgroups over the output
// elements (linear_index()), unless a shader declares its own size (matmul_coopmat.comp; its
// dispatches set PendingDispatch::workgroup_size); shapes and attributes in push constants (at most 128 bytes, the
// guaranteed minimum).
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#ifdef HALF_STORAGE
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#define WORKGROUP_SIZE 64

// Flattened invocation index for grids of (x, y) workgroups (x at most 65535 groups).
uint linear_index() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WORKGROUP_SIZE;
}

// ---- 64-bit signed arithmetic on (hi, lo) pairs, so no shaderInt64 is needed. ----
struct I64 { int hi; uint lo; };

I64 i64_mul(int a, int b) {
  I64 r; int lo;
  imulExtended(a, b, r.hi, lo);
  r.lo = uint(lo);
  return r;
}
I64 i64_add(I64 a, I64 b) {
  uint carry;
  I64 r;
  r.lo = uaddCarry(a.lo, b.lo, carry);
  r.hi = a.hi + b.hi + int(carry);
  return r;
}
I64 i64_from_int(int v) { I64 r; r.hi = v < 0 ? -1 : 0; r.lo = uint(v); return r; }
// 1 << s for 0 <= s <= 62.
I64 i64_pow2(int s) {
  I64 r;
  if (s < 32) { r.hi = 0; r.lo = 1u << uint(s); } else { r.hi = 1 << uint(s - 32); r.lo = 0u; }
  return r;
}
// Low 32 bits of (a >> s), arithmetic shift, 1 <= s <= 63.
int i64_shr_low(I64 a, int s) {
  if (s < 32) return int((a.lo >> uint(s)) | (uint(a.hi) << uint(32 - s)));
  return a.hi >> uint(s - 32);
}

// TOSA apply_scale_32 (tosa.md §4): (value * multiplier + round) >> shift, with TFLite-style
// double rounding when double_round and shift > 31. shift in [2, 62].
int apply_scale_32(int value, int multiplier, int shift, bool double_round) {
  I64 acc = i64_mul(value, multiplier);
  I64 round = i64_pow2(shift - 1);
  if (double_round && shift > 31) {
    round = i64_add(round, i64_from_int(value >= 0 ? (1 << 30) : -(1 << 30)));
  }
  return i64_shr_low(i64_add(acc, round), shift);
}

// RESCALE epilogue flags shared by conv / depthwise / matmul / rescale shaders.
#define EPI_FUSED_RESCALE 1
#define EPI_DOUBLE_ROUND 2
#define EPI_PER_CHANNEL 4
#define EPI_TABLE 8  // int8 TABLE after the clamp: 256 entries at data_shift[flags >> 8]
