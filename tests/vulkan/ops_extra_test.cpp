// RESIZE, TRANSPOSE_CONV2D, int16-activation CONV2D / DEPTHWISE_CONV2D / MATMUL (int48
// accumulators), SCATTER and the fp16 CASTs on the Vulkan executor against the CPU executor
// (vgf/cpu, the same graph on the TOSA reference kernels): integer results bit-exact, fp32
// NEAREST/CAST bit-exact, fp32 BILINEAR / TRANSPOSE_CONV2D within |a-e| <= 1e-4 + 1e-5|e|.
// SCATTER, which the CPU executor does not run, is checked against tosa::scatter directly.
// FFT2D / RFFT2D (fp32, direct DFT in fp32 on Vulkan, in double on the CPU) within the bound
// derived at check_fft.
#include <algorithm>
#include <cmath>
#include <optional>

#include "cortex_m/vector_access.h"
#include "tests/common/conformance.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/op_lowering.h"
#include "vkrt/half.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

namespace cmsis = ::vkrt::testing::cmsis;

constexpr uint32_t kSeed = 4321;

// Both executors on the same graph and inputs; integer (and exact) outputs compared byte for
// byte, fp32 ones within the conv tolerance when `exact` is false.
// expected_dispatches >= 0 also checks how many dispatches the graph became (fusion).
void expect_same_on_both(const vgf::Graph& graph, std::vector<HostTensor> inputs, bool exact = true,
                         int expected_dispatches = -1) {
  std::vector<HostTensor> cpu_out, gpu_out;
  Status s = run_on_cpu(graph, inputs, cpu_out);
  ASSERT_TRUE(s.is_ok()) << "cpu: " << s.message();
  VulkanExecutorStats stats;
  s = run_on_vulkan(graph, inputs, gpu_out, nullptr, &stats);
  ASSERT_TRUE(s.is_ok()) << "vulkan: " << s.message();
  if (expected_dispatches >= 0) {
    EXPECT_EQ(stats.dispatch_count, uint64_t(expected_dispatches));
  }
  ASSERT_EQ(cpu_out.size(), gpu_out.size());
  for (size_t i = 0; i < cpu_out.size(); ++i) {
    if (exact || cpu_out[i].dtype != DType::Fp32) {
      EXPECT_TRUE(bytes_equal(cpu_out[i], gpu_out[i])) << "output " << i;
    } else {
      EXPECT_TRUE(floats_close(cpu_out[i], gpu_out[i], 1e-4f, 1e-5f)) << "output " << i;
    }
  }
}

double type_lo(DType t) { return t == DType::Int8 ? -128 : t == DType::Int16 ? -32768 : -10.0; }
double type_hi(DType t) { return t == DType::Int8 ? 127 : t == DType::Int16 ? 32767 : 10.0; }

// ---------------------------------------------------------------- RESIZE

struct ResizeCase {
  const char* name;
  Shape input;                   // [N,IH,IW,C]
  std::array<int32_t, 4> scale;  // [y_n, y_d, x_n, x_d]
  std::array<int32_t, 2> offset;
};

// The border that makes the output size exact (tosa.md §11): num + border divisible by scale_d.
int32_t exact_border(int64_t in_size, int32_t n, int32_t d, int32_t offset, int64_t* out_size) {
  const int64_t num = (in_size - 1) * n - offset;
  const int64_t border = -(num % d);
  *out_size = (num + border) / d + 1;
  return int32_t(border);
}

const ResizeCase kResizeCases[] = {
    {"Up2x", {1, 5, 6, 3}, {4, 2, 4, 2}, {-1, -1}},           // align_corners=False 2x upsample
    {"UpOdd", {2, 3, 4, 5}, {6, 2, 10, 4}, {0, 1}},           // 3x / 2.5x, positive offset
    {"Down", {1, 12, 9, 2}, {2, 5, 3, 4}, {1, 0}},            // downscale by 2.5 and 1.33
    {"OnePixel", {1, 1, 1, 7}, {16, 1, 8, 2}, {0, -3}},       // 1x1 input, every neighbour clamped
    {"MaxScale", {1, 3, 2, 1}, {2048, 1023, 2047, 2048}, {-2048, 5}},  // numerators at the limit
};

void check_resize(const ResizeCase& c, DType in_type, vgf::ResizeMode mode) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed);
  vgf::ResizeAttr a;
  a.mode = mode;
  a.scale = c.scale;
  a.offset = c.offset;
  int64_t oh = 0, ow = 0;
  a.border[0] = exact_border(c.input[1], c.scale[0], c.scale[1], c.offset[0], &oh);
  a.border[1] = exact_border(c.input[2], c.scale[2], c.scale[3], c.offset[1], &ow);
  const bool bilinear = mode == vgf::ResizeMode::Bilinear;
  DType out_type = in_type;
  if (bilinear && in_type == DType::Int8) out_type = DType::Int32;
  if (bilinear && in_type == DType::Int16) out_type = DType::Int48;
  HostTensor x(in_type, c.input);
  fill_random(x, rng, type_lo(in_type), type_hi(in_type));
  // Extremes at the corners: the widest products of the int48 path.
  if (in_type == DType::Int16) {
    x.as<int16_t>()[0] = -32768;
    x.as<int16_t>()[x.count() - 1] = 32767;
  }
  GraphBuilder b;
  TensorId in = b.input(in_type, c.input);
  TensorId out = b.tensor(out_type, {c.input[0], oh, ow, c.input[3]});
  b.op(OpKind::RESIZE, {in}, {out}, a);
  b.output(out);
  expect_same_on_both(b.graph, {x}, /*exact=*/!(bilinear && in_type == DType::Fp32));
}

class VulkanResize : public ::testing::TestWithParam<std::tuple<int, DType, vgf::ResizeMode>> {};

TEST_P(VulkanResize, MatchesCpuExecutor) {
  auto [index, type, mode] = GetParam();
  check_resize(kResizeCases[index], type, mode);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VulkanResize,
    ::testing::Combine(::testing::Range(0, int(std::size(kResizeCases))),
                       ::testing::Values(DType::Int8, DType::Int16, DType::Fp32),
                       ::testing::Values(vgf::ResizeMode::Nearest, vgf::ResizeMode::Bilinear)),
    [](const auto& info) {
      return std::string(kResizeCases[std::get<0>(info.param)].name) + "_" + vgf::dtype_name(std::get<1>(info.param)) +
             (std::get<2>(info.param) == vgf::ResizeMode::Bilinear ? "_Bilinear" : "_Nearest");
    });

