// CONV2D int8 with packed 4x8 dot products (OpSDotKHR), the fast variant of conv2d.comp for
// devices with shaderIntegerDotProduct (selection: vgf/vulkan/variant_select.cpp). Same tensors,
// same fused RESCALE/CLAMP epilogue and bit-identical results as conv2d.comp.
//
// Register blocking: one invocation computes a 4x4 tile, 4 output pixels (consecutive in the
// flattened N*OH*OW order) x 4 consecutive output channels, so every input word is used for 4
// channels and every weight word for 4 pixels (16 dot products per 8 word loads). No shared
// memory: barrier-heavy tiles are 16x slower on lavapipe and nothing here was measured on a GPU
// that would justify them (vulkan.md §1).
//
// Zero points, without ever forming (x - zp), which does not fit int8 (cortex-m-ops.md §4.1):
// padded taps read the input zero point itself, so they contribute (zp - zp) * w = 0 exactly like
// the portable variant's skipped taps. Over all T = KH*KW*IC taps then
//   sum (x - zx)(w - zw) = sum x*w - zx * sum w - zw * sum x + T * zx * zw   (int32, wrapping),
// the two sums being dot products with 0x01010101, computed only when the zero point is nonzero.
//
// Words: channel group g of a pixel is bytes [4g, 4g+4). Weights are always read as words
// [OC][KH][KW][IC_WORDS] (the raw tensor when IC % 4 == 0, else a zero-padded copy made at upload);
// the input is read as words when IC % 4 == 0 (DOT_IN_WORDS), else as bytes packed here with the
// lanes past IC set to 0.
// Variants: OUT_T; POINTWISE=1 compiles KH = KW = 1.
// Bindings: 0 input, 1 weight words, 2 bias, 3 multiplier, 4 shift, 5 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "int8_dot.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

#define TILE_PIX 4
#define TILE_OC 4
#define DOT_IN_WORDS 1

layout(set = 0, binding = 0) readonly buffer In { int8_t data_in[]; };
layout(set = 0, binding = 0) readonly buffer InWords { int data_in_words[]; };
layout(set = 0, binding = 1) readonly buffer W { int data_w_words[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// The first 22 fields mirror conv2d.comp (ConvParams in op_lowering_compute.cpp); the last two
// are appended by variant_select.cpp (ConvDotExtra).
layout(push_constant) uniform Params {
  CONV_PARAMS
  int ic_words;   // ceil(IC / 4)
  int dot_flags;  // DOT_IN_WORDS
} p;

#include "epilogue.glsl"

#ifdef POINTWISE
#define KH_ 1
#define KW_ 1
#else
#define KH_ p.KH
#define KW_ p.KW
#endif

// Channel group g of the input pixel starting at byte `base` (a multiple of 4 when IC % 4 == 0).
int load_input_word(int base, int g) {
  if ((p.dot_flags & DOT_IN_WORDS) != 0) return data_in_words[(base >> 2) + g];
  int c = 4 * g;
  int8_t b0 = data_in[base + c];
  int8_t b1 = c + 1 < p.IC ? data_in[base + c + 1] : int8_t(0);
  int8_t b2 = c + 2 < p.IC ? data_in[base + c + 2] : int8_t(0);
  int8_t b3 = c + 3 < p.IC ? data_in[base + c + 3] : int8_t(0);
  return pack4(b0, b1, b2, b3);
}

void main() {
  int pixels = p.N * p.OH * p.OW;
  uint oc_blocks = uint((p.OC + TILE_OC - 1) / TILE_OC);
  uint pix_blocks = uint((pixels + TILE_PIX - 1) / TILE_PIX);
  uint idx = linear_index();
  if (idx >= oc_blocks * pix_blocks) return;
  int oc0 = int(idx % oc_blocks) * TILE_OC;
  int pix0 = int(idx / oc_blocks) * TILE_PIX;

  // Tail pixels/channels recompute the last one (never stored).
  int y0[TILE_PIX], x0[TILE_PIX], row0[TILE_PIX];
  for (int i = 0; i < TILE_PIX; ++i) {
    int pix = min(pix0 + i, pixels - 1);
    int ox = pix % p.OW;
    int oy = (pix / p.OW) % p.OH;
    int n = pix / (p.OW * p.OH);
    y0[i] = oy * p.stride_y - p.pad_top;
    x0[i] = ox * p.stride_x - p.pad_left;
    row0[i] = n * p.IH;
  }
  int w_row[TILE_OC];
  for (int j = 0; j < TILE_OC; ++j) w_row[j] = min(oc0 + j, p.OC - 1) * KH_ * KW_ * p.ic_words;

  int acc[TILE_PIX][TILE_OC];
  int x_sum[TILE_PIX], w_sum[TILE_OC];
  for (int i = 0; i < TILE_PIX; ++i) {
    x_sum[i] = 0;
    for (int j = 0; j < TILE_OC; ++j) acc[i][j] = 0;
  }
  for (int j = 0; j < TILE_OC; ++j) w_sum[j] = 0;

  int last_lanes = p.IC - 4 * (p.ic_words - 1);
  int pad_word = replicate_lanes(p.in_zp, 4);
  int pad_word_last = replicate_lanes(p.in_zp, last_lanes);
  bool need_w_sum = p.in_zp != 0;
  bool need_x_sum = p.w_zp != 0;

  for (int ky = 0; ky < KH_; ++ky) {
    for (int kx = 0; kx < KW_; ++kx) {
      int in_base[TILE_PIX];
      bool inside[TILE_PIX];
      for (int i = 0; i < TILE_PIX; ++i) {
        int y = y0[i] + ky * p.dil_y;
        int x = x0[i] + kx * p.dil_x;
        inside[i] = y >= 0 && y < p.IH && x >= 0 && x < p.IW;
        in_base[i] = inside[i] ? ((row0[i] + y) * p.IW + x) * p.IC : 0;
      }
      int w_tap = (ky * KW_ + kx) * p.ic_words;
      for (int g = 0; g < p.ic_words; ++g) {
        int pad = g == p.ic_words - 1 ? pad_word_last : pad_word;
        int xw[TILE_PIX], ww[TILE_OC];
        for (int i = 0; i < TILE_PIX; ++i) xw[i] = inside[i] ? load_input_word(in_base[i], g) : pad;
        for (int j = 0; j < TILE_OC; ++j) ww[j] = data_w_words[w_row[j] + w_tap + g];
        for (int i = 0; i < TILE_PIX; ++i)
          for (int j = 0; j < TILE_OC; ++j) acc[i][j] += sdot4(xw[i], ww[j]);
        if (need_w_sum)
          for (int j = 0; j < TILE_OC; ++j) w_sum[j] += sdot4(ww[j], ONES4);
        if (need_x_sum)
          for (int i = 0; i < TILE_PIX; ++i) x_sum[i] += sdot4(xw[i], ONES4);
      }
    }
  }

  int taps = KH_ * KW_ * p.IC;
  int zero_point_term = taps * p.in_zp * p.w_zp;
  for (int i = 0; i < TILE_PIX; ++i) {
    int pix = pix0 + i;
    if (pix >= pixels) break;
    for (int j = 0; j < TILE_OC; ++j) {
      int oc = oc0 + j;
      if (oc >= p.OC) break;
      int sum = acc[i][j] - p.in_zp * w_sum[j] - p.w_zp * x_sum[i] + zero_point_term;
      int b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
      data_out[pix * p.OC + oc] = epilogue(sum + b, oc);
    }
  }
}
