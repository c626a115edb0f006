// Model-sequence test (vgf_sequence_test.cpp): an image model input (R8G8B8A8_UINT, combined image
// sampler) unpacked into an int32 buffer, dst[(y * W + x) * 4 + c] = texel(x, y)[c] * 2.
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform usampler2D img;
layout(set = 0, binding = 1) writeonly buffer Out { int v[]; } dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(img, 0);
  if (p.x >= size.x || p.y >= size.y) return;
  uvec4 t = texelFetch(img, p, 0);
  uint base = (uint(p.y) * uint(size.x) + uint(p.x)) * 4u;
  for (int c = 0; c < 4; ++c) dst.v[base + uint(c)] = int(t[c]) * 2;
}
