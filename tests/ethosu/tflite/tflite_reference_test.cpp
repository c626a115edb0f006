// The TFLite reference interpreter: the arithmetic primitives against values computed by hand, the
// activations against float math, the data-movement operators of the conformance models against
// hand-derived layouts, and the compute operators against the project's CMSIS-NN-exact cortex_m
// kernels (CMSIS-NN is bit-exact with TFLite's reference kernels) on the conformance models' own
// weights and quantisation and on random geometries.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "cortex_m/avg_pool2d.h"
#include "cortex_m/conv2d.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/elementwise.h"
#include "cortex_m/linear.h"
#include "cortex_m/max_pool2d.h"
#include "cortex_m/quantized_add.h"
#include "cortex_m/quantized_mul.h"
#include "cortex_m/softmax.h"
#include "ethosu/tflite/tflite_model.h"
#include "tests/ethosu/conformance_models.h"
#include "tflite_reference.h"
#include "tflite_reference_ops.h"

namespace vkrt::ethosu::tflite {
namespace {

using namespace ref;  // NOLINT

constexpr const char* kModelsDir = "ethos-u/tflite/models";

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

std::vector<std::vector<uint8_t>> random_inputs(const Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<uint8_t>> inputs;
  for (int32_t t : m.inputs) inputs.push_back(random_bytes(m.tensors[size_t(t)].byte_size(), rng));
  return inputs;
}

std::vector<int8_t> as_s8(const std::vector<uint8_t>& v) { return std::vector<int8_t>(v.begin(), v.end()); }
const int8_t* s8(const std::vector<uint8_t>& v) { return reinterpret_cast<const int8_t*>(v.data()); }
const int8_t* s8(std::span<const uint8_t> v) { return reinterpret_cast<const int8_t*>(v.data()); }
const int32_t* s32(std::span<const uint8_t> v) { return reinterpret_cast<const int32_t*>(v.data()); }

// Per-channel multipliers as TFLite's PopulateConvolutionQuantizationParams computes them.
void conv_multipliers(const Tensor& in, const Tensor& w, const Tensor& out, std::vector<int32_t>* mult,
                      std::vector<int32_t>* shift) {
  for (float ws : w.scale) {
    Multiplier m = quantize_multiplier(double(in.scale[0]) * double(ws) / double(out.scale[0]));
    mult->push_back(m.multiplier);
    shift->push_back(m.shift);
  }
}

struct Loaded {
  Model model;
  bool ok = false;
};

Loaded load(const std::string& dir, const char* name) {
  Loaded l;
  auto r = load_tflite_file(dir + "/" + name + ".tflite");
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return l;
  l.model = std::move(r).value();
  l.ok = true;
  return l;
}

std::vector<std::vector<uint8_t>> run_ok(const Model& m, const std::vector<std::vector<uint8_t>>& inputs) {
  auto r = run_tflite_reference(m, inputs);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<std::vector<uint8_t>>{};
}

// ---- arithmetic primitives, by hand --------------------------------------------------------------

TEST(TfliteReference, QuantizeMultiplierByHand) {
  // 0.5 = 0.5 · 2^0 → 2^30, shift 0; 1.0 = 0.5 · 2^1 → 2^30, shift 1; 0.75 → 0.75 · 2^31 = 1610612736.
  EXPECT_EQ(quantize_multiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(0.5).shift, 0);
  EXPECT_EQ(quantize_multiplier(1.0).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(1.0).shift, 1);
  EXPECT_EQ(quantize_multiplier(0.75).multiplier, 1610612736);
  EXPECT_EQ(quantize_multiplier(3.0).shift, 2);  // 3 = 0.75 · 2^2
  // Ties round away from zero (TfLiteRound), not to even: (2^30 + 0.5) / 2^31 → 2^30 + 1.
  EXPECT_EQ(quantize_multiplier((1073741824.0 + 0.5) / 2147483648.0).multiplier, 1073741825);
  // Just below 1: the mantissa rounds up to 2^31 and is renormalised to 2^30 with shift + 1.
  EXPECT_EQ(quantize_multiplier(1.0 - 1e-12).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(1.0 - 1e-12).shift, 1);
  // Below 2^-32 the shift would be < −31: flushed to zero.
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -40)).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -40)).shift, 0);
  EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
}

TEST(TfliteReference, MultiplyByQuantizedMultiplierByHand) {
  const int32_t half = 1 << 30;  // 0.5 with shift 0
  // 3 · 0.5 = 1.5: the doubling high multiply rounds halves up → 2; −1.5 → −1.
  EXPECT_EQ(multiply_by_quantized_multiplier(3, half, 0), 2);
  EXPECT_EQ(multiply_by_quantized_multiplier(-3, half, 0), -1);
  // 6 · 0.5 · 2^-1 = 1.5: the high multiply is exact (3), the rounding shift rounds away from zero.
  EXPECT_EQ(multiply_by_quantized_multiplier(6, half, -1), 2);
  EXPECT_EQ(multiply_by_quantized_multiplier(-6, half, -1), -2);
  // Left shifts: 5 · 0.5 · 2^3 = 20.
  EXPECT_EQ(multiply_by_quantized_multiplier(5, half, 3), 20);
  // Saturation of the high multiply: INT32_MIN · INT32_MIN.
  EXPECT_EQ(multiply_by_quantized_multiplier(INT32_MIN, INT32_MIN, 0), INT32_MAX);
}

