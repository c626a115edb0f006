// CONV2D / DEPTHWISE_CONV2D / MATMUL (raw and fused with RESCALE/CLAMP), RESCALE, pooling and
// TABLE on the Vulkan executor against the CPU TOSA kernels (the oracle): int8/int16 bit-exact,
// fp32 within |a-e| <= 1e-4 + 1e-5|e| (accumulation order differs).
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

constexpr uint32_t kSeed = 1234;

// The int8 requantization of a real network layer: per-channel multipliers and shifts.
vgf::RescaleAttr requant(int channels, std::mt19937& rng, int32_t out_zp, bool per_channel = true) {
  vgf::RescaleAttr a;
  a.scale32 = true;
  a.rounding_mode = vgf::RoundingMode::DoubleRound;
  a.per_channel = per_channel;
  a.output_zp = out_zp;
  std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> s(36, 40);
  for (int c = 0; c < (per_channel ? channels : 1); ++c) {
    a.multiplier.push_back(m(rng));
    a.shift.push_back(int8_t(s(rng)));
  }
  return a;
}

// A convolution's fused epilogue as separate ops: RESCALE of the int32 `acc` to `out` (none for
// Int32: the raw accumulator is the output), then CLAMP when `clamp` is given. Returns the last.
TensorId add_epilogue(GraphBuilder& b, TensorId acc, const Shape& shape, DType out, const vgf::RescaleAttr& ra,
                      const vgf::ClampAttr* clamp) {
  if (out == DType::Int32) return acc;
  TensorId q = b.tensor(out, shape);
  b.op(OpKind::RESCALE, {acc}, {q}, ra);
  if (!clamp) return q;
  TensorId cl = b.tensor(out, shape);
  b.op(OpKind::CLAMP, {q}, {cl}, *clamp);
  return cl;
}

// The same epilogue on the CPU kernels (the oracle).
Result<HostTensor> cpu_epilogue(const HostTensor& acc, DType out, const vgf::RescaleAttr& ra,
                                const vgf::ClampAttr* clamp) {
  if (out == DType::Int32) return acc;
  HostTensor q(out, acc.shape);
  VKRT_RETURN_IF_ERROR(tosa::rescale(acc.ref(), ra, q.ref()));
  if (!clamp) return q;
  HostTensor cl(out, acc.shape);
  tosa::ClampAttr cc;
  cc.min_int = clamp->min_int;
  cc.max_int = clamp->max_int;
  VKRT_RETURN_IF_ERROR(tosa::clamp(q.ref(), cc, cl.ref()));
  return cl;
}

struct ConvCase {
  const char* name;
  bool depthwise;
  Shape input, weight;  // weight: [OC,KH,KW,IC] or [KH,KW,C,M]
  vgf::ConvAttr attr;
  Shape output;
};

ConvCase conv_case(bool depthwise) {
  ConvCase c;
  c.depthwise = depthwise;
  c.attr.pad = {1, 1, 1, 1, 0, 0};
  c.attr.stride = {2, 2, 1};
  c.attr.dilation = {1, 1, 1};
  c.attr.input_zp = -3;
  c.attr.weight_zp = 0;
  c.input = {1, 9, 9, 5};
  if (depthwise) {
    c.name = "depthwise";
    c.weight = {3, 3, 5, 2};
    c.output = {1, 5, 5, 10};
  } else {
    c.name = "conv2d";
    c.weight = {6, 3, 3, 5};
    c.output = {1, 5, 5, 6};
  }
  return c;
}

