// TABLE (tosa.md §8). int8: out = table[in + 128] (int8). int16: 513-entry table, output int32
// in 16.7 fixed point with linear interpolation of the low 7 bits.
// Variants: TABLE_I8 or TABLE_I16. Bindings: 0 input, 1 table (int32 entries), 2 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

#ifdef TABLE_I8
layout(set = 0, binding = 0) readonly buffer In { int8_t data_in[]; };
layout(set = 0, binding = 2) writeonly buffer Out { int8_t data_out[]; };
#else
layout(set = 0, binding = 0) readonly buffer In { int16_t data_in[]; };
layout(set = 0, binding = 2) writeonly buffer Out { int data_out[]; };
#endif
layout(set = 0, binding = 1) readonly buffer Table { int data_table[]; };

layout(push_constant) uniform Params { COUNT_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int x = int(data_in[idx]);
#ifdef TABLE_I8
  data_out[idx] = int8_t(data_table[x + 128]);
#else
  int index = clamp((x >> 7) + 256, 0, 511);
  int frac = x & 0x7F;
  int base = data_table[index];
  int next = data_table[index + 1];
  data_out[idx] = (base << 7) + (next - base) * frac;
#endif
}
