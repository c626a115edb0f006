// CONV2D and DEPTHWISE_CONV2D with int16 activations and int8 weights (tosa.md §6): products
// summed in int64 (int48.glsl), result clamp48(clamp48(acc) + clamp48(bias)) exactly like
// cpu_fallback/tosa/conv_common.h ConvPolicy<int16_t>. Output int48 held in int64. Needs
// shaderInt64 (the lowering checks DeviceFeatures::shader_int64). One output per invocation.
// Layouts as conv2d.comp / depthwise_conv2d.comp: input [N,IH,IW,IC]; CONV2D weight
// [OC,KH,KW,IC]; DEPTHWISE (define DEPTHWISE) weight [KH,KW,C,M] with the OC slot carrying M.
// Bindings (the conv2d.comp layout): 0 input, 1 weight, 2 bias (int64), 3, 4 multipliers and
// shifts of a fused RESCALE (FUSED_RESCALE, epilogue_i48.glsl), 5 output (int64, or OUT_T).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "int48.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { int16_t data_in[]; };
layout(set = 0, binding = 1) readonly buffer W { int8_t data_w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int64_t data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
#ifndef OUT_T
#define OUT_T int64_t  // the int48 result; int8_t / int16_t with FUSED_RESCALE
#endif
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// The ConvParams block of conv2d.comp; out_zp/clamp/flags serve the fused RESCALE only.
layout(push_constant) uniform Params { CONV_PARAMS } p;  // push_constants.h

#include "epilogue_i48.glsl"

void main() {
#ifdef DEPTHWISE
  int channels = p.IC * p.OC;  // C * M
#else
  int channels = p.OC;
#endif
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW) * uint(channels)) return;
  int oc = int(idx % uint(channels));
  uint pix = idx / uint(channels);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));

  int64_t acc = int64_t(0);
  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky * p.dil_y;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx * p.dil_x;
      if (x < 0 || x >= p.IW) continue;
      int in_base = ((n * p.IH + y) * p.IW + x) * p.IC;
#ifdef DEPTHWISE
      int c = oc / p.OC, m = oc % p.OC;
      int v = int(data_in[in_base + c]) - p.in_zp;
      int k = int(data_w[((ky * p.KW + kx) * p.IC + c) * p.OC + m]) - p.w_zp;
      acc += int64_t(v * k);  // |v * k| <= 65535 * 255 fits int32
#else
      int w_base = ((oc * p.KH + ky) * p.KW + kx) * p.IC;
      for (int ic = 0; ic < p.IC; ++ic) {
        int v = int(data_in[in_base + ic]) - p.in_zp;
        int k = int(data_w[w_base + ic]) - p.w_zp;
        acc += int64_t(v * k);
      }
#endif
    }
  }
  int64_t b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
  data_out[((n * p.OH + oy) * p.OW + ox) * channels + oc] =
      epilogue_i48(clamp_int48(clamp_int48(acc) + clamp_int48(b)), oc);
}
