// int48 accumulators held in int64 (shaderInt64), shared by the int16-activation shaders
// (conv_i48.comp, matmul_i48.comp, transpose_conv2d.comp). TOSA (tosa.md §6) accumulates int16 x
// int8 products in int48; like cpu_fallback/tosa (ConvPolicy<int16_t>), the sum wraps in int64
// and the result is clamped to the int48 range.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

int64_t clamp_int48(int64_t v) {
  const int64_t lo = -(int64_t(1) << 47);
  const int64_t hi = (int64_t(1) << 47) - int64_t(1);
  return min(max(v, lo), hi);
}
