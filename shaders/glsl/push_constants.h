// The push-constant blocks of the shaders, one macro per layout, shared by GLSL and C++ like
// op_codes.h: a shader declares `layout(push_constant) uniform Params { BINARY_PARAMS } p;`,
// the lowering (vgf/vulkan/op_lowering_*.cpp) `struct BinaryParams { BINARY_PARAMS };`, so the
// two cannot drift apart. Only `int` fields: 4 bytes each and no padding in either language
// (std430 push-constant layout; the C++ ABIs vkrt builds for). Variants that append fields
// (the dot and cooperative-matrix variants, vgf/vulkan/variant_select.cpp) write them after the
// macro's fields.
#ifndef VKRT_SHADER_PUSH_CONSTANTS_H
#define VKRT_SHADER_PUSH_CONSTANTS_H

// binary.comp, compare: shape = output dims (rank <= 6, leading 1s); a_stride / b_stride = element
// strides of the inputs per output dim, 0 where broadcast. param: MUL shift (int32),
// ARITHMETIC_RIGHT_SHIFT round, MAXIMUM/MINIMUM nan_mode.
#define BINARY_PARAMS \
  int shape[6];       \
  int a_stride[6];    \
  int b_stride[6];    \
  int count;          \
  int op;             \
  int param;

// unary.comp. p0, p1: CLAMP min, max (float bits on FLOAT_PATH); NEGATE in_zp, out_zp.
#define UNARY_PARAMS     \
  int count;             \
  int op;                \
  int p0, p1;            \
  int type_min, type_max; \
  int nan_mode;

// cast.comp, cast_f16.comp. out_bool: 1 when the output is bool (x != 0).
#define CAST_PARAMS \
  int count;        \
  int out_bool;

// conv2d.comp, conv_i48.comp, depthwise_conv2d.comp (IC = C, OC = the channel multiplier M),
// transpose_conv2d.comp (pad_top/pad_left carry out_pad[0]/[2]). clamp bounds: float bits on
// FLOAT_PATH; flags: EPI_* bits (common.glsl); bias_broadcast: 1 when the bias has one element.
#define CONV_PARAMS                                      \
  int N, IH, IW, IC, OH, OW, OC, KH, KW;                 \
  int stride_y, stride_x, pad_top, pad_left, dil_y, dil_x; \
  int in_zp, w_zp, out_zp, clamp_min, clamp_max;         \
  int flags;                                             \
  int bias_broadcast;

// matmul.comp, matmul_i48.comp: A [N, H, C] x B [N, C, W].
#define MATMUL_PARAMS                          \
  int N, H, W, C;                              \
  int a_zp, b_zp, out_zp, clamp_min, clamp_max; \
  int flags;

// pool2d.comp. mode: POOL_MAX or POOL_AVG (op_codes.h).
#define POOL_PARAMS                           \
  int N, IH, IW, C, OH, OW, KH, KW;           \
  int stride_y, stride_x, pad_top, pad_left;  \
  int in_zp, out_zp, type_min, type_max;      \
  int mode;                                   \
  int nan_mode;

// reduce.comp: the input viewed as [outer, axis_len, inner]; op: RED_* (op_codes.h).
#define REDUCE_PARAMS          \
  int outer, axis_len, inner;  \
  int op;                      \
  int nan_mode;

// rescale.comp, rescale_i48.comp. channels: the last dim (per_channel) or 1; flags:
// EPI_DOUBLE_ROUND | EPI_PER_CHANNEL | 8 = input_unsigned; out_min/out_max: the output range
// (unsigned output: [0, 2^bits - 1]).
#define RESCALE_PARAMS \
  int count;           \
  int channels;        \
  int flags;           \
  int in_zp, out_zp;   \
  int out_min, out_max;

// resize.comp (NHWC). bilinear: 0 NEAREST, 1 BILINEAR.
#define RESIZE_PARAMS                                 \
  int N, IH, IW, C, OH, OW;                           \
  int y_n, y_d, x_n, x_d, offset_y, offset_x;         \
  int bilinear;

// gather.comp and scatter.comp: values [N, K, C], indices [N, W].
#define GATHER_SCATTER_PARAMS int N, K, C, W;

// select.comp: like BINARY_PARAMS with a stride per operand (condition, then, else).
#define SELECT_PARAMS \
  int shape[6];       \
  int c_stride[6];    \
  int a_stride[6];    \
  int b_stride[6];    \
  int count;

// table.comp.
#define COUNT_PARAMS int count;

// fft2d.comp (FFT2D, RFFT2D) over [N = batches, H = height, W = width], both powers of two;
// out_width W (FFT2D) or W/2 + 1 (RFFT2D); table_size L = max(H, W) twiddle entries.
#define FFT2D_PARAMS int batches, height, width, out_width, table_size, flags;
#define FFT2D_INVERSE 1     // flags: exp(+i...) instead of exp(-i...) (FFT2D inverse = true)
#define FFT2D_REAL_INPUT 2  // flags: RFFT2D; input_imag is zero and not read

// copy_nd.comp (TRANSPOSE, SLICE, REVERSE, CONCAT): output element -> input element by strides.
#define COPY_ND_PARAMS   \
  int shape[6];          \
  int in_stride[6];      \
  int out_stride[6];     \
  int in_offset, out_offset; \
  int count;

// gather_nd.comp (PAD, TILE). tile: 0 PAD, 1 TILE; pad_value_hi: the high word of 64-bit values.
#define GATHER_ND_PARAMS \
  int out_shape[6];      \
  int in_dim[6];         \
  int pad_before[6];     \
  int count;             \
  int tile;              \
  int pad_value, pad_value_hi;

#ifdef __cplusplus
static_assert(sizeof(int) == 4, "push-constant fields are 32-bit ints in GLSL");
#endif

#endif
