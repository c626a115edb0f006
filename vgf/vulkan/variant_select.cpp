#include "vgf/vulkan/variant_select.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "shaders/shader_library.h"

namespace vkrt::vulkan {
namespace {

// Push-constant fields the dot variants append after the portable layout; the shaders' Params
// blocks (shaders/glsl/conv2d_dot.comp, matmul_dot.comp) mirror "portable prefix + these".
struct ConvDotExtra {
  int32_t ic_words;
  int32_t dot_flags;
};
struct MatmulDotExtra {
  int32_t c_words;
  int32_t dot_flags;
};
// matmul_coopmat.comp (MATMUL and CONV1X1) appends one word: which of A / B rows may be read as
// whole staged chunks (row lengths a multiple of the chunk's elements).
struct MatmulCoopmatExtra {
  int32_t vec_flags;
};
constexpr int32_t kCoopmatAVec = 1;  // A_VEC in matmul_coopmat.comp
constexpr int32_t kCoopmatBVec = 2;  // B_VEC
constexpr int32_t kConvInWords = 1;    // DOT_IN_WORDS in conv2d_dot.comp
constexpr int32_t kMatmulAWords = 1;   // DOT_A_WORDS in matmul_dot.comp
constexpr int32_t kMatmulBPacked = 2;  // DOT_B_PACKED
// Byte sizes of ConvParams / MatmulParams (op_lowering_compute.cpp) that the shaders expect.
constexpr size_t kConvParamsBytes = 22 * 4;
constexpr size_t kMatmulParamsBytes = 10 * 4;

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::string_view(s).substr(0, prefix.size()) == prefix;
}

int64_t words_for(int64_t bytes) { return (bytes + 3) / 4; }

// Product of dimensions from the graph, or -1 when one is negative or the product overflows.
int64_t checked_product(std::initializer_list<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(product, d, &product)) return -1;
  }
  return product;
}

template <typename T>
Status append_push(PendingDispatch* d, size_t push_bytes, size_t expected, const T& extra) {
  if (push_bytes != expected || push_bytes + sizeof(T) > d->push.size()) {
    return make_error(Error::Internal, "shader ", d->shader, ": portable push constants are ",
                      push_bytes, " bytes, the dot variant expects ", expected);
  }
  std::memcpy(d->push.data() + push_bytes, &extra, sizeof(T));
  return Status::ok();
}

// Constant bytes of `id`, checked against the element count of its shape (int8: one byte each).
Result<std::span<const uint8_t>> int8_constant(const vgf::Graph& g, vgf::TensorId id,
                                               int64_t elements, const vgf::Op& op) {
  std::span<const uint8_t> bytes = g.tensor(id).constant_bytes();
  if (elements < 0 || int64_t(bytes.size()) != elements) {
    return make_error(Error::InvalidProgram, vgf::op_name(op.kind), " ", op.debug_name,
                      ": constant \"", g.tensor(id).name, "\" has ", bytes.size(),
                      " bytes, its shape needs ", elements);
  }
  return bytes;
}

// The cooperative-matrix layouts built by shaders/variants_fast.cmake (keep in step): matrix
// shape, the subgroup width they are laid out for, the output block and workgroup size, the
// words per staged chunk (VEC) and matrix steps per K block (KSUB). The default choice is
// fitting_coopmat_variant's (the wide layouts come first); candidates are used only when
// VKRT_VULKAN_COOPMAT names them.
struct CoopmatVariant {
  const char* suffix;  // matmul_coopmat<suffix>_...
  uint32_t m, n, k_int8, k_f16, subgroup_size, block_m, block_n, workgroup_size, chunk_words, ksub;
  bool candidate;
};
constexpr CoopmatVariant kCoopmatVariants[] = {
    // NVIDIA's int8 16x16x32 and fp16 16x16x16 (vulkan.md §2) on 32-lane subgroups.
    {"16w", 16, 16, 32, 16, 32, 128, 128, 256, 4, 2, false},
    {"16", 16, 16, 32, 16, 32, 64, 64, 64, 4, 2, false},
    {"16b", 16, 16, 32, 16, 32, 128, 64, 64, 4, 1, true},
    {"16x", 16, 16, 32, 16, 32, 128, 128, 128, 4, 2, true},
    {"16y", 16, 16, 32, 16, 32, 128, 128, 256, 4, 2, true},
    {"16z", 16, 16, 32, 16, 32, 128, 256, 256, 4, 1, true},
    // lavapipe (Mesa 26; 25.0 has no coopmat): 8x8x8 on 8-lane subgroups.
    {"8w", 8, 8, 8, 8, 8, 64, 64, 256, 2, 2, false},
    {"8", 8, 8, 8, 8, 8, 32, 32, 64, 2, 2, false},
    {"8b", 8, 8, 8, 8, 8, 128, 32, 64, 2, 1, true},
};