// Hand-computed: 2x2 int8 -> 3x3 BILINEAR with scale 2/1 (corners aligned), unnormalised by
// y_n * x_n = 4: the centre is (10 + 20 + 30 + 40) * 1 * 1 = 100, the top edge middle
// (10 + 20) * 2 * 1 = 60.
TEST(VulkanResizeValues, BilinearInt8HandComputed) {
  VKRT_REQUIRE_VULKAN();
  vgf::ResizeAttr a;
  a.mode = vgf::ResizeMode::Bilinear;
  a.scale = {2, 1, 2, 1};
  GraphBuilder b;
  TensorId in = b.input(DType::Int8, {1, 2, 2, 1});
  TensorId out = b.tensor(DType::Int32, {1, 3, 3, 1});
  b.op(OpKind::RESIZE, {in}, {out}, a);
  b.output(out);
  HostTensor x(DType::Int8, {1, 2, 2, 1});
  const int8_t values[] = {10, 20, 30, 40};
  std::memcpy(x.bytes.data(), values, 4);
  std::vector<HostTensor> inputs{x}, outputs;
  Status s = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(s.is_ok()) << s.message();
  const int32_t expected[] = {40, 60, 80, 80, 100, 120, 120, 140, 160};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(outputs[0].as<int32_t>()[i], expected[i]) << "element " << i;
}

TEST(VulkanResizeValues, NearestWithWrongOutputTypeIsNotSupported) {
  VKRT_REQUIRE_VULKAN();
  vgf::ResizeAttr a;  // NEAREST: int8 must stay int8
  a.scale = {2, 1, 2, 1};
  GraphBuilder b;
  TensorId in = b.input(DType::Int8, {1, 2, 2, 1});
  TensorId out = b.tensor(DType::Int32, {1, 3, 3, 1});
  b.op(OpKind::RESIZE, {in}, {out}, a);
  b.output(out);
  std::vector<HostTensor> inputs{HostTensor(DType::Int8, {1, 2, 2, 1})}, outputs;
  Status s = run_on_vulkan(b.graph, inputs, outputs);
  EXPECT_EQ(s.code(), Error::NotSupported) << s.message();
  EXPECT_NE(s.message().find("RESIZE"), std::string::npos) << s.message();
}

// ---------------------------------------------------------------- TRANSPOSE_CONV2D

struct TransposeCase {
  const char* name;
  Shape input;   // [N,IH,IW,IC]
  Shape weight;  // [OC,KH,KW,IC]
  std::array<int32_t, 4> out_pad;
  std::array<int32_t, 2> stride;
  bool bias_broadcast;
};

const TransposeCase kTransposeCases[] = {
    {"Stride2", {1, 4, 5, 3}, {6, 3, 3, 3}, {0, 0, 0, 0}, {2, 2}, false},
    {"NegativePad", {2, 5, 4, 4}, {5, 4, 3, 4}, {-1, -2, -2, 0}, {2, 3}, false},
    {"PositivePadStride1", {1, 3, 3, 2}, {3, 2, 2, 2}, {1, 2, 0, 3}, {1, 1}, true},
    {"OnePixel", {1, 1, 1, 9}, {7, 1, 1, 9}, {0, 0, 0, 0}, {1, 1}, false},
    {"StrideAboveKernel", {1, 3, 2, 5}, {4, 2, 2, 5}, {0, 1, 1, 0}, {3, 4}, false},
};

void check_transpose_conv(const TransposeCase& c, DType in_type) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 1);
  const DType w_type = in_type == DType::Fp32 ? DType::Fp32 : DType::Int8;
  const DType acc_type = in_type == DType::Int8 ? DType::Int32 : in_type == DType::Int16 ? DType::Int48 : DType::Fp32;
  vgf::TransposeConvAttr a;
  a.out_pad = c.out_pad;
  a.stride = c.stride;
  a.acc_type = in_type == DType::Int8 ? vgf::AccType::Int32 : in_type == DType::Int16 ? vgf::AccType::Int48
                                                                                       : vgf::AccType::Fp32;
  if (in_type == DType::Int8) a.input_zp = -5;  // TOSA: zero points only for int8 operands
  if (in_type != DType::Fp32) a.weight_zp = 3;
  const int64_t oc = c.weight[0];
  const int64_t oh = (c.input[1] - 1) * c.stride[0] + c.out_pad[0] + c.out_pad[1] + c.weight[1];
  const int64_t ow = (c.input[2] - 1) * c.stride[1] + c.out_pad[2] + c.out_pad[3] + c.weight[2];
  HostTensor x(in_type, c.input), w(w_type, c.weight), bias(acc_type, {c.bias_broadcast ? 1 : oc});
  fill_random(x, rng, type_lo(in_type), type_hi(in_type));
  fill_random(w, rng, w_type == DType::Int8 ? -128 : -1, w_type == DType::Int8 ? 127 : 1);
  if (acc_type == DType::Int48) {
    fill_random(bias, rng, -(int64_t(1) << 40), int64_t(1) << 40);
    bias.as<int64_t>()[0] = (int64_t(1) << 47) - 5;  // the sum saturates at the int48 maximum
  } else {
    fill_random(bias, rng, -5000, 5000);
  }
  GraphBuilder b;
  TensorId in = b.input(in_type, c.input);
  TensorId out = b.tensor(acc_type, {c.input[0], oh, ow, oc});
  b.op(OpKind::TRANSPOSE_CONV2D, {in, b.constant(w), b.constant(bias)}, {out}, a);
  b.output(out);
  expect_same_on_both(b.graph, {x}, /*exact=*/in_type != DType::Fp32);
}

class VulkanTransposeConv : public ::testing::TestWithParam<std::tuple<int, DType>> {};

TEST_P(VulkanTransposeConv, MatchesCpuExecutor) {
  auto [index, type] = GetParam();
  check_transpose_conv(kTransposeCases[index], type);
}

INSTANTIATE_TEST_SUITE_P(Cases, VulkanTransposeConv,
                         ::testing::Combine(::testing::Range(0, int(std::size(kTransposeCases))),
                                            ::testing::Values(DType::Int8, DType::Int16, DType::Fp32)),
                         [](const auto& info) {
                           return std::string(kTransposeCases[std::get<0>(info.param)].name) + "_" +
                                  vgf::dtype_name(std::get<1>(info.param));
                         });

