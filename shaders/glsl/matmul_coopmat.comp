// MATMUL int8 A [N,H,C] x B [N,C,W] -> [N,H,W] on cooperative matrices (tensor cores) through
// GL_NV_cooperative_matrix + GL_NV_integer_cooperative_matrix, the only cooperative-matrix form
// Debian's glslang 12 can emit (vulkan.md §4). Same fused RESCALE/CLAMP epilogue as matmul.comp.
//
// UNTESTED ON A REAL DEVICE: no device with VK_NV_cooperative_matrix was available (lavapipe has
// none); the SPIR-V passes spirv-val at build time. vgf/vulkan/variant_select.cpp uses it only
// when asked for (VKRT_VULKAN_VARIANTS=coopmat) on a device whose context enabled the extension,
// reported the int8 16x16x32 subgroup shape and has 32-wide subgroups.
//
// One subgroup (32 invocations) computes one 16x16 output tile, K in steps of 32: the lanes stage
// the A tile [16][32] and B tile [32][16] into shared memory with zero fill past the edges (so no
// shape needs to be a multiple of the tile), then one coopMatMulAddNV. Zero points as in
// matmul_dot.comp: sum (a-za)(b-zb) = sum ab - za * colsum(B) - zb * rowsum(A) + C*za*zb, the sums
// accumulated from the staged tiles only when needed. The int32 tile is stored to shared memory
// and every lane finishes 8 elements (one half row) through the epilogue.
// Bindings: 0 A, 1 B, 2 unused, 3 multiplier, 4 shift, 5 out.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require  // gl_ScopeSubgroup (and the Vulkan memory model)
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"

layout(local_size_x = WORKGROUP_SIZE) in;

#define TM 16
#define TN 16
#define TK 32
#define LANES 32
#define SUBGROUPS (WORKGROUP_SIZE / LANES)

layout(set = 0, binding = 0) readonly buffer A { int8_t data_a[]; };
layout(set = 0, binding = 1) readonly buffer B { int8_t data_b[]; };
layout(set = 0, binding = 2) readonly buffer Bias { int data_bias[]; };
layout(set = 0, binding = 3) readonly buffer Mult { int data_mult[]; };
layout(set = 0, binding = 4) readonly buffer Shift { int data_shift[]; };
layout(set = 0, binding = 5) writeonly buffer Out { OUT_T data_out[]; };

// Mirrors MatmulParams (op_lowering_compute.cpp).
layout(push_constant) uniform Params {
  int N, H, W, C;
  int a_zp, b_zp, out_zp, clamp_min, clamp_max;
  int flags;
} p;

#include "epilogue.glsl"

shared int8_t tile_a[SUBGROUPS * TM * TK];
shared int8_t tile_b[SUBGROUPS * TK * TN];
shared int tile_c[SUBGROUPS * TM * TN];

void main() {
  const uint sg = gl_SubgroupID;
  const uint lane = gl_SubgroupInvocationID;
  const int tiles_w = (p.W + TN - 1) / TN;
  const int tiles_h = (p.H + TM - 1) / TM;
  const uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint tile = group * gl_NumSubgroups + sg;
  if (tile >= uint(p.N * tiles_h * tiles_w)) return;  // uniform within the subgroup
  const int tw = int(tile % uint(tiles_w));
  const int th = int((tile / uint(tiles_w)) % uint(tiles_h));
  const int n = int(tile / uint(tiles_w * tiles_h));
  const int h0 = th * TM, w0 = tw * TN;
  const uint a_off = sg * TM * TK, b_off = sg * TK * TN, c_off = sg * TM * TN;

  // Staging roles: A row lane/2, columns (lane%2)*16 ..+16; B row (k) lane, columns 0..16.
  const int a_row = int(lane) / 2, a_col0 = (int(lane) % 2) * 16;
  const int b_k = int(lane);
  const bool need_row_sum = p.b_zp != 0, need_col_sum = p.a_zp != 0;
  int row_part = 0;  // this lane's half of row a_row of A, summed over K
  int col_part[TN];  // this lane's k rows of B, per column
  for (int j = 0; j < TN; ++j) col_part[j] = 0;

  icoopmatNV<32, gl_ScopeSubgroup, TM, TN> acc = icoopmatNV<32, gl_ScopeSubgroup, TM, TN>(0);
  for (int k0 = 0; k0 < p.C; k0 += TK) {
    const int h = h0 + a_row;
    for (int j = 0; j < 16; ++j) {
      int k = k0 + a_col0 + j;
      int8_t v = h < p.H && k < p.C ? data_a[(n * p.H + h) * p.C + k] : int8_t(0);
      tile_a[a_off + a_row * TK + a_col0 + j] = v;
      row_part += int(v);
    }
    const int kb = k0 + b_k;
    for (int j = 0; j < TN; ++j) {
      int w = w0 + j;
      int8_t v = kb < p.C && w < p.W ? data_b[(n * p.C + kb) * p.W + w] : int8_t(0);
      tile_b[b_off + b_k * TN + j] = v;
      col_part[j] += int(v);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    icoopmatNV<8, gl_ScopeSubgroup, TM, TK> ma;
    icoopmatNV<8, gl_ScopeSubgroup, TK, TN> mb;
    coopMatLoadNV(ma, tile_a, a_off, TK, false);
    coopMatLoadNV(mb, tile_b, b_off, TN, false);
    acc = coopMatMulAddNV(ma, mb, acc);
    subgroupBarrier();  // the tiles are rewritten by the next step
  }
  coopMatStoreNV(acc, tile_c, c_off, TN, false);
  subgroupMemoryBarrierShared();
  subgroupBarrier();

  // Lane finishes row lane/2, columns (lane%2)*8 ..+8; every lane runs the shuffles/adds.
  const int out_row = int(lane) / 2, out_col0 = (int(lane) % 2) * 8;
  int row_sum = 0;
  if (need_row_sum) row_sum = subgroupShuffle(row_part, lane & ~1u) + subgroupShuffle(row_part, lane | 1u);
  int col_sum[8];
  for (int j = 0; j < 8; ++j) col_sum[j] = 0;
  if (need_col_sum) {
    for (int j = 0; j < TN; ++j) {
      int total = subgroupAdd(col_part[j]);
      if (j >= out_col0 && j < out_col0 + 8) col_sum[j - out_col0] = total;
    }
  }
  const int zero_point_term = p.C * p.a_zp * p.b_zp;
  const int h = h0 + out_row;
  if (h >= p.H) return;
  for (int j = 0; j < 8; ++j) {
    int w = w0 + out_col0 + j;
    if (w >= p.W) break;
    int sum = tile_c[c_off + out_row * TN + out_col0 + j] - p.a_zp * col_sum[j] - p.b_zp * row_sum +
              zero_point_term;
    data_out[(n * p.H + h) * p.W + w] = epilogue(sum, w);
  }
}
