// Hand-written edge cases for the cortex_m compute functions, and randomized differential tests
// of every optimized path against the reference loops (reference/), bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "arith/fixed_point.h"
#include "cortex_m/avg_pool2d.h"
#include "cortex_m/batch_matmul.h"
#include "cortex_m/conv2d.h"
#include "cortex_m/cpu_features.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/max_pool2d.h"
#include "cortex_m/minimum_maximum.h"
#include "cortex_m/quantized_add.h"
#include "cortex_m/quantized_mul.h"
#include "cortex_m/reference/reference_ops.h"
#include "cortex_m/softmax.h"
#include "cortex_m/softmax_s16.h"
#include "cortex_m/support/test_exec.h"
#include "cortex_m/support/thread_runner.h"
#include "cortex_m/transpose_conv2d.h"

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::cortex_m::reference;

using testing_support::random_values;
using testing_support::TestExec;  // two threads by default

// ---- convolution: odd channels, per-channel shifts of both signs, padding > kernel, stride > kernel
struct ConvCase {
  int n, h, w, cin, cout, kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

void check_conv_against_reference(const ConvCase& c, uint32_t seed) {
  std::mt19937 rng(seed);
  Conv2dParams p;
  p.batches = c.n, p.in_h = c.h, p.in_w = c.w, p.in_ch = c.cin, p.out_ch = c.cout;
  p.kernel_h = c.kh, p.kernel_w = c.kw, p.stride_h = c.sh, p.stride_w = c.sw, p.pad_h = c.ph, p.pad_w = c.pw;
  p.dilation_h = c.dh, p.dilation_w = c.dw, p.groups = c.groups;
  p.out_h = (c.h + 2 * c.ph - c.dh * (c.kh - 1) - 1) / c.sh + 1;
  p.out_w = (c.w + 2 * c.pw - c.dw * (c.kw - 1) - 1) / c.sw + 1;
  p.input_offset = 37, p.output_offset = -11, p.activation_min = -100, p.activation_max = 120;
  ASSERT_TRUE(check_conv2d(p, false).is_ok());
  const auto input = random_values<int8_t>(size_t(c.n) * c.h * c.w * c.cin, rng);
  const auto weight = random_values<int8_t>(size_t(c.cout) * c.kh * c.kw * (c.cin / c.groups), rng);
  const auto bias = random_values<int32_t>(c.cout, rng, -20000, 20000);
  std::vector<int32_t> mult(c.cout), shift(c.cout);
  for (int i = 0; i < c.cout; ++i) {
    mult[i] = 1 << 30 | int32_t(rng() & 0x3FFFFFFF);
    shift[i] = std::array<int, 6>{-9, -4, 0, 2, -12, 1}[i % 6];  // negative and positive
  }
  const size_t out_count = size_t(c.n) * p.out_h * p.out_w * c.cout;
  std::vector<int8_t> want(out_count), fast(out_count), portable(out_count);
  ref::conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
  TestExec exec;
  conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), fast.data(),
            exec.make(conv2d_s8_scratch_bytes(p, 2)));
  conv2d_s8_portable(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), portable.data());
  EXPECT_EQ(fast, want);
  EXPECT_EQ(portable, want);
}

TEST(CortexMEdges, ConvOddChannelsAndMixedShifts) {
  check_conv_against_reference({1, 5, 7, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1}, 1);
  check_conv_against_reference({2, 6, 6, 17, 33, 1, 1, 1, 1, 0, 0, 1, 1, 1}, 2);   // 1x1 GEMM
  check_conv_against_reference({1, 4, 4, 130, 9, 1, 1, 1, 1, 0, 0, 1, 1, 1}, 3);   // k not /4
  check_conv_against_reference({1, 9, 9, 6, 6, 2, 2, 1, 1, 0, 0, 2, 2, 3}, 4);     // grouped, dilated
  check_conv_against_reference({1, 1, 1, 4, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1}, 5);     // single pixel (GEMV)
  check_conv_against_reference({2, 5, 3, 12, 8, 1, 1, 1, 1, 0, 0, 1, 1, 4}, 9);    // grouped 1x1: A read in place
}