// int8 conv (optionally + RESCALE + CLAMP) on both executors.
void check_int8_conv(bool depthwise, bool fuse_rescale, bool fuse_clamp) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed);
  ConvCase c = conv_case(depthwise);
  const int64_t oc = c.output[3];
  HostTensor in(DType::Int8, c.input), w(DType::Int8, c.weight), bias(DType::Int32, {oc});
  fill_random(in, rng, -128, 127);
  fill_random(w, rng, -127, 127);
  fill_random(bias, rng, -5000, 5000);
  vgf::RescaleAttr ra = requant(int(oc), rng, -7);
  vgf::ClampAttr ca;
  ca.min_int = -100;
  ca.max_int = 90;

  GraphBuilder b;
  TensorId x = b.input(DType::Int8, c.input);
  TensorId acc = b.tensor(DType::Int32, c.output);
  b.op(depthwise ? OpKind::DEPTHWISE_CONV2D : OpKind::CONV2D, {x, b.constant(w), b.constant(bias)}, {acc}, c.attr);
  const DType out = fuse_rescale ? DType::Int8 : DType::Int32;
  b.output(add_epilogue(b, acc, c.output, out, ra, fuse_clamp ? &ca : nullptr));

  // CPU oracle.
  HostTensor ref_acc(DType::Int32, c.output);
  auto attrs = c.attr;
  Status s = depthwise ? tosa::depthwise_conv2d(in.ref(), w.ref(), bias.ref(), attrs, ref_acc.ref())
                       : tosa::conv2d(in.ref(), w.ref(), bias.ref(), attrs, ref_acc.ref());
  ASSERT_TRUE(s.is_ok()) << s.message();
  auto expected = cpu_epilogue(ref_acc, out, ra, fuse_clamp ? &ca : nullptr);
  ASSERT_TRUE(expected.ok()) << expected.status().to_string();

  std::vector<HostTensor> inputs{in}, outputs;
  VulkanExecutorStats stats;
  Status r = run_on_vulkan(b.graph, inputs, outputs, nullptr, &stats);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(bytes_equal(*expected, outputs[0]));
  EXPECT_EQ(stats.dispatch_count, 1u) << "RESCALE/CLAMP must fuse into the convolution";
}

TEST(VulkanConv, Int8Conv2dRawAccumulator) { check_int8_conv(false, false, false); }
TEST(VulkanConv, Int8Conv2dFusedRescale) { check_int8_conv(false, true, false); }
TEST(VulkanConv, Int8Conv2dFusedRescaleClamp) { check_int8_conv(false, true, true); }
TEST(VulkanConv, Int8DepthwiseRawAccumulator) { check_int8_conv(true, false, false); }
TEST(VulkanConv, Int8DepthwiseFusedRescaleClamp) { check_int8_conv(true, true, true); }

TEST(VulkanConv, Fp32Conv2dWithFusedClamp) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed);
  ConvCase c = conv_case(false);
  c.attr.input_zp = 0;
  HostTensor in(DType::Fp32, c.input), w(DType::Fp32, c.weight), bias(DType::Fp32, {1});
  fill_random(in, rng, -1, 1);
  fill_random(w, rng, -1, 1);
  fill_random(bias, rng, -1, 1);
  vgf::ClampAttr ca;
  ca.min_fp = -0.5;
  ca.max_fp = 0.75;
  GraphBuilder b;
  TensorId x = b.input(DType::Fp32, c.input);
  TensorId acc = b.tensor(DType::Fp32, c.output);
  vgf::ConvAttr fp32_conv = c.attr;
  fp32_conv.acc_type = vgf::AccType::Fp32;
  b.op(OpKind::CONV2D, {x, b.constant(w), b.constant(bias)}, {acc}, fp32_conv);
  TensorId cl = b.tensor(DType::Fp32, c.output);
  b.op(OpKind::CLAMP, {acc}, {cl}, ca);
  b.output(cl);

  HostTensor ref(DType::Fp32, c.output), expected(DType::Fp32, c.output);
  auto attrs = c.attr;
  attrs.acc_type = tosa::AccType::Fp32;
  ASSERT_TRUE(tosa::conv2d(in.ref(), w.ref(), bias.ref(), attrs, ref.ref()).is_ok());
  tosa::ClampAttr cc;
  cc.min_fp = -0.5f;
  cc.max_fp = 0.75f;
  ASSERT_TRUE(tosa::clamp(ref.ref(), cc, expected.ref()).is_ok());

  std::vector<HostTensor> inputs{in}, outputs;
  VulkanExecutorStats stats;
  Status r = run_on_vulkan(b.graph, inputs, outputs, nullptr, &stats);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(floats_close(expected, outputs[0], 1e-4f, 1e-5f));
  EXPECT_EQ(stats.dispatch_count, 1u);
}

