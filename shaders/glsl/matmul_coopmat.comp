// MATMUL A [N,H,C] x B [N,C,W] -> [N,H,W] on cooperative matrices (tensor cores), through
// GL_KHR_cooperative_matrix (SPV_KHR_cooperative_matrix). Built only where the build's glslang
// knows that extension (shaders/variants_fast.cmake); chosen by vgf/vulkan/variant_select.cpp
// where the device lists the shape below at subgroup scope and its subgroups are SUBGROUP wide.
// Same fused RESCALE/CLAMP epilogue and bit-identical int8 results as matmul.comp.
//
// CONV1X1 compiles the same GEMM for an int8 CONV2D with a 1x1 kernel, stride 1 and no padding
// (conv2d.comp's tensors and push constants): A is the input [N*H*W][IC], B the transposed
// weights [OC][IC], and the per-channel bias is added before the epilogue.
//
// Variants (defines): IN_T int8_t (int32 accumulator) or float16_t (FLOAT_PATH, fp32
// accumulator, as matmul_f16); OUT_T; CONV1X1; the matrix shape TM x TN x TK; SUBGROUP (lanes);
// SG_ROWS x SG_COLS subgroups per 64-invocation workgroup, each owning WM x WN accumulator
// tiles; KSUB matrix steps per staged K block.
//
// A workgroup computes one BM x BN output block (BM = SG_ROWS*WM*TM, BN = SG_COLS*WN*TN) of one
// batch. Per K block of BK = KSUB*TK: all 64 invocations stage A [BM][BK] and B [BK][BN] into
// shared memory, zero-filled past every edge (so no dimension needs to be a multiple of a tile),
// then each subgroup multiplies its tiles out of shared memory. The staging is coalesced along
// the contiguous dimension, and reads 32-bit words (4 int8 or 2 fp16) where row lengths allow.
//
// int8 zero points are never subtracted per element (a - za does not fit int8): as in
// matmul_dot.comp, sum (a-za)(b-zb) = sum ab - za*colsum(B) - zb*rowsum(A) + C*za*zb (int32,
// wrapping). The row and column sums are read from the staged (zero-filled) tiles, only when the
// other zero point is nonzero, into shared arrays: invocation t owns rows and columns t, t + 64...
//
// At the end each subgroup stores its accumulators into shared memory and all 64 invocations
// run the epilogue over the block, so the output writes are coalesced along W.
// Bindings: 0 A, 1 B, 2 unused (CONV1X1: bias), 3 multiplier, 4 shift, 5 out.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require  // gl_ScopeSubgroup
#extension GL_KHR_shader_subgroup_basic : require
#include "common.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

#ifdef FLOAT_PATH
#define ACC_T float
#else
#define ACC_T int
#endif

#define BM (SG_ROWS * WM * TM)
#define BN (SG_COLS * WN * TN)
#define BK (KSUB * TK)
#if SG_ROWS * SG_COLS * SUBGROUP != WORKGROUP_SIZE
#error "the subgroups must fill the workgroup exactly"
#endif

// Flags: rows of A / B may be read as 32-bit words of PER_WORD elements (their length, C or
// W, is a multiple of PER_WORD; buffer offsets are 64-byte aligned).
#define A_WORDS 1
#define B_WORDS 2
#ifdef FLOAT_PATH
#define PER_WORD 2
#else
#define PER_WORD 4
#endif

layout(set = 0, binding = 0) readonly buffer A { IN_T data_a[]; };
layout(set = 0, binding = 0) readonly buffer AWords { int data_a_words[]; };
layout(set = 0, binding = 1) readonly buffer B { IN_T data_b[]; };
layout(set = 0, binding = 1) readonly buffer BWords { int data_b_words[]; };
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

#ifdef CONV1X1
// The first 22 fields mirror conv2d.comp (ConvParams in op_lowering_compute.cpp); word_flags is
// appended by variant_select.cpp (ConvCoopmatExtra).
layout(push_constant) uniform Params {
  int N, IH, IW, IC, OH, OW, OC, KH, KW;
  int stride_y, stride_x, pad_top, pad_left, dil_y, dil_x;
  int in_zp, w_zp, out_zp, clamp_min, clamp_max;
  int flags;
  int bias_broadcast;
  int word_flags;  // A_WORDS | B_WORDS (both when IC % 4 == 0)
} p;
// The GEMM: one batch of M = N*H*W pixel rows, K = IC, N = OC columns.
#define BATCHES 1
#define ROWS (p.N * p.OH * p.OW)
#define DEPTH p.IC
#define COLS p.OC
#define A_ZP p.in_zp
#define B_ZP p.w_zp
#else
// The first 10 fields mirror MatmulParams (op_lowering_compute.cpp); word_flags is appended by
// variant_select.cpp (MatmulCoopmatExtra).
layout(push_constant) uniform Params {
  int N, H, W, C;
  int a_zp, b_zp, out_zp, clamp_min, clamp_max;
  int flags;
  int word_flags;  // A_WORDS | B_WORDS
} p;
#define BATCHES p.N
#define ROWS p.H
#define DEPTH p.C
#define COLS p.W
#define A_ZP p.a_zp
#define B_ZP p.b_zp
#endif