// TRANSPOSE_CONV2D -> RESCALE (per channel, double round) -> CLAMP to int8, the decoder layer of
// a quantized upsampling network. Bit-exact whether or not the executor fuses the epilogue.
TEST(VulkanTransposeConvGraph, RescaleClampInt8MatchesCpuExecutor) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 7);
  const Shape in_shape{1, 6, 5, 8}, w_shape{4, 3, 3, 8}, out_shape{1, 12, 10, 4};
  vgf::TransposeConvAttr a;
  a.stride = {2, 2};
  a.out_pad = {0, -1, 0, -1};
  a.input_zp = 3;
  HostTensor x(DType::Int8, in_shape), w(DType::Int8, w_shape), bias(DType::Int32, {4});
  fill_random(x, rng, -128, 127);
  fill_random(w, rng, -127, 127);
  fill_random(bias, rng, -3000, 3000);
  vgf::RescaleAttr r;
  r.rounding_mode = vgf::RoundingMode::DoubleRound;
  r.per_channel = true;
  r.output_zp = -4;
  std::uniform_int_distribution<int32_t> mult(1 << 30, INT32_MAX);
  for (int c = 0; c < 4; ++c) {
    r.multiplier.push_back(mult(rng));
    r.shift.push_back(int8_t(38 + c % 2));
  }
  vgf::ClampAttr clamp;
  clamp.min_int = -90;
  clamp.max_int = 100;
  GraphBuilder b;
  TensorId in = b.input(DType::Int8, in_shape);
  TensorId acc = b.tensor(DType::Int32, out_shape);
  b.op(OpKind::TRANSPOSE_CONV2D, {in, b.constant(w), b.constant(bias)}, {acc}, a);
  TensorId q = b.tensor(DType::Int8, out_shape);
  b.op(OpKind::RESCALE, {acc}, {q}, r);
  TensorId y = b.tensor(DType::Int8, out_shape);
  b.op(OpKind::CLAMP, {q}, {y}, clamp);
  b.output(y);
  expect_same_on_both(b.graph, {x}, true, 1);  // RESCALE and CLAMP fused into the convolution
}

// int16 activations: TRANSPOSE_CONV2D (int48) -> RESCALE (apply_scale_16, per channel) to int8
// with a CLAMP, and to int16: one dispatch each (epilogue_i48.glsl), the CPU executor's bytes,
// with biases that saturate the int48 sum both ways and shifts where some outputs saturate.
TEST(VulkanTransposeConvGraph, Int16WithInt48RescaleFused) {
  VKRT_REQUIRE_VULKAN();
  if (!device_or_null(nullptr)->features().shader_int64) GTEST_SKIP() << "device lacks shaderInt64";
  std::mt19937 rng(kSeed + 11);
  const Shape in_shape{2, 4, 5, 6}, w_shape{5, 3, 2, 6}, out_shape{2, 9, 10, 5};
  for (DType out_type : {DType::Int8, DType::Int16}) {
    SCOPED_TRACE(vgf::dtype_name(out_type));
    vgf::TransposeConvAttr a;
    a.stride = {2, 2};
    a.out_pad = {0, 0, 0, 0};
    a.acc_type = vgf::AccType::Int48;
    HostTensor x(DType::Int16, in_shape), w(DType::Int8, w_shape), bias(DType::Int48, {5});
    fill_random(x, rng, -32768, 32767);
    fill_random(w, rng, -128, 127);
    fill_random(bias, rng, -(int64_t(1) << 40), int64_t(1) << 40);
    bias.as<int64_t>()[0] = (int64_t(1) << 47) - 1;  // saturates upward
    bias.as<int64_t>()[1] = -(int64_t(1) << 47);     // and downward
    vgf::RescaleAttr r;
    r.scale32 = false;
    r.per_channel = true;
    r.output_zp = out_type == DType::Int8 ? -3 : 0;
    std::uniform_int_distribution<int32_t> mult(1 << 14, INT16_MAX);
    for (int c = 0; c < 5; ++c) {
      r.multiplier.push_back(mult(rng));
      r.shift.push_back(int8_t(26 + c % 8));
    }
    GraphBuilder b;
    TensorId in = b.input(DType::Int16, in_shape);
    TensorId acc = b.tensor(DType::Int48, out_shape);
    b.op(OpKind::TRANSPOSE_CONV2D, {in, b.constant(w), b.constant(bias)}, {acc}, a);
    TensorId q = b.tensor(out_type, out_shape);
    b.op(OpKind::RESCALE, {acc}, {q}, r);
    TensorId y = q;
    if (out_type == DType::Int8) {
      vgf::ClampAttr clamp;
      clamp.min_int = -100;
      clamp.max_int = 90;
      y = b.tensor(DType::Int8, out_shape);
      b.op(OpKind::CLAMP, {q}, {y}, clamp);
    }
    b.output(y);
    expect_same_on_both(b.graph, {x}, true, 1);
  }
}

