// RESIZE (tosa.md §11), NHWC [N,IH,IW,C] -> [N,OH,OW,C], NEAREST or BILINEAR, exactly the integer
// arithmetic of cpu_fallback/tosa/resize.cpp: source coordinate v = o * scale_d + offset, integer
// part floor(v / scale_n), fraction d = v - i * scale_n (units of 1/scale_n), both neighbours
// clamped into the input. NEAREST takes the upper neighbour when 2d >= scale_n. Integer
// BILINEAR is unnormalised (the result is scaled by y_n * x_n; a RESCALE follows):
//   r = in00 (yn-dy)(xn-dx) + in01 (yn-dy) dx + in10 dy (xn-dx) + in11 dy dx
// int8: |r| <= 128 * 2048^2 = 2^29 fits int32. int16 (OUT_I48): up to 2^37, so each term is a
// 64-bit product (common.glsl I64 helpers, no shaderInt64 needed) and the output is int48 held
// in int64 (two 32-bit words, low first). fp32 uses dy = d / y_n as float weights.
// Variants: IN_T, OUT_T, FLOAT_PATH, OUT_I48. Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { IN_T data_in[]; };
#ifdef OUT_I48
layout(set = 0, binding = 1) writeonly buffer Out { uint data_out[]; };  // (lo, hi) pairs
#else
layout(set = 0, binding = 1) writeonly buffer Out { OUT_T data_out[]; };
#endif

layout(push_constant) uniform Params { RESIZE_PARAMS } p;  // push_constants.h

// floor(a / b) for b > 0.
int floor_div(int a, int b) {
  int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Neighbours (i0, i1) and fraction d of output coordinate o along one axis.
ivec3 source(int o, int scale_n, int scale_d, int offset, int in_size) {
  int v = o * scale_d + offset;
  int i = floor_div(v, scale_n);
  int d = v - i * scale_n;
  int i0 = min(max(i, 0), in_size - 1);
  int i1 = max(min(i + 1, in_size - 1), 0);
  return ivec3(i0, i1, d);
}

void main() {
  uint idx = linear_index();
  uint total = uint(p.N * p.OH * p.OW) * uint(p.C);
  if (idx >= total) return;
  int c = int(idx % uint(p.C));
  uint pix = idx / uint(p.C);
  int ox = int(pix % uint(p.OW));
  int oy = int((pix / uint(p.OW)) % uint(p.OH));
  int n = int(pix / uint(p.OW * p.OH));
  ivec3 ya = source(oy, p.y_n, p.y_d, p.offset_y, p.IH);
  ivec3 xa = source(ox, p.x_n, p.x_d, p.offset_x, p.IW);
  int row0 = (n * p.IH + ya.x) * p.IW;
  int row1 = (n * p.IH + ya.y) * p.IW;
  if (p.bilinear == 0) {
    int y = 2 * ya.z >= p.y_n ? ya.y : ya.x;
    int x = 2 * xa.z >= p.x_n ? xa.y : xa.x;
#ifdef OUT_I48
    int v = int(data_in[((n * p.IH + y) * p.IW + x) * p.C + c]);
    data_out[2 * idx] = uint(v);
    data_out[2 * idx + 1] = uint(v < 0 ? -1 : 0);
#else
    data_out[idx] = OUT_T(data_in[((n * p.IH + y) * p.IW + x) * p.C + c]);
#endif
    return;
  }
#ifdef FLOAT_PATH
  float dy = float(ya.z) / float(p.y_n);
  float dx = float(xa.z) / float(p.x_n);
  float r = float(data_in[(row0 + xa.x) * p.C + c]) * (1.0 - dy) * (1.0 - dx) +
            float(data_in[(row0 + xa.y) * p.C + c]) * (1.0 - dy) * dx +
            float(data_in[(row1 + xa.x) * p.C + c]) * dy * (1.0 - dx) +
            float(data_in[(row1 + xa.y) * p.C + c]) * dy * dx;
  data_out[idx] = OUT_T(r);
#else
  int wy0 = p.y_n - ya.z, wy1 = ya.z, wx0 = p.x_n - xa.z, wx1 = xa.z;  // each <= 2048
  int v00 = int(data_in[(row0 + xa.x) * p.C + c]);
  int v01 = int(data_in[(row0 + xa.y) * p.C + c]);
  int v10 = int(data_in[(row1 + xa.x) * p.C + c]);
  int v11 = int(data_in[(row1 + xa.y) * p.C + c]);
#ifdef OUT_I48
  I64 r = i64_add(i64_add(i64_mul(v00, wy0 * wx0), i64_mul(v01, wy0 * wx1)),
                  i64_add(i64_mul(v10, wy1 * wx0), i64_mul(v11, wy1 * wx1)));
  data_out[2 * idx] = r.lo;
  data_out[2 * idx + 1] = uint(r.hi);
#else
  data_out[idx] = OUT_T(v00 * wy0 * wx0 + v01 * wy0 * wx1 + v10 * wy1 * wx0 + v11 * wy1 * wx1);
#endif
#endif
}