// Shared memory a layout declares (matmul_coopmat.comp SMEM_CHUNKS and the int8 sums), for the
// larger of its two B tile layouts.
uint32_t coopmat_shared_bytes(const CoopmatVariant& v, bool int8) {
  const uint32_t chunk = v.chunk_words * (int8 ? 4 : 2);  // elements
  const uint32_t bk = v.ksub * (int8 ? v.k_int8 : v.k_f16);
  const uint32_t a_tile = v.block_m * (bk / chunk + 1);
  const uint32_t b_tile = std::max(bk * (v.block_n / chunk + 1), v.block_n * (bk / chunk + 1));
  const uint32_t scratch = v.workgroup_size / v.subgroup_size * v.m * v.n / v.chunk_words;
  const uint32_t chunks = std::max(2 * (a_tile + b_tile), scratch);
  return chunks * v.chunk_words * 4 + (int8 ? (v.block_m + v.block_n) * 4 : 0);
}

// VgfOptions::coopmat: a layout suffix to use instead of the default choice (for tuning on a GPU),
// or empty. InvalidArgument naming the text when no layout has that name (parse_vgf_options and
// check_vgf_options refuse such a name first).
Result<std::string_view> checked_coopmat_layout(std::string_view layout) {
  if (layout.empty()) return std::string_view();
  for (const CoopmatVariant& v : kCoopmatVariants) {
    if (layout == v.suffix) return std::string_view(v.suffix);
  }
  return make_error(Error::InvalidArgument, "cooperative-matrix layout \"", std::string(layout),
                    "\" (VgfBackend.coopmat, VKRT_VULKAN_COOPMAT): expected 16w, 16, 16b, 16x, 16y, 16z, 8w, 8 or 8b");
}

// Whether the device runs layout `v` for these inputs (int8 x int8 -> int32, or fp16 x fp16 ->
// fp32): the shape listed at subgroup scope, subgroups of its width, its workgroup size and
// shared memory within the limits, and the variant embedded in this build.
bool coopmat_variant_fits(const DeviceFeatures& f, const CoopmatVariant& v, bool int8) {
  const CoopmatType in = int8 ? CoopmatType::Sint8 : CoopmatType::Float16;
  const CoopmatType acc = int8 ? CoopmatType::Sint32 : CoopmatType::Float32;
  if (f.subgroup_size != v.subgroup_size || v.workgroup_size > f.max_workgroup_invocations ||
      coopmat_shared_bytes(v, int8) > f.max_shared_memory_bytes) {
    return false;
  }
  const uint32_t k = int8 ? v.k_int8 : v.k_f16;
  bool listed = false;
  for (const CooperativeMatrixShape& s : f.cooperative_matrix_shapes) listed |= s.matches(v.m, v.n, k, in, acc);
  const std::string probe = std::string("matmul_coopmat") + v.suffix + (int8 ? "_i8_i32" : "_f16");
  return listed && shaders::find_shader(probe) != nullptr;
}

// A GEMM's output: `batches` of rows x cols. MATMUL [N, H, C] x [N, C, W]: N of H x W; a 1x1
// CONV2D [N, H, W, IC] x [OC, 1, 1, IC]: one of N*H*W x OC. Zeros for shapes the checks reject.
struct GemmSize {
  int64_t batches = 0, rows = 0, cols = 0;
  // Workgroups a layout would run: one per block of one batch.
  int64_t blocks(const CoopmatVariant& v) const {
    return batches * ((rows + v.block_m - 1) / v.block_m) * ((cols + v.block_n - 1) / v.block_n);
  }
};
GemmSize gemm_size(const vgf::Op& op, const LoweringContext& ctx) {
  const vgf::Shape& a = ctx.shape(op.inputs[0]);
  const vgf::Shape& b = ctx.shape(op.inputs[1]);
  if (op.kind == vgf::OpKind::MATMUL) {
    return a.size() == 3 && b.size() == 3 ? GemmSize{a[0], a[1], b[2]} : GemmSize{};
  }
  return a.size() == 4 && b.size() == 4 ? GemmSize{1, checked_product({a[0], a[1], a[2]}), b[0]} : GemmSize{};
}