TEST(CortexMEdges, ConvPaddingLargerThanKernelAndStrideLargerThanKernel) {
  check_conv_against_reference({1, 3, 3, 5, 7, 2, 2, 1, 1, 3, 3, 1, 1, 1}, 6);  // whole rows of padding only
  check_conv_against_reference({1, 10, 11, 4, 8, 2, 2, 3, 4, 0, 0, 1, 1, 1}, 7);  // stride > kernel
  check_conv_against_reference({1, 10, 11, 4, 8, 1, 1, 3, 3, 0, 0, 1, 1, 1}, 8);  // 1x1 stride 3 (direct rows)
}

TEST(CortexMEdges, ConvOutputOnlyPaddingIsBiasRequantized) {
  // 1x1 input, kernel 1, padding 2: all but the centre output see no input tap at all.
  Conv2dParams p;
  p.in_h = p.in_w = 1, p.in_ch = 2, p.out_ch = 1, p.out_h = p.out_w = 5, p.pad_h = p.pad_w = 2;
  p.input_offset = 128, p.output_offset = 1;
  const int8_t input[2] = {10, -20};
  const int8_t weight[2] = {1, 1};
  const int32_t bias[1] = {1000}, mult[1] = {1 << 30}, shift[1] = {-2};  // × 1/8
  std::vector<int8_t> out(25);
  TestExec exec;
  conv2d_s8(p, input, weight, bias, mult, shift, out.data(), exec.make(conv2d_s8_scratch_bytes(p, 2)));
  EXPECT_EQ(out[0], 1000 / 8 + 1);  // 125 + 1
  // centre: 1000 + (10+128) + (-20+128) = 1246 → 155.75 → 156, +3 → 159 → clamp 127
  EXPECT_EQ(out[12], 127);
}

TEST(CortexMEdges, ConvSaturatesAtBothEnds) {
  Conv2dParams p;
  p.in_h = p.in_w = 1, p.in_ch = 1, p.out_ch = 2, p.out_h = p.out_w = 1;
  const int8_t input[1] = {127};
  const int8_t weight[2] = {127, -128};
  const int32_t bias[2] = {0, 0}, mult[2] = {2147483647, 2147483647}, shift[2] = {10, 10};
  (void)bias;
  std::vector<int8_t> out(2);
  conv2d_s8_portable(p, input, weight, nullptr, mult, shift, out.data());
  EXPECT_EQ(out[0], 127);
  EXPECT_EQ(out[1], -128);
}

TEST(CortexMEdges, ZeroSizedDimsWriteNothing) {
  Conv2dParams p;
  p.batches = 0, p.in_h = p.in_w = 4, p.in_ch = 3, p.out_ch = 2, p.out_h = p.out_w = 4;
  std::vector<int8_t> guard(8, 55);
  const int32_t mult[2] = {1 << 30, 1 << 30}, shift[2] = {0, 0};
  TestExec exec;
  conv2d_s8(p, nullptr, nullptr, nullptr, mult, shift, guard.data(), exec.make(conv2d_s8_scratch_bytes(p, 2)));
  LinearParams l;
  l.batches = 0, l.in_features = 4, l.out_features = 3, l.multiplier = 1 << 30;
  linear_s8(l, nullptr, nullptr, nullptr, nullptr, guard.data(), exec.make(linear_s8_scratch_bytes(l, 2)));
  l.batches = 2, l.out_features = 0;
  linear_s8(l, nullptr, nullptr, nullptr, nullptr, guard.data(), exec.make(linear_s8_scratch_bytes(l, 2)));
  PoolParams pp;
  pp.batches = 1, pp.in_h = pp.in_w = 3, pp.channels = 0, pp.out_h = pp.out_w = 3;
  EXPECT_TRUE(avg_pool2d_s8(pp, nullptr, guard.data(), exec.make(avg_pool2d_scratch_bytes(pp, 2))).is_ok());
  EXPECT_TRUE(max_pool2d_s8(pp, nullptr, guard.data()).is_ok());
  DepthwiseConv2dParams d;
  d.batches = 1, d.in_h = d.in_w = 0, d.in_ch = 3, d.out_h = d.out_w = 0;
  depthwise_conv2d_s8(d, nullptr, nullptr, nullptr, mult, shift, guard.data(),
                      exec.make(depthwise_conv2d_s8_scratch_bytes(d, 2)));
  for (int8_t g : guard) EXPECT_EQ(g, 55);
  // K = 0: the accumulator is the bias alone.
  l.batches = 1, l.in_features = 0, l.out_features = 1, l.output_offset = 1;
  const int32_t b[1] = {40};
  int8_t out = 0;
  linear_s8(l, nullptr, nullptr, b, nullptr, &out, exec.make(linear_s8_scratch_bytes(l, 2)));
  EXPECT_EQ(out, 21);  // 40 · 0.5 + 1
}

