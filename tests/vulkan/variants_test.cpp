// Fast shader variants (docs/vulkan-executor.md "Fast variants"): the packed int8 dot-product
// CONV2D / MATMUL variants against the CPU TOSA kernels (the oracle), bit for bit, on random
// shapes (odd channel counts, K not a multiple of 4, padding, strides, dilation, zero points at
// the extremes, constant and non-constant weights), forced with VKRT_VULKAN_VARIANTS=dot (read by
// parse_vgf_options, as the executor's options are here) so they
// run on lavapipe too; and the selection rules (features x policy -> variant name), checked
// without a device through the lowering itself.
#include <cstdlib>
#include <optional>

#include "shaders/shader_library.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/op_lowering.h"
#include "vgf/vulkan/variant_select.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

// Sets an environment variable for the scope (null: unsets it), restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// VKRT_VULKAN_VARIANTS for the scope.
class ScopedVariantsEnv : public ScopedEnv {
 public:
  explicit ScopedVariantsEnv(const char* value) : ScopedEnv("VKRT_VULKAN_VARIANTS", value) {}
};

vgf::RescaleAttr requant(int channels, std::mt19937& rng, int32_t out_zp) {
  vgf::RescaleAttr a;
  a.scale32 = true;
  a.rounding_mode = vgf::RoundingMode::DoubleRound;
  a.per_channel = true;
  a.output_zp = out_zp;
  std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> s(36, 42);
  for (int c = 0; c < channels; ++c) {
    a.multiplier.push_back(m(rng));
    a.shift.push_back(int8_t(s(rng)));
  }
  return a;
}

// RESCALE on the CPU, for the expected value of a fused epilogue.
HostTensor cpu_requant(const HostTensor& acc, const vgf::RescaleAttr& a, DType out_type) {
  HostTensor out(out_type, acc.shape);
  Status s = tosa::rescale(acc.ref(), a, out.ref());
  EXPECT_TRUE(s.is_ok()) << s.message();
  return out;
}

// ---------------------------------------------------------------- CONV2D

struct ConvSpec {
  int64_t n, ih, iw, ic, oc, kh, kw;
  int32_t stride_y, stride_x, dil_y, dil_x;
  std::array<int32_t, 4> pad;  // top, bottom, left, right
  int32_t in_zp, w_zp;
  DType out_type;              // Int32 = raw accumulator, else fused RESCALE to this type
  bool constant_weights = true;

  // TOSA needs (IH + pads - (KH-1)*dil - 1) divisible by the stride: grow IH/IW until it is.
  ConvSpec exact() const {
    ConvSpec c = *this;
    while ((c.ih + pad[0] + pad[1] - (kh - 1) * dil_y - 1) % stride_y != 0) ++c.ih;
    while ((c.iw + pad[2] + pad[3] - (kw - 1) * dil_x - 1) % stride_x != 0) ++c.iw;
    return c;
  }
  int64_t oh() const { return (ih + pad[0] + pad[1] - (kh - 1) * dil_y - 1) / stride_y + 1; }
  int64_t ow() const { return (iw + pad[2] + pad[3] - (kw - 1) * dil_x - 1) / stride_x + 1; }
  std::string describe() const {
    return "conv N" + std::to_string(n) + " " + std::to_string(ih) + "x" + std::to_string(iw) + "x" +
           std::to_string(ic) + " -> OC" + std::to_string(oc) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(stride_y) + "," + std::to_string(stride_x) +
           " d" + std::to_string(dil_y) + "," + std::to_string(dil_x) + " zp " + std::to_string(in_zp) +
           "/" + std::to_string(w_zp) + " out " + vgf::dtype_name(out_type) +
           (constant_weights ? "" : " weights-as-input");
  }
};

struct Built {
  vgf::Graph graph;
  std::vector<HostTensor> inputs;
  HostTensor expected;
};

Built build_conv(const ConvSpec& spec, std::mt19937& rng) {
  const ConvSpec c = spec.exact();
  Shape in_shape{c.n, c.ih, c.iw, c.ic}, w_shape{c.oc, c.kh, c.kw, c.ic};
  Shape out_shape{c.n, c.oh(), c.ow(), c.oc};
  HostTensor in(DType::Int8, in_shape), w(DType::Int8, w_shape), bias(DType::Int32, {c.oc});
  fill_random(in, rng, -128, 127);
  fill_random(w, rng, -128, 127);
  fill_random(bias, rng, -20000, 20000);
  vgf::ConvAttr attr;
  attr.pad = {c.pad[0], c.pad[1], c.pad[2], c.pad[3], 0, 0};
  attr.stride = {c.stride_y, c.stride_x, 1};
  attr.dilation = {c.dil_y, c.dil_x, 1};
  attr.input_zp = c.in_zp;
  attr.weight_zp = c.w_zp;

  Built b;
  GraphBuilder g;
  TensorId x = g.input(DType::Int8, in_shape);
  TensorId wt = c.constant_weights ? g.constant(w) : g.input(DType::Int8, w_shape);
  TensorId acc = g.tensor(DType::Int32, out_shape);
  g.op(OpKind::CONV2D, {x, wt, g.constant(bias)}, {acc}, attr);
  b.inputs.push_back(in);
  if (!c.constant_weights) b.inputs.push_back(w);

  HostTensor ref(DType::Int32, out_shape);
  Status s = tosa::conv2d(in.ref(), w.ref(), bias.ref(), attr, ref.ref());
  EXPECT_TRUE(s.is_ok()) << s.message();

  if (c.out_type == DType::Int32) {
    g.output(acc);
    b.expected = ref;
  } else {
    vgf::RescaleAttr ra = requant(int(c.oc), rng, c.out_type == DType::Int8 ? -5 : 0);
    TensorId q = g.tensor(c.out_type, out_shape);
    g.op(OpKind::RESCALE, {acc}, {q}, ra);
    g.output(q);
    b.expected = cpu_requant(ref, ra, c.out_type);
  }
  b.graph = std::move(g.graph);
  return b;
}