TEST(TfliteReference, ActivationRangeAndPaddingByHand) {
  // scale 0.05, zp −128: 0 → −128, 6 → −128 + 120 = −8, −1 → −148 (clamped), 1 → −108.
  Range r6 = activation_range(Activation::Relu6, 0.05f, -128, -128, 127);
  EXPECT_EQ(r6.min, -128);
  EXPECT_EQ(r6.max, -8);
  Range r1 = activation_range(Activation::ReluN1To1, 0.05f, -128, -128, 127);
  EXPECT_EQ(r1.min, -128);
  EXPECT_EQ(r1.max, -108);
  Range none = activation_range(Activation::None, 0.05f, -128, -128, 127);
  EXPECT_EQ(none.min, -128);
  EXPECT_EQ(none.max, 127);
  // SAME, 8 wide, 3 taps, stride 2: out = ceil(8 / 2) = 4; total padding (4−1)·2 + 3 − 8 = 1 → 0 before.
  EXPECT_EQ(compute_out_size(Padding::Same, 8, 3, 2, 1), 4);
  EXPECT_EQ(compute_padding(2, 1, 8, 3, 4), 0);
  // SAME, 7 wide, 3 taps, stride 1 → 7 out, padding 1; VALID → 5 out. Dilation 2: effective 5 taps.
  EXPECT_EQ(compute_out_size(Padding::Same, 7, 3, 1, 1), 7);
  EXPECT_EQ(compute_padding(1, 1, 7, 3, 7), 1);
  EXPECT_EQ(compute_out_size(Padding::Valid, 7, 3, 1, 1), 5);
  EXPECT_EQ(compute_out_size(Padding::Valid, 7, 3, 1, 2), 3);
}

TEST(TfliteReference, AddSubByHand) {
  // All scales 1/128, zero points 0: inputs rescale by 0.5 after << 20, the output by 2^-19.
  AddParams p;
  ASSERT_TRUE(prepare_add(1.0f / 128, 0, 1.0f / 128, 0, 1.0f / 128, 0, {-128, 127}, &p));
  EXPECT_EQ(p.input1.multiplier, 1 << 30);
  EXPECT_EQ(p.input1.shift, 0);
  EXPECT_EQ(p.output.shift, -18);  // 2^-19 = 0.5 · 2^-18
  EXPECT_EQ(add_sub_value(p, 3, 4, false), 7);
  EXPECT_EQ(add_sub_value(p, 3, 4, true), -1);
  EXPECT_EQ(add_sub_value(p, 100, 100, false), 127);  // saturates
  // Output scale twice the inputs': (3 + 4) / 2 = 3.5 → 4 (away from zero); (−3 − 4) / 2 → −4.
  ASSERT_TRUE(prepare_add(1.0f / 128, 0, 1.0f / 128, 0, 2.0f / 128, 0, {-128, 127}, &p));
  EXPECT_EQ(add_sub_value(p, 3, 4, false), 4);
  EXPECT_EQ(add_sub_value(p, -3, -4, false), -4);
  // Zero points: x1 = 13 with zp 10 is 3, x2 = −1 with zp −5 is 4, output zp 20 → 27.
  ASSERT_TRUE(prepare_add(1.0f / 128, 10, 1.0f / 128, -5, 1.0f / 128, 20, {-128, 127}, &p));
  EXPECT_EQ(add_sub_value(p, 13, -1, false), 27);
}

TEST(TfliteReference, LeakyReluByHand) {
  // Scales 0.5 → identity multiplier 1.0; alpha 0.25 → multiplier 0.5, shift −1.
  LeakyReluParams p = prepare_leaky_relu(0.5f, 0, 0.5f, 0, 0.25f);
  EXPECT_EQ(leaky_relu<int8_t>(p, 8), 8);
  EXPECT_EQ(leaky_relu<int8_t>(p, -8), -2);
  EXPECT_EQ(leaky_relu<int8_t>(p, -6), -2);  // −1.5 rounds away from zero
  EXPECT_EQ(leaky_relu<int8_t>(p, -2), -1);  // −0.5 → −1
  EXPECT_EQ(leaky_relu<int8_t>(p, 127), 127);
  // Output zero point 10, input zero point −10: x = −14 is −4 → −1 → 9.
  p = prepare_leaky_relu(0.5f, -10, 0.5f, 10, 0.25f);
  EXPECT_EQ(leaky_relu<int8_t>(p, -14), 9);
  EXPECT_EQ(leaky_relu<int8_t>(p, 117), 127);  // 127 + 10 saturates
}

TEST(TfliteReference, FixedPointExpAndReciprocal) {
  EXPECT_EQ(exp_on_negative_values(0), INT32_MAX);
  // exp(−1) · 2^31 = 790015084.0; gemmlowp's polynomial and barrel shifter are accurate to ~1e-7
  // relative (this is exp(−1/4) from the polynomial times the exp(−1/4) and exp(−1/2) constants).
  EXPECT_NEAR(exp_on_negative_values(-(1 << 26)), 790015084, 400);
  for (double x = -31.9; x < 0; x += 0.37) {
    const int32_t q = exp_on_negative_values(int32_t(std::lround(x * (1 << 26))));
    EXPECT_NEAR(q / 2147483648.0, std::exp(std::lround(x * (1 << 26)) / double(1 << 26)), 3e-8) << x;
  }
  // 1 / (1 + x) for x in [0, 1): 0 → 1, 0.5 → 2/3, 0.25 → 0.8.
  EXPECT_NEAR(one_over_one_plus_x_for_x_in_0_1(0) / 2147483648.0, 1.0, 5e-9);
  EXPECT_NEAR(one_over_one_plus_x_for_x_in_0_1(1 << 30) / 2147483648.0, 2.0 / 3, 5e-9);
  EXPECT_NEAR(one_over_one_plus_x_for_x_in_0_1(1 << 29) / 2147483648.0, 0.8, 5e-9);
}

TEST(TfliteReference, SoftmaxByHand) {
  const SoftmaxParams p = prepare_softmax(1.0, 0.1);
  // One element: probability 1 → 256 − 128 = 128, saturated to 127.
  int8_t one_in[1] = {5}, one_out[1] = {0};
  ASSERT_TRUE(softmax<int8_t>(p, 1, 1, one_in, one_out));
  EXPECT_EQ(one_out[0], 127);
  // Four equal elements: 0.25 · 256 = 64 → −64.
  int8_t eq_in[4] = {-3, -3, -3, -3}, eq_out[4] = {};
  ASSERT_TRUE(softmax<int8_t>(p, 1, 4, eq_in, eq_out));
  for (int8_t v : eq_out) EXPECT_EQ(v, -64);
  // Two elements 10 apart at scale 0.1 (real difference 1): e/(1+e) = 0.731 → 187 − 128 = 59,
  // 1/(1+e) = 0.269 → 69 − 128 = −59.
  int8_t two_in[2] = {20, 10}, two_out[2] = {};
  ASSERT_TRUE(softmax<int8_t>(p, 1, 2, two_in, two_out));
  EXPECT_EQ(two_out[0], 59);
  EXPECT_EQ(two_out[1], -59);
  // uint8: the same probabilities with zero point 0.
  uint8_t u_in[2] = {200, 190}, u_out[2] = {};
  ASSERT_TRUE(softmax<uint8_t>(p, 1, 2, u_in, u_out));
  EXPECT_EQ(u_out[0], 187);
  EXPECT_EQ(u_out[1], 69);
}

