// TRANSPOSE_CONV2D (tosa.md §6), as a gather over output pixels like
// cpu_fallback/tosa/transpose_conv2d.cpp: output (oy, ox) sums the taps (ky, kx) whose source
// Y = oy - out_pad_top - ky (X likewise) lies on the stride grid inside the input. Input
// [N,IH,IW,IC], weight [OC,KH,KW,IC], bias [OC or 1], output [N,OH,OW,OC].
// Variants: IN_T / W_T / OUT_T; FLOAT_PATH (fp32); ACC_I48 (int16 activations, int64
// accumulator clamped to int48 as in ConvPolicy<int16_t>, needs shaderInt64). The int8 and fp32
// paths end in the conv epilogue (epilogue.glsl), the int48 path in epilogue_i48.glsl (with
// FUSED_RESCALE: the following apply_scale_16 RESCALE and CLAMP), so a fused RESCALE/CLAMP
// works as for CONV2D.
// Bindings (the conv2d.comp layout): 0 input, 1 weight, 2 bias, 3 multiplier, 4 shift, 5 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#ifdef ACC_I48
#include "int48.glsl"
#endif

layout(local_size_x = WORKGROUP_SIZE) in;

#if defined(FLOAT_PATH)
#define ACC_T float
#elif defined(ACC_I48)
#define ACC_T int64_t
#else
#define ACC_T int
#endif

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) readonly buffer W { W_T data_w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// The ConvParams block of conv2d.comp: pad_top/pad_left carry out_pad[0]/out_pad[2];
// dilation is unused.
layout(push_constant) uniform Params { CONV_PARAMS } p;  // push_constants.h

#ifdef ACC_I48
#include "epilogue_i48.glsl"
#else
#include "epilogue.glsl"
#endif

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW) * uint(p.OC)) return;
  int oc = int(idx % uint(p.OC));
  uint pix = idx / uint(p.OC);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));

  ACC_T acc = ACC_T(0);
  for (int ky = 0; ky < p.KH; ++ky) {
    int Y = oy - p.pad_top - ky;
    if (Y < 0 || Y >= p.IH * p.stride_y || Y % p.stride_y != 0) continue;
    int iy = Y / p.stride_y;
    for (int kx = 0; kx < p.KW; ++kx) {
      int X = ox - p.pad_left - kx;
      if (X < 0 || X >= p.IW * p.stride_x || X % p.stride_x != 0) continue;
      int ix = X / p.stride_x;
      int in_base = ((n * p.IH + iy) * p.IW + ix) * p.IC;
      int w_base = ((oc * p.KH + ky) * p.KW + kx) * p.IC;
      for (int ic = 0; ic < p.IC; ++ic) {
#ifdef FLOAT_PATH
        acc += (float(data_in[in_base + ic]) - float(p.in_zp)) * (float(data_w[w_base + ic]) - float(p.w_zp));
#else
        // |(in - in_zp) * (w - w_zp)| <= 65535 * 255: the product fits int32 for int8 and int16.
        ACC_T prod = ACC_T((int(data_in[in_base + ic]) - p.in_zp) * (int(data_w[w_base + ic]) - p.w_zp));
        acc += prod;  // int32 wraps modulo 2^32 (tosa.md §6); int64 wraps too
#endif
      }
    }
  }
  ACC_T b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
#ifdef ACC_I48
  data_out[idx] = epilogue_i48(clamp_int48(clamp_int48(acc) + clamp_int48(b)), oc);
#else
  data_out[idx] = epilogue(acc + b, oc);
#endif
}