// A wide layout is chosen by default only where it still gives this many workgroups: on a GPU of
// 132 SMs (H100) two per SM. Fewer, larger blocks would leave SMs idle on the small GEMMs of a
// batch-1 network, where the 64x64 blocks keep them busy (ggml picks its tiles by size likewise).
constexpr int64_t kMinWideBlocks = 256;

// The layout for a GEMM: `layout` when named (if it fits), else the first non-candidate that
// fits, whose block the GEMM fills and that still gives kMinWideBlocks workgroups, else the last
// (smallest) that fits.
const CoopmatVariant* fitting_coopmat_variant(const DeviceFeatures& f, bool int8, std::string_view layout,
                                              const GemmSize& gemm) {
  if (!f.cooperative_matrix_khr) return nullptr;
  const CoopmatVariant* smallest = nullptr;
  for (const CoopmatVariant& v : kCoopmatVariants) {
    if (layout.empty() ? v.candidate : layout != v.suffix) continue;
    if (!coopmat_variant_fits(f, v, int8)) continue;
    if (!layout.empty()) return &v;
    if (gemm.rows >= v.block_m && gemm.cols >= v.block_n && gemm.blocks(v) >= kMinWideBlocks) return &v;
    smallest = &v;
  }
  return smallest;
}

// A CONV2D that is a plain GEMM: 1x1 kernel, stride 1, no padding (dilation does not matter).
bool is_pointwise_gemm(const vgf::Op& op, const LoweringContext& ctx) {
  const auto* a = std::get_if<vgf::ConvAttr>(&op.attr);
  const vgf::Shape& sw = ctx.shape(op.inputs[1]);  // [OC, KH, KW, IC]
  if (!a || sw.size() != 4 || sw[1] != 1 || sw[2] != 1) return false;
  return a->stride[0] == 1 && a->stride[1] == 1 && a->pad[0] == 0 && a->pad[1] == 0 && a->pad[2] == 0 &&
         a->pad[3] == 0;
}

// CONV2D 1x1 as a cooperative-matrix GEMM (matmul_coopmat.comp with CONV1X1): raw input and
// weights, the portable push constants plus one word.
Status select_conv_coopmat(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes,
                           const CoopmatVariant& variant, PendingDispatch* d) {
  const vgf::Shape& si = ctx.shape(op.inputs[0]);  // [N, H, W, IC]
  const vgf::Shape& sw = ctx.shape(op.inputs[1]);  // [OC, 1, 1, IC]
  if (si.size() != 4 || sw.size() != 4 || si[3] != sw[3]) return Status::ok();  // reported by the checks
  const int64_t ic = sw[3];
  const int64_t chunk = variant.chunk_words * 4;  // int8 elements in a staged chunk
  MatmulCoopmatExtra extra{ic % chunk == 0 ? kCoopmatAVec | kCoopmatBVec : 0};
  VKRT_RETURN_IF_ERROR(append_push(d, push_bytes, kConvParamsBytes, extra));
  d->shader = std::string("conv2d_1x1_coopmat") + variant.suffix + "_i8_" +
              d->shader.substr(std::strlen("conv2d_i8_"));
  d->workgroup_size = variant.workgroup_size;
  d->invocations = uint64_t(gemm_size(op, ctx).blocks(variant)) * variant.workgroup_size;
  return Status::ok();
}

