// DEPTHWISE_CONV2D, input [N,IH,IW,C], weight [KH,KW,C,M], output [N,OH,OW,C*M] with output
// channel c*M+m (tosa.md §6), with the same fused RESCALE/CLAMP epilogue as conv2d.comp.
// One invocation per output element (each tap is used once, so blocking over pixels buys
// nothing), or, with CHANNELS4 (int8, M == 1, C a multiple of 4: the lowering checks), one per
// four consecutive channels: the index arithmetic, the bounds checks and the tap loop are then
// shared by four outputs, and each tap's four input and four weight bytes come as one 32-bit
// word (the tensors start 4-byte aligned and C % 4 == 0 keeps every word inside one pixel).
// Bindings: 0 input, 1 weight, 2 bias, 3 multiplier, 4 shift, 5 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

#ifdef FLOAT_PATH
#define ACC_T float
#define TO_ACC(x) float(x)
#else
#define ACC_T int
#define TO_ACC(x) int(x)
#endif

#ifdef CHANNELS4
layout(set = 0, binding = 0) readonly buffer In { uint words_in[]; };
layout(set = 0, binding = 1) readonly buffer W { uint words_w[]; };
#else
layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) readonly buffer W { W_T data_w[]; };
#endif
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { CONV_PARAMS } p;  // push_constants.h

#include "epilogue.glsl"

#ifdef CHANNELS4
// The four int8 values of a word, sign-extended, minus a zero point.
ivec4 unpack_minus(uint word, int zp) {
  int w = int(word);
  return ivec4(bitfieldExtract(w, 0, 8), bitfieldExtract(w, 8, 8), bitfieldExtract(w, 16, 8),
               bitfieldExtract(w, 24, 8)) - ivec4(zp);
}

void main() {
  int C4 = p.IC / 4;
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW * C4)) return;
  int c0 = int(idx % uint(C4)) * 4;
  uint pix = idx / uint(C4);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));

  ivec4 acc = ivec4(0);
  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky * p.dil_y;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx * p.dil_x;
      if (x < 0 || x >= p.IW) continue;
      ivec4 v = unpack_minus(words_in[(((n * p.IH + y) * p.IW + x) * p.IC + c0) / 4], p.in_zp);
      ivec4 w = unpack_minus(words_w[((ky * p.KW + kx) * p.IC + c0) / 4], p.w_zp);
      acc += v * w;  // int32, wrapping as the CPU kernels' accumulator
    }
  }
  for (int j = 0; j < 4; ++j) {
    int oc = c0 + j;
    int b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
    data_out[pix * uint(p.IC) + uint(oc)] = epilogue(acc[j] + b, oc);
  }
}
#else
void main() {
  int OC = p.IC * p.OC;
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW * OC)) return;
  int oc = int(idx % uint(OC));
  uint pix = idx / uint(OC);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));
  int c = oc / p.OC;
  int m = oc % p.OC;

  ACC_T acc = ACC_T(0);
  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky * p.dil_y;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx * p.dil_x;
      if (x < 0 || x >= p.IW) continue;
      ACC_T v = TO_ACC(data_in[((n * p.IH + y) * p.IW + x) * p.IC + c]) - ACC_T(p.in_zp);
      ACC_T w = TO_ACC(data_w[((ky * p.KW + kx) * p.IC + c) * p.OC + m]) - ACC_T(p.w_zp);
      acc += v * w;
    }
  }
  ACC_T b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
  data_out[idx] = epilogue(acc + b, oc);
}
#endif
