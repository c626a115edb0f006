// Affine N-d copy (rank <= 6): for every coordinate c of the iteration space `shape`,
//   out[out_offset + sum c[d]*out_stride[d]] = in[in_offset + sum c[d]*in_stride[d]].
// TRANSPOSE (permuted input strides), SLICE (input offset), REVERSE (negative stride plus
// offset), CONCAT (one dispatch per input, output offset along the axis), RESHAPE/IDENTITY
// (plain copy). Variants by element size: ELEM_T = uint8_t / uint16_t / uint / uvec2.
// Bindings: 0 input, 1 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer In { ELEM_T data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { ELEM_T data_out[]; };

layout(push_constant) uniform Params { COPY_ND_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int rem = int(idx);
  int i = p.in_offset, o = p.out_offset;
  for (int d = 5; d >= 0; --d) {
    int c = rem % p.shape[d];
    rem /= p.shape[d];
    i += c * p.in_stride[d];
    o += c * p.out_stride[d];
  }
  data_out[o] = data_in[i];
}