// CMSIS-NN's arm_transpose_conv_s8 unit-test vectors (TFLite-generated, real files from the
// shared conformance tree) as TRANSPOSE_CONV2D -> RESCALE -> CLAMP on the GPU, bit for bit.
// Mapping (cortex-m-ops.md §3; tests/cortex_m reference transpose_conv2d_s8): output
// oy = iy * stride - pad + ky, so out_pad_top = -pad and out_pad_bottom makes the output height;
// input_zp = -input_offset; the double-rounding requantize with CMSIS shift s is TOSA RESCALE
// scale32 DOUBLE_ROUND with shift 31 - s; output_offset is the RESCALE output_zp.
TEST(VulkanTransposeConvGraph, CmsisNnVectorsBitExact) {
  VKRT_REQUIRE_VULKAN();
  for (const char* folder : {"transpose_conv_1", "transpose_conv_2", "transpose_conv_3", "transpose_conv_4"}) {
    SCOPED_TRACE(folder);
    VKRT_REQUIRE_CONFORMANCE(dir, std::string("cmsis-nn/") + folder);
    cmsis::VectorData data;
    ASSERT_EQ(data.load(dir), "");
    cmsis::VectorAccess v(data, folder);
    const int32_t n = v.need({"INPUT_BATCHES", "BATCH_SIZE"}), ih = v.need("INPUT_H"), iw = v.need("INPUT_W");
    const int32_t ic = v.need("IN_CH"), oh = v.need("OUTPUT_H"), ow = v.need("OUTPUT_W"), oc = v.need("OUT_CH");
    const int32_t kh = v.need("FILTER_Y"), kw = v.need("FILTER_X");
    const int32_t sy = v.need("STRIDE_Y"), sx = v.need("STRIDE_X"), pad_y = v.need("PAD_Y"), pad_x = v.need("PAD_X");
    const int32_t in_offset = v.need("INPUT_OFFSET"), out_offset = v.need("OUTPUT_OFFSET");
    const int32_t act_min = v.need("OUT_ACTIVATION_MIN"), act_max = v.need("OUT_ACTIVATION_MAX");
    ASSERT_TRUE(v.ok()) << v.error();
    const auto input = v.array<int8_t>({"input"}, int64_t(n) * ih * iw * ic);
    const auto weights = v.array<int8_t>({"weights"}, int64_t(oc) * kh * kw * ic);
    auto bias = v.optional_array<int32_t>({"biases", "bias"}, oc);
    const auto mult = v.array<int32_t>({"output_mult", "output_multiplier"}, oc);
    const auto shift = v.array<int32_t>({"output_shift"}, oc);
    const auto want = v.array<int8_t>({"output_ref", "output"}, int64_t(n) * oh * ow * oc);
    ASSERT_TRUE(v.ok()) << v.error();
    if (bias.empty()) bias.assign(size_t(oc), 0);
    // The reader checks minimum lengths; the copies below need exact ones.
    ASSERT_EQ(input.size(), size_t(n) * ih * iw * ic);
    ASSERT_EQ(weights.size(), size_t(oc) * kh * kw * ic);
    ASSERT_EQ(bias.size(), size_t(oc));
    ASSERT_EQ(want.size(), size_t(n) * oh * ow * oc);

    vgf::TransposeConvAttr a;
    a.stride = {sy, sx};
    a.out_pad = {-pad_y, oh - ((ih - 1) * sy + kh - pad_y), -pad_x, ow - ((iw - 1) * sx + kw - pad_x)};
    a.input_zp = -in_offset;
    vgf::RescaleAttr r;
    r.rounding_mode = vgf::RoundingMode::DoubleRound;
    r.per_channel = true;
    r.output_zp = out_offset;
    for (int32_t c = 0; c < oc; ++c) {
      r.multiplier.push_back(mult[size_t(c)]);
      r.shift.push_back(int8_t(31 - shift[size_t(c)]));
    }
    vgf::ClampAttr clamp;
    clamp.min_int = act_min;
    clamp.max_int = act_max;
    HostTensor x(DType::Int8, {n, ih, iw, ic}), w(DType::Int8, {oc, kh, kw, ic}), b(DType::Int32, {oc});
    std::memcpy(x.bytes.data(), input.data(), input.size());
    std::memcpy(w.bytes.data(), weights.data(), weights.size());
    std::memcpy(b.bytes.data(), bias.data(), bias.size() * 4);
    const Shape out_shape{n, oh, ow, oc};
    GraphBuilder g;
    TensorId in = g.input(DType::Int8, x.shape);
    TensorId acc = g.tensor(DType::Int32, out_shape);
    g.op(OpKind::TRANSPOSE_CONV2D, {in, g.constant(w), g.constant(b)}, {acc}, a);
    TensorId q = g.tensor(DType::Int8, out_shape);
    g.op(OpKind::RESCALE, {acc}, {q}, r);
    TensorId y = g.tensor(DType::Int8, out_shape);
    g.op(OpKind::CLAMP, {q}, {y}, clamp);
    g.output(y);
    std::vector<HostTensor> inputs{x}, outputs;
    Status s = run_on_vulkan(g.graph, inputs, outputs);
    ASSERT_TRUE(s.is_ok()) << s.message();
    HostTensor expected(DType::Int8, out_shape);
    std::memcpy(expected.bytes.data(), want.data(), want.size());
    EXPECT_TRUE(bytes_equal(expected, outputs[0]));
  }
}

// ---------------------------------------------------------------- int16 x int8 -> int48

struct Int16ConvCase {
  const char* name;
  bool depthwise;
  Shape input, weight;  // weight [OC,KH,KW,IC] or [KH,KW,C,M]
  std::array<int32_t, 6> pad;
  std::array<int32_t, 3> stride, dilation;
};

