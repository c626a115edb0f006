// MATMUL int16 x int16 -> int48 (tosa.md §6): A [N,H,C] x B [N,C,W], products (each fits int32:
// |a - a_zp| * |b - b_zp| <= 2^16 * 2^16 only overflows for -32768 * -32768, so the product is
// formed in int64) summed in int64 with wrapping, then clamped to int48 like
// cpu_fallback/tosa/matmul.cpp. Needs shaderInt64. One output per invocation.
// Bindings (the matmul.comp layout): 0 A, 1 B, 2 unused, 3, 4 multipliers and shifts of a fused
// RESCALE (FUSED_RESCALE, epilogue_i48.glsl), 5 output (int64, or OUT_T).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "int48.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer A { int16_t data_a[]; };
layout(set = 0, binding = 1) readonly buffer B { int16_t data_b[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
#ifndef OUT_T
#define OUT_T int64_t  // the int48 result; int8_t / int16_t with FUSED_RESCALE
#endif
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// The MatmulParams block of matmul.comp; out_zp/clamp/flags serve the fused RESCALE only.
layout(push_constant) uniform Params { MATMUL_PARAMS } p;  // push_constants.h

#include "epilogue_i48.glsl"

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.N * p.H) * uint(p.W)) return;
  int w = int(idx % uint(p.W));
  int h = int((idx / uint(p.W)) % uint(p.H));
  int n = int(idx / uint(p.W * p.H));
  int a_base = (n * p.H + h) * p.C;
  int b_base = n * p.C * p.W + w;
  int64_t acc = int64_t(0);
  for (int c = 0; c < p.C; ++c) {
    int64_t a = int64_t(int(data_a[a_base + c]) - p.a_zp);
    int64_t b = int64_t(int(data_b[b_base + c * p.W]) - p.b_zp);
    acc += a * b;
  }
  data_out[idx] = epilogue_i48(clamp_int48(acc), w);
}
