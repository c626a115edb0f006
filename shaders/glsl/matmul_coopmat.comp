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
// SG_ROWS x SG_COLS subgroups per workgroup, each owning WM x WN accumulator tiles; KSUB matrix
// steps per staged K block; VEC, the 32-bit words of one staged chunk (uvec2 or uvec4).
//
// A workgroup of SG_ROWS*SG_COLS*SUBGROUP invocations computes one BM x BN output block
// (BM = SG_ROWS*WM*TM, BN = SG_COLS*WN*TN) of one batch, K block by K block (BK = KSUB*TK):
// - Staging: A [BM][BK] and B (MATMUL [BK][BN]; CONV1X1 [BN][BK], read column-major) are copied
//   into shared memory as chunks of VEC words (16 int8 / 8 fp16 for a uvec4), zero-filled past
//   every edge, so no dimension needs to be a multiple of a tile. Where a row length is a
//   multiple of the chunk (A_VEC / B_VEC in p.vec_flags) a chunk is one vector load, else it is
//   packed from single elements. Rows in shared memory are padded by one chunk, which spreads
//   the matrix loads' rows over the memory banks.
// - Double buffering: the tiles have two halves; while the subgroups multiply one, every
//   invocation has already issued the global loads of the next K block into registers and stores
//   them into the other half, so there is one barrier per K block.
// - The matrix loads read the chunk arrays directly (GL_KHR_cooperative_matrix allows an array
//   element type other than the component type; offsets and strides are in chunks).
//
// int8 zero points are never subtracted per element (a - za does not fit int8): as in
// matmul_dot.comp, sum (a-za)(b-zb) = sum ab - za*colsum(B) - zb*rowsum(A) + C*za*zb (int32,
// wrapping). Each sum is computed only when the other zero point is nonzero, from the staged
// (zero-filled) tiles into shared arrays: rows of A and CONV1X1's columns of B (contiguous) by a
// scalar loop, invocation t owning rows and columns t, t+WG...; MATMUL's columns of B (strided)
// as a product with a matrix of ones on the matrix units.
//
// Epilogue: each subgroup stores one accumulator tile at a time into its own scratch (aliasing
// the staging tiles, free by then) and its lanes apply RESCALE/CLAMP/TABLE and write the tile
// out, TN contiguous elements per row.
// Bindings: 0 A, 1 B, 2 unused (CONV1X1: bias), 3 multiplier, 4 shift, 5 out.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require  // gl_ScopeSubgroup
#extension GL_KHR_shader_subgroup_basic : require
#include "common.glsl"
#include "push_constants.h"

#define WG (SG_ROWS * SG_COLS * SUBGROUP)
layout(local_size_x = WG) in;

#ifdef FLOAT_PATH
#define ACC_T float
#define PER_WORD 2
#else
#define ACC_T int
#define PER_WORD 4
#endif

#if VEC == 4
#define VEC_T uvec4
#elif VEC == 2
#define VEC_T uvec2
#else
#error "VEC is 2 or 4 words"
#endif
#define CHUNK (VEC * PER_WORD)  // elements in one staged chunk

#define BM (SG_ROWS * WM * TM)
#define BN (SG_COLS * WN * TN)
#define BK (KSUB * TK)
// Matrix loads start on chunk boundaries (K steps of TK, column tiles of TN), the scratch rows
// of TN words are whole chunks.
#if BK % CHUNK != 0 || TK % CHUNK != 0 || TN % CHUNK != 0 || TN % VEC != 0
#error "the tiles must be whole chunks"
#endif

// Flags (p.vec_flags): rows of A / B may be read as whole chunks (their length, C or W, is a
// multiple of CHUNK; buffer offsets are 64-byte aligned).
#define A_VEC 1
#define B_VEC 2