TEST(TfliteReference, SoftmaxMatchesCortexMOnRandomRows) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int depth = 1 + int(rng() % 40), rows = 1 + int(rng() % 5);
    const double input_scale = std::ldexp(1.0 + (rng() % 1000) / 1000.0, -int(rng() % 8) - 2);
    const double beta = trial % 3 == 0 ? 1.0 : 0.5 + (rng() % 100) / 50.0;
    const SoftmaxParams p = prepare_softmax(beta, input_scale);
    ASSERT_GE(p.input_left_shift, 0);
    std::vector<uint8_t> in = random_bytes(size_t(rows) * depth, rng);
    std::vector<int8_t> mine(in.size()), cmsis(in.size());
    ASSERT_TRUE(softmax<int8_t>(p, rows, depth, s8(in), mine.data()));
    cortex_m::SoftmaxParams cp;
    cp.rows = rows;
    cp.row_size = depth;
    cp.input_multiplier = p.input_multiplier;
    cp.input_left_shift = p.input_left_shift;
    cp.diff_min = p.diff_min;
    cortex_m::softmax_s8(cp, s8(in), cmsis.data());
    EXPECT_EQ(mine, cmsis) << "depth " << depth << " scale " << input_scale << " beta " << beta;
  }
}

// ---- activations against float math -------------------------------------------------------------

TEST(TfliteReference, LutActivationsFollowFloatMath) {
  // Logistic, input scale 0.1, zp 0, output 1/256, zp −128: 0 → 0.5 → 0; 127 → ≈1 → 127 (clamped);
  // −128 → ≈0 → −128; 10 (real 1.0) → 0.731·256 = 187.1 → 59.
  auto sig = make_lut<int8_t>(LutFunction::Logistic, 0.1f, 0, 1.0f / 256, -128);
  EXPECT_EQ(sig[uint8_t(int8_t(0))], 0);
  EXPECT_EQ(sig[uint8_t(int8_t(127))], 127);
  EXPECT_EQ(sig[uint8_t(int8_t(-128))], -128);
  EXPECT_EQ(sig[uint8_t(int8_t(10))], 59);
  // Tanh with symmetric quantisation is odd: table[−v] = −table[v].
  auto th = make_lut<int8_t>(LutFunction::Tanh, 0.02f, 0, 1.0f / 128, 0);
  for (int v = -127; v <= 127; ++v)
    EXPECT_EQ(int(th[uint8_t(int8_t(v))]), -int(th[uint8_t(int8_t(-v))])) << v;
  // Every entry within half a step of double-precision math (ties aside: ≤ 1).
  for (int v = -128; v <= 127; ++v) {
    const double expect = std::round(std::tanh(0.02 * v) * 128);
    EXPECT_NEAR(int(th[uint8_t(int8_t(v))]), std::clamp(expect, -128.0, 127.0), 1) << v;
  }
  // uint8 table: indexed by the raw byte.
  auto su = make_lut<uint8_t>(LutFunction::Logistic, 0.1f, 128, 1.0f / 256, 0);
  EXPECT_EQ(su[128], 128);
  EXPECT_EQ(su[255], 255);
}

TEST(TfliteReference, HardSwishFollowsFloatMath) {
  for (auto [in_scale, in_zp, out_scale, out_zp] :
       {std::tuple{0.017607f, 14, 0.007932f, -81}, std::tuple{0.05f, 0, 0.03f, -100}, std::tuple{0.1f, -20, 0.1f, 5}}) {
    HardSwishParams p;
    ASSERT_TRUE(prepare_hard_swish(in_scale, in_zp, out_scale, out_zp, &p));
    int exact = 0;
    for (int v = -128; v <= 127; ++v) {
      const double x = in_scale * (v - in_zp);
      const double y = x * std::clamp(x + 3, 0.0, 6.0) / 6;
      const double expect = std::clamp(std::round(y / out_scale) + out_zp, -128.0, 127.0);
      const int got = hard_swish<int8_t>(p, int8_t(v));
      EXPECT_NEAR(got, expect, 1) << v;
      exact += got == int(expect);
    }
    EXPECT_GE(exact, 200);  // 16-bit fixed point: off by one only near ties
    EXPECT_EQ(hard_swish<int8_t>(p, int8_t(in_zp)), out_zp);  // hardswish(0) = 0
  }
}

// ---- the conformance models ---------------------------------------------------------------------

TEST(TfliteReference, EveryConformanceModelRuns) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  for (const char* name : testing::kAllModels) {
    SCOPED_TRACE(name);
    Loaded l = load(dir, name);
    ASSERT_TRUE(l.ok);
    auto inputs = random_inputs(l.model, 1);
    auto outs = run_ok(l.model, inputs);
    ASSERT_EQ(outs.size(), l.model.outputs.size());
    for (size_t i = 0; i < outs.size(); ++i)
      EXPECT_EQ(outs[i].size(), l.model.tensors[size_t(l.model.outputs[i])].byte_size());
    EXPECT_EQ(run_ok(l.model, inputs), outs);  // deterministic
  }
}

TEST(TfliteReference, RejectsWhatItCannotRun) {
  VKRT_REQUIRE_CONFORMANCE(dir, "ethos-u/tflite/vela-u55-128");
  Loaded l = load(dir, "test_conv2d_int8_vela");
  ASSERT_TRUE(l.ok);
  auto r = run_tflite_reference(l.model, random_inputs(l.model, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::OperatorMissing);
  EXPECT_NE(r.status().message().find("operator 0 (CUSTOM 'ethos-u')"), std::string::npos) << r.status().message();
  // Wrong input count and size.
  auto none = run_tflite_reference(l.model, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), Error::InvalidArgument);
  auto small = run_tflite_reference(l.model, {std::vector<uint8_t>(3)});
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("has 3 bytes, the tensor needs 192"), std::string::npos)
      << small.status().message();
}