#include "epilogue.glsl"

shared IN_T tile_a[BM * BK];
shared IN_T tile_b[BK * BN];
shared ACC_T tile_c[BM * BN];
#ifndef FLOAT_PATH
shared int row_sums[BM];
shared int col_sums[BN];
#endif

// Element i of a word (the lowest bytes hold the first element: little-endian memory order).
IN_T word_lane(int word, int i) {
#ifdef FLOAT_PATH
  return unpackFloat2x16(uint(word))[i];
#else
  return int8_t(word >> (8 * i));
#endif
}

// Stages A rows h0.. and K columns k0.. (bytes or halves; zero past ROWS and DEPTH).
void stage_a(int n, int h0, int k0, uint t) {
  if ((p.word_flags & A_WORDS) != 0) {
    for (uint e = t; e < uint(BM * BK / PER_WORD); e += WORKGROUP_SIZE) {
      int r = int(e) / (BK / PER_WORD), k = PER_WORD * (int(e) % (BK / PER_WORD));
      int h = h0 + r, kk = k0 + k;  // a word is wholly inside or outside DEPTH
      int word = h < ROWS && kk < DEPTH ? data_a_words[((n * ROWS + h) * DEPTH + kk) / PER_WORD] : 0;
      for (int i = 0; i < PER_WORD; ++i) tile_a[r * BK + k + i] = word_lane(word, i);
    }
    return;
  }
  for (uint e = t; e < uint(BM * BK); e += WORKGROUP_SIZE) {
    int r = int(e) / BK, k = int(e) % BK;
    int h = h0 + r, kk = k0 + k;
    tile_a[e] = h < ROWS && kk < DEPTH ? data_a[(n * ROWS + h) * DEPTH + kk] : IN_T(0);
  }
}

// Stages B rows k0.. and columns w0.. as tile_b [BK][BN] (zero past DEPTH and COLS).
void stage_b(int n, int k0, int w0, uint t) {
#ifdef CONV1X1
  // Weights [OC][IC]: B's column w is weight row w, contiguous along K, so the loads run along K.
  if ((p.word_flags & B_WORDS) != 0) {
    for (uint e = t; e < uint(BK * BN / 4); e += WORKGROUP_SIZE) {
      int c = int(e) / (BK / 4), k = 4 * (int(e) % (BK / 4));
      int kk = k0 + k, w = w0 + c;  // IC % 4 == 0: a word is wholly inside or outside IC
      int word = kk < DEPTH && w < COLS ? data_b_words[(w * DEPTH + kk) >> 2] : 0;
      for (int i = 0; i < 4; ++i) tile_b[(k + i) * BN + c] = word_lane(word, i);
    }
    return;
  }
  for (uint e = t; e < uint(BK * BN); e += WORKGROUP_SIZE) {
    int c = int(e) / BK, k = int(e) % BK;
    int kk = k0 + k, w = w0 + c;
    tile_b[k * BN + c] = kk < DEPTH && w < COLS ? data_b[w * DEPTH + kk] : IN_T(0);
  }
#else
  if ((p.word_flags & B_WORDS) != 0) {
    for (uint e = t; e < uint(BK * BN / PER_WORD); e += WORKGROUP_SIZE) {
      int k = int(e) / (BN / PER_WORD), c = PER_WORD * (int(e) % (BN / PER_WORD));
      int kk = k0 + k, w = w0 + c;  // a word is wholly inside or outside COLS
      int word = kk < DEPTH && w < COLS ? data_b_words[((n * DEPTH + kk) * COLS + w) / PER_WORD] : 0;
      for (int i = 0; i < PER_WORD; ++i) tile_b[k * BN + c + i] = word_lane(word, i);
    }
    return;
  }
  for (uint e = t; e < uint(BK * BN); e += WORKGROUP_SIZE) {
    int k = int(e) / BN, c = int(e) % BN;
    int kk = k0 + k, w = w0 + c;
    tile_b[e] = kk < DEPTH && w < COLS ? data_b[(n * DEPTH + kk) * COLS + w] : IN_T(0);
  }
#endif
}