// ---- depthwise ---------------------------------------------------------------------------------
TEST(CortexMEdges, DepthwiseAgainstReference) {
  std::mt19937 rng(11);
  struct Case { int h, w, c, m, k, s, pad; };
  for (const Case& c : {Case{7, 9, 19, 1, 3, 1, 1}, Case{8, 8, 7, 3, 3, 2, 1}, Case{5, 6, 33, 1, 2, 3, 0},
                        Case{4, 4, 5, 2, 2, 1, 3}, Case{12, 12, 64, 1, 3, 2, 1}}) {
    DepthwiseConv2dParams p;
    p.in_h = c.h, p.in_w = c.w, p.in_ch = c.c, p.ch_mult = c.m, p.kernel_h = p.kernel_w = c.k;
    p.stride_h = p.stride_w = c.s, p.pad_h = p.pad_w = c.pad;
    p.out_h = (c.h + 2 * c.pad - c.k) / c.s + 1, p.out_w = (c.w + 2 * c.pad - c.k) / c.s + 1;
    p.input_offset = -5, p.output_offset = 9, p.activation_min = -120, p.activation_max = 110;
    const int oc = c.c * c.m;
    const auto input = random_values<int8_t>(size_t(c.h) * c.w * c.c, rng);
    const auto weight = random_values<int8_t>(size_t(c.k) * c.k * oc, rng);
    const auto bias = random_values<int32_t>(oc, rng, -5000, 5000);
    std::vector<int32_t> mult(oc), shift(oc);
    for (int i = 0; i < oc; ++i) mult[i] = 1 << 30 | int32_t(rng() & 0x3FFFFFFF), shift[i] = (i % 5) - 7;
    const size_t n = size_t(p.out_h) * p.out_w * oc;
    std::vector<int8_t> want(n), fast(n), no_scratch(n);
    ref::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
    TestExec exec;
    depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), fast.data(),
                        exec.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
    depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), no_scratch.data(), Exec{});
    EXPECT_EQ(fast, want) << c.h << "x" << c.w << "x" << c.c;
    EXPECT_EQ(no_scratch, want);
  }
}

// ---- fully connected and batch matmul ---------------------------------------------------------
TEST(CortexMEdges, LinearAgainstReferenceAllRowCounts) {
  std::mt19937 rng(21);
  for (int batches : {1, 2, 3, 4, 5, 9, 33}) {
    for (int in : {1, 15, 64, 65, 200}) {
      LinearParams p;
      p.batches = batches, p.in_features = in, p.out_features = 37;
      p.input_offset = in % 2 ? 128 : -3, p.filter_offset = batches % 2 ? 0 : 3, p.output_offset = -7;
      p.multiplier = 1518500250, p.shift = -8;
      const auto x = random_values<int8_t>(size_t(batches) * in, rng);
      const auto w = random_values<int8_t>(size_t(37) * in, rng);
      const auto b = random_values<int32_t>(37, rng, -30000, 30000);
      std::vector<int8_t> want(batches * 37), got(batches * 37);
      ref::fully_connected_s8(p, x.data(), w.data(), b.data(), &p.multiplier, &p.shift, false, want.data());
      TestExec exec;
      linear_s8(p, x.data(), w.data(), b.data(), nullptr, got.data(), exec.make(linear_s8_scratch_bytes(p, 2)));
      EXPECT_EQ(got, want) << batches << "x" << in;
    }
  }
}