std::vector<uint8_t> iota_bytes(size_t n, int start = 0) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(start + int(i));
  return v;
}

TEST(TfliteReference, DataMovementModelsByHand) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  {  // PAD [1,2,2,2] by H (1,1), W (2,2) with the zero point 14 → [1,4,6,2].
    Loaded l = load(dir, "test_pad_int8");
    ASSERT_TRUE(l.ok);
    auto out = run_ok(l.model, {iota_bytes(8, 1)})[0];
    ASSERT_EQ(out.size(), 48u);
    auto at = [&](int y, int x, int c) { return out[size_t((y * 6 + x) * 2 + c)]; };
    EXPECT_EQ(at(0, 0, 0), 14);
    EXPECT_EQ(at(1, 1, 1), 14);
    EXPECT_EQ(at(1, 2, 0), 1);  // input (0,0,0)
    EXPECT_EQ(at(1, 3, 1), 4);  // input (0,1,1)
    EXPECT_EQ(at(2, 2, 0), 5);  // input (1,0,0)
    EXPECT_EQ(at(3, 5, 1), 14);
  }
  {  // PAD of the channels [2,2,2] → [2,2,4]: two zero points (1) after each pixel's channels.
    Loaded l = load(dir, "test_pad_c_int8");
    ASSERT_TRUE(l.ok);
    auto out = run_ok(l.model, {iota_bytes(8, 10)})[0];
    EXPECT_EQ(out, (std::vector<uint8_t>{10, 11, 1, 1, 12, 13, 1, 1, 14, 15, 1, 1, 16, 17, 1, 1}));
  }
  {  // SPLIT of [8,5] along axis −2 (rows) into 4: output k = rows 2k, 2k+1.
    Loaded l = load(dir, "test_split_int8");
    ASSERT_TRUE(l.ok);
    auto outs = run_ok(l.model, {iota_bytes(40)});
    ASSERT_EQ(outs.size(), 4u);
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(outs[k], iota_bytes(10, int(k) * 10));
  }
  {  // PACK of three [2] along axis 0 → [3,2]; UNPACK of [3,3] → three rows.
    Loaded l = load(dir, "test_pack_int8");
    ASSERT_TRUE(l.ok);
    EXPECT_EQ(run_ok(l.model, {{1, 2}, {3, 4}, {5, 6}})[0], (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
    Loaded u = load(dir, "test_unpack_int8");
    ASSERT_TRUE(u.ok);
    auto rows = run_ok(u.model, {iota_bytes(9)});
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[2], (std::vector<uint8_t>{6, 7, 8}));
  }
  {  // CONCATENATION of [1,2,3,5] and [1,2,1,5] along W.
    Loaded l = load(dir, "test_concat_int8");
    ASSERT_TRUE(l.ok);
    auto out = run_ok(l.model, {iota_bytes(30), iota_bytes(10, 100)})[0];
    ASSERT_EQ(out.size(), 40u);
    EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + 15), iota_bytes(15));
    EXPECT_EQ(std::vector<uint8_t>(out.begin() + 15, out.begin() + 20), iota_bytes(5, 100));
    EXPECT_EQ(std::vector<uint8_t>(out.begin() + 20, out.begin() + 35), iota_bytes(15, 15));
    EXPECT_EQ(std::vector<uint8_t>(out.begin() + 35, out.end()), iota_bytes(5, 105));
  }
  // SLICE begin [1,0,0] size [1,1,3] and STRIDED_SLICE begin [1,0,0] end [2,1,3] of [3,2,3]: flat 6..8.
  for (const char* name : {"test_slice_int8", "test_strided_slice_int8"}) {
    Loaded l = load(dir, name);
    ASSERT_TRUE(l.ok);
    EXPECT_EQ(run_ok(l.model, {iota_bytes(18)})[0], (std::vector<uint8_t>{6, 7, 8})) << name;
  }
  {  // RESHAPE keeps the bytes.
    Loaded l = load(dir, "test_reshape_int8");
    ASSERT_TRUE(l.ok);
    EXPECT_EQ(run_ok(l.model, {iota_bytes(12)})[0], iota_bytes(12));
  }
  {  // MNIST's shape plumbing: SHAPE [1,784] → STRIDED_SLICE [0:1] shrunk → 1 → PACK [1,28,28,1].
    Loaded l = load(dir, "test_mnist_uint8");
    ASSERT_TRUE(l.ok);
    auto all = run_tflite_reference_all(l.model, random_inputs(l.model, 3));
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    std::vector<int32_t> shape(4);
    ASSERT_EQ((*all)[19].size(), 16u);
    std::memcpy(shape.data(), (*all)[19].data(), 16);
    EXPECT_EQ(shape, (std::vector<int32_t>{1, 28, 28, 1}));
  }
}

TEST(TfliteReference, ResizeBilinearByHand) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Loaded l = load(dir, "test_resize_int8");
  ASSERT_TRUE(l.ok);
  // [1,2,3,1] → [1,4,6,1], no align_corners, no half pixels: both scales 0.5 (512/1024), so output
  // (y, x) samples input (y/2, x/2); odd rows/columns average two inputs, rounded half away from 0.
  const std::vector<int8_t> in = {1, 2, -4, 4, 9, -7};
  auto out = as_s8(run_ok(l.model, {std::vector<uint8_t>(in.begin(), in.end())})[0]);
  ASSERT_EQ(out.size(), 24u);
  auto at = [&](int y, int x) { return int(out[size_t(y * 6 + x)]); };
  EXPECT_EQ(at(0, 0), 1);
  EXPECT_EQ(at(0, 1), 2);   // (1 + 2) / 2 = 1.5 → 2
  EXPECT_EQ(at(0, 2), 2);
  EXPECT_EQ(at(0, 3), -1);  // (2 − 4) / 2
  EXPECT_EQ(at(0, 5), -4);  // past the last column: clamped to it
  EXPECT_EQ(at(1, 0), 3);   // (1 + 4) / 2 = 2.5 → 3
  EXPECT_EQ(at(1, 5), -6);  // (−4 − 7) / 2 = −5.5 → −6
  EXPECT_EQ(at(1, 1), 4);   // (1 + 2 + 4 + 9) / 4
  EXPECT_EQ(at(2, 4), -7);
  EXPECT_EQ(at(3, 3), 1);   // (9 − 7) / 2
}

