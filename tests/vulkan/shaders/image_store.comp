// COMPUTE-segment test: a storage image (R8G8B8A8_UINT) and a sampled image without sampler
// (R32G32B32A32_SFLOAT, samplerless texelFetch) in, a storage image (R32G32B32A32_SFLOAT) out:
// dst = src * scale + (x, y, 0, 0).
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8ui) uniform readonly uimage2D src;
layout(set = 0, binding = 1) uniform texture2D scale;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D dst;
void main() {
  ivec2 size = imageSize(dst);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  vec4 a = vec4(imageLoad(src, p));
  vec4 s = texelFetch(scale, p, 0);
  imageStore(dst, p, a * s + vec4(p.x, p.y, 0.0, 0.0));
}
