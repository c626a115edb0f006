// SELECT (tosa.md §9): out = cond ? on_true : on_false, with broadcasting (rank <= 6, strides 0
// where broadcast). Variants by element size: ELEM_T as copy_nd.comp.
// Bindings: 0 condition (bool bytes), 1 on_true, 2 on_false, 3 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer Cond { uint8_t data_cond[]; };
layout(set = 0, binding = 1) readonly buffer A { ELEM_T data_a[]; };
layout(set = 0, binding = 2) readonly buffer B { ELEM_T data_b[]; };
layout(set = 0, binding = 3) writeonly buffer Out { ELEM_T data_out[]; };

layout(push_constant) uniform Params { SELECT_PARAMS } p;  // push_constants.h

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int rem = int(idx);
  int ic = 0, ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    int c = rem % p.shape[d];
    rem /= p.shape[d];
    ic += c * p.c_stride[d];
    ia += c * p.a_stride[d];
    ib += c * p.b_stride[d];
  }
  data_out[idx] = data_cond[ic] != uint8_t(0) ? data_a[ia] : data_b[ib];
}