TEST(TfliteReference, MinMaxUint8ModelsAreElementwise) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  // Every tensor shares one scale, the zero points differ by 128: the QUANTIZE steps are exact and
  // the result is the element-wise max / min of the raw uint8 inputs.
  for (bool is_max : {true, false}) {
    Loaded l = load(dir, is_max ? "test_max_uint8" : "test_min_uint8");
    ASSERT_TRUE(l.ok);
    for (uint32_t seed = 0; seed < 20; ++seed) {
      auto inputs = random_inputs(l.model, seed);
      auto out = run_ok(l.model, inputs)[0];
      ASSERT_EQ(out.size(), 4u);
      for (size_t i = 0; i < 4; ++i)
        EXPECT_EQ(out[i], is_max ? std::max(inputs[0][i], inputs[1][i]) : std::min(inputs[0][i], inputs[1][i]));
    }
  }
}

TEST(TfliteReference, UnaryModelsFollowFloatMath) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  struct Case {
    const char* name;
    double (*f)(double);
  } cases[] = {
      {"test_relu_int8", [](double x) { return std::max(x, 0.0); }},
      {"test_relu6_int8", [](double x) { return std::clamp(x, 0.0, 6.0); }},
      {"test_relu_n1_to_1_int8", [](double x) { return std::clamp(x, -1.0, 1.0); }},
      {"test_abs_int8", [](double x) { return std::abs(x); }},
      {"test_tanh_int8", [](double x) { return std::tanh(x); }},
      {"test_leakyrelu_int8", [](double x) { return x >= 0 ? x : 0.3 * x; }},
      {"test_hardswish_int8", [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Loaded l = load(dir, c.name);
    ASSERT_TRUE(l.ok);
    const Tensor& ti = l.model.tensors[size_t(l.model.inputs[0])];
    const Tensor& to = l.model.tensors[size_t(l.model.outputs[0])];
    int exact = 0;
    for (int v = -128; v <= 127; ++v) {
      std::vector<uint8_t> in(ti.byte_size(), uint8_t(int8_t(v)));
      const int got = int8_t(run_ok(l.model, {in})[0][0]);
      const double y = c.f(double(ti.scale[0]) * (v - ti.zero_point[0]));
      const double expect = std::clamp(std::round(y / to.scale[0]) + double(to.zero_point[0]), -128.0, 127.0);
      EXPECT_NEAR(got, expect, 1) << v;
      exact += got == int(expect);
    }
    // Double rounding (SRDHM, then a rounding shift) moves results near .5 by one step.
    EXPECT_GE(exact, 200);
  }
}

// ---- compute operators against the cortex_m kernels ------------------------------------------------

TEST(TfliteReference, ConvModelsMatchCortexM) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Loaded l = load(dir, "test_conv2d_int8");
  ASSERT_TRUE(l.ok);
  const Model& m = l.model;
  const Tensor &in = m.tensors[0], &bias = m.tensors[1], &w = m.tensors[2], &out = m.tensors[3];
  std::vector<int32_t> mult, shift;
  conv_multipliers(in, w, out, &mult, &shift);
  cortex_m::Conv2dParams p;
  p.in_h = p.in_w = 8;
  p.in_ch = 3;
  p.out_h = p.out_w = 6;
  p.out_ch = 2;
  p.kernel_h = p.kernel_w = 3;
  p.input_offset = -int32_t(in.zero_point[0]);
  p.output_offset = int32_t(out.zero_point[0]);
  for (uint32_t seed = 0; seed < 10; ++seed) {
    auto inputs = random_inputs(m, seed);
    auto mine = run_ok(m, inputs)[0];
    std::vector<int8_t> cmsis(72);
    cortex_m::conv2d_s8_portable(p, s8(inputs[0]), s8(w.data), s32(bias.data), mult.data(), shift.data(),
                                 cmsis.data());
    EXPECT_EQ(as_s8(mine), cmsis);
  }

  Loaded d = load(dir, "test_depthwise_conv2d_int8");
  ASSERT_TRUE(d.ok);
  const Model& dm = d.model;
  const Tensor &din = dm.tensors[0], &dbias = dm.tensors[1], &dw = dm.tensors[2], &dout = dm.tensors[3];
  std::vector<int32_t> dmult, dshift;
  conv_multipliers(din, dw, dout, &dmult, &dshift);
  cortex_m::DepthwiseConv2dParams dp;
  dp.in_h = dp.in_w = 8;
  dp.in_ch = 3;
  dp.out_h = dp.out_w = 7;
  dp.kernel_h = dp.kernel_w = 2;
  dp.input_offset = -int32_t(din.zero_point[0]);
  dp.output_offset = int32_t(dout.zero_point[0]);
  for (uint32_t seed = 0; seed < 10; ++seed) {
    auto inputs = random_inputs(dm, seed);
    auto mine = run_ok(dm, inputs)[0];
    std::vector<int8_t> cmsis(147);
    cortex_m::depthwise_conv2d_s8(dp, s8(inputs[0]), s8(dw.data), s32(dbias.data), dmult.data(), dshift.data(),
                                  cmsis.data(), compute::Exec{});
    EXPECT_EQ(as_s8(mine), cmsis);
  }
}