// The device must be able to run the dot variants (shaderIntegerDotProduct), else skip.
#define REQUIRE_DOT_DEVICE()                                                                  \
  do {                                                                                        \
    VKRT_REQUIRE_VULKAN();                                                                    \
    std::string why_;                                                                         \
    auto ctx_ = device_or_null(&why_);                                                        \
    if (!use_int8_dot_variants(ctx_->features(), VariantPolicy::Dot)) {                       \
      GTEST_SKIP() << "device lacks shaderIntegerDotProduct: " << ctx_->describe();           \
    }                                                                                         \
  } while (0)

std::vector<std::string> lowered_shaders(const vgf::Graph& graph, const DeviceFeatures& features,
                                         const char* policy, Status* status);

// Runs `built` with the given variant policy and compares with the CPU oracle byte for byte;
// first checks that the policy makes the lowering pick (or not pick) a dot variant on this device.
// `expect_kind`: "_dot_", "_coopmat", or "" for a portable variant.
void expect_matches_cpu(Built& built, const char* policy, const std::string& what, std::string expect_kind) {
  std::string why;
  auto device = device_or_null(&why);
  Status lowered;
  std::vector<std::string> names = lowered_shaders(built.graph, device->features(), policy, &lowered);
  ASSERT_TRUE(lowered.is_ok()) << what << ": " << lowered.message();
  ASSERT_EQ(names.size(), 1u) << what;
  const bool fast =
      names[0].find("_dot_") != std::string::npos || names[0].find("_coopmat") != std::string::npos;
  if (expect_kind.empty()) {
    EXPECT_FALSE(fast) << what << ": " << names[0];
  } else {
    EXPECT_NE(names[0].find(expect_kind), std::string::npos) << what << ": " << names[0];
  }
  ScopedVariantsEnv env(policy);
  std::vector<HostTensor> outputs;
  Status r = run_on_vulkan(built.graph, built.inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << what << " [" << policy << "]: " << r.message();
  EXPECT_TRUE(bytes_equal(built.expected, outputs[0])) << what << " [" << policy << "]";
}

std::vector<ConvSpec> conv_edge_specs() {
  return {
      // 3x3 pad 1, IC a multiple of 4 (word loads), extreme zero points.
      {1, 7, 6, 8, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, -128, 0, DType::Int32},
      {1, 7, 6, 8, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 127, 0, DType::Int8},
      // Odd IC (padded weight words), stride 2, asymmetric pad, weight zero point.
      {2, 9, 8, 3, 7, 3, 3, 2, 2, 1, 1, {1, 0, 0, 1}, -128, 127, DType::Int8},
      {1, 9, 9, 5, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, -3, -128, DType::Int16},
      // 1x1 (pointwise variant), odd and even channel counts, pad and stride.
      {1, 5, 7, 17, 9, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 127, 127, DType::Int32},
      {2, 6, 5, 16, 12, 1, 1, 2, 1, 1, 1, {1, 0, 0, 1}, -128, 0, DType::Int8},
      // Dilation, non-square kernel, IC = 1.
      {1, 10, 9, 1, 3, 2, 3, 1, 1, 2, 3, {2, 1, 0, 2}, 64, 0, DType::Int8},
      // Weights as a graph input: IC % 4 == 0 runs the dot variant, IC % 4 != 0 stays portable.
      {1, 6, 6, 4, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, -128, 0, DType::Int32, false},
      {1, 6, 6, 6, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, -128, 0, DType::Int32, false},
  };
}

std::vector<ConvSpec> conv_random_specs() {
  std::vector<ConvSpec> specs;
  std::mt19937 rng(20261122);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t zps[] = {-128, -1, 0, 1, 127};
  const DType outs[] = {DType::Int32, DType::Int8, DType::Int16};
  for (int i = 0; i < 10; ++i) {
    ConvSpec c{};
    c.n = pick(1, 2);
    c.ic = pick(1, 13);
    c.oc = pick(1, 11);
    c.kh = pick(1, 3);
    c.kw = pick(1, 3);
    c.stride_y = pick(1, 2);
    c.stride_x = pick(1, 2);
    c.dil_y = pick(1, 2);
    c.dil_x = pick(1, 2);
    c.pad = {pick(0, 1), pick(0, 1), pick(0, 1), pick(0, 1)};
    c.ih = (c.kh - 1) * c.dil_y + pick(1, 8);
    c.iw = (c.kw - 1) * c.dil_x + pick(1, 8);
    c.in_zp = zps[pick(0, 4)];
    c.w_zp = zps[pick(0, 4)];
    c.out_type = outs[pick(0, 2)];
    c.constant_weights = true;
    specs.push_back(c.exact());
  }
  return specs;
}

// The dot variant runs unless the weights are not constant and IC % 4 != 0 (nothing to pad).
void check_convs(const std::vector<ConvSpec>& specs, uint32_t seed) {
  std::mt19937 rng(seed);
  for (const ConvSpec& spec : specs) {
    Built built = build_conv(spec, rng);
    const bool dot = spec.constant_weights || spec.ic % 4 == 0;
    expect_matches_cpu(built, "dot", spec.exact().describe(), dot ? "_dot_" : "");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(VulkanDotVariants, Conv2dEdgeCasesBitExactWithCpu) {
  REQUIRE_DOT_DEVICE();
  check_convs(conv_edge_specs(), 7);
}

TEST(VulkanDotVariants, Conv2dRandomBitExactWithCpu) {
  REQUIRE_DOT_DEVICE();
  check_convs(conv_random_specs(), 17);
}

// The portable variant stays correct where the dot variant is not chosen.
TEST(VulkanDotVariants, PortablePolicyStillBitExact) {
  REQUIRE_DOT_DEVICE();
  std::mt19937 rng(27);
  ConvSpec spec{1, 9, 9, 5, 6, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, -128, 127, DType::Int8};
  Built built = build_conv(spec, rng);
  expect_matches_cpu(built, "portable", spec.exact().describe(), "");
}

// ---------------------------------------------------------------- MATMUL

struct MatmulSpec {
  int64_t n, h, c, w;
  int32_t a_zp, b_zp;
  DType out_type;
  bool constant_b;
  std::string describe() const {
    return "matmul N" + std::to_string(n) + " H" + std::to_string(h) + " C" + std::to_string(c) + " W" +
           std::to_string(w) + " zp " + std::to_string(a_zp) + "/" + std::to_string(b_zp) + " out " +
           vgf::dtype_name(out_type) + (constant_b ? " B constant" : " B input");
  }
};

Built build_matmul(const MatmulSpec& m, std::mt19937& rng) {
  Shape sa{m.n, m.h, m.c}, sb{m.n, m.c, m.w}, so{m.n, m.h, m.w};
  HostTensor a(DType::Int8, sa), bm(DType::Int8, sb);
  fill_random(a, rng, -128, 127);
  fill_random(bm, rng, -128, 127);
  vgf::MatmulAttr attr;
  attr.a_zp = m.a_zp;
  attr.b_zp = m.b_zp;
  Built b;
  GraphBuilder g;
  TensorId ta = g.input(DType::Int8, sa);
  TensorId tb = m.constant_b ? g.constant(bm) : g.input(DType::Int8, sb);
  TensorId acc = g.tensor(DType::Int32, so);
  g.op(OpKind::MATMUL, {ta, tb}, {acc}, attr);
  b.inputs.push_back(a);
  if (!m.constant_b) b.inputs.push_back(bm);
  HostTensor ref(DType::Int32, so);
  tosa::MatmulAttr ma;
  ma.a_zp = m.a_zp;
  ma.b_zp = m.b_zp;
  Status s = tosa::matmul(a.ref(), bm.ref(), ma, ref.ref());
  EXPECT_TRUE(s.is_ok()) << s.message();
  if (m.out_type == DType::Int32) {
    g.output(acc);
    b.expected = ref;
  } else {
    vgf::RescaleAttr ra = requant(int(m.w), rng, m.out_type == DType::Int8 ? 11 : 0);  // int16: zp 0
    TensorId q = g.tensor(m.out_type, so);
    g.op(OpKind::RESCALE, {acc}, {q}, ra);
    g.output(q);
    b.expected = cpu_requant(ref, ra, m.out_type);
  }
  b.graph = std::move(g.graph);
  return b;
}

std::vector<MatmulSpec> matmul_specs() {
  std::vector<MatmulSpec> specs = {
      {1, 8, 64, 8, 0, 0, DType::Int32, true},
      {2, 7, 13, 9, -128, 127, DType::Int32, true},   // odd K, tails in H and W
      {2, 7, 13, 9, 127, -128, DType::Int32, false},  // B strided from a graph input
      {1, 5, 1, 3, -128, -128, DType::Int8, true},    // K = 1
      {1, 17, 36, 6, 3, 0, DType::Int16, false},      // K % 4 == 0: A as words
      {3, 4, 7, 5, 0, 127, DType::Int8, false},
  };
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t zps[] = {-128, -1, 0, 1, 127};
  const DType outs[] = {DType::Int32, DType::Int8, DType::Int16};
  for (int i = 0; i < 10; ++i) {
    specs.push_back({pick(1, 2), pick(1, 19), pick(1, 40), pick(1, 19), zps[pick(0, 4)], zps[pick(0, 4)],
                     outs[pick(0, 2)], pick(0, 1) == 1});
  }
  return specs;
}

TEST(VulkanDotVariants, MatmulBitExactWithCpu) {
  REQUIRE_DOT_DEVICE();
  std::mt19937 rng(8);
  for (const MatmulSpec& spec : matmul_specs()) {
    Built built = build_matmul(spec, rng);
    expect_matches_cpu(built, "dot", spec.describe(), "_dot_");
    if (HasFailure()) return;
  }
}

// The device can run a cooperative-matrix MATMUL variant (KHR shape listed, variant embedded),
// else skip. lavapipe has them in Mesa 26 (not 25.0; scripts/coopmat-toolchain.sh runs these there).
#define REQUIRE_COOPMAT_DEVICE(int8)                                                           \
  do {                                                                                         \
    VKRT_REQUIRE_VULKAN();                                                                     \
    auto ctx_ = device_or_null(nullptr);                                                       \
    if (!use_coopmat_matmul(ctx_->features(), VariantPolicy::Coopmat, int8)) {                 \
      GTEST_SKIP() << "no cooperative-matrix MATMUL variant fits this device or build ("       \
                   << (shaders::find_shader("matmul_coopmat8_f16") ? "variants built"          \
                                                                   : "variants not built")     \
                   << "): " << ctx_->describe();                                               \
    }                                                                                          \
  } while (0)

// matmul_coopmat.comp against the CPU kernels, bit for bit: the edge cases and random shapes of
// the dot variant, plus shapes that span several blocks and K blocks, with both the element and
// the vector staging paths (C and W multiples of the 8- or 16-element chunk or not) and every
// zero-point combination. Every layout of the family that fits the device (VKRT_VULKAN_COOPMAT),
// so the default ones and the tuning candidates are checked wherever the tests run.
std::vector<const char*> coopmat_layouts_here() {
  return device_or_null(nullptr)->features().subgroup_size == 8
             ? std::vector<const char*>{"8", "8w", "8b"}
             : std::vector<const char*>{"16", "16w", "16b", "16x", "16y", "16z"};
}

TEST(VulkanCoopmat, Int8MatmulBitExactWithCpu) {
  REQUIRE_COOPMAT_DEVICE(true);
  for (const char* layout : coopmat_layouts_here()) {
    SCOPED_TRACE(layout);
    ScopedEnv env("VKRT_VULKAN_COOPMAT", layout);
    std::mt19937 rng(13);
    std::vector<MatmulSpec> specs = matmul_specs();
    specs.push_back({1, 33, 70, 40, -128, 127, DType::Int8, true});      // several blocks, K tail
    specs.push_back({2, 70, 128, 68, 5, 0, DType::Int32, false});        // words on both sides
    specs.push_back({1, 65, 131, 129, 0, -7, DType::Int16, true});       // bytes on both sides
    specs.push_back({3, 1, 64, 1, 127, 127, DType::Int8, false});        // one row, one column
    specs.push_back({1, 130, 257, 66, -128, -128, DType::Int32, true});  // K past 4 blocks
    specs.push_back({1, 144, 96, 160, -3, 9, DType::Int8, true});        // chunks on both sides
    specs.push_back({2, 129, 48, 136, 0, 0, DType::Int8, false});        // chunks, ragged blocks
    for (const MatmulSpec& spec : specs) {
      Built built = build_matmul(spec, rng);
      expect_matches_cpu(built, "coopmat", spec.describe(), std::string("matmul_coopmat") + layout + "_");
      if (HasFailure()) return;
    }
  }
}

// CONV2D 1x1 (stride 1, no padding) as the cooperative-matrix GEMM, bit for bit: word and byte
// staging (IC % 4), constant and input weights, bias, zero points at their ends, every output
// type; and the convolutions it must leave to the dot variant (padding, stride, 3x3).
TEST(VulkanCoopmat, Conv2d1x1BitExactWithCpu) {
  REQUIRE_COOPMAT_DEVICE(true);
  for (const char* layout : coopmat_layouts_here()) {
    SCOPED_TRACE(layout);
    ScopedEnv env("VKRT_VULKAN_COOPMAT", layout);
    std::mt19937 rng(19);
    const std::vector<ConvSpec> gemm_like = {
        {1, 7, 9, 16, 24, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, -128, 0, DType::Int8},
        {2, 5, 6, 17, 9, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 127, 127, DType::Int32},
        {1, 11, 13, 96, 70, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 3, -7, DType::Int16},
        {3, 4, 4, 130, 65, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, -1, 0, DType::Int8, false},
        {1, 1, 1, 5, 3, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, -128, DType::Int8, false},
        {1, 16, 17, 48, 136, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 7, -3, DType::Int8},  // wide blocks, chunks
    };
    for (const ConvSpec& spec : gemm_like) {
      Built built = build_conv(spec, rng);
      expect_matches_cpu(built, "coopmat", spec.exact().describe(),
                         std::string("conv2d_1x1_coopmat") + layout + "_");
      if (HasFailure()) return;
    }
    const std::vector<ConvSpec> not_gemm = {
        {1, 6, 6, 16, 8, 1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 0, 0, DType::Int8},  // stride 2
        {1, 6, 6, 16, 8, 1, 1, 1, 1, 1, 1, {1, 0, 0, 1}, 5, 0, DType::Int8},  // padded
        {1, 6, 6, 16, 8, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, 0, DType::Int8},  // 3x3
    };
    for (const ConvSpec& spec : not_gemm) {
      Built built = build_conv(spec, rng);
      expect_matches_cpu(built, "coopmat", spec.exact().describe(), "_dot_");
      if (HasFailure()) return;
    }
  }
}

// A fast variant whose pipeline the driver fails to create (injected here) is replaced for the
// executor's lifetime, with a notice in the stats, and the results stay bit-exact: coopmat gives
// way to dot, dot to portable. The dot case runs wherever the device has integer dot products
// (CI's lavapipe included); the coopmat case where a coopmat variant fits.
Status run_with_failing(const vgf::Graph& graph, std::vector<HostTensor>& inputs,
                        std::vector<HostTensor>& outputs, std::string_view failing, VulkanExecutorStats* stats) {
  VulkanExecutor executor;
  executor.set_pipeline_fault([failing](std::string_view shader) {
    return shader.find(failing) == std::string_view::npos
               ? Status::ok()
               : make_error(Error::Internal, "vkCreateComputePipelines failed (injected)");
  });
  BackendOptions options;
  options.set("VgfBackend.pipeline_cache_dir", "off");
  const VgfOptions options_parsed = vgf_options(options);
  vgf::ExecutorOptions eo{&options_parsed};
  VKRT_RETURN_IF_ERROR(run_graph(executor, graph, eo, inputs, outputs));
  *stats = executor.stats();
  return Status::ok();
}

TEST(VulkanVariantFallback, FailedDotPipelineFallsBackToPortable) {
  VKRT_REQUIRE_VULKAN();
  if (!device_or_null(nullptr)->features().integer_dot_product) {
    GTEST_SKIP() << "the device has no integer dot products: no dot variant to fail";
  }
  ScopedVariantsEnv env("dot");
  std::mt19937 rng(29);
  Built mm = build_matmul({1, 33, 70, 40, -7, 3, DType::Int8, true}, rng);
  Built conv = build_conv({1, 7, 6, 8, 5, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, -128, 0, DType::Int32}, rng);
  for (Built* built : {&mm, &conv}) {
    std::vector<HostTensor> outputs;
    VulkanExecutorStats stats;
    Status r = run_with_failing(built->graph, built->inputs, outputs, "_dot_", &stats);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_TRUE(bytes_equal(built->expected, outputs[0]));
    ASSERT_EQ(stats.variant_fallbacks.size(), 1u);
    EXPECT_NE(stats.variant_fallbacks[0].find("injected"), std::string::npos) << stats.variant_fallbacks[0];
    EXPECT_NE(stats.variant_fallbacks[0].find("portable"), std::string::npos) << stats.variant_fallbacks[0];
    ASSERT_EQ(stats.dispatch_shaders.size(), 1u);
    EXPECT_EQ(stats.dispatch_shaders[0].find("_dot_"), std::string::npos) << stats.dispatch_shaders[0];
  }
  // A failure outside the fast variants is still an error, not a fallback.
  std::vector<HostTensor> outputs;
  VulkanExecutorStats stats;
  Status r = run_with_failing(mm.graph, mm.inputs, outputs, "matmul", &stats);
  EXPECT_EQ(r.code(), Error::Internal) << r.message();
}

TEST(VulkanVariantFallback, FailedCoopmatPipelineFallsBackToDot) {
  REQUIRE_COOPMAT_DEVICE(true);
  ScopedVariantsEnv env("coopmat");
  std::mt19937 rng(31);
  Built built = build_matmul({1, 70, 128, 68, 5, -2, DType::Int8, true}, rng);
  std::vector<HostTensor> outputs;
  VulkanExecutorStats stats;
  Status r = run_with_failing(built.graph, built.inputs, outputs, "_coopmat", &stats);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(bytes_equal(built.expected, outputs[0]));
  ASSERT_EQ(stats.variant_fallbacks.size(), 1u);
  EXPECT_NE(stats.variant_fallbacks[0].find("without cooperative matrices"), std::string::npos)
      << stats.variant_fallbacks[0];
  ASSERT_EQ(stats.dispatch_shaders.size(), 1u);
  EXPECT_EQ(stats.dispatch_shaders[0], "matmul_dot_i8_i8");
}

// fp16 inputs, fp32 accumulation: within the tolerance of the portable fp16 MATMUL
// (VulkanMatmul.Fp16StorageFp32Accumulation), on shapes that cross block and K-block edges.
TEST(VulkanCoopmat, Fp16MatmulMatchesCpu) {
  REQUIRE_COOPMAT_DEVICE(false);
  ScopedVariantsEnv env("coopmat");
  for (const char* layout : coopmat_layouts_here()) {
    SCOPED_TRACE(layout);
    ScopedEnv layout_env("VKRT_VULKAN_COOPMAT", layout);
    std::mt19937 rng(17);
    const std::vector<std::pair<vgf::Shape, vgf::Shape>> shapes = {{{1, 9, 21}, {1, 21, 6}},
                                                                   {{2, 40, 70}, {2, 70, 33}},
                                                                   {{1, 64, 64}, {1, 64, 64}},
                                                                   {{1, 100, 200}, {1, 200, 129}},
                                                                   {{3, 1, 5}, {3, 5, 1}},
                                                                   {{1, 130, 64}, {1, 64, 136}}};
    std::string why;
    const DeviceFeatures& features = device_or_null(&why)->features();
    for (const auto& [sa, sb] : shapes) {
      Fp16Matmul m = fp16_matmul(sa, sb, rng);
      Status lowered;
      std::vector<std::string> names = lowered_shaders(m.graph, features, "coopmat", &lowered);
      ASSERT_TRUE(lowered.is_ok()) << lowered.message();
      ASSERT_EQ(names.size(), 1u);
      EXPECT_EQ(names[0], std::string("matmul_coopmat") + layout + "_f16");
      std::vector<HostTensor> outputs;
      Status r = run_on_vulkan(m.graph, m.inputs, outputs);
      ASSERT_TRUE(r.is_ok()) << r.message();
      EXPECT_TRUE(floats_close(m.expected, fp16_to_fp32(outputs[0]), 1e-2f, 2e-3f))
          << "A " << sa[0] << "x" << sa[1] << "x" << sa[2] << ", W " << sb[2];
    }
  }
}

TEST(VulkanDotVariants, MalformedPolicyIsAnError) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(9);
  Built built = build_matmul({1, 4, 8, 4, 0, 0, DType::Int32, true}, rng);
  ScopedVariantsEnv env("fastest");
  std::vector<HostTensor> outputs;
  Status r = run_on_vulkan(built.graph, built.inputs, outputs);
  EXPECT_EQ(r.code(), Error::InvalidArgument);
  EXPECT_NE(r.message().find("VKRT_VULKAN_VARIANTS"), std::string::npos) << r.message();
}

// ---------------------------------------------------------------- selection (no device needed)

// The shader names lower_step picks for the single compute op of `graph` on a device with
// `features` under `policy`.
std::vector<std::string> lowered_shaders(const vgf::Graph& graph, const DeviceFeatures& features,
                                         const char* policy, Status* status) {
  ScopedVariantsEnv env(policy);
  // The policy and layout as the executor gets them: parsed from the environment.
  auto parsed = parse_vgf_options({});
  if (!parsed.ok()) {
    *status = parsed.status();
    return {};
  }
  std::vector<vgf::Shape> shapes;
  for (const auto& t : graph.tensors) shapes.push_back(t.shape);
  std::vector<FusedStep> steps = fuse_ops(graph, true);
  std::vector<vgf::TensorId> alias = alias_roots(graph);
  auto plan = plan_memory(graph, shapes, steps, alias, 64);
  EXPECT_TRUE(plan.ok());
  LoweringContext ctx(graph, shapes, alias, *plan, features, 64);
  ctx.set_variants(parsed->variants, parsed->coopmat);
  std::vector<std::string> names;
  for (const FusedStep& step : steps) {
    std::vector<PendingDispatch> out;
    *status = lower_step(step, ctx, &out);
    if (!status->is_ok()) return names;
    for (const auto& d : out) names.push_back(d.shader);
  }
  return names;
}

DeviceFeatures features_with(bool dot, bool accelerated) {
  DeviceFeatures f;
  f.storage_buffer_8bit = f.storage_buffer_16bit = f.shader_int8 = f.shader_int16 = true;
  f.integer_dot_product = dot;
  f.integer_dot_4x8_accelerated = dot && accelerated;
  return f;
}

// An NVIDIA-like device (vulkan.md §2): accelerated dot products, KHR cooperative matrices with
// the H100's int8 16x16x32 and fp16 16x16x16 shapes, 32-lane subgroups, its 48 KiB of shared
// memory and 1024 invocations per workgroup.
DeviceFeatures coopmat_features() {
  DeviceFeatures f = features_with(true, true);
  f.max_shared_memory_bytes = 49152;
  f.max_workgroup_invocations = 1024;
  f.shader_float16 = true;
  f.cooperative_matrix_khr = true;
  f.cooperative_matrix_shapes = {{16, 16, 32, 3, 3, 5, 5}, {16, 8, 32, 3, 3, 5, 5}, {16, 16, 16, 0, 0, 1, 1}};
  f.subgroup_size = 32;
  return f;
}

TEST(VulkanVariantSelect, PolicyParsing) {
  EXPECT_EQ(*parse_variant_policy(""), VariantPolicy::Auto);
  EXPECT_EQ(*parse_variant_policy("auto"), VariantPolicy::Auto);
  EXPECT_EQ(*parse_variant_policy("dot"), VariantPolicy::Dot);
  EXPECT_EQ(*parse_variant_policy("portable"), VariantPolicy::Portable);
  EXPECT_EQ(*parse_variant_policy("coopmat"), VariantPolicy::Coopmat);
  auto bad = parse_variant_policy("DOT ");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Error::InvalidArgument);
}

TEST(VulkanVariantSelect, FeaturesAndPolicyDecide) {
  const DeviceFeatures none = features_with(false, false);
  const DeviceFeatures emulated = features_with(true, false);  // lavapipe
  const DeviceFeatures accelerated = features_with(true, true);  // e.g. H100 (vulkan.md §2)
  EXPECT_FALSE(use_int8_dot_variants(none, VariantPolicy::Auto));
  EXPECT_FALSE(use_int8_dot_variants(none, VariantPolicy::Dot));  // never without the feature
  EXPECT_TRUE(use_int8_dot_variants(emulated, VariantPolicy::Auto));  // measured faster there too
  EXPECT_FALSE(use_int8_dot_variants(emulated, VariantPolicy::Portable));
  EXPECT_TRUE(use_int8_dot_variants(emulated, VariantPolicy::Dot));
  EXPECT_TRUE(use_int8_dot_variants(accelerated, VariantPolicy::Auto));
  EXPECT_TRUE(use_int8_dot_variants(accelerated, VariantPolicy::Dot));
  EXPECT_FALSE(use_int8_dot_variants(accelerated, VariantPolicy::Portable));
}

TEST(VulkanVariantSelect, LoweringPicksVariantByFeatures) {
  std::mt19937 rng(10);
  struct Case {
    vgf::Graph graph;
    std::string portable, dot;
  };
  std::vector<Case> cases;
  cases.push_back({build_conv({1, 6, 6, 5, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, -1, 0, DType::Int8}, rng).graph,
                   "conv2d_i8_i8", "conv2d_dot_i8_i8"});
  cases.push_back({build_conv({1, 6, 6, 8, 4, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0, DType::Int32}, rng).graph,
                   "conv2d_i8_i32", "conv2d_1x1_dot_i8_i32"});
  cases.push_back({build_matmul({1, 4, 5, 4, 0, 0, DType::Int16, true}, rng).graph, "matmul_i8_i16",
                   "matmul_dot_i8_i16"});
  cases.push_back({build_matmul({1, 4, 5, 4, 0, 0, DType::Int32, false}, rng).graph, "matmul_i8_i32",
                   "matmul_dot_i8_i32"});
  // Non-constant weights with IC % 4 != 0 cannot be padded at upload: portable even when forced.
  const ConvSpec weights_input{1, 6, 6, 5, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, 0, DType::Int32, false};
  cases.push_back({build_conv(weights_input, rng).graph,
                   "conv2d_i8_i32", "conv2d_i8_i32"});

  struct Choice {
    DeviceFeatures features;
    const char* policy;
    bool expect_dot;
  };
  const Choice choices[] = {
      {features_with(true, true), "auto", true},     {features_with(true, true), "", true},
      {features_with(true, true), "portable", false}, {features_with(true, false), "auto", true},
      {features_with(true, false), "dot", true},     {features_with(false, false), "dot", false},
  };
  for (const Case& c : cases) {
    for (const Choice& ch : choices) {
      Status s;
      std::vector<std::string> names = lowered_shaders(c.graph, ch.features, ch.policy, &s);
      ASSERT_TRUE(s.is_ok()) << s.message();
      ASSERT_EQ(names.size(), 1u);
      EXPECT_EQ(names[0], ch.expect_dot ? c.dot : c.portable)
          << "policy \"" << ch.policy << "\", dot " << ch.features.integer_dot_product << ", accelerated "
          << ch.features.integer_dot_4x8_accelerated;
    }
  }
}

// The cooperative-matrix MATMUL is chosen where the device lists the variant's shape on
// subgroups of its width (and this build embeds it), by default only off CPU devices; CONV2D
// takes the dot variant under the same policy.
TEST(VulkanVariantSelect, CoopmatWhereTheShapeFits) {
  if (!shaders::find_shader("matmul_coopmat16_i8_i8")) {
    GTEST_SKIP() << "this build's glslang has no GL_KHR_cooperative_matrix: no coopmat variants "
                    "(scripts/coopmat-toolchain.sh)";
  }
  std::mt19937 rng(12);
  vgf::Graph mm = build_matmul({2, 20, 40, 18, 3, 0, DType::Int8, true}, rng).graph;
  vgf::Graph mm16 = fp16_matmul({1, 8, 16}, {1, 16, 8}, rng).graph;
  vgf::Graph conv = build_conv({1, 6, 6, 8, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 0, 0, DType::Int8}, rng).graph;
  auto lower_one = [](const vgf::Graph& g, const DeviceFeatures& f, const char* policy) {
    Status s;
    std::vector<std::string> names = lowered_shaders(g, f, policy, &s);
    EXPECT_TRUE(s.is_ok()) << s.message();
    return names.size() == 1 ? names[0] : std::string("?");
  };
  const DeviceFeatures gpu = coopmat_features();
  EXPECT_EQ(lower_one(mm, gpu, "auto"), "matmul_coopmat16_i8_i8");
  EXPECT_EQ(lower_one(mm, gpu, "coopmat"), "matmul_coopmat16_i8_i8");
  EXPECT_EQ(lower_one(mm16, gpu, "auto"), "matmul_coopmat16_f16");
  EXPECT_EQ(lower_one(conv, gpu, "auto"), "conv2d_dot_i8_i8");  // 3x3 stays on the dot variant
  vgf::Graph pointwise = build_conv({1, 6, 6, 8, 4, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0, DType::Int8}, rng).graph;
  EXPECT_EQ(lower_one(pointwise, gpu, "auto"), "conv2d_1x1_coopmat16_i8_i8");
  EXPECT_EQ(lower_one(pointwise, gpu, "dot"), "conv2d_1x1_dot_i8_i8");
  EXPECT_EQ(lower_one(mm, gpu, "dot"), "matmul_dot_i8_i8");
  EXPECT_EQ(lower_one(mm, gpu, "portable"), "matmul_i8_i8");
  EXPECT_EQ(lower_one(mm16, gpu, "portable"), "matmul_f16");
  DeviceFeatures cpu = gpu;  // a CPU implementation: only when forced
  cpu.cpu_device = true;
  EXPECT_EQ(lower_one(mm, cpu, "auto"), "matmul_dot_i8_i8");
  EXPECT_EQ(lower_one(mm, cpu, "coopmat"), "matmul_coopmat16_i8_i8");
  DeviceFeatures sg64 = gpu;  // subgroups wider than the variant's layout
  sg64.subgroup_size = 64;
  EXPECT_EQ(lower_one(mm, sg64, "coopmat"), "matmul_dot_i8_i8");
  DeviceFeatures no_int8 = gpu;  // only the fp16 shape listed
  no_int8.cooperative_matrix_shapes = {{16, 16, 16, 0, 0, 1, 1}};
  EXPECT_EQ(lower_one(mm, no_int8, "coopmat"), "matmul_dot_i8_i8");
  EXPECT_EQ(lower_one(mm16, no_int8, "coopmat"), "matmul_coopmat16_f16");
  DeviceFeatures lavapipe = gpu;  // Mesa 26: 8x8x8 on 8-lane subgroups, 32 KiB shared memory
  lavapipe.subgroup_size = 8;
  lavapipe.max_shared_memory_bytes = 32768;
  lavapipe.cooperative_matrix_shapes = {{8, 8, 8, 3, 3, 5, 5}, {8, 8, 8, 0, 0, 1, 1}};
  EXPECT_EQ(lower_one(mm, lavapipe, "coopmat"), "matmul_coopmat8_i8_i8");
  EXPECT_EQ(lower_one(mm16, lavapipe, "coopmat"), "matmul_coopmat8_f16");
  // GEMMs that fill 128x128 (lavapipe 64x64) blocks and still give 256 workgroups take the wide
  // 256-invocation layout, unless the device's workgroup or shared-memory limits are below what
  // it declares.
  vgf::Graph big = build_matmul({16, 512, 8, 512, 0, 0, DType::Int8, true}, rng).graph;  // 16 x 4 x 4
  vgf::Graph big16 = fp16_matmul({16, 512, 8}, {16, 8, 512}, rng).graph;
  vgf::Graph tall = build_matmul({16, 2048, 8, 100, 0, 0, DType::Int8, true}, rng).graph;  // W < 128
  vgf::Graph few = build_matmul({1, 1024, 8, 1024, 0, 0, DType::Int8, true}, rng).graph;  // 64 blocks
  EXPECT_EQ(lower_one(big, gpu, "auto"), "matmul_coopmat16w_i8_i8");
  EXPECT_EQ(lower_one(big16, gpu, "auto"), "matmul_coopmat16w_f16");
  EXPECT_EQ(lower_one(tall, gpu, "auto"), "matmul_coopmat16_i8_i8");
  EXPECT_EQ(lower_one(few, gpu, "auto"), "matmul_coopmat16_i8_i8");  // 256 blocks of 64x64 instead
  EXPECT_EQ(lower_one(big, lavapipe, "coopmat"), "matmul_coopmat8w_i8_i8");
  vgf::Graph big_pointwise =  // 16384 pixels x 256 channels: 128 x 2 blocks of 128x128
      build_conv({1, 128, 128, 8, 256, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0, DType::Int8}, rng).graph;
  EXPECT_EQ(lower_one(big_pointwise, gpu, "auto"), "conv2d_1x1_coopmat16w_i8_i8");
  DeviceFeatures small_shared = gpu;  // 16w declares 41 KiB
  small_shared.max_shared_memory_bytes = 32768;
  EXPECT_EQ(lower_one(big, small_shared, "auto"), "matmul_coopmat16_i8_i8");
  DeviceFeatures few_invocations = gpu;  // the Vulkan minimum, 128
  few_invocations.max_workgroup_invocations = 128;
  EXPECT_EQ(lower_one(big, few_invocations, "auto"), "matmul_coopmat16_i8_i8");
  {  // a tuning candidate, named
    ScopedEnv env("VKRT_VULKAN_COOPMAT", "16b");
    EXPECT_EQ(lower_one(mm, gpu, "auto"), "matmul_coopmat16b_i8_i8");
    EXPECT_EQ(lower_one(mm16, gpu, "auto"), "matmul_coopmat16b_f16");
    EXPECT_EQ(lower_one(mm, lavapipe, "coopmat"), "matmul_dot_i8_i8");  // 16b does not fit 8-lane subgroups
  }
  {  // the 128x256 candidate: named, it is used even where the GEMM is smaller than its block
    ScopedEnv env("VKRT_VULKAN_COOPMAT", "16z");
    EXPECT_EQ(lower_one(mm, gpu, "auto"), "matmul_coopmat16z_i8_i8");
    EXPECT_EQ(lower_one(big_pointwise, gpu, "auto"), "conv2d_1x1_coopmat16z_i8_i8");
    EXPECT_EQ(lower_one(big, small_shared, "auto"), "matmul_dot_i8_i8");  // 37.5 KiB > 32 KiB
  }
  {  // a name that is no layout is an error, not a silent fallback
    ScopedEnv env("VKRT_VULKAN_COOPMAT", "32");
    Status s;
    lowered_shaders(mm, gpu, "auto", &s);
    EXPECT_EQ(s.code(), Error::InvalidArgument);
    EXPECT_NE(s.message().find("VKRT_VULKAN_COOPMAT"), std::string::npos) << s.message();
  }
  DeviceFeatures off = gpu;  // extension not enabled
  off.cooperative_matrix_khr = false;
  EXPECT_EQ(lower_one(mm, off, "coopmat"), "matmul_dot_i8_i8");
  EXPECT_EQ(lower_one(mm, features_with(false, false), "coopmat"), "matmul_i8_i8");
}

// What the real device reports decides the default (printed for the record).
TEST(VulkanVariantSelect, RealDeviceDefault) {
  VKRT_REQUIRE_VULKAN();
  std::string why;
  auto ctx = device_or_null(&why);
  const DeviceFeatures& f = ctx->features();
  std::mt19937 rng(11);
  vgf::Graph g = build_matmul({1, 4, 8, 4, 0, 0, DType::Int32, true}, rng).graph;
  Status s;
  std::vector<std::string> names = lowered_shaders(g, f, "auto", &s);
  ASSERT_TRUE(s.is_ok()) << s.message();
  ASSERT_EQ(names.size(), 1u);
  // A device with int8 cooperative matrices (the H100) takes them; this GEMM is too small for
  // the wide layout. Otherwise the dot-product variant where the device has it.
  const bool coopmat = use_coopmat_matmul(f, VariantPolicy::Auto, /*int8=*/true);
  EXPECT_EQ(names[0], coopmat                  ? "matmul_coopmat16_i8_i32"
                      : f.integer_dot_product ? "matmul_dot_i8_i32"
                                              : "matmul_i8_i32");
  std::printf("device: %s -> default int8 MATMUL variant %s\n", ctx->describe().c_str(), names[0].c_str());
}

}  // namespace
}  // namespace vkrt::vulkan::testing