const Int16ConvCase kInt16ConvCases[] = {
    {"Conv3x3Stride2", false, {1, 9, 8, 5}, {6, 3, 3, 5}, {1, 1, 1, 0, 0, 0}, {2, 2, 1}, {1, 1, 1}},
    {"Conv1x1Batch2", false, {2, 4, 3, 17}, {3, 1, 1, 17}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"ConvDilated", false, {1, 7, 7, 2}, {4, 3, 2, 2}, {2, 2, 1, 2, 0, 0}, {1, 2, 1}, {2, 3, 1}},
    {"Depthwise3x3", true, {1, 8, 7, 4}, {3, 3, 4, 2}, {1, 1, 1, 1, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"DepthwiseStride2M1", true, {2, 5, 6, 3}, {2, 3, 3, 1}, {0, 1, 1, 0, 0, 0}, {2, 2, 1}, {1, 1, 1}},
};

int64_t conv_out(int64_t in, int64_t k, int32_t pa, int32_t pb, int32_t s, int32_t d) {
  return (in - 1 + pa + pb - (k - 1) * d) / s + 1;
}

class VulkanInt16Conv : public ::testing::TestWithParam<int> {};

// The int16 convolution of case `c` with random data; with `rescale`, followed by the A16W8
// requantization: RESCALE int48 -> `rescale_out` (scale16, per channel, tosa.md §5).
struct Int16ConvGraph {
  vgf::Graph graph;
  HostTensor input;
};

Int16ConvGraph int16_conv_graph(const Int16ConvCase& c, std::optional<DType> rescale_out, bool scale32 = false) {
  std::mt19937 rng(kSeed + 2);
  vgf::ConvAttr a;
  a.pad = c.pad;
  a.stride = c.stride;
  a.dilation = c.dilation;
  a.acc_type = vgf::AccType::Int48;
  a.weight_zp = -7;  // int8 weights may carry a zero point; int16 input may not (tosa.md §1)
  const int64_t kh = c.depthwise ? c.weight[0] : c.weight[1];
  const int64_t kw = c.depthwise ? c.weight[1] : c.weight[2];
  const int64_t oc = c.depthwise ? c.weight[2] * c.weight[3] : c.weight[0];
  const Shape out_shape{c.input[0], conv_out(c.input[1], kh, c.pad[0], c.pad[1], c.stride[0], c.dilation[0]),
                        conv_out(c.input[2], kw, c.pad[2], c.pad[3], c.stride[1], c.dilation[1]), oc};
  HostTensor x(DType::Int16, c.input), w(DType::Int8, c.weight), bias(DType::Int48, {oc});
  fill_random(x, rng, -32768, 32767);
  fill_random(w, rng, -128, 127);
  fill_random(bias, rng, -(int64_t(1) << 46), int64_t(1) << 46);
  bias.as<int64_t>()[0] = (int64_t(1) << 47) - 1;  // saturates upward
  if (oc > 1) bias.as<int64_t>()[1] = -(int64_t(1) << 47);  // and downward
  GraphBuilder b;
  TensorId in = b.input(DType::Int16, c.input);
  TensorId acc = b.tensor(DType::Int48, out_shape);
  b.op(c.depthwise ? OpKind::DEPTHWISE_CONV2D : OpKind::CONV2D, {in, b.constant(w), b.constant(bias)}, {acc}, a);
  if (!rescale_out) {
    b.output(acc);
    return {std::move(b.graph), x};
  }
  vgf::RescaleAttr r;
  r.scale32 = scale32;
  r.rounding_mode = vgf::RoundingMode::SingleRound;
  r.per_channel = true;
  std::uniform_int_distribution<int32_t> mult(1 << 14, INT16_MAX);
  for (int64_t ch = 0; ch < oc; ++ch) {
    r.multiplier.push_back(mult(rng));
    r.shift.push_back(int8_t(24 + ch % 12));  // some outputs saturate, some do not
  }
  r.output_zp = *rescale_out == DType::Int8 ? 5 : 0;
  TensorId out = b.tensor(*rescale_out, out_shape);
  b.op(OpKind::RESCALE, {acc}, {out}, r);
  b.output(out);
  return {std::move(b.graph), x};
}

TEST_P(VulkanInt16Conv, MatchesCpuExecutor) {
  VKRT_REQUIRE_VULKAN();
  Int16ConvGraph g = int16_conv_graph(kInt16ConvCases[GetParam()], std::nullopt);
  expect_same_on_both(g.graph, {g.input});
}

TEST_P(VulkanInt16Conv, WithInt48RescaleMatchesCpuExecutor) {
  VKRT_REQUIRE_VULKAN();
  for (DType out : {DType::Int16, DType::Int8, DType::Int32}) {
    SCOPED_TRACE(vgf::dtype_name(out));
    Int16ConvGraph g = int16_conv_graph(kInt16ConvCases[GetParam()], out);
    // To int8/int16 the RESCALE runs in the convolution's epilogue; to int32 it is its own
    // dispatch (rescale_i48_i32).
    expect_same_on_both(g.graph, {g.input}, true, out == DType::Int32 ? 2 : 1);
  }
}

TEST(VulkanInt48Rescale, Scale32IsRefusedAtPrepare) {
  VKRT_REQUIRE_VULKAN();
  Int16ConvGraph g = int16_conv_graph(kInt16ConvCases[0], DType::Int16, /*scale32=*/true);
  std::vector<HostTensor> inputs{g.input}, outputs;
  Status s = run_on_vulkan(g.graph, inputs, outputs);
  EXPECT_EQ(s.code(), Error::InvalidProgram) << s.message();
  EXPECT_NE(s.message().find("scale32"), std::string::npos) << s.message();
}

INSTANTIATE_TEST_SUITE_P(Cases, VulkanInt16Conv, ::testing::Range(0, int(std::size(kInt16ConvCases))),
                         [](const auto& info) { return std::string(kInt16ConvCases[info.param].name); });

class VulkanInt16Matmul : public ::testing::TestWithParam<Shape> {};  // {N, H, C, W}

TEST_P(VulkanInt16Matmul, MatchesCpuExecutor) {
  VKRT_REQUIRE_VULKAN();
  const Shape& d = GetParam();
  std::mt19937 rng(kSeed + 3);
  HostTensor a(DType::Int16, {d[0], d[1], d[2]}), bm(DType::Int16, {d[0], d[2], d[3]});
  fill_random(a, rng, -32768, 32767);
  fill_random(bm, rng, -32768, 32767);
  a.as<int16_t>()[0] = -32768;  // (-32768)^2 = 2^30: the largest product
  bm.as<int16_t>()[0] = -32768;
  GraphBuilder b;
  TensorId ta = b.input(DType::Int16, a.shape);
  TensorId tb = b.input(DType::Int16, bm.shape);
  TensorId out = b.tensor(DType::Int48, {d[0], d[1], d[3]});
  b.op(OpKind::MATMUL, {ta, tb}, {out}, vgf::MatmulAttr{});
  b.output(out);
  expect_same_on_both(b.graph, {a, bm});
}

// A16 MATMUL -> RESCALE (per tensor, int16) -> CLAMP: one dispatch, the same bytes as the CPU
// executor and as the three unfused dispatches.
TEST(VulkanInt16Values, MatmulWithFusedRescaleAndClamp) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 9);
  HostTensor a(DType::Int16, {2, 6, 40}), bm(DType::Int16, {2, 40, 5});
  fill_random(a, rng, -32768, 32767);
  fill_random(bm, rng, -32768, 32767);
  GraphBuilder b;
  TensorId ta = b.input(DType::Int16, a.shape), tb = b.input(DType::Int16, bm.shape);
  TensorId acc = b.tensor(DType::Int48, {2, 6, 5}), q = b.tensor(DType::Int16, {2, 6, 5});
  TensorId out = b.tensor(DType::Int16, {2, 6, 5});
  b.op(OpKind::MATMUL, {ta, tb}, {acc}, vgf::MatmulAttr{});
  vgf::RescaleAttr r;
  r.scale32 = false;
  r.rounding_mode = vgf::RoundingMode::SingleRound;
  r.multiplier = {23170};
  r.shift = {30};
  r.output_zp = 0;
  b.op(OpKind::RESCALE, {acc}, {q}, r);
  vgf::ClampAttr clamp;
  clamp.min_int = -20000;
  clamp.max_int = 25000;
  b.op(OpKind::CLAMP, {q}, {out}, clamp);
  b.output(out);
  const auto steps = fuse_ops(b.graph, true);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].rescale, 1);
  EXPECT_EQ(steps[0].clamp, 2);
  expect_same_on_both(b.graph, {a, bm}, true, 1);
  BackendOptions unfused;
  unfused.set("VgfBackend.fusion", "0");
  unfused.set("VgfBackend.pipeline_cache_dir", "off");
  std::vector<HostTensor> inputs{a, bm}, cpu_out, gpu_out;
  ASSERT_TRUE(run_on_cpu(b.graph, inputs, cpu_out).is_ok());
  VulkanExecutorStats stats;
  ASSERT_TRUE(run_on_vulkan(b.graph, inputs, gpu_out, &unfused, &stats).is_ok());
  EXPECT_EQ(stats.dispatch_count, 3u);
  EXPECT_TRUE(bytes_equal(cpu_out[0], gpu_out[0]));
}

INSTANTIATE_TEST_SUITE_P(Shapes, VulkanInt16Matmul,
                         ::testing::Values(Shape{1, 5, 7, 3}, Shape{2, 1, 33, 1}, Shape{3, 4, 1, 9},
                                           Shape{1, 17, 300, 6}));

// The int48 clamp by hand (random sums never reach 2^47): 1x1 conv, one channel, w = 127,
// bias = 2^47 - 1; x = 32767 saturates at 2^47 - 1, x = -32768 gives 2^47 - 1 - 32768 * 127.
TEST(VulkanInt16Values, ConvSaturatesAtInt48Max) {
  VKRT_REQUIRE_VULKAN();
  HostTensor w(DType::Int8, {1, 1, 1, 1}), bias(DType::Int48, {1});
  w.as<int8_t>()[0] = 127;
  bias.as<int64_t>()[0] = (int64_t(1) << 47) - 1;
  vgf::ConvAttr a;
  a.acc_type = vgf::AccType::Int48;
  GraphBuilder b;
  TensorId in = b.input(DType::Int16, {1, 1, 2, 1});
  TensorId out = b.tensor(DType::Int48, {1, 1, 2, 1});
  b.op(OpKind::CONV2D, {in, b.constant(w), b.constant(bias)}, {out}, a);
  b.output(out);
  HostTensor x(DType::Int16, {1, 1, 2, 1});
  x.as<int16_t>()[0] = 32767;
  x.as<int16_t>()[1] = -32768;
  std::vector<HostTensor> inputs{x}, outputs;
  Status s = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(outputs[0].as<int64_t>()[0], (int64_t(1) << 47) - 1);
  EXPECT_EQ(outputs[0].as<int64_t>()[1], (int64_t(1) << 47) - 1 - 32768 * 127);
}