TEST(TfliteReference, FullyConnectedPoolAddMulSoftmaxModelsMatchCortexM) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  {
    Loaded l = load(dir, "test_fullconnected_int8");
    ASSERT_TRUE(l.ok);
    const Model& m = l.model;
    const Tensor &in = m.tensors[0], &w = m.tensors[1], &out = m.tensors[2];
    Multiplier q = quantize_multiplier(double(in.scale[0]) * double(w.scale[0]) / double(out.scale[0]));
    cortex_m::LinearParams p;
    p.in_features = 28;
    p.out_features = 4;
    p.input_offset = -int32_t(in.zero_point[0]);
    p.output_offset = int32_t(out.zero_point[0]);
    p.multiplier = q.multiplier;
    p.shift = q.shift;
    for (uint32_t seed = 0; seed < 10; ++seed) {
      auto inputs = random_inputs(m, seed);
      std::vector<int8_t> cmsis(4);
      cortex_m::linear_s8(p, s8(inputs[0]), s8(w.data), nullptr, nullptr, cmsis.data(), compute::Exec{});
      EXPECT_EQ(as_s8(run_ok(m, inputs)[0]), cmsis);
    }
  }
  for (bool average : {true, false}) {
    Loaded l = load(dir, average ? "test_averagepooling2d_int8" : "test_maxpooling2d_int8");
    ASSERT_TRUE(l.ok);
    cortex_m::PoolParams p;
    p.in_h = p.in_w = 3;
    p.channels = 1;
    p.out_h = p.out_w = 2;
    p.kernel_h = p.kernel_w = 2;
    for (uint32_t seed = 0; seed < 10; ++seed) {
      auto inputs = random_inputs(l.model, seed);
      std::vector<int8_t> cmsis(4);
      if (average)
        ASSERT_TRUE(cortex_m::avg_pool2d_s8(p, s8(inputs[0]), cmsis.data(), compute::Exec{}).is_ok());
      else
        ASSERT_TRUE(cortex_m::max_pool2d_s8(p, s8(inputs[0]), cmsis.data()).is_ok());
      EXPECT_EQ(as_s8(run_ok(l.model, inputs)[0]), cmsis);
    }
  }
  {
    Loaded l = load(dir, "test_add_int8");
    ASSERT_TRUE(l.ok);
    const Model& m = l.model;
    AddParams ap;
    ASSERT_TRUE(prepare_add(m.tensors[0].scale[0], int32_t(m.tensors[0].zero_point[0]), m.tensors[1].scale[0],
                            int32_t(m.tensors[1].zero_point[0]), m.tensors[2].scale[0],
                            int32_t(m.tensors[2].zero_point[0]), {-128, 127}, &ap));
    cortex_m::AddParams p;
    p.input1_offset = ap.input1_offset;
    p.input1_multiplier = ap.input1.multiplier;
    p.input1_shift = ap.input1.shift;
    p.input2_offset = ap.input2_offset;
    p.input2_multiplier = ap.input2.multiplier;
    p.input2_shift = ap.input2.shift;
    p.output_offset = ap.output_offset;
    p.output_multiplier = ap.output.multiplier;
    p.output_shift = ap.output.shift;
    for (uint32_t seed = 0; seed < 10; ++seed) {
      auto inputs = random_inputs(m, seed);
      std::vector<int8_t> cmsis(4);
      cortex_m::add_s8(p, cortex_m::ChannelBroadcast{4, 1, 0}, s8(inputs[0]), s8(inputs[1]), cmsis.data());
      EXPECT_EQ(as_s8(run_ok(m, inputs)[0]), cmsis);
    }
  }
  {
    Loaded l = load(dir, "test_mul_int8");
    ASSERT_TRUE(l.ok);
    const Model& m = l.model;
    Multiplier q = quantize_multiplier(m.tensors[0].scale[0] * m.tensors[1].scale[0] / m.tensors[2].scale[0]);
    cortex_m::MulParams p;
    p.input1_offset = -int32_t(m.tensors[0].zero_point[0]);
    p.input2_offset = -int32_t(m.tensors[1].zero_point[0]);
    p.output_offset = int32_t(m.tensors[2].zero_point[0]);
    p.output_multiplier = q.multiplier;
    p.output_shift = q.shift;
    for (uint32_t seed = 0; seed < 10; ++seed) {
      auto inputs = random_inputs(m, seed);
      std::vector<int8_t> cmsis(4);
      cortex_m::mul_s8(p, cortex_m::ChannelBroadcast{4, 1, 0}, s8(inputs[0]), s8(inputs[1]), cmsis.data());
      EXPECT_EQ(as_s8(run_ok(m, inputs)[0]), cmsis);
    }
  }
  {
    Loaded l = load(dir, "test_softmax_int8");
    ASSERT_TRUE(l.ok);
    const Model& m = l.model;
    SoftmaxParams sp = prepare_softmax(1.0, m.tensors[0].scale[0]);
    cortex_m::SoftmaxParams p{1, 3, sp.input_multiplier, sp.input_left_shift, sp.diff_min};
    for (uint32_t seed = 0; seed < 20; ++seed) {
      auto inputs = random_inputs(m, seed);
      std::vector<int8_t> cmsis(3);
      cortex_m::softmax_s8(p, s8(inputs[0]), cmsis.data());
      EXPECT_EQ(as_s8(run_ok(m, inputs)[0]), cmsis);
    }
  }
}