void check_matmul(DType t, bool fuse) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 1);
  Shape sa{2, 7, 13}, sb{2, 13, 9}, so{2, 7, 9};
  HostTensor a(t, sa), bm(t, sb);
  vgf::MatmulAttr ma;
  if (t == DType::Int8) {
    fill_random(a, rng, -128, 127);
    fill_random(bm, rng, -128, 127);
    ma.a_zp = 5;
    ma.b_zp = -2;
  } else {
    fill_random(a, rng, -1, 1);
    fill_random(bm, rng, -1, 1);
  }
  DType acc_t = t == DType::Int8 ? DType::Int32 : DType::Fp32;
  GraphBuilder b;
  TensorId x = b.input(t, sa);
  TensorId y = b.input(t, sb);
  TensorId acc = b.tensor(acc_t, so);
  b.op(OpKind::MATMUL, {x, y}, {acc}, ma);
  vgf::RescaleAttr ra = requant(9, rng, 3);
  TensorId last = acc;
  if (fuse) {
    last = b.tensor(DType::Int8, so);
    b.op(OpKind::RESCALE, {acc}, {last}, ra);
  }
  b.output(last);

  HostTensor ref(acc_t, so);
  tosa::MatmulAttr mm{ma.a_zp, ma.b_zp};
  ASSERT_TRUE(tosa::matmul(a.ref(), bm.ref(), mm, ref.ref()).is_ok());
  HostTensor expected = ref;
  if (fuse) {
    HostTensor q(DType::Int8, so);
    ASSERT_TRUE(tosa::rescale(ref.ref(), ra, q.ref()).is_ok());
    expected = q;
  }
  std::vector<HostTensor> inputs{a, bm}, outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  if (t == DType::Fp32) {
    EXPECT_TRUE(floats_close(expected, outputs[0], 1e-4f, 1e-5f));
  } else {
    EXPECT_TRUE(bytes_equal(expected, outputs[0]));
  }
}

TEST(VulkanMatmul, Int8RawWithZeroPoints) { check_matmul(DType::Int8, false); }
TEST(VulkanMatmul, Int8FusedRescale) { check_matmul(DType::Int8, true); }
TEST(VulkanMatmul, Fp32) { check_matmul(DType::Fp32, false); }