// ---------------------------------------------------------------- SCATTER

void check_scatter(DType t, int64_t N, int64_t K, int64_t C, int64_t W, bool duplicates) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 4);
  HostTensor values(t, {N, K, C}), indices(DType::Int32, {N, W}), input(t, {N, W, C});
  fill_random(values, rng, type_lo(t), type_hi(t));
  fill_random(input, rng, type_lo(t), type_hi(t));
  for (int64_t n = 0; n < N; ++n) {
    std::vector<int32_t> rows(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k) rows[size_t(k)] = int32_t(k);
    std::shuffle(rows.begin(), rows.end(), rng);
    for (int64_t w = 0; w < W; ++w) {
      indices.as<int32_t>()[n * W + w] = duplicates ? rows[size_t(w % 2)] : rows[size_t(w)];
    }
  }
  HostTensor expected(t, {N, K, C});
  Status s = tosa::scatter(values.ref(), indices.ref(), input.ref(), expected.ref());
  ASSERT_TRUE(s.is_ok()) << s.message();
  GraphBuilder b;
  TensorId tv = b.input(t, values.shape);
  TensorId ti = b.input(DType::Int32, indices.shape);
  TensorId tx = b.input(t, input.shape);
  TensorId out = b.tensor(t, {N, K, C});
  b.op(OpKind::SCATTER, {tv, ti, tx}, {out});
  b.output(out);
  std::vector<HostTensor> inputs{values, indices, input}, outputs, cpu_outputs;
  s = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_TRUE(bytes_equal(expected, outputs[0]));
  s = run_on_cpu(b.graph, inputs, cpu_outputs);  // the CPU executor runs SCATTER too
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_TRUE(bytes_equal(expected, cpu_outputs[0]));
}

TEST(VulkanScatter, CpuExecutorRefusesAnIndexOutsideK) {
  HostTensor values(DType::Int8, {1, 4, 2}), indices(DType::Int32, {1, 2}), input(DType::Int8, {1, 2, 2});
  indices.as<int32_t>()[0] = 1;
  indices.as<int32_t>()[1] = 4;  // K = 4
  GraphBuilder b;
  TensorId tv = b.input(DType::Int8, values.shape);
  TensorId ti = b.input(DType::Int32, indices.shape);
  TensorId tx = b.input(DType::Int8, input.shape);
  TensorId out = b.tensor(DType::Int8, {1, 4, 2});
  b.op(OpKind::SCATTER, {tv, ti, tx}, {out});
  b.output(out);
  std::vector<HostTensor> inputs{values, indices, input}, outputs;
  Status s = run_on_cpu(b.graph, inputs, outputs);
  EXPECT_EQ(s.code(), Error::InvalidArgument) << s.message();
}

TEST(VulkanScatter, Int8) { check_scatter(DType::Int8, 2, 9, 5, 4, false); }
TEST(VulkanScatter, Int16EveryRowReplaced) { check_scatter(DType::Int16, 3, 6, 3, 6, false); }
TEST(VulkanScatter, Int32OneChannel) { check_scatter(DType::Int32, 1, 40, 1, 17, false); }
TEST(VulkanScatter, Fp32) { check_scatter(DType::Fp32, 2, 5, 7, 2, false); }
// Repeated indices break a TOSA REQUIRE; the GPU still gives the CPU kernel's result (last wins).
TEST(VulkanScatter, RepeatedIndicesLastWins) { check_scatter(DType::Int8, 2, 8, 3, 5, true); }

// ---------------------------------------------------------------- CAST with fp16

// fp32 values that exercise fp16 rounding: ties to even, subnormals, overflow, specials.
std::vector<float> fp16_probe_values(std::mt19937& rng) {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e9f,
                          INFINITY, -INFINITY, NAN, 5.9604645e-8f /* 2^-24 */, 2.9802322e-8f /* 2^-25, tie */,
                          4.4703484e-8f /* 1.5 * 2^-24, tie up */, 6.1035156e-5f /* 2^-14 */, 6.0975552e-5f,
                          1.0009766f /* 1 + 2^-10 */, 1.00048828125f /* tie to even: 1 */,
                          1.00146484375f /* tie to even: up */, 1e-30f, -3.3333333f, 2049.0f, 0.1f};
  std::uniform_real_distribution<float> wide(-70000.0f, 70000.0f);
  std::uniform_real_distribution<float> small(-1e-4f, 1e-4f);
  for (int i = 0; i < 200; ++i) v.push_back(wide(rng));
  for (int i = 0; i < 200; ++i) v.push_back(small(rng));
  std::uniform_int_distribution<uint32_t> bits;  // arbitrary fp32 bit patterns
  for (int i = 0; i < 200; ++i) {
    uint32_t b = bits(rng);
    float f;
    std::memcpy(&f, &b, 4);
    v.push_back(f);
  }
  return v;
}

vgf::Graph cast_graph(DType from, DType to, int64_t count) {
  GraphBuilder b;
  TensorId in = b.input(from, {count});
  TensorId out = b.tensor(to, {count});
  b.op(OpKind::CAST, {in}, {out});
  b.output(out);
  return b.graph;
}

TEST(VulkanCastHalf, Fp32ToFp16RoundsLikeCpu) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(kSeed + 5);
  std::vector<float> v = fp16_probe_values(rng);
  HostTensor x(DType::Fp32, {int64_t(v.size())});
  std::memcpy(x.bytes.data(), v.data(), v.size() * 4);
  expect_same_on_both(cast_graph(DType::Fp32, DType::Fp16, x.count()), {x});
}

// Every one of the 65536 fp16 bit patterns to fp32: exact values (NaNs as NaN: x86 quiets
// signalling NaNs on the CPU side, so NaN payloads are not compared).
TEST(VulkanCastHalf, EveryFp16ToFp32) {
  VKRT_REQUIRE_VULKAN();
  HostTensor x(DType::Fp16, {65536});
  for (uint32_t i = 0; i < 65536; ++i) x.as<uint16_t>()[i] = uint16_t(i);
  vgf::Graph g = cast_graph(DType::Fp16, DType::Fp32, 65536);
  std::vector<HostTensor> inputs{x}, outputs;
  Status s = run_on_vulkan(g, inputs, outputs);
  ASSERT_TRUE(s.is_ok()) << s.message();
  for (uint32_t i = 0; i < 65536; ++i) {
    const float expected = vkrt::half_to_float(uint16_t(i));
    const float got = outputs[0].as<float>()[i];
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << "fp16 0x" << std::hex << i;
    } else {
      uint32_t eb, gb;
      std::memcpy(&eb, &expected, 4);
      std::memcpy(&gb, &got, 4);
      ASSERT_EQ(eb, gb) << "fp16 0x" << std::hex << i;
    }
  }
}