Status select_conv(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes, PendingDispatch* d) {
  const vgf::Graph& g = ctx.graph();
  const vgf::Shape& sw = ctx.shape(op.inputs[1]);  // [OC, KH, KW, IC]
  if (sw.size() != 4 || ctx.shape(op.inputs[0]).size() != 4 || ctx.shape(op.inputs[0])[3] != sw[3]) {
    return Status::ok();  // malformed shapes are reported by the checks, not here
  }
  const int64_t oc = sw[0], kh = sw[1], kw = sw[2], ic = sw[3];
  const int64_t ic_words = words_for(ic);
  ConvDotExtra extra{int32_t(ic_words), 0};
  if (ic % 4 == 0) {
    // Input and weights are read as words straight from their tensors (rows start at multiples
    // of 4 bytes, buffers at aligned offsets): no copy, constant weights or not.
    extra.dot_flags = kConvInWords;
  } else {
    const vgf::TensorInfo& w = g.tensor(op.inputs[1]);
    if (!w.is_constant) return Status::ok();  // cannot pad at upload: stay portable
    VKRT_ASSIGN_OR_RETURN(auto bytes, int8_constant(g, op.inputs[1], checked_product({oc, kh, kw, ic}), op));
    // [OC][KH][KW][IC] -> [OC][KH][KW][IC_WORDS * 4], zero padded: the padding multiplies the
    // zero lanes of the packed input, so it adds nothing (conv2d_dot.comp).
    const int64_t rows = oc * kh * kw;
    std::vector<uint8_t> padded(size_t(rows * ic_words * 4), 0);
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(padded.data() + r * ic_words * 4, bytes.data() + r * ic, size_t(ic));
    }
    d->bindings[1] = ctx.add_constant(padded.data(), padded.size());
  }
  VKRT_RETURN_IF_ERROR(append_push(d, push_bytes, kConvParamsBytes, extra));
  // One invocation per tile of 4 output pixels x 4 output channels (conv2d_dot.comp).
  const vgf::Shape& so = ctx.shape(op.outputs[0]);  // [N, OH, OW, OC]
  const uint64_t pixels = uint64_t(so[0]) * uint64_t(so[1]) * uint64_t(so[2]);
  d->invocations = (pixels + 3) / 4 * ((uint64_t(oc) + 3) / 4);
  const std::string out_suffix = d->shader.substr(std::strlen("conv2d_i8_"));
  d->shader = (kh == 1 && kw == 1 ? "conv2d_1x1_dot_i8_" : "conv2d_dot_i8_") + out_suffix;
  return Status::ok();
}

Status select_matmul(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes, PendingDispatch* d) {
  const vgf::Graph& g = ctx.graph();
  const vgf::Shape& sb = ctx.shape(op.inputs[1]);  // [N, C, W]
  const vgf::Shape& sa = ctx.shape(op.inputs[0]);  // [N, H, C]
  const int64_t n = sb[0], c = sb[1], w = sb[2];
  if (sa.size() != 3 || sb.size() != 3 || sa[0] != n || sa[2] != c) {
    return Status::ok();  // malformed shapes are reported by the checks, not here
  }
  MatmulDotExtra extra{int32_t(words_for(c)), 0};
  if (c % 4 == 0) extra.dot_flags |= kMatmulAWords;
  const vgf::TensorInfo& b = g.tensor(op.inputs[1]);
  if (b.is_constant) {
    VKRT_ASSIGN_OR_RETURN(auto bytes, int8_constant(g, op.inputs[1], checked_product({n, c, w}), op));
    // [N][C][W] -> [N][W][C_WORDS * 4] (each column's C values contiguous, zero padded).
    const int64_t row = extra.c_words * 4;
    std::vector<uint8_t> packed(size_t(n * w * row), 0);
    for (int64_t bn = 0; bn < n; ++bn)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t col = 0; col < w; ++col)
          packed[size_t((bn * w + col) * row + k)] = bytes[size_t((bn * c + k) * w + col)];
    d->bindings[1] = ctx.add_constant(packed.data(), packed.size());
    extra.dot_flags |= kMatmulBPacked;
  }
  VKRT_RETURN_IF_ERROR(append_push(d, push_bytes, kMatmulParamsBytes, extra));
  d->shader = "matmul_dot_i8_" + d->shader.substr(std::strlen("matmul_i8_"));
  // One invocation per 4x4 output tile (matmul_dot.comp).
  d->invocations = uint64_t(n) * ((uint64_t(sa[1]) + 3) / 4) * ((uint64_t(w) + 3) / 4);
  return Status::ok();
}

