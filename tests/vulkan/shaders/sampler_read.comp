// COMPUTE-segment test: a combined image sampler of an R8G8B8A8_UINT image (NEAREST filter,
// CLAMP_TO_EDGE) read three ways into a float storage buffer of 3 * H * W * 4 values:
// [0, n) texelFetch * 0.5, [n, 2n) textureLod at the texel centre, [2n, 3n) textureLod one texel
// left of the row (clamped to column 0).
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform usampler2D img;
layout(set = 0, binding = 1) writeonly buffer Out { float v[]; } dst;
void main() {
  ivec2 size = textureSize(img, 0);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  uvec4 a = texelFetch(img, p, 0);
  uvec4 b = textureLod(img, (vec2(p) + 0.5) / vec2(size), 0.0);
  uvec4 c = textureLod(img, (vec2(-1, p.y) + 0.5) / vec2(size), 0.0);
  int base = (p.y * size.x + p.x) * 4;
  int n = size.x * size.y * 4;
  for (int k = 0; k < 4; ++k) {
    dst.v[base + k] = float(a[k]) * 0.5;
    dst.v[n + base + k] = float(b[k]);
    dst.v[2 * n + base + k] = float(c[k]);
  }
}