TEST(CortexMEdges, BatchMatmulAgainstReference) {
  std::mt19937 rng(31);
  BatchMatmulParams p;
  p.batches = 3, p.rows = 21, p.cols = 19, p.depth = 45;
  p.lhs_offset = 3, p.rhs_offset = -7, p.output_offset = 5, p.multiplier = 1 << 30, p.shift = -9;
  const auto l = random_values<int8_t>(size_t(3) * 21 * 45, rng), r = random_values<int8_t>(size_t(3) * 19 * 45, rng);
  std::vector<int8_t> want(3 * 21 * 19), got(3 * 21 * 19);
  ref::batch_matmul_s8(p, l.data(), r.data(), want.data());
  TestExec exec;
  batch_matmul_s8(p, l.data(), r.data(), got.data(), exec.make(batch_matmul_s8_scratch_bytes(p, 2)));
  EXPECT_EQ(got, want);
}

// ---- pooling ------------------------------------------------------------------------------------
TEST(CortexMEdges, AveragePoolRoundsHalfAwayFromZero) {
  PoolParams p;
  p.in_h = 1, p.in_w = 2, p.channels = 2, p.out_h = 1, p.out_w = 1, p.kernel_h = 1, p.kernel_w = 2;
  p.stride_h = p.stride_w = 1;
  const int8_t input[4] = {1, -1, 2, -2};  // pixel0 (1, -1), pixel1 (2, -2): 1.5 → 2, -1.5 → -2
  int8_t out[2];
  TestExec exec;
  ASSERT_TRUE(avg_pool2d_s8(p, input, out, exec.make(avg_pool2d_scratch_bytes(p, 2))).is_ok());
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], -2);
}

TEST(CortexMEdges, PoolingWindowWithoutTapsIsAnError) {
  PoolParams p;
  p.in_h = p.in_w = 2, p.channels = 1, p.out_h = p.out_w = 3, p.kernel_h = p.kernel_w = 1;
  p.stride_h = p.stride_w = 1, p.pad_h = p.pad_w = 2;  // padding larger than the kernel
  std::vector<int8_t> input(4, 1), out(9);
  TestExec exec;
  const Status avg = avg_pool2d_s8(p, input.data(), out.data(), exec.make(avg_pool2d_scratch_bytes(p, 2)));
  EXPECT_EQ(avg.code(), Error::InvalidArgument);
  EXPECT_EQ(avg.message(), "output row 0 has no input taps");  // rows 0 and 1 lie in the padding
  const Status max = max_pool2d_s8(p, input.data(), out.data());
  EXPECT_EQ(max.code(), Error::InvalidArgument);
  EXPECT_EQ(max.message(), "output row 0 has no input taps");
  p.pad_h = 0, p.out_h = 2;  // rows now all have taps; columns 0 and 1 still lie in the padding
  EXPECT_EQ(max_pool2d_s8(p, input.data(), out.data()).message(), "output column 0 has no input taps");
}

TEST(CortexMEdges, PoolingAgainstReference) {
  std::mt19937 rng(41);
  struct Case { int h, w, c, k, s, pad; };
  for (const Case& c : {Case{7, 7, 1280, 7, 1, 0}, Case{9, 10, 13, 3, 2, 1}, Case{6, 6, 3, 2, 3, 1}, Case{5, 4, 8, 3, 1, 2}}) {
    PoolParams p;
    p.in_h = c.h, p.in_w = c.w, p.channels = c.c, p.kernel_h = p.kernel_w = c.k, p.stride_h = p.stride_w = c.s;
    p.pad_h = p.pad_w = c.pad;
    p.out_h = (c.h + 2 * c.pad - c.k) / c.s + 1, p.out_w = (c.w + 2 * c.pad - c.k) / c.s + 1;
    p.activation_min = -100, p.activation_max = 100;
    const auto input = random_values<int8_t>(size_t(c.h) * c.w * c.c, rng);
    const size_t n = size_t(p.out_h) * p.out_w * c.c;
    std::vector<int8_t> want(n), got(n), want_max(n), got_max(n);
    ref::avg_pool2d_s8(p, input.data(), want.data());
    ref::max_pool2d_s8(p, input.data(), want_max.data());
    TestExec exec;
    ASSERT_TRUE(avg_pool2d_s8(p, input.data(), got.data(), exec.make(avg_pool2d_scratch_bytes(p, 2))).is_ok());
    ASSERT_TRUE(max_pool2d_s8(p, input.data(), got_max.data()).is_ok());
    EXPECT_EQ(got, want);
    EXPECT_EQ(got_max, want_max);
  }
}