TEST(TfliteReference, MnistLayersMatchCortexM) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Loaded l = load(dir, "test_mnist_uint8");
  ASSERT_TRUE(l.ok);
  const Model& m = l.model;
  auto all_r = run_tflite_reference_all(m, random_inputs(m, 11));
  ASSERT_TRUE(all_r.ok()) << all_r.status().to_string();
  const auto& all = all_r.value();
  // The two RELU convolutions (ops 6 and 7): per-channel weights, 32 and 64 output channels.
  struct ConvLayer {
    size_t in, w, b, out;
    int in_hw, in_ch, out_ch;
  } layers[] = {{20, 14, 13, 21, 28, 1, 32}, {21, 12, 11, 22, 26, 32, 64}};
  for (const ConvLayer& c : layers) {
    const Tensor &in = m.tensors[c.in], &w = m.tensors[c.w], &out = m.tensors[c.out];
    std::vector<int32_t> mult, shift;
    conv_multipliers(in, w, out, &mult, &shift);
    cortex_m::Conv2dParams p;
    p.in_h = p.in_w = c.in_hw;
    p.in_ch = c.in_ch;
    p.out_h = p.out_w = c.in_hw - 2;
    p.out_ch = c.out_ch;
    p.kernel_h = p.kernel_w = 3;
    p.input_offset = -int32_t(in.zero_point[0]);
    p.output_offset = int32_t(out.zero_point[0]);
    p.activation_min = activation_range(Activation::Relu, out.scale[0], int32_t(out.zero_point[0]), -128, 127).min;
    std::vector<int8_t> cmsis(out.element_count());
    cortex_m::conv2d_s8_portable(p, s8(all[c.in]), s8(w.data), s32(m.tensors[c.b].data), mult.data(), shift.data(),
                                 cmsis.data());
    EXPECT_EQ(as_s8(all[c.out]), cmsis) << "conv output tensor " << c.out;
    // Not trivially saturated: the layer's outputs take many values.
    std::vector<bool> seen(256, false);
    int distinct = 0;
    for (int8_t v : cmsis) distinct += !seen[uint8_t(v)] ? (seen[uint8_t(v)] = true, 1) : 0;
    EXPECT_GT(distinct, 10);
  }
  // The first dense layer (op 10): 9216 → 128 with RELU.
  const Tensor &fin = m.tensors[24], &fw = m.tensors[10], &fout = m.tensors[25];
  Multiplier q = quantize_multiplier(double(fin.scale[0]) * double(fw.scale[0]) / double(fout.scale[0]));
  cortex_m::LinearParams p;
  p.in_features = 9216;
  p.out_features = 128;
  p.input_offset = -int32_t(fin.zero_point[0]);
  p.output_offset = int32_t(fout.zero_point[0]);
  p.multiplier = q.multiplier;
  p.shift = q.shift;
  p.activation_min = activation_range(Activation::Relu, fout.scale[0], int32_t(fout.zero_point[0]), -128, 127).min;
  std::vector<int8_t> cmsis(128);
  cortex_m::linear_s8(p, s8(all[24]), s8(fw.data), s32(m.tensors[9].data), nullptr, cmsis.data(), compute::Exec{});
  EXPECT_EQ(as_s8(all[25]), cmsis);
  // QUANTIZE uint8 → int8 with equal scales is the zero-point shift: x − 128.
  for (size_t i = 0; i < 784; ++i) EXPECT_EQ(int8_t(all[15][i]), int(all[0][i]) - 128);
}

TEST(TfliteReference, RandomConvolutionsMatchCortexM) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    ConvGeometry g;
    g.in_h = 3 + int(rng() % 8);
    g.in_w = 3 + int(rng() % 8);
    g.in_ch = 1 + int(rng() % 5);
    g.filter_h = 1 + int(rng() % 3);
    g.filter_w = 1 + int(rng() % 3);
    g.stride_h = 1 + int(rng() % 2);
    g.stride_w = 1 + int(rng() % 2);
    g.dilation_h = 1 + int(rng() % 2);
    g.dilation_w = 1;
    const bool depthwise = trial % 2 == 1;
    const int mult_ch = depthwise ? 1 + int(rng() % 2) : 0;
    g.out_ch = depthwise ? g.in_ch * mult_ch : 1 + int(rng() % 6);
    const Padding pad = rng() % 2 ? Padding::Same : Padding::Valid;
    g.out_h = compute_out_size(pad, g.in_h, g.filter_h, g.stride_h, g.dilation_h);
    g.out_w = compute_out_size(pad, g.in_w, g.filter_w, g.stride_w, g.dilation_w);
    if (g.out_h < 1 || g.out_w < 1) continue;
    g.pad_h = compute_padding(g.stride_h, g.dilation_h, g.in_h, g.filter_h, g.out_h);
    g.pad_w = compute_padding(g.stride_w, g.dilation_w, g.in_w, g.filter_w, g.out_w);
    OutputStage s;
    s.input_offset = int32_t(rng() % 256) - 128;
    s.output_offset = int32_t(rng() % 256) - 128;
    s.act = {-128 + int32_t(rng() % 20), 127 - int32_t(rng() % 20)};
    std::vector<int32_t> mult, shift, bias;
    for (int c = 0; c < g.out_ch; ++c) {
      s.multipliers.push_back(quantize_multiplier(std::ldexp(1.0 + (rng() % 1000) / 1000.0, -6 - int(rng() % 6))));
      mult.push_back(s.multipliers.back().multiplier);
      shift.push_back(s.multipliers.back().shift);
      bias.push_back(int32_t(rng() % 20001) - 10000);
    }
    const size_t filter_size = depthwise ? size_t(g.filter_h) * g.filter_w * g.out_ch
                                         : size_t(g.out_ch) * g.filter_h * g.filter_w * g.in_ch;
    auto input = random_bytes(size_t(g.in_h) * g.in_w * g.in_ch, rng);
    auto filter = random_bytes(filter_size, rng);
    std::vector<int8_t> mine(size_t(g.out_h) * g.out_w * g.out_ch), cmsis(mine.size());
    if (depthwise) {
      depthwise_conv2d<int8_t>(g, s, s8(input), s8(filter), bias.data(), mine.data());
      cortex_m::DepthwiseConv2dParams p;
      p.in_h = g.in_h;
      p.in_w = g.in_w;
      p.in_ch = g.in_ch;
      p.out_h = g.out_h;
      p.out_w = g.out_w;
      p.ch_mult = mult_ch;
      p.kernel_h = g.filter_h;
      p.kernel_w = g.filter_w;
      p.stride_h = g.stride_h;
      p.stride_w = g.stride_w;
      p.pad_h = g.pad_h;
      p.pad_w = g.pad_w;
      p.dilation_h = g.dilation_h;
      p.dilation_w = g.dilation_w;
      p.input_offset = s.input_offset;
      p.output_offset = s.output_offset;
      p.activation_min = s.act.min;
      p.activation_max = s.act.max;
      cortex_m::depthwise_conv2d_s8(p, s8(input), s8(filter), bias.data(), mult.data(), shift.data(), cmsis.data(),
                                    compute::Exec{});
    } else {
      conv2d<int8_t>(g, s, s8(input), s8(filter), bias.data(), mine.data());
      cortex_m::Conv2dParams p;
      p.in_h = g.in_h;
      p.in_w = g.in_w;
      p.in_ch = g.in_ch;
      p.out_h = g.out_h;
      p.out_w = g.out_w;
      p.out_ch = g.out_ch;
      p.kernel_h = g.filter_h;
      p.kernel_w = g.filter_w;
      p.stride_h = g.stride_h;
      p.stride_w = g.stride_w;
      p.pad_h = g.pad_h;
      p.pad_w = g.pad_w;
      p.dilation_h = g.dilation_h;
      p.dilation_w = g.dilation_w;
      p.input_offset = s.input_offset;
      p.output_offset = s.output_offset;
      p.activation_min = s.act.min;
      p.activation_max = s.act.max;
      cortex_m::conv2d_s8_portable(p, s8(input), s8(filter), bias.data(), mult.data(), shift.data(), cmsis.data());
    }
    EXPECT_EQ(mine, cmsis) << "trial " << trial << (depthwise ? " depthwise" : " conv");
  }
}