// Same bindings as the portable variant (raw A and B), plus MatmulCoopmatExtra.
Status select_matmul_coopmat(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes,
                             const CoopmatVariant& variant, bool int8, PendingDispatch* d) {
  const vgf::Shape& sa = ctx.shape(op.inputs[0]);  // [N, H, C]
  const vgf::Shape& sb = ctx.shape(op.inputs[1]);  // [N, C, W]
  if (sa.size() != 3 || sb.size() != 3) return Status::ok();  // reported by the checks
  const int64_t c = sa[2], w = sb[2];
  MatmulCoopmatExtra extra{0};
  const int64_t chunk = variant.chunk_words * (int8 ? 4 : 2);  // elements in a staged chunk
  if (c % chunk == 0) extra.vec_flags |= kCoopmatAVec;
  if (w % chunk == 0) extra.vec_flags |= kCoopmatBVec;
  VKRT_RETURN_IF_ERROR(append_push(d, push_bytes, kMatmulParamsBytes, extra));
  const std::string prefix = std::string("matmul_coopmat") + variant.suffix;
  d->shader = int8 ? prefix + "_i8_" + d->shader.substr(std::strlen("matmul_i8_")) : prefix + "_f16";
  // One workgroup per block_m x block_n output block of one batch.
  d->workgroup_size = variant.workgroup_size;
  d->invocations = uint64_t(gemm_size(op, ctx).blocks(variant)) * variant.workgroup_size;
  return Status::ok();
}

}  // namespace

bool use_int8_dot_variants(const DeviceFeatures& features, VariantPolicy policy) {
  switch (policy) {
    case VariantPolicy::Portable: return false;
    // Forced: still only where the feature is enabled on the device (the SPIR-V needs it).
    case VariantPolicy::Dot:
    case VariantPolicy::Coopmat: return features.integer_dot_product;
    // Not only where the packed form is accelerated: on lavapipe, whose dot product is emulated,
    // the dot variants' 4-pixel x 4-channel blocking still makes an int8 MobileNetV2 graph 2x
    // faster end to end (docs/vulkan-executor.md, "Fast variants").
    case VariantPolicy::Auto: return features.integer_dot_product;
  }
  return false;
}

namespace {

// The cooperative-matrix layout this policy uses on this device for a GEMM, or null.
const CoopmatVariant* chosen_coopmat_variant(const DeviceFeatures& features, VariantPolicy policy, bool int8,
                                             std::string_view layout, const GemmSize& gemm) {
  if (policy != VariantPolicy::Coopmat && policy != VariantPolicy::Auto) return nullptr;
  // By default not on a CPU implementation: lavapipe emulates the matrices lane by lane
  // (docs/vulkan-executor.md, "Cooperative matrices").
  if (policy == VariantPolicy::Auto && features.cpu_device) return nullptr;
  return fitting_coopmat_variant(features, int8, layout, gemm);
}

}  // namespace

bool use_coopmat_matmul(const DeviceFeatures& features, VariantPolicy policy, bool int8, std::string_view name) {
  Result<std::string_view> layout = checked_coopmat_layout(name);
  return layout.ok() && chosen_coopmat_variant(features, policy, int8, *layout, GemmSize{1, 1, 1}) != nullptr;
}

Status select_fast_variant(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes,
                           PendingDispatch* d) {
  VKRT_ASSIGN_OR_RETURN(std::string_view layout, checked_coopmat_layout(ctx.coopmat_layout()));
  const VariantPolicy policy = ctx.variants();
  if (op.kind == vgf::OpKind::MATMUL && d->shader == "matmul_f16") {
    const CoopmatVariant* variant = chosen_coopmat_variant(ctx.features(), policy, false, layout, gemm_size(op, ctx));
    return variant ? select_matmul_coopmat(op, ctx, push_bytes, *variant, false, d) : Status::ok();
  }
  const bool conv = op.kind == vgf::OpKind::CONV2D && starts_with(d->shader, "conv2d_i8_");
  const bool matmul = op.kind == vgf::OpKind::MATMUL && starts_with(d->shader, "matmul_i8_");
  if (!conv && !matmul) return Status::ok();
  // Both operands int8 (another branch may lower int16 inputs to other variants).
  if (ctx.dtype(op.inputs[0]) != vgf::DType::Int8 || ctx.dtype(op.inputs[1]) != vgf::DType::Int8) {
    return Status::ok();
  }
  if (const CoopmatVariant* variant =
          chosen_coopmat_variant(ctx.features(), policy, true, layout, gemm_size(op, ctx))) {
    if (matmul) return select_matmul_coopmat(op, ctx, push_bytes, *variant, true, d);
    if (is_pointwise_gemm(op, ctx)) return select_conv_coopmat(op, ctx, push_bytes, *variant, d);
  }
  if (!use_int8_dot_variants(ctx.features(), policy)) return Status::ok();
  return conv ? select_conv(op, ctx, push_bytes, d) : select_matmul(op, ctx, push_bytes, d);
}

}  // namespace vkrt::vulkan