// fp16 storage with fp32 accumulation (the fast-path GEMM of the benchmark): checked against the
// fp32 CPU kernel on the same fp16-rounded inputs, within |a-e| <= 1e-2 + 2e-3|e| (one fp16
// rounding of the result, 2^-11 relative, plus accumulation order).
TEST(VulkanMatmul, Fp16StorageFp32Accumulation) {
  VKRT_REQUIRE_VULKAN();
  if (!device_or_null(nullptr)->features().shader_float16) GTEST_SKIP() << "device lacks shaderFloat16";
  std::mt19937 rng(kSeed + 5);
  Fp16Matmul m = fp16_matmul({1, 9, 21}, {1, 21, 6}, rng);
  std::vector<HostTensor> outputs;
  Status r = run_on_vulkan(m.graph, m.inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(floats_close(m.expected, fp16_to_fp32(outputs[0]), 1e-2f, 2e-3f));
}

struct RescaleCase {
  DType in, out;
  bool per_channel, double_round, input_unsigned, output_unsigned;
  int32_t in_zp, out_zp;
  bool scale32 = true;
};

class VulkanRescale : public ::testing::TestWithParam<RescaleCase> {};

TEST_P(VulkanRescale, MatchesCpu) {
  VKRT_REQUIRE_VULKAN();
  const RescaleCase& rc = GetParam();
  std::mt19937 rng(kSeed + 2);
  Shape shape{3, 5, 4};
  HostTensor in(rc.in, shape);
  double lo = rc.in == DType::Int8 ? -128 : rc.in == DType::Int16 ? -32768 : -2000000;
  double hi = rc.in == DType::Int8 ? 127 : rc.in == DType::Int16 ? 32767 : 2000000;
  fill_random(in, rng, lo, hi);
  vgf::RescaleAttr a;
  a.scale32 = rc.scale32;
  a.rounding_mode = rc.double_round ? vgf::RoundingMode::DoubleRound : vgf::RoundingMode::SingleRound;
  a.per_channel = rc.per_channel;
  a.input_unsigned = rc.input_unsigned;
  a.output_unsigned = rc.output_unsigned;
  a.input_zp = rc.in_zp;
  a.output_zp = rc.out_zp;
  std::uniform_int_distribution<int32_t> m(rc.scale32 ? (1 << 30) : (1 << 14), rc.scale32 ? INT32_MAX : 32767);
  std::uniform_int_distribution<int> s(rc.scale32 ? 30 : 14, rc.scale32 ? 40 : 20);
  for (int c = 0; c < (rc.per_channel ? 4 : 1); ++c) {
    a.multiplier.push_back(m(rng));
    a.shift.push_back(int8_t(s(rng)));
  }
  GraphBuilder b;
  TensorId x = b.input(rc.in, shape);
  TensorId y = b.tensor(rc.out, shape);
  b.op(OpKind::RESCALE, {x}, {y}, a);
  b.output(y);
  HostTensor expected(rc.out, shape);
  Status cs = tosa::rescale(in.ref(), a, expected.ref());
  ASSERT_TRUE(cs.is_ok()) << cs.message();
  std::vector<HostTensor> inputs{in}, outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(bytes_equal(expected, outputs[0]));
}

INSTANTIATE_TEST_SUITE_P(
    Types, VulkanRescale,
    ::testing::Values(RescaleCase{DType::Int8, DType::Int32, false, false, false, false, -3, 0},
                      RescaleCase{DType::Int32, DType::Int8, true, true, false, false, 0, -5},
                      RescaleCase{DType::Int32, DType::Int16, true, false, false, false, 0, 0},
                      RescaleCase{DType::Int16, DType::Int8, false, true, false, false, 0, 4},
                      RescaleCase{DType::Int8, DType::Int8, false, false, true, false, 128, -1},
                      RescaleCase{DType::Int8, DType::Int8, false, false, false, true, 3, 128},
                      RescaleCase{DType::Int16, DType::Int32, true, false, false, false, 0, 0, false},
                      RescaleCase{DType::Int32, DType::Int32, false, true, false, false, 0, 0}));

void check_pool(OpKind kind, DType t) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 3);
  Shape si{2, 7, 7, 3}, so{2, 4, 4, 3};
  HostTensor in(t, si);
  if (t == DType::Fp32) {
    fill_random(in, rng, -4, 4);
  } else {
    fill_random(in, rng, t == DType::Int8 ? -128 : -32768, t == DType::Int8 ? 127 : 32767);
  }
  vgf::PoolAttr a;
  a.kernel = {3, 3};
  a.stride = {2, 2};
  a.pad = {1, 1, 1, 1};
  a.acc_type = t == DType::Fp32 ? vgf::AccType::Fp32 : vgf::AccType::Int32;
  if (t == DType::Int8 && kind == OpKind::AVG_POOL2D) {
    a.input_zp = -9;
    a.output_zp = 4;
  }
  GraphBuilder b;
  TensorId x = b.input(t, si);
  TensorId y = b.tensor(t, so);
  b.op(kind, {x}, {y}, a);
  b.output(y);
  HostTensor expected(t, so);
  // The kernels take the IR's PoolAttr as it is.
  Status cs = kind == OpKind::AVG_POOL2D ? tosa::avg_pool2d(in.ref(), a, expected.ref())
                                         : tosa::max_pool2d(in.ref(), a, expected.ref());
  ASSERT_TRUE(cs.is_ok()) << cs.message();
  std::vector<HostTensor> inputs{in}, outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  if (t == DType::Fp32) {
    EXPECT_TRUE(floats_close(expected, outputs[0], 1e-6f, 1e-6f));
  } else {
    EXPECT_TRUE(bytes_equal(expected, outputs[0]));
  }
}

TEST(VulkanPool, MaxInt8) { check_pool(OpKind::MAX_POOL2D, DType::Int8); }
TEST(VulkanPool, MaxInt16) { check_pool(OpKind::MAX_POOL2D, DType::Int16); }
TEST(VulkanPool, MaxFp32) { check_pool(OpKind::MAX_POOL2D, DType::Fp32); }
TEST(VulkanPool, AvgInt8WithZeroPoints) { check_pool(OpKind::AVG_POOL2D, DType::Int8); }
TEST(VulkanPool, AvgInt16) { check_pool(OpKind::AVG_POOL2D, DType::Int16); }
TEST(VulkanPool, AvgFp32) { check_pool(OpKind::AVG_POOL2D, DType::Fp32); }

void check_table(DType t) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 4);
  Shape shape{4, 33};
  HostTensor in(t, shape);
  fill_random(in, rng, t == DType::Int8 ? -128 : -32768, t == DType::Int8 ? 127 : 32767);
  const size_t entries = t == DType::Int8 ? 256 : 513;
  HostTensor table(t, {int64_t(entries)});
  vgf::TableAttr ta;
  for (size_t i = 0; i < entries; ++i) {
    // A smooth curve, as real sigmoid/tanh tables are (consecutive differences fit in int16).
    int v = t == DType::Int8 ? int(127 * std::sin(double(i) / 40.0)) : int(20000 * std::sin(double(i) / 90.0));
    ta.table.push_back(int16_t(v));
    if (t == DType::Int8) {
      table.as<int8_t>()[i] = int8_t(v);
    } else {
      table.as<int16_t>()[i] = int16_t(v);
    }
  }
  DType out_t = t == DType::Int8 ? DType::Int8 : DType::Int32;
  GraphBuilder b;
  TensorId x = b.input(t, shape);
  TensorId y = b.tensor(out_t, shape);
  b.op(OpKind::TABLE, {x}, {y}, ta);
  b.output(y);
  HostTensor expected(out_t, shape);
  Status cs = tosa::table(in.ref(), table.ref(), expected.ref());
  ASSERT_TRUE(cs.is_ok()) << cs.message();
  std::vector<HostTensor> inputs{in}, outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(bytes_equal(expected, outputs[0]));
}