TEST(TfliteReference, TransposeConvIsTheAdjointOfConv) {
  // With unit scales, zero offsets and no bias, TRANSPOSE_CONV's accumulator is Wᵀ·x: for every x and
  // y, <transpose_conv(x), y> = <x, conv(y)> with the same filter (checked in int64 on small values).
  std::mt19937 rng(9);
  ConvGeometry fwd;  // the forward conv: from the transpose conv's output to its input
  fwd.in_h = 7;
  fwd.in_w = 6;
  fwd.in_ch = 2;
  fwd.out_ch = 3;
  fwd.filter_h = fwd.filter_w = 3;
  fwd.stride_h = fwd.stride_w = 2;
  fwd.out_h = compute_out_size(Padding::Valid, 7, 3, 2, 1);  // 3
  fwd.out_w = compute_out_size(Padding::Valid, 6, 3, 2, 1);  // 2
  ConvGeometry tc = fwd;  // transpose conv: input = fwd output, output = fwd input; filter [out=2][3][3][in=3]
  tc.in_h = fwd.out_h;
  tc.in_w = fwd.out_w;
  tc.in_ch = fwd.out_ch;
  tc.out_h = fwd.in_h;
  tc.out_w = fwd.in_w;
  tc.out_ch = fwd.in_ch;
  OutputStage s;
  s.multipliers = {quantize_multiplier(1.0)};
  s.act = {-128, 127};
  std::vector<int8_t> filter_fwd(size_t(fwd.out_ch) * 9 * fwd.in_ch), filter_tc(filter_fwd.size());
  for (auto& v : filter_fwd) v = int8_t(int(rng() % 5) - 2);
  // filter_tc[oc=ic_fwd][fy][fx][ic=oc_fwd] = filter_fwd[oc_fwd][fy][fx][ic_fwd]
  for (int a = 0; a < fwd.out_ch; ++a)
    for (int k = 0; k < 9; ++k)
      for (int b = 0; b < fwd.in_ch; ++b)
        filter_tc[(size_t(b) * 9 + k) * fwd.out_ch + a] = filter_fwd[(size_t(a) * 9 + k) * fwd.in_ch + b];
  std::vector<int8_t> x(size_t(tc.in_h) * tc.in_w * tc.in_ch), y(size_t(fwd.in_h) * fwd.in_w * fwd.in_ch);
  for (auto& v : x) v = int8_t(int(rng() % 5) - 2);
  for (auto& v : y) v = int8_t(int(rng() % 5) - 2);
  std::vector<int8_t> tx(y.size()), cy(x.size());
  transpose_conv2d<int8_t>(tc, s, x.data(), filter_tc.data(), nullptr, tx.data());
  conv2d<int8_t>(fwd, s, y.data(), filter_fwd.data(), nullptr, cy.data());
  int64_t lhs = 0, rhs = 0;
  for (size_t i = 0; i < y.size(); ++i) lhs += int64_t(tx[i]) * y[i];
  for (size_t i = 0; i < x.size(); ++i) rhs += int64_t(x[i]) * cy[i];
  EXPECT_EQ(lhs, rhs);
  EXPECT_NE(lhs, 0);
}

TEST(TfliteReference, MeanByHand) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Loaded l = load(dir, "test_mean_int8");
  ASSERT_TRUE(l.ok);
  const Model& m = l.model;
  // [3,2,4,5] averaged over H and W (8 values) per batch and channel; every input equal to the
  // input zero point gives the output zero point, and a constant input c gives
  // round((c − zp_in) · s_in / s_out) + zp_out.
  const Tensor &in = m.tensors[0], &out = m.tensors[2];
  for (int c : {int(in.zero_point[0]), 40, -100}) {
    std::vector<uint8_t> input(in.byte_size(), uint8_t(int8_t(c)));
    auto o = as_s8(run_ok(m, {input})[0]);
    ASSERT_EQ(o.size(), 15u);
    const double expect = std::clamp(
        std::round((c - in.zero_point[0]) * double(in.scale[0]) / out.scale[0]) + double(out.zero_point[0]), -128.0, 127.0);
    for (int8_t v : o) EXPECT_NEAR(v, expect, 1) << c;
  }
  // Channel 0 of batch 0 holds 1..8 above the zero point, the rest the zero point. TFLite's 4-D
  // {1, 2} keep_dims path: the sum 36 is rescaled first (36 · 3.508 = 126.3 → 126 with this model's
  // scales), then divided by 8 rounding half away from zero (15.75 → 16), plus the output zero point.
  std::vector<uint8_t> input(in.byte_size(), uint8_t(int8_t(in.zero_point[0])));
  for (int i = 0; i < 8; ++i) input[size_t(i) * 5] = uint8_t(int8_t(in.zero_point[0] + 1 + i));
  auto o = as_s8(run_ok(m, {input})[0]);
  const int rescaled = int(std::lround(36 * double(in.scale[0]) / double(out.scale[0])));
  EXPECT_EQ(rescaled, 126);
  EXPECT_EQ(o[0], (rescaled + 4) / 8 + out.zero_point[0]);
  EXPECT_EQ(o[1], out.zero_point[0]);
  EXPECT_EQ(o[5], out.zero_point[0]);  // batch 1, channel 0
}

}  // namespace
}  // namespace vkrt::ethosu::tflite