// ---- elementwise ----------------------------------------------------------------------------------
TEST(CortexMEdges, AddAndMulSaturateAtBothEnds) {
  AddParams a;
  a.input1_offset = a.input2_offset = 0;
  a.input1_multiplier = a.input2_multiplier = 1 << 30, a.input1_shift = a.input2_shift = 0;
  a.output_multiplier = 1 << 30, a.output_shift = -18;  // (x·2^20·0.5 + y·2^20·0.5)·0.5/2^18 = x + y
  a.left_shift = 20;
  const int8_t x[3] = {100, -100, 5}, y[3] = {100, -100, -7};
  int8_t out[3];
  ChannelBroadcast shape;
  shape.size = 3;
  add_s8(a, shape, x, y, out);
  EXPECT_EQ(out[0], 127);
  EXPECT_EQ(out[1], -128);
  EXPECT_EQ(out[2], -2);
  MulParams m;
  m.output_multiplier = 1 << 30, m.output_shift = 1;  // × 1
  mul_s8(m, shape, x, y, out);
  EXPECT_EQ(out[0], 127);
  EXPECT_EQ(out[2], -35);
  const int8_t z[3] = {-100, 100, 0};
  mul_s8(m, shape, x, z, out);
  EXPECT_EQ(out[0], -128);
}

TEST(CortexMEdges, AddChannelBroadcastEitherSide) {
  AddParams a;
  a.input1_multiplier = a.input2_multiplier = 1 << 30, a.output_multiplier = 1 << 30, a.output_shift = -18;
  const int8_t big[6] = {1, 2, 3, 4, 5, 6}, per_channel[3] = {10, 20, 30};
  int8_t out[6];
  ChannelBroadcast shape;
  shape.size = 6, shape.channels = 3, shape.small_operand = 2;
  add_s8(a, shape, big, per_channel, out);
  EXPECT_EQ(std::vector<int8_t>(out, out + 6), (std::vector<int8_t>{11, 22, 33, 14, 25, 36}));
  shape.small_operand = 1;
  add_s8(a, shape, per_channel, big, out);
  EXPECT_EQ(std::vector<int8_t>(out, out + 6), (std::vector<int8_t>{11, 22, 33, 14, 25, 36}));
}

TEST(CortexMEdges, MinimumMaximumBroadcastBothOperands) {
  Broadcast4 s;
  ASSERT_TRUE(contiguous_broadcast({1, 1, 1, 3}, {1, 2, 1, 1}, &s));
  const int8_t a[3] = {-5, 0, 5}, b[2] = {-1, 3};
  int8_t mx[6], mn[6];
  maximum_s8(s, a, b, mx);
  minimum_s8(s, a, b, mn);
  EXPECT_EQ(std::vector<int8_t>(mx, mx + 6), (std::vector<int8_t>{-1, 0, 5, 3, 3, 5}));
  EXPECT_EQ(std::vector<int8_t>(mn, mn + 6), (std::vector<int8_t>{-5, -1, -1, -5, 0, 3}));
  EXPECT_FALSE(contiguous_broadcast({1, 1, 2, 3}, {1, 1, 3, 3}, &s));
}

// ---- softmax ---------------------------------------------------------------------------------------
SoftmaxParams softmax_params(int64_t rows, int32_t row_size) {
  // Input scale 1/16 (ExecuTorch: real = s_in·2^26 → quantize_multiplier; diff_min from it).
  const auto q = arith::quantize_multiplier((1.0 / 16) * double(1 << 26));
  SoftmaxParams p;
  p.rows = rows, p.row_size = row_size, p.input_multiplier = q.multiplier, p.input_left_shift = q.shift;
  p.diff_min = -int32_t(31.0 * double(1 << 26) / double(int64_t(1) << q.shift));
  return p;
}