class VulkanCastHalfInt : public ::testing::TestWithParam<DType> {};

// Integers (and bool) to fp16 and back: int32 beyond fp16's range overflows to infinity, the
// way back saturates; fp16 NaN -> 0.
TEST_P(VulkanCastHalfInt, RoundTripMatchesCpu) {
  VKRT_REQUIRE_VULKAN();
  const DType t = GetParam();
  std::mt19937 rng(kSeed + 6);
  HostTensor x(t, {333});
  const double lo = t == DType::Bool ? 0 : t == DType::Int32 ? -100000 : type_lo(t);
  const double hi = t == DType::Bool ? 1 : t == DType::Int32 ? 100000 : type_hi(t);
  fill_random(x, rng, lo, hi);
  if (t == DType::Int32) {
    x.as<int32_t>()[0] = INT32_MIN;
    x.as<int32_t>()[1] = INT32_MAX;
    x.as<int32_t>()[2] = 2049;  // tie: rounds to 2048
    x.as<int32_t>()[3] = 2051;  // tie: rounds to 2052
  }
  expect_same_on_both(cast_graph(t, DType::Fp16, x.count()), {x});
  HostTensor h(DType::Fp16, {1024});
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFF);
  for (int64_t i = 0; i < h.count(); ++i) h.as<uint16_t>()[i] = uint16_t(bits(rng));
  const uint16_t specials[] = {0x7C00, 0xFC00, 0x7E00, 0x0000, 0x8000, 0x3800 /* 0.5 */, 0x3E00 /* 1.5 */,
                               0x4100 /* 2.5 */, 0xC100, 0x57F8 /* 127.5 */, 0xD800 /* -128 */, 0x7BFF};
  std::memcpy(h.bytes.data(), specials, sizeof(specials));
  expect_same_on_both(cast_graph(DType::Fp16, t, h.count()), {h});
}

// fp32 -> int at the rounding edge of the range (cast.comp): 127.5 rounds to 128 and must
// saturate to 127 like the CPU kernel, not wrap to -128.
TEST(VulkanCastFloat, RoundingAtTheRangeEdgeSaturates) {
  VKRT_REQUIRE_VULKAN();
  const float values[] = {127.5f, 127.49f, -128.5f, -128.49f, 32767.5f, -32768.5f, 2147483520.0f,
                          2147483648.0f, -2147483648.0f, 0.5f, 1.5f, -2.5f, NAN, INFINITY, -INFINITY};
  HostTensor x(DType::Fp32, {int64_t(std::size(values))});
  std::memcpy(x.bytes.data(), values, sizeof(values));
  for (DType t : {DType::Int8, DType::Int16, DType::Int32}) {
    SCOPED_TRACE(vgf::dtype_name(t));
    expect_same_on_both(cast_graph(DType::Fp32, t, x.count()), {x});
  }
}

INSTANTIATE_TEST_SUITE_P(Types, VulkanCastHalfInt,
                         ::testing::Values(DType::Bool, DType::Int8, DType::Int16, DType::Int32),
                         [](const auto& info) { return std::string(vgf::dtype_name(info.param)); });

// ---------------------------------------------------------------- FFT2D, RFFT2D

// An FFT2D / RFFT2D graph over [N,H,W] fp32 random inputs in [-1, 1] on both executors. The CPU
// kernel sums in double; fft2d.comp in fp32, its error bounded by (H + W + 2) * 2^-24 of the
// image's sum of |input| (each of the H row sums and the final sum adds one rounding per term;
// twiddles are within 2^-24 of exact) plus 2^-24 relative.
void check_fft(bool real, bool inverse, Shape shape) {
  std::mt19937 rng(kSeed);
  const int64_t N = shape[0], H = shape[1], W = shape[2], out_w = real ? W / 2 + 1 : W;
  std::vector<HostTensor> inputs;
  GraphBuilder b;
  std::vector<TensorId> ins;
  for (int k = 0; k < (real ? 1 : 2); ++k) {
    HostTensor x(DType::Fp32, shape);
    fill_random(x, rng, -1.0, 1.0);
    inputs.push_back(x);
    ins.push_back(b.input(DType::Fp32, shape));
  }
  const TensorId re = b.tensor(DType::Fp32, {N, H, out_w}), im = b.tensor(DType::Fp32, {N, H, out_w});
  vgf::FftAttr attr;
  attr.inverse = inverse;
  b.op(real ? OpKind::RFFT2D : OpKind::FFT2D, ins, {re, im}, attr);
  b.output(re);
  b.output(im);
  std::vector<HostTensor> cpu_out, gpu_out;
  Status s = run_on_cpu(b.graph, inputs, cpu_out);
  ASSERT_TRUE(s.is_ok()) << "cpu: " << s.message();
  s = run_on_vulkan(b.graph, inputs, gpu_out);
  ASSERT_TRUE(s.is_ok()) << "vulkan: " << s.message();
  ASSERT_EQ(gpu_out.size(), 2u);
  for (int64_t n = 0; n < N; ++n) {
    double magnitude = 0;
    for (const HostTensor& x : inputs) {
      for (int64_t i = n * H * W; i < (n + 1) * H * W; ++i) magnitude += std::fabs(x.as<float>()[i]);
    }
    const double bound = double(H + W + 2) * std::ldexp(magnitude, -24);
    for (size_t part = 0; part < 2; ++part) {
      for (int64_t i = n * H * out_w; i < (n + 1) * H * out_w; ++i) {
        const double e = cpu_out[part].as<float>()[i], a = gpu_out[part].as<float>()[i];
        ASSERT_LE(std::fabs(a - e), bound + std::ldexp(std::fabs(e), -24))
            << (part ? "imaginary" : "real") << " output element " << i;
      }
    }
  }
}

TEST(VulkanFft, Fft2dMatchesCpuExecutor) { check_fft(false, false, {2, 8, 16}); }
TEST(VulkanFft, InverseFft2dMatchesCpuExecutor) { check_fft(false, true, {1, 16, 4}); }
TEST(VulkanFft, Rfft2dMatchesCpuExecutor) { check_fft(true, false, {3, 4, 32}); }