void main() {
  const int blocks_w = (COLS + BN - 1) / BN;
  const int blocks_h = (ROWS + BM - 1) / BM;
  const uint block = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  // The grid may hold a few groups more than blocks (command_program.cpp grid_for): they leave
  // before any barrier, as a whole workgroup.
  if (block >= uint(BATCHES * blocks_h * blocks_w)) return;
  const int n = int(block / uint(blocks_w * blocks_h));
  const int h0 = int((block / uint(blocks_w)) % uint(blocks_h)) * BM;
  const int w0 = int(block % uint(blocks_w)) * BN;
  const uint t = gl_LocalInvocationID.x;
  const uint sg = gl_SubgroupID;
  const int sub_row0 = int(sg / uint(SG_COLS)) * WM * TM;  // this subgroup's first row / column
  const int sub_col0 = int(sg % uint(SG_COLS)) * WN * TN;  // in the block

  coopmat<ACC_T, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator> acc[WM * WN];
  for (int i = 0; i < WM * WN; ++i) acc[i] = coopmat<ACC_T, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator>(0);
#ifndef FLOAT_PATH
  const bool need_row_sum = B_ZP != 0, need_col_sum = A_ZP != 0;
  // Invocation t owns rows t, t + 64, ... and columns likewise: only it touches their sums
  // until the barrier before the epilogue.
  for (uint r = t; r < uint(BM); r += WORKGROUP_SIZE) row_sums[r] = 0;
  for (uint c = t; c < uint(BN); c += WORKGROUP_SIZE) col_sums[c] = 0;
#endif

  for (int k0 = 0; k0 < DEPTH; k0 += BK) {
    stage_a(n, h0, k0, t);
    stage_b(n, k0, w0, t);
    barrier();
#ifndef FLOAT_PATH
    for (uint r = t; need_row_sum && r < uint(BM); r += WORKGROUP_SIZE) {
      int sum = 0;
      for (int k = 0; k < BK; ++k) sum += int(tile_a[r * BK + k]);
      row_sums[r] += sum;
    }
    for (uint c = t; need_col_sum && c < uint(BN); c += WORKGROUP_SIZE) {
      int sum = 0;
      for (int k = 0; k < BK; ++k) sum += int(tile_b[k * BN + c]);
      col_sums[c] += sum;
    }
#endif
    for (int ks = 0; ks < KSUB; ++ks) {
      coopmat<IN_T, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA> ma[WM];
      coopmat<IN_T, gl_ScopeSubgroup, TK, TN, gl_MatrixUseB> mb[WN];
      for (int i = 0; i < WM; ++i)
        coopMatLoad(ma[i], tile_a, (sub_row0 + i * TM) * BK + ks * TK, BK, gl_CooperativeMatrixLayoutRowMajor);
      for (int j = 0; j < WN; ++j)
        coopMatLoad(mb[j], tile_b, (ks * TK) * BN + sub_col0 + j * TN, BN, gl_CooperativeMatrixLayoutRowMajor);
      for (int i = 0; i < WM; ++i)
        for (int j = 0; j < WN; ++j) acc[i * WN + j] = coopMatMulAdd(ma[i], mb[j], acc[i * WN + j]);
    }
    barrier();  // the tiles are restaged by the next K block
  }

  for (int i = 0; i < WM; ++i)
    for (int j = 0; j < WN; ++j)
      coopMatStore(acc[i * WN + j], tile_c, (sub_row0 + i * TM) * BN + sub_col0 + j * TN, BN,
                   gl_CooperativeMatrixLayoutRowMajor);
#ifndef FLOAT_PATH
  const int zero_point_term = DEPTH * A_ZP * B_ZP;
#endif
  barrier();

  for (uint e = t; e < uint(BM * BN); e += WORKGROUP_SIZE) {
    int r = int(e) / BN, c = int(e) % BN;
    int h = h0 + r, w = w0 + c;
    if (h >= ROWS || w >= COLS) continue;
#ifdef FLOAT_PATH
    ACC_T sum = tile_c[e];
#else
    int sum = tile_c[e] - A_ZP * col_sums[c] - B_ZP * row_sums[r] + zero_point_term;
#endif
#ifdef CONV1X1
    sum += data_bias[p.bias_broadcast != 0 ? 0 : w];
#endif
    data_out[(n * ROWS + h) * COLS + w] = epilogue(sum, w);
  }
}
