// CONV2D, NHWC input [N,IH,IW,IC], weight [OC,KH,KW,IC], bias [OC or 1] (tosa.md §6),
// optionally fused with the RESCALE and CLAMP that follow it (requantize per channel, add the
// output zero point, clamp to [clamp_min, clamp_max] = type range ∩ CLAMP bounds).
// One invocation computes OC_BLOCK consecutive output channels of one output pixel, so each
// input value is loaded once per block (register blocking; no shared memory, see vulkan.md §1).
// Variants (defines): IN_T / W_T element types, OUT_T output type, FLOAT_PATH for fp32.
// Bindings: 0 input, 1 weight, 2 bias, 3 multiplier (int32 per channel), 4 shift (int32), 5 output.
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
#define OC_BLOCK 4

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) readonly buffer W { W_T data_w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { CONV_PARAMS } p;  // push_constants.h

#include "epilogue.glsl"

void main() {
  uint blocks = uint((p.OC + OC_BLOCK - 1) / OC_BLOCK);
  uint idx = linear_index();
  uint total = uint(p.N * p.OH * p.OW) * blocks;
  if (idx >= total) return;
  int ob = int(idx % blocks);
  uint pix = idx / blocks;
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));
  int oc0 = ob * OC_BLOCK;

  ACC_T acc[OC_BLOCK];
  for (int j = 0; j < OC_BLOCK; ++j) acc[j] = ACC_T(0);

  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky * p.dil_y;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx * p.dil_x;
      if (x < 0 || x >= p.IW) continue;
      int in_base = ((n * p.IH + y) * p.IW + x) * p.IC;
      int w_base = (ky * p.KW + kx) * p.IC;
      int w_oc_stride = p.KH * p.KW * p.IC;
      for (int ic = 0; ic < p.IC; ++ic) {
        ACC_T v = TO_ACC(data_in[in_base + ic]) - ACC_T(p.in_zp);
        for (int j = 0; j < OC_BLOCK; ++j) {
          int oc = min(oc0 + j, p.OC - 1);  // tail lanes recompute the last channel, not stored
          acc[j] += v * (TO_ACC(data_w[oc * w_oc_stride + w_base + ic]) - ACC_T(p.w_zp));
        }
      }
    }
  }
  int out_base = ((n * p.OH + oy) * p.OW + ox) * p.OC;
  for (int j = 0; j < OC_BLOCK; ++j) {
    int oc = oc0 + j;
    if (oc >= p.OC) break;
    ACC_T b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
    data_out[out_base + oc] = epilogue(acc[j] + b, oc);
  }
}
