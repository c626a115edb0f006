// Elementwise binary ops with TOSA broadcasting (ranks equal, dims equal or 1; tosa.md §9):
// shape = output dims (rank <= 6, padded with leading 1s), a_stride / b_stride = element
// strides of the inputs per output dim, 0 where the input dim is broadcast.
// Variants: IN_T, OUT_T, FLOAT_PATH; BITS = input element width for shifts; COMPARE_OUT
// when OUT_T is bool (uint8). The arithmetic is elementwise_ops.glsl's, shared with fused chains.
// Bindings: 0 input1, 1 input2, 2 output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "push_constants.h"
#include "elementwise_ops.glsl"
#include "op_codes.h"

layout(local_size_x = WORKGROUP_SIZE) in;

layout(set = 0, binding = 0) readonly buffer A { IN_T data_a[]; };
layout(set = 0, binding = 1) readonly buffer B { IN_T data_b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { OUT_T data_out[]; };

layout(push_constant) uniform Params { BINARY_PARAMS } p;  // push_constants.h

#ifdef FLOAT_PATH
float apply(float a, float b) {
  switch (p.op) {
    case BIN_ADD: return a + b;
    case BIN_SUB: return a - b;
    case BIN_MUL: return a * b;
    case BIN_POW: return pow(a, b);
    case BIN_MAXIMUM:
    case BIN_MINIMUM: return ew_fmaxmin(a, b, p.op == BIN_MAXIMUM, p.param == NAN_PROPAGATE);
  }
  return 0.0;
}
bool compare(float a, float b) {
  switch (p.op) {
    case BIN_EQUAL: return a == b;
    case BIN_GREATER: return a > b;
    case BIN_GREATER_EQUAL: return a >= b;
  }
  return false;
}
#else
int apply(int a, int b) {
  switch (p.op) {
    case BIN_ADD: return a + b;
    case BIN_SUB: return a - b;
    case BIN_MUL: return p.param == 0 ? a * b : ew_mul_shift(a, b, p.param);  // int: low 32 bits (tosa.md §9)
    case BIN_MAXIMUM: return max(a, b);
    case BIN_MINIMUM: return min(a, b);
    case BIN_BITWISE_AND: return a & b;
    case BIN_BITWISE_OR: return a | b;
    case BIN_BITWISE_XOR: return a ^ b;
    case BIN_LOGICAL_AND: return int(a != 0 && b != 0);
    case BIN_LOGICAL_OR: return int(a != 0 || b != 0);
    case BIN_LOGICAL_XOR: return int((a != 0) != (b != 0));
    case BIN_ARITHMETIC_RIGHT_SHIFT: return ew_asr(a, b, p.param != 0);
    case BIN_LOGICAL_LEFT_SHIFT: return ew_lsl(a, b, BITS);
    case BIN_LOGICAL_RIGHT_SHIFT: return ew_lsr(a, b, BITS);
    case BIN_INTDIV: return ew_intdiv(a, b);
  }
  return 0;
}
bool compare(int a, int b) {
  switch (p.op) {
    case BIN_EQUAL: return a == b;
    case BIN_GREATER: return a > b;
    case BIN_GREATER_EQUAL: return a >= b;
  }
  return false;
}
#endif

void main() {
  uint idx = linear_index();
  if (idx >= uint(p.count)) return;
  int rem = int(idx);
  int ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    int c = rem % p.shape[d];
    rem /= p.shape[d];
    ia += c * p.a_stride[d];
    ib += c * p.b_stride[d];
  }
#ifdef FLOAT_PATH
  float a = float(data_a[ia]), b = float(data_b[ib]);
#else
  int a = int(data_a[ia]), b = int(data_b[ib]);
#endif
#ifdef COMPARE_OUT
  data_out[idx] = OUT_T(compare(a, b) ? 1 : 0);
#else
  data_out[idx] = OUT_T(apply(a, b));
#endif
}