TEST(CortexMEdges, SoftmaxRowOfOne) {
  const SoftmaxParams p = softmax_params(3, 1);
  const int8_t in[3] = {-128, 0, 127};
  int8_t out[3];
  int16_t out16[3];
  softmax_s8(p, in, out);
  softmax_s8_s16(p, in, out16);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i], 127);  // p = 1 → 256 − 128 saturates
    EXPECT_EQ(out16[i], 32767);
  }
}

TEST(CortexMEdges, SoftmaxRowOf4096) {
  const SoftmaxParams p = softmax_params(1, 4096);
  std::vector<int8_t> in(4096, 7), out(4096);
  std::vector<int16_t> out16(4096);
  softmax_s8(p, in.data(), out.data());
  softmax_s8_s16(p, in.data(), out16.data());
  for (int i = 0; i < 4096; ++i) {
    ASSERT_EQ(out[i], -128);      // p = 1/4096: 0.0625 output steps
    ASSERT_EQ(out16[i], -32752);  // 65536/4096 = 16 steps above −32768
  }
  // One dominant element among 4095 far below diff_min: it takes everything.
  std::fill(in.begin(), in.end(), -128);
  in[100] = 127;
  softmax_s8(p, in.data(), out.data());
  EXPECT_EQ(out[100], 127);
  EXPECT_EQ(out[0], -128);
}

// arm_softmax_s16 with input scale 1/4096 by default. TFLite prepares the multiplier so that
// 65535 input steps after scaling span the exp table's [−10, 0].
SoftmaxS16Params softmax_s16_params(int64_t rows, int32_t row_size, double input_scale = 1.0 / 4096) {
  const auto q = arith::quantize_multiplier(input_scale * 65535.0 / 10.0);  // TFLite: s_in·β / (10 / 65535)
  SoftmaxS16Params p;
  p.rows = rows, p.row_size = row_size, p.input_multiplier = q.multiplier, p.input_left_shift = q.shift;
  return p;
}

TEST(CortexMEdges, SoftmaxS16TablesMatchTheirFunctions) {
  // Entry i is f(min + i·step) in Q15, nudged by at most a couple of steps for interpolation.
  const int16_t* e = softmax_s16_exp_table();
  const int16_t* r = softmax_s16_reciprocal_table();
  for (int i = 0; i <= 512; ++i) {
    EXPECT_NEAR(e[i], std::min(32767.0, std::exp(-10.0 + i * 10.0 / 512) * 32768.0), 2.0) << i;
    EXPECT_NEAR(r[i], std::min(32767.0, 32768.0 / (1.0 + i / 512.0)), 2.0) << i;
  }
  EXPECT_EQ(e[512], 32767);  // exp(0) saturates
  EXPECT_EQ(r[512], 16384);  // 1/2
}

TEST(CortexMEdges, SoftmaxS16RowsOfOneAndOfEqualElements) {
  const SoftmaxS16Params one = softmax_s16_params(3, 1);
  const int16_t in[3] = {-32768, 0, 32767};
  int16_t out[3];
  ASSERT_TRUE(softmax_s16(one, in, out).is_ok());
  for (int16_t v : out) EXPECT_EQ(v, 32767);  // p = 1 in Q15, one step short of 1.0
  // 4096 equal elements: p = 1/4096 → 8 in Q15.
  const SoftmaxS16Params wide = softmax_s16_params(1, 4096);
  std::vector<int16_t> x(4096, 1234), y(4096);
  ASSERT_TRUE(softmax_s16(wide, x.data(), y.data()).is_ok());
  for (int16_t v : y) ASSERT_EQ(v, 8);
  // Two equal elements: one half.
  const int16_t two[2] = {-5, -5};
  int16_t halves[2];
  ASSERT_TRUE(softmax_s16(softmax_s16_params(1, 2), two, halves).is_ok());
  EXPECT_EQ(halves[0], 16384);
  EXPECT_EQ(halves[1], 16384);
}