// Hand-computed: the FFT2D of a unit impulse at (0, 0) is exactly 1 + 0i everywhere; that of a
// constant 1 is H*W = 32 at (0, 0) (a sum of ones, exact) and 0 elsewhere (sums of twiddles that
// cancel, within fp32 rounding of the 32 terms).
TEST(VulkanFft, ImpulseAndConstantSpectraAreExact) {
  VKRT_REQUIRE_VULKAN();
  const Shape shape = {1, 4, 8};
  HostTensor impulse(DType::Fp32, shape), zero(DType::Fp32, shape), ones(DType::Fp32, shape);
  for (int64_t i = 0; i < ones.count(); ++i) ones.as<float>()[i] = 1.0f;
  impulse.as<float>()[0] = 1.0f;
  GraphBuilder b;
  const TensorId in_re = b.input(DType::Fp32, shape), in_im = b.input(DType::Fp32, shape);
  const TensorId re = b.tensor(DType::Fp32, shape), im = b.tensor(DType::Fp32, shape);
  b.op(OpKind::FFT2D, {in_re, in_im}, {re, im}, vgf::FftAttr{});
  b.output(re);
  b.output(im);
  for (const HostTensor* x : {&impulse, &ones}) {
    std::vector<HostTensor> inputs = {*x, zero}, out;
    Status s = run_on_vulkan(b.graph, inputs, out);
    ASSERT_TRUE(s.is_ok()) << s.message();
    for (int64_t i = 0; i < out[0].count(); ++i) {
      if (x == &impulse) {
        EXPECT_EQ(out[0].as<float>()[i], 1.0f) << "real " << i;
        EXPECT_EQ(out[1].as<float>()[i], 0.0f) << "imaginary " << i;
      } else {
        const float want = i == 0 ? 32.0f : 0.0f;
        EXPECT_NEAR(out[0].as<float>()[i], want, i == 0 ? 0.0f : 1e-5f) << "real " << i;
        EXPECT_NEAR(out[1].as<float>()[i], 0.0f, 1e-5f) << "imaginary " << i;
      }
    }
  }
}

// ---------------------------------------------------------------- lowering without a device

// Lowers every step of a static graph for a device with `features` (no Vulkan needed).
Status lower_graph(const vgf::Graph& g, const DeviceFeatures& features, std::vector<PendingDispatch>* out) {
  std::vector<vgf::Shape> shapes;
  for (const auto& t : g.tensors) shapes.push_back(t.shape);
  auto steps = fuse_ops(g, true);
  auto alias = alias_roots(g);
  VKRT_ASSIGN_OR_RETURN(MemoryPlan plan, plan_memory(g, shapes, steps, alias, 64));
  LoweringContext ctx(g, shapes, alias, plan, features, 64);
  for (const auto& step : steps) VKRT_RETURN_IF_ERROR(lower_step(step, ctx, out));
  return Status::ok();
}

vgf::Graph int16_conv_graph(OpKind kind) {
  GraphBuilder b;
  HostTensor w(DType::Int8, kind == OpKind::DEPTHWISE_CONV2D ? Shape{1, 1, 2, 1} : Shape{3, 1, 1, 2});
  HostTensor bias(DType::Int48, {kind == OpKind::DEPTHWISE_CONV2D ? 2 : 3});
  if (kind == OpKind::MATMUL) {
    TensorId rhs = b.input(DType::Int16, {1, 2, 3});
    TensorId lhs = b.input(DType::Int16, {1, 4, 2});
    TensorId out = b.tensor(DType::Int48, {1, 4, 3});
    b.op(OpKind::MATMUL, {lhs, rhs}, {out}, vgf::MatmulAttr{});
    b.output(out);
    return b.graph;
  }
  TensorId in = b.input(DType::Int16, {1, 2, 2, 2});
  TensorId out = b.tensor(DType::Int48, {1, 2, 2, kind == OpKind::DEPTHWISE_CONV2D ? 2 : 3});
  if (kind == OpKind::TRANSPOSE_CONV2D) {
    vgf::TransposeConvAttr a;
    a.acc_type = vgf::AccType::Int48;
    b.op(kind, {in, b.constant(w), b.constant(bias)}, {out}, a);
  } else {
    vgf::ConvAttr a;
    a.acc_type = vgf::AccType::Int48;
    b.op(kind, {in, b.constant(w), b.constant(bias)}, {out}, a);
  }
  b.output(out);
  return b.graph;
}

// Without shaderInt64 the int16 convolutions are refused with NotSupported (which makes
// VgfBackend's auto mode use the CPU executor); with it they get the int48 variants.
TEST(VulkanLowering, Int16ConvolutionsNeedShaderInt64) {
  const std::pair<OpKind, const char*> cases[] = {{OpKind::CONV2D, "conv2d_i16_i48"},
                                                   {OpKind::DEPTHWISE_CONV2D, "depthwise_conv2d_i16_i48"},
                                                   {OpKind::TRANSPOSE_CONV2D, "transpose_conv2d_i16_i48"},
                                                   {OpKind::MATMUL, "matmul_i16_i48"}};
  for (const auto& [kind, variant] : cases) {
    SCOPED_TRACE(vgf::op_name(kind));
    vgf::Graph g = int16_conv_graph(kind);
    ASSERT_TRUE(vgf::validate_graph(g).is_ok());
    DeviceFeatures features;
    features.shader_int64 = false;
    std::vector<PendingDispatch> dispatches;
    Status s = lower_graph(g, features, &dispatches);
    EXPECT_EQ(s.code(), Error::NotSupported);
    EXPECT_NE(s.message().find("shaderInt64"), std::string::npos) << s.message();
    features.shader_int64 = true;
    dispatches.clear();
    s = lower_graph(g, features, &dispatches);
    ASSERT_TRUE(s.is_ok()) << s.message();
    ASSERT_EQ(dispatches.size(), 1u);
    EXPECT_EQ(dispatches[0].shader, variant);
  }
}

// A RESIZE whose attributes break the TOSA limits is refused by validate_graph (its descriptor's
// ERROR_IF rules), which every reader and executor runs before lowering: no shader can divide by
// zero.
TEST(VulkanLowering, ResizeWithZeroScaleIsInvalidProgram) {
  GraphBuilder b;
  vgf::ResizeAttr a;
  a.scale = {0, 1, 2, 1};
  TensorId in = b.input(DType::Int8, {1, 2, 2, 1});
  TensorId out = b.tensor(DType::Int8, {1, 2, 3, 1});
  b.op(OpKind::RESIZE, {in}, {out}, a);
  b.output(out);
  Status s = vgf::validate_graph(b.graph);
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("op 0 (RESIZE): scale_y 0/1 must be positive"), std::string::npos) << s.message();
  VKRT_REQUIRE_VULKAN();
  std::vector<HostTensor> inputs = {HostTensor(DType::Int8, {1, 2, 2, 1})}, outputs;
  s = run_on_vulkan(b.graph, inputs, outputs);
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("op 0 (RESIZE): scale_y 0/1 must be positive"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vkrt::vulkan::testing