layout(set = 0, binding = 0) readonly buffer A { IN_T data_a[]; };
layout(set = 0, binding = 0) readonly buffer AVec { VEC_T data_a_vec[]; };
layout(set = 0, binding = 1) readonly buffer B { IN_T data_b[]; };
layout(set = 0, binding = 1) readonly buffer BVec { VEC_T data_b_vec[]; };
layout(set = 0, binding = 2) readonly buffer Bias { ACC_T data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

#ifdef CONV1X1
// The first 22 fields mirror conv2d.comp (ConvParams in op_lowering_compute.cpp); vec_flags is
// appended by variant_select.cpp (MatmulCoopmatExtra).
layout(push_constant) uniform Params {
  CONV_PARAMS
  int vec_flags;  // A_VEC | B_VEC (both when IC is a multiple of CHUNK)
} p;
// The GEMM: one batch of M = N*H*W pixel rows, K = IC, N = OC columns.
#define BATCHES 1
#define ROWS (p.N * p.OH * p.OW)
#define DEPTH p.IC
#define COLS p.OC
#define A_ZP p.in_zp
#define B_ZP p.w_zp
#else
// The first 10 fields mirror MatmulParams (op_lowering_compute.cpp); vec_flags is appended by
// variant_select.cpp (MatmulCoopmatExtra).
layout(push_constant) uniform Params {
  MATMUL_PARAMS
  int vec_flags;  // A_VEC | B_VEC
} p;
#define BATCHES p.N
#define ROWS p.H
#define DEPTH p.C
#define COLS p.W
#define A_ZP p.a_zp
#define B_ZP p.b_zp
#endif

#include "epilogue.glsl"

// Staged tiles in chunks, rows padded by one chunk. A: BM rows of BK. B: MATMUL BK rows of BN,
// CONV1X1 BN rows (output channels) of BK.
#define A_STRIDE (BK / CHUNK + 1)
#define A_TILE (BM * A_STRIDE)
#ifdef CONV1X1
#define B_STRIDE (BK / CHUNK + 1)
#define B_TILE (BN * B_STRIDE)
#else
#define B_STRIDE (BN / CHUNK + 1)
#define B_TILE (BK * B_STRIDE)
#endif
#define A_CHUNKS (BM * BK / CHUNK)  // chunks staged per K block
#define B_CHUNKS (BK * BN / CHUNK)
#define A_PER_INVOCATION ((A_CHUNKS + WG - 1) / WG)
#define B_PER_INVOCATION ((B_CHUNKS + WG - 1) / WG)
// The epilogue scratch: TM x TN accumulators per subgroup, stored as words.
#define SCRATCH_CHUNKS (TM * TN / VEC)
#define SUBGROUPS (SG_ROWS * SG_COLS)
#define TILES_CHUNKS (2 * (A_TILE + B_TILE))
#define SMEM_CHUNKS (TILES_CHUNKS > SUBGROUPS * SCRATCH_CHUNKS ? TILES_CHUNKS : SUBGROUPS * SCRATCH_CHUNKS)
// Half h of the double buffer: A at h * A_TILE, B after both A halves.
#define A_BASE(h) ((h) * A_TILE)
#define B_BASE(h) (2 * A_TILE + (h) * B_TILE)
shared VEC_T smem[SMEM_CHUNKS];
#ifndef FLOAT_PATH
shared int row_sums[BM];
shared int col_sums[BN];
#endif

// CHUNK consecutive elements packed into words (the lowest bits hold the first element:
// little-endian memory order, as a vector load sees them).
void pack_lane(inout VEC_T chunk, int i, IN_T v) {
#ifdef FLOAT_PATH
  uint bits = uint(float16BitsToUint16(v));
  chunk[i / 2] |= bits << (16 * (i % 2));
#else
  chunk[i / 4] |= uint(uint8_t(v)) << (8 * (i % 4));
#endif
}

#ifndef FLOAT_PATH
// Element i (int8) of a chunk.
int chunk_lane(VEC_T chunk, int i) { return bitfieldExtract(int(chunk[i / 4]), 8 * (i % 4), 8); }
// Sum of a chunk's int8 elements.
int chunk_sum(VEC_T chunk) {
  int sum = 0;
  for (int i = 0; i < CHUNK; ++i) sum += chunk_lane(chunk, i);
  return sum;
}
#endif

// Chunk e of A's K block at k0: row r, elements k..k+CHUNK-1 of that row.
VEC_T fetch_a(int n, int h0, int k0, uint e) {
  const int r = int(e) / (BK / CHUNK), k = CHUNK * (int(e) % (BK / CHUNK));
  const int h = h0 + r, kk = k0 + k;
  VEC_T chunk = VEC_T(0);
  if (h >= ROWS) return chunk;
  const int first = (n * ROWS + h) * DEPTH + kk;
  if ((p.vec_flags & A_VEC) != 0) return kk < DEPTH ? data_a_vec[first / CHUNK] : chunk;
  for (int i = 0; i < CHUNK && kk + i < DEPTH; ++i) pack_lane(chunk, i, data_a[first + i]);
  return chunk;
}

// Chunk e of B's K block at k0 (see B_TILE for the two layouts).
VEC_T fetch_b(int n, int k0, int w0, uint e) {
  VEC_T chunk = VEC_T(0);
#ifdef CONV1X1
  // Weights [OC][IC]: B's column w is weight row w, contiguous along K.
  const int c = int(e) / (BK / CHUNK), k = CHUNK * (int(e) % (BK / CHUNK));
  const int w = w0 + c, kk = k0 + k;
  if (w >= COLS) return chunk;
  const int first = w * DEPTH + kk;
  if ((p.vec_flags & B_VEC) != 0) return kk < DEPTH ? data_b_vec[first / CHUNK] : chunk;
  for (int i = 0; i < CHUNK && kk + i < DEPTH; ++i) pack_lane(chunk, i, data_b[first + i]);
#else
  const int k = int(e) / (BN / CHUNK), c = CHUNK * (int(e) % (BN / CHUNK));
  const int kk = k0 + k, w = w0 + c;
  if (kk >= DEPTH) return chunk;
  const int first = (n * DEPTH + kk) * COLS + w;
  if ((p.vec_flags & B_VEC) != 0) return w < COLS ? data_b_vec[first / CHUNK] : chunk;
  for (int i = 0; i < CHUNK && w + i < COLS; ++i) pack_lane(chunk, i, data_b[first + i]);
#endif
  return chunk;
}

// Where chunk e of a K block goes in half `h` of the tiles (rows padded by one chunk).
uint a_slot(uint h, uint e) { return A_BASE(h) + e / (BK / CHUNK) * A_STRIDE + e % (BK / CHUNK); }
uint b_slot(uint h, uint e) {
#ifdef CONV1X1
  return B_BASE(h) + e / (BK / CHUNK) * B_STRIDE + e % (BK / CHUNK);
#else
  return B_BASE(h) + e / (BN / CHUNK) * B_STRIDE + e % (BN / CHUNK);
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
  // Invocation t owns rows t, t + WG, ... and columns likewise: only it touches their sums
  // until the barrier that ends the K loop.
  for (uint r = t; r < uint(BM); r += WG) row_sums[r] = 0;
  for (uint c = t; c < uint(BN); c += WG) col_sums[c] = 0;
#ifndef CONV1X1
  // MATMUL's column sums run on the matrix units: ones [TM][TK] x a B tile has TM equal rows of
  // that tile's column sums (a scalar loop would read B's columns with a stride). The SG_ROWS
  // subgroups of a column band load the same B tiles, so tile j is summed by the one in row
  // band j % SG_ROWS.
  const uint sg_row = sg / uint(SG_COLS);
  const coopmat<IN_T, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA> ones =
      coopmat<IN_T, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA>(IN_T(1));
  coopmat<int, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator> col_acc[WN];
  for (int j = 0; j < WN; ++j) col_acc[j] = coopmat<int, gl_ScopeSubgroup, TM, TN, gl_MatrixUseAccumulator>(0);
#endif
#endif

  // The next K block, in registers between its global loads and its shared stores.
  VEC_T next_a[A_PER_INVOCATION], next_b[B_PER_INVOCATION];
  for (int i = 0; i < A_PER_INVOCATION; ++i) {
    const uint e = t + uint(i * WG);
    if (e < uint(A_CHUNKS)) smem[a_slot(0, e)] = fetch_a(n, h0, 0, e);
  }
  for (int i = 0; i < B_PER_INVOCATION; ++i) {
    const uint e = t + uint(i * WG);
    if (e < uint(B_CHUNKS)) smem[b_slot(0, e)] = fetch_b(n, 0, w0, e);
  }
  barrier();

  uint half_now = 0;
  for (int k0 = 0; k0 < DEPTH; k0 += BK) {
    const bool more = k0 + BK < DEPTH;  // uniform
    if (more) {
      for (int i = 0; i < A_PER_INVOCATION; ++i) {
        const uint e = t + uint(i * WG);
        if (e < uint(A_CHUNKS)) next_a[i] = fetch_a(n, h0, k0 + BK, e);
      }
      for (int i = 0; i < B_PER_INVOCATION; ++i) {
        const uint e = t + uint(i * WG);
        if (e < uint(B_CHUNKS)) next_b[i] = fetch_b(n, k0 + BK, w0, e);
      }
    }
#ifndef FLOAT_PATH
    for (uint r = t; need_row_sum && r < uint(BM); r += WG) {
      int sum = 0;
      for (int c = 0; c < BK / CHUNK; ++c) sum += chunk_sum(smem[A_BASE(half_now) + r * A_STRIDE + c]);
      row_sums[r] += sum;
    }
#ifdef CONV1X1
    for (uint c = t; need_col_sum && c < uint(BN); c += WG) {  // B's columns are contiguous here
      int sum = 0;
      for (int kc = 0; kc < BK / CHUNK; ++kc) sum += chunk_sum(smem[B_BASE(half_now) + c * B_STRIDE + kc]);
      col_sums[c] += sum;
    }
#endif
#endif
    // Matrix steps wholly past DEPTH would multiply zero padding: skipped (uniform), which
    // matters where K is smaller than a K block (MobileNetV2's 1x1 convolutions over 16-32
    // channels) and in the last block.
    for (int ks = 0; ks < KSUB && k0 + ks * TK < DEPTH; ++ks) {
      coopmat<IN_T, gl_ScopeSubgroup, TM, TK, gl_MatrixUseA> ma[WM];
      coopmat<IN_T, gl_ScopeSubgroup, TK, TN, gl_MatrixUseB> mb[WN];
      for (int i = 0; i < WM; ++i)
        coopMatLoad(ma[i], smem, A_BASE(half_now) + (sub_row0 + i * TM) * A_STRIDE + ks * TK / CHUNK, A_STRIDE,
                    gl_CooperativeMatrixLayoutRowMajor);
      for (int j = 0; j < WN; ++j)
#ifdef CONV1X1
        coopMatLoad(mb[j], smem, B_BASE(half_now) + (sub_col0 + j * TN) * B_STRIDE + ks * TK / CHUNK, B_STRIDE,
                    gl_CooperativeMatrixLayoutColumnMajor);
#else
        coopMatLoad(mb[j], smem, B_BASE(half_now) + ks * TK * B_STRIDE + (sub_col0 + j * TN) / CHUNK, B_STRIDE,
                    gl_CooperativeMatrixLayoutRowMajor);
#endif
      for (int i = 0; i < WM; ++i)
        for (int j = 0; j < WN; ++j) acc[i * WN + j] = coopMatMulAdd(ma[i], mb[j], acc[i * WN + j]);
#if !defined(FLOAT_PATH) && !defined(CONV1X1)
      for (int j = 0; need_col_sum && j < WN; ++j)
        if (uint(j) % uint(SG_ROWS) == sg_row) col_acc[j] = coopMatMulAdd(ones, mb[j], col_acc[j]);
#endif
    }
    if (more) {
      for (int i = 0; i < A_PER_INVOCATION; ++i) {
        const uint e = t + uint(i * WG);
        if (e < uint(A_CHUNKS)) smem[a_slot(half_now ^ 1u, e)] = next_a[i];
      }
      for (int i = 0; i < B_PER_INVOCATION; ++i) {
        const uint e = t + uint(i * WG);
        if (e < uint(B_CHUNKS)) smem[b_slot(half_now ^ 1u, e)] = next_b[i];
      }
    }
    // The stored half is read next; the half just read is overwritten by the next iteration's
    // stores, which no invocation reaches before every subgroup is past this barrier.
    barrier();
    half_now ^= 1u;
  }

  const uint scratch = sg * uint(SCRATCH_CHUNKS);
#if !defined(FLOAT_PATH) && !defined(CONV1X1)
  if (need_col_sum) {  // row 0 of each summed tile into col_sums, through the scratch
    for (int j = 0; j < WN; ++j) {
      if (uint(j) % uint(SG_ROWS) != sg_row) continue;
      coopMatStore(col_acc[j], smem, scratch, TN / VEC, gl_CooperativeMatrixLayoutRowMajor);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = gl_SubgroupInvocationID; e < uint(TN); e += gl_SubgroupSize)
        col_sums[sub_col0 + j * TN + int(e)] = int(smem[scratch + e / VEC][e % VEC]);
      subgroupBarrier();
    }
    barrier();  // every subgroup's epilogue reads columns another one summed
  }
#endif
#ifndef FLOAT_PATH
  const int zero_point_term = DEPTH * A_ZP * B_ZP;
#endif
  for (int i = 0; i < WM; ++i) {
    for (int j = 0; j < WN; ++j) {
      coopMatStore(acc[i * WN + j], smem, scratch, TN / VEC, gl_CooperativeMatrixLayoutRowMajor);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = gl_SubgroupInvocationID; e < uint(TM * TN); e += gl_SubgroupSize) {
        const int r = sub_row0 + i * TM + int(e) / TN, c = sub_col0 + j * TN + int(e) % TN;
        const int h = h0 + r, w = w0 + c;
        if (h >= ROWS || w >= COLS) continue;
        const uint bits = smem[scratch + e / VEC][e % VEC];
#ifdef FLOAT_PATH
        ACC_T sum = uintBitsToFloat(bits);
#else
        int sum = int(bits) - A_ZP * col_sums[c] - B_ZP * row_sums[r] + zero_point_term;
#endif
#ifdef CONV1X1
        sum += data_bias[p.bias_broadcast != 0 ? 0 : w];
#endif
        data_out[(n * ROWS + h) * COLS + w] = epilogue(sum, w);
      }
      subgroupBarrier();  // every lane has read the scratch before the next tile is stored
    }
  }
}