TEST(VulkanTable, Int8) { check_table(DType::Int8); }
TEST(VulkanTable, Int16Interpolated) { check_table(DType::Int16); }

// int8 DEPTHWISE_CONV2D with M = 1 and C % 4 == 0 runs four channels per invocation
// (depthwise_conv2d_c4_*); other channel counts keep one per invocation. Both against the CPU
// kernel: every padding side, stride, dilation, both zero points, a batch of 2, and each output
// the shader can write (raw int32, RESCALE to int8 with CLAMP, RESCALE to int16).
TEST(VulkanConv, Int8DepthwiseFourChannelsPerInvocation) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 4);
  struct Case {
    int64_t channels;
    DType out;  // Int32: raw accumulator
    const char* shader;
  };
  const Case cases[] = {{12, DType::Int32, "depthwise_conv2d_c4_i8_i32"},
                        {12, DType::Int8, "depthwise_conv2d_c4_i8_i8"},
                        {8, DType::Int16, "depthwise_conv2d_c4_i8_i16"},
                        {6, DType::Int8, "depthwise_conv2d_i8_i8"}};
  for (const Case& k : cases) {
    vgf::ConvAttr attr;
    attr.pad = {2, 0, 1, 2, 0, 0};  // top, bottom, left, right
    attr.stride = {2, 1, 1};
    attr.dilation = {1, 2, 1};
    attr.input_zp = 7;
    attr.weight_zp = -2;
    const Shape input{2, 9, 11, k.channels}, weight{3, 3, k.channels, 1};
    const int64_t oh = (9 - 1 + 2 - 2) / 2 + 1, ow = (11 - 1 + 3 - 2 * 2) / 1 + 1;  // 5, 10
    const Shape output{2, oh, ow, k.channels};
    HostTensor in(DType::Int8, input), w(DType::Int8, weight), bias(DType::Int32, {k.channels});
    fill_random(in, rng, -128, 127);
    fill_random(w, rng, -128, 127);
    fill_random(bias, rng, -5000, 5000);
    vgf::RescaleAttr ra = requant(int(k.channels), rng, k.out == DType::Int16 ? 0 : -4);
    if (k.out == DType::Int16) {  // a scale that uses the int16 range
      for (int8_t& s : ra.shift) s = int8_t(s - 6);
    }
    vgf::ClampAttr ca;
    ca.min_int = -110;
    ca.max_int = 100;

    GraphBuilder b;
    TensorId x = b.input(DType::Int8, input);
    TensorId acc = b.tensor(DType::Int32, output);
    b.op(OpKind::DEPTHWISE_CONV2D, {x, b.constant(w), b.constant(bias)}, {acc}, attr);
    const vgf::ClampAttr* clamp = k.out == DType::Int8 ? &ca : nullptr;
    b.output(add_epilogue(b, acc, output, k.out, ra, clamp));

    HostTensor ref_acc(DType::Int32, output);
    Status cpu = tosa::depthwise_conv2d(in.ref(), w.ref(), bias.ref(), attr, ref_acc.ref());
    ASSERT_TRUE(cpu.is_ok()) << cpu.to_string();
    auto expected = cpu_epilogue(ref_acc, k.out, ra, clamp);
    ASSERT_TRUE(expected.ok()) << expected.status().to_string();

    std::vector<HostTensor> inputs{in}, outputs;
    VulkanExecutorStats stats;
    Status r = run_on_vulkan(b.graph, inputs, outputs, nullptr, &stats);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_TRUE(bytes_equal(*expected, outputs[0])) << k.shader;
    ASSERT_EQ(stats.dispatch_shaders.size(), 1u);
    EXPECT_EQ(stats.dispatch_shaders[0], k.shader);
  }
}

}  // namespace
}  // namespace vkrt::vulkan::testing
