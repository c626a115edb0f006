// MATMUL int8 A [N,H,C] x B [N,C,W] -> [N,H,W] with packed 4x8 dot products (OpSDotKHR), the fast
// variant of matmul.comp for devices with shaderIntegerDotProduct (selection:
// vgf/vulkan/variant_select.cpp). Same fused RESCALE/CLAMP epilogue, bit-identical results.
//
// Each invocation computes a 4x4 output tile in registers (16 dot products per 8 word loads).
// Zero points: sum (a - za)(b - zb) = sum a*b - za * sum b - zb * sum a + C * za * zb (int32,
// wrapping), the sums being dot products with 0x01010101, computed only when needed; lanes past C
// are 0 on both sides, so they add nothing to any of the sums.
// A words: read directly when C % 4 == 0 (DOT_A_WORDS), else packed here from bytes.
// B words: a transposed, zero-padded copy [N][W][C_WORDS] made at upload when B is a constant
// (DOT_B_PACKED), else packed here from 4 strided bytes.
// Bindings: 0 A, 1 B (bytes, or packed words), 2 unused, 3 multiplier, 4 shift, 5 out.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "int8_dot.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

#define TILE 4
#define DOT_A_WORDS 1
#define DOT_B_PACKED 2

layout(set = 0, binding = 0) readonly buffer A { int8_t data_a[]; };
layout(set = 0, binding = 0) readonly buffer AWords { int data_a_words[]; };
layout(set = 0, binding = 1) readonly buffer B { int8_t data_b[]; };
layout(set = 0, binding = 1) readonly buffer BWords { int data_b_words[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// The first 10 fields mirror matmul.comp (MatmulParams in op_lowering_compute.cpp); the last two
// are appended by variant_select.cpp (MatmulDotExtra).
layout(push_constant) uniform Params {
  MATMUL_PARAMS
  int c_words;    // ceil(C / 4)
  int dot_flags;  // DOT_A_WORDS | DOT_B_PACKED
} p;

#include "epilogue.glsl"

// Word g of A's row starting at byte `base`.
int load_a_word(int base, int g) {
  if ((p.dot_flags & DOT_A_WORDS) != 0) return data_a_words[(base >> 2) + g];
  int c = 4 * g;
  int8_t b0 = data_a[base + c];
  int8_t b1 = c + 1 < p.C ? data_a[base + c + 1] : int8_t(0);
  int8_t b2 = c + 2 < p.C ? data_a[base + c + 2] : int8_t(0);
  int8_t b3 = c + 3 < p.C ? data_a[base + c + 3] : int8_t(0);
  return pack4(b0, b1, b2, b3);
}

// Word g of B's column w in batch n.
int load_b_word(int n, int w, int g) {
  if ((p.dot_flags & DOT_B_PACKED) != 0) return data_b_words[(n * p.W + w) * p.c_words + g];
  int c = 4 * g;
  int base = (n * p.C + c) * p.W + w;
  int8_t b0 = data_b[base];
  int8_t b1 = c + 1 < p.C ? data_b[base + p.W] : int8_t(0);
  int8_t b2 = c + 2 < p.C ? data_b[base + 2 * p.W] : int8_t(0);
  int8_t b3 = c + 3 < p.C ? data_b[base + 3 * p.W] : int8_t(0);
  return pack4(b0, b1, b2, b3);
}

void main() {
  int tiles_w = (p.W + TILE - 1) / TILE;
  int tiles_h = (p.H + TILE - 1) / TILE;
  uint idx = linear_index();
  if (idx >= uint(p.N * tiles_h * tiles_w)) return;
  int tw = int(idx % uint(tiles_w));
  int th = int((idx / uint(tiles_w)) % uint(tiles_h));
  int n = int(idx / uint(tiles_w * tiles_h));
  int h0 = th * TILE, w0 = tw * TILE;

  // Rows/columns past the edge are clamped (recomputed, never stored).
  int row_base[TILE], col[TILE];
  for (int i = 0; i < TILE; ++i) {
    row_base[i] = (n * p.H + min(h0 + i, p.H - 1)) * p.C;
    col[i] = min(w0 + i, p.W - 1);
  }
  int acc[TILE][TILE];
  int a_sum[TILE], b_sum[TILE];
  for (int i = 0; i < TILE; ++i) {
    a_sum[i] = 0;
    b_sum[i] = 0;
    for (int j = 0; j < TILE; ++j) acc[i][j] = 0;
  }
  bool need_a_sum = p.b_zp != 0;
  bool need_b_sum = p.a_zp != 0;
  for (int g = 0; g < p.c_words; ++g) {
    int aw[TILE], bw[TILE];
    for (int i = 0; i < TILE; ++i) {
      aw[i] = load_a_word(row_base[i], g);
      bw[i] = load_b_word(n, col[i], g);
    }
    for (int i = 0; i < TILE; ++i)
      for (int j = 0; j < TILE; ++j) acc[i][j] += sdot4(aw[i], bw[j]);
    if (need_a_sum)
      for (int i = 0; i < TILE; ++i) a_sum[i] += sdot4(aw[i], ONES4);
    if (need_b_sum)
      for (int j = 0; j < TILE; ++j) b_sum[j] += sdot4(bw[j], ONES4);
  }
  int zero_point_term = p.C * p.a_zp * p.b_zp;
  for (int i = 0; i < TILE; ++i) {
    int h = h0 + i;
    if (h >= p.H) break;
    for (int j = 0; j < TILE; ++j) {
      int w = w0 + j;
      if (w >= p.W) break;
      int sum = acc[i][j] - p.a_zp * b_sum[j] - p.b_zp * a_sum[i] + zero_point_term;
      data_out[(n * p.H + h) * p.W + w] = epilogue(sum, w);
    }
  }
}
