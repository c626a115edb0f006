// DEPTHWISE_CONV2D, input [N,IH,IW,C], weight [KH,KW,C,M], output [N,OH,OW,C*M] with output
// channel c*M+m (tosa.md §6), with the same fused RESCALE/CLAMP epilogue as conv2d.comp.
// One invocation per output element (each tap is used once, so blocking buys nothing).
// Bindings: 0 input, 1 weight, 2 bias, 3 multiplier, 4 shift, 5 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

#ifdef FLOAT_PATH
#define ACC_T float
#define TO_ACC(x) float(x)
#else
#define ACC_T int
#define TO_ACC(x) int(x)
#endif

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
layout(set = 0, binding = 1) readonly buffer W { W_T data_w[]; };
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params {
  int N, IH, IW, C, OH, OW, M, KH, KW;
  int stride_y, stride_x, pad_top, pad_left, dil_y, dil_x;
  int in_zp, w_zp, out_zp, clamp_min, clamp_max;
  int flags;
  int bias_broadcast;
} p;

#include "epilogue.glsl"

void main() {
  int OC = p.C * p.M;
  uint idx = linear_index();
  if (idx >= uint(p.N * p.OH * p.OW * OC)) return;
  int oc = int(idx % uint(OC));
  uint pix = idx / uint(OC);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));
  int c = oc / p.M;
  int m = oc % p.M;

  ACC_T acc = ACC_T(0);
  for (int ky = 0; ky < p.KH; ++ky) {
    int y = oy * p.stride_y - p.pad_top + ky * p.dil_y;
    if (y < 0 || y >= p.IH) continue;
    for (int kx = 0; kx < p.KW; ++kx) {
      int x = ox * p.stride_x - p.pad_left + kx * p.dil_x;
      if (x < 0 || x >= p.IW) continue;
      ACC_T v = TO_ACC(data_in[((n * p.IH + y) * p.IW + x) * p.C + c]) - ACC_T(p.in_zp);
      ACC_T w = TO_ACC(data_w[((ky * p.KW + kx) * p.C + c) * p.M + m]) - ACC_T(p.w_zp);
      acc += v * w;
    }
  }
  ACC_T b = data_bias[p.bias_broadcast != 0 ? 0 : oc];
  data_out[idx] = epilogue(acc + b, oc);
}