TEST(CortexMEdges, SoftmaxS16FollowsTheRealSoftmax) {
  std::mt19937 rng(8);
  const SoftmaxS16Params p = softmax_s16_params(200, 10);
  const auto x = random_values<int16_t>(2000, rng, -32768, 32767);
  std::vector<int16_t> y(2000);
  ASSERT_TRUE(softmax_s16(p, x.data(), y.data()).is_ok());
  for (int r = 0; r < 200; ++r) {
    double sum = 0;
    const int16_t max = *std::max_element(&x[r * 10], &x[r * 10] + 10);
    for (int c = 0; c < 10; ++c) sum += std::exp((x[r * 10 + c] - max) / 4096.0);
    for (int c = 0; c < 10; ++c) {
      const double want = std::exp((x[r * 10 + c] - max) / 4096.0) / sum * 32768.0;
      // Inputs more than 10 below the row's maximum fall off the table (exp(−10) ≈ 1.5 steps).
      ASSERT_NEAR(y[r * 10 + c], std::min(want, 32767.0), 0.004 * 32768 + 2) << "row " << r << " col " << c;
    }
  }
}

TEST(CortexMEdges, SoftmaxS16RefusesRowsWhoseSumCouldOverflow) {
  const SoftmaxS16Params p = softmax_s16_params(1, kSoftmaxS16MaxRow + 1);
  const Status s = softmax_s16(p, nullptr, nullptr);
  EXPECT_EQ(s.code(), Error::InvalidArgument);
  EXPECT_NE(s.message().find("65537"), std::string::npos) << s.message();
}

TEST(CortexMEdges, SoftmaxTwoEqualElementsIsHalf) {
  const SoftmaxParams p = softmax_params(1, 2);
  const int8_t in[2] = {3, 3};
  int8_t out[2];
  softmax_s8(p, in, out);
  EXPECT_EQ(out[0], 0);  // 0.5 · 256 − 128
  EXPECT_EQ(out[1], 0);
}

}  // namespace
}  // namespace vkrt::cortex_m

namespace vkrt::cortex_m {
namespace {

// k3 s2 p1: pad % stride != 0, where the CMSIS-NN version pinned by ExecuTorch computes wrong
// values (cortex-m-ops.md §4.6). We follow the definition: checked against the scatter-form
// reference loop and one hand-computed output.
TEST(CortexMEdges, TransposeConvPadNotMultipleOfStride) {
  std::mt19937 rng(51);
  TransposeConv2dParams p;
  p.in_h = 4, p.in_w = 5, p.in_ch = 3, p.out_ch = 4, p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1, p.out_h = (4 - 1) * 2 - 2 + 3, p.out_w = (5 - 1) * 2 - 2 + 3;  // 7 x 9
  p.input_offset = 6, p.output_offset = -2;
  const auto input = random_values<int8_t>(4 * 5 * 3, rng), weight = random_values<int8_t>(4 * 9 * 3, rng);
  const auto bias = random_values<int32_t>(4, rng, -3000, 3000);
  const std::vector<int32_t> mult(4, 1 << 30), shift = {-6, -5, -7, -4};
  std::vector<int8_t> got(7 * 9 * 4), want(got.size()), loops(got.size());
  std::vector<uint8_t> scratch(transpose_conv2d_s8_scratch_bytes(p, 1));
  ASSERT_GT(scratch.size(), 0u);
  transpose_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got.data(),
                      Exec{scratch, nullptr});
  transpose_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), loops.data());
  reference::transpose_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(),
                                          want.data());
  EXPECT_EQ(got, want);
  EXPECT_EQ(loops, want);
  // Output (0, 0) receives only input (0, 0) through tap (1, 1): 0·2 + 1 − 1 = 0.
  int32_t acc = bias[0];
  for (int c = 0; c < 3; ++c) acc += (input[c] + 6) * weight[(0 * 9 + 1 * 3 + 1) * 3 + c];
  EXPECT_EQ(got[0], std::clamp(arith::requantize(acc, 1 << 30, -6) - 2, -128, 127));
}

}  // namespace
}  // namespace vkrt::cortex_m
