// Randomized differential tests of the speed paths (depthwise VNNI, small fully connected,
// average pool) against the reference loops, bit for bit, over the shapes where their special
// cases live: channel tails around 16/64, kernels taller than 4 rows, dilation, stride larger
// than the kernel, padding larger than the kernel, offsets at the ends of their ranges, batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "cortex_m/avg_pool2d.h"
#include "cortex_m/cpu_features.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/reference/reference_ops.h"
#include "cortex_m/support/test_exec.h"

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::cortex_m::reference;

using testing_support::pick;
using testing_support::random_values;
using testing_support::TestExec;

// ---- depthwise --------------------------------------------------------------------------------
struct DepthwiseCase {
  DepthwiseConv2dParams p;
  std::vector<int8_t> input, weight;
  std::vector<int32_t> bias, mult, shift;
};

DepthwiseCase random_depthwise(std::mt19937& rng) {
  DepthwiseCase c;
  DepthwiseConv2dParams& p = c.p;
  p.batches = pick(rng, {1, 1, 1, 2});
  p.in_ch = pick(rng, {1, 3, 15, 16, 17, 48, 63, 64, 65, 96, 130, 200});
  p.kernel_h = pick(rng, {1, 2, 3, 3, 3, 4, 5, 7, 9});
  p.kernel_w = pick(rng, {1, 2, 3, 3, 3, 5, 6});
  p.stride_h = pick(rng, {1, 1, 2, 3, 5});
  p.stride_w = pick(rng, {1, 1, 2, 3, 7});
  p.dilation_h = pick(rng, {1, 1, 1, 2, 3});
  p.dilation_w = pick(rng, {1, 1, 1, 2});
  p.pad_h = int32_t(rng() % 4), p.pad_w = int32_t(rng() % 5);
  p.in_h = 1 + int32_t(rng() % 12), p.in_w = rng() % 8 == 0 ? 70 : 1 + int32_t(rng() % 13);  // 70: several chunks
  const int64_t span_h = int64_t(p.kernel_h - 1) * p.dilation_h + 1, span_w = int64_t(p.kernel_w - 1) * p.dilation_w + 1;
  p.in_h = int32_t(std::max<int64_t>(p.in_h, span_h - 2 * p.pad_h));
  p.in_w = int32_t(std::max<int64_t>(p.in_w, span_w - 2 * p.pad_w));
  p.out_h = int32_t((p.in_h + 2 * p.pad_h - span_h) / p.stride_h + 1);
  p.out_w = int32_t((p.in_w + 2 * p.pad_w - span_w) / p.stride_w + 1);
  p.input_offset = pick(rng, {-127, -5, 0, 37, 127, 128, 128});
  p.output_offset = pick(rng, {-128, -9, 0, 11, 127});
  p.activation_min = pick(rng, {-128, -128, -100});
  p.activation_max = pick(rng, {127, 127, 90});
  const int oc = p.in_ch;
  c.input = random_values<int8_t>(size_t(p.batches) * p.in_h * p.in_w * p.in_ch, rng);
  c.weight = random_values<int8_t>(size_t(p.kernel_h) * p.kernel_w * oc, rng);
  c.bias = random_values<int32_t>(oc, rng, -70000, 70000);
  c.mult.resize(oc), c.shift.resize(oc);
  // Mostly the multipliers the quantizer makes ([2^30, 2^31)); sometimes every int32 corner,
  // INT32_MIN included (the fast path hands such layers to the other path), and shifts up to ±31.
  const bool corners = rng() % 4 == 0;
  for (int i = 0; i < oc; ++i) {
    c.mult[i] = corners ? pick(rng, {INT32_MIN, INT32_MAX, 0, -1, 1, -1518500250, 1518500250})
                        : int32_t(1u << 30 | (rng() & 0x3FFFFFFF));
    c.shift[i] = corners ? pick(rng, {-31, -30, -1, 0, 1, 30, 31}) : pick(rng, {-31, -12, -9, -7, -3, 0, 1, 4});
  }
  return c;
}

void depthwise_matches_reference_on_random_shapes_at_one_level() {
  std::mt19937 rng(2024);
  TestExec exec2(2), exec1(1);
  for (int iteration = 0; iteration < 150; ++iteration) {
    DepthwiseCase c = random_depthwise(rng);
    const DepthwiseConv2dParams& p = c.p;
    ASSERT_TRUE(check_depthwise_conv2d(p, false).is_ok());
    const size_t n = size_t(p.batches) * p.out_h * p.out_w * p.in_ch;
    std::vector<int8_t> want(n), got2(n, 0x55), got1(n, 0x55);
    // The reference is written for batch 1 (as CMSIS-NN): one image at a time.
    DepthwiseConv2dParams one = p;
    one.batches = 1;
    const size_t in_image = size_t(p.in_h) * p.in_w * p.in_ch, out_image = size_t(p.out_h) * p.out_w * p.in_ch;
    for (int b = 0; b < p.batches; ++b)
      ref::depthwise_conv2d_s8(one, c.input.data() + b * in_image, c.weight.data(), c.bias.data(), c.mult.data(),
                               c.shift.data(), want.data() + b * out_image);
    depthwise_conv2d_s8(p, c.input.data(), c.weight.data(), c.bias.data(), c.mult.data(), c.shift.data(), got2.data(),
                        exec2.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
    depthwise_conv2d_s8(p, c.input.data(), c.weight.data(), nullptr, c.mult.data(), c.shift.data(), got1.data(),
                        exec1.make(depthwise_conv2d_s8_scratch_bytes(p, 1)));
    ASSERT_EQ(got2, want) << "iteration " << iteration << ": " << p.in_h << "x" << p.in_w << "x" << p.in_ch << " k"
                          << p.kernel_h << "x" << p.kernel_w << " s" << p.stride_h << "," << p.stride_w << " d"
                          << p.dilation_h << "," << p.dilation_w << " pad " << p.pad_h << "," << p.pad_w
                          << " in_off " << p.input_offset;
    // Without bias: the same as a zero bias.
    std::vector<int32_t> zero(p.in_ch, 0);
    for (int b = 0; b < p.batches; ++b)
      ref::depthwise_conv2d_s8(one, c.input.data() + b * in_image, c.weight.data(), zero.data(), c.mult.data(),
                               c.shift.data(), want.data() + b * out_image);
    ASSERT_EQ(got1, want) << "iteration " << iteration << " (no bias, 1 thread)";
  }
}

TEST(CortexMFastPaths, DepthwiseMatchesReferenceOnRandomShapes) {
  testing_support::at_every_isa_level(depthwise_matches_reference_on_random_shapes_at_one_level);
}

void depthwise_wraps_like_the_device_at_one_level() {
  // A bias near INT32_MIN plus negative products wraps to large positive sums (outputs around
  // +32 after the 2^-26 scale, not saturated): every path must wrap the same way.
  DepthwiseConv2dParams p;
  p.in_h = p.in_w = 5, p.in_ch = 70, p.kernel_h = p.kernel_w = 3, p.pad_h = p.pad_w = 1, p.out_h = p.out_w = 5;
  p.input_offset = 128;
  std::vector<int8_t> input(5 * 5 * 70, 127), weight(9 * 70, -128), want(5 * 5 * 70), got(5 * 5 * 70);
  std::vector<int32_t> bias(70, INT32_MIN + 1000), mult(70, 1 << 30), shift(70, -25);
  ref::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
  TestExec exec(2);
  depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got.data(),
                      exec.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
  EXPECT_EQ(got, want);
}

TEST(CortexMFastPaths, DepthwiseWrapsLikeTheDevice) {
  testing_support::at_every_isa_level(depthwise_wraps_like_the_device_at_one_level);
}


void depthwise_multiplier_int32_min_with_sum_int32_min_at_one_level() {
  // acc = INT32_MIN exactly (zero weights, bias INT32_MIN) and multiplier INT32_MIN: the only
  // case where SRDHM's result (2^31) wraps; the VNNI path must hand it to the exact path.
  DepthwiseConv2dParams p;
  p.in_h = p.in_w = 3, p.in_ch = 64, p.kernel_h = p.kernel_w = 3, p.pad_h = p.pad_w = 1, p.out_h = p.out_w = 3;
  p.output_offset = 5;
  std::vector<int8_t> input(3 * 3 * 64, 7), weight(9 * 64, 0), want(3 * 3 * 64), got(3 * 3 * 64);
  std::vector<int32_t> bias(64, INT32_MIN), mult(64, INT32_MIN), shift(64, -3);
  ref::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
  EXPECT_EQ(want[0], -128);  // requantize wraps to INT32_MIN >> 3, then saturates
  TestExec exec(2);
  depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got.data(),
                      exec.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
  EXPECT_EQ(got, want);
}

TEST(CortexMFastPaths, DepthwiseMultiplierInt32MinWithSumInt32Min) {
  testing_support::at_every_isa_level(depthwise_multiplier_int32_min_with_sum_int32_min_at_one_level);
}

void depthwise_stride2_every_height_and_thread_split_at_one_level() {
  // Stride 2 with 3 kernel rows shares interleaved row quads between output rows and across
  // pairs of rows: every height (odd and even row counts), both paddings, 2 images, 1 and 2
  // threads (the split can start a thread on an odd row).
  std::mt19937 rng(5);
  TestExec exec2(2), exec1(1);
  // The last height is large enough (~700k MACs) for the kernel to use both threads.
  for (int in_h : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 41})
    for (int pad = 0; pad <= 1; ++pad) {
      if (in_h + 2 * pad < 3) continue;
      const int in_w = in_h == 41 ? 40 : 9;
      DepthwiseConv2dParams p;
      p.batches = 2, p.in_h = in_h, p.in_w = in_w, p.in_ch = 96, p.kernel_h = p.kernel_w = 3;
      p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = pad;
      p.out_h = (in_h + 2 * pad - 3) / 2 + 1, p.out_w = (in_w + 2 * pad - 3) / 2 + 1;
      p.input_offset = 17, p.output_offset = -3;
      const auto input = random_values<int8_t>(size_t(2) * in_h * in_w * 96, rng);
      const auto weight = random_values<int8_t>(9 * 96, rng);
      const auto bias = random_values<int32_t>(96, rng, -9000, 9000);
      std::vector<int32_t> mult(96), shift(96);
      for (int c = 0; c < 96; ++c) mult[c] = int32_t(1u << 30 | (rng() & 0x3FFFFFFF)), shift[c] = -8 - c % 3;
      const size_t n = size_t(2) * p.out_h * p.out_w * 96;
      std::vector<int8_t> want(n), got2(n), got1(n);
      ref::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
      depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got2.data(),
                          exec2.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
      depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got1.data(),
                          exec1.make(depthwise_conv2d_s8_scratch_bytes(p, 1)));
      ASSERT_EQ(got2, want) << "in_h " << in_h << " pad " << pad;
      ASSERT_EQ(got1, want) << "in_h " << in_h << " pad " << pad;
    }
}

TEST(CortexMFastPaths, DepthwiseStride2EveryHeightAndThreadSplit) {
  testing_support::at_every_isa_level(depthwise_stride2_every_height_and_thread_split_at_one_level);
}

void depthwise_kernels_around_the_row_tap_limit_at_one_level() {
  // The x86 row below VNNI lists a row's taps on the stack, up to 64 (8x8); larger kernels take
  // the portable row. Kernels of 64 and 65+ taps, with padding (edge windows list fewer taps) and
  // 59 channels (a tail that reaches the second half of the last vector at both widths), with
  // and without the VNNI path's scratch.
  std::mt19937 rng(64);
  struct Case { int kh, kw; };
  for (const Case& k : {Case{8, 8}, Case{1, 64}, Case{5, 13}, Case{9, 8}}) {
    DepthwiseConv2dParams p;
    p.in_h = 12, p.in_w = 70, p.in_ch = 59, p.kernel_h = k.kh, p.kernel_w = k.kw;
    p.pad_h = k.kh / 2, p.pad_w = k.kw / 2, p.stride_w = 3;
    p.out_h = (p.in_h + 2 * p.pad_h - k.kh) / p.stride_h + 1, p.out_w = (p.in_w + 2 * p.pad_w - k.kw) / p.stride_w + 1;
    p.input_offset = 128, p.output_offset = 4, p.activation_min = -100, p.activation_max = 120;
    const auto input = random_values<int8_t>(size_t(p.in_h) * p.in_w * 59, rng);
    const auto weight = random_values<int8_t>(size_t(k.kh) * k.kw * 59, rng);
    const auto bias = random_values<int32_t>(59, rng, -70000, 70000);
    std::vector<int32_t> mult(59), shift(59);
    for (int c = 0; c < 59; ++c) mult[c] = int32_t(1u << 30 | (rng() & 0x3FFFFFFF)), shift[c] = -10 - c % 4;
    const size_t n = size_t(p.out_h) * p.out_w * 59;
    std::vector<int8_t> want(n), got(n), no_scratch(n);
    ref::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
    TestExec exec(2);
    depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got.data(),
                        exec.make(depthwise_conv2d_s8_scratch_bytes(p, 2)));
    depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), no_scratch.data(),
                        Exec{});
    ASSERT_EQ(got, want) << "kernel " << k.kh << "x" << k.kw;
    ASSERT_EQ(no_scratch, want) << "kernel " << k.kh << "x" << k.kw << ", no scratch";
  }
}

TEST(CortexMFastPaths, DepthwiseKernelsAroundTheRowTapLimit) {
  testing_support::at_every_isa_level(depthwise_kernels_around_the_row_tap_limit_at_one_level);
}

// ---- small fully connected (direct GEMV) -----------------------------------------------------
void small_linear_matches_reference_at_one_level() {
  std::mt19937 rng(77);
  TestExec exec(2);
  for (int iteration = 0; iteration < 400; ++iteration) {
    LinearParams p;
    p.batches = pick(rng, {1, 1, 2, 3, 4});
    p.in_features = pick(rng, {1, 3, 16, 63, 64, 65, 100, 128, 250, 700});
    p.out_features = pick(rng, {1, 2, 12, 15, 16, 17, 33, 40});
    p.input_offset = pick(rng, {128, 128, -127, -3, 0, 77});
    p.filter_offset = pick(rng, {0, 0, 0, 5, -128});
    p.output_offset = pick(rng, {-128, -7, 0, 100});
    p.multiplier = int32_t(1u << 30 | (rng() & 0x3FFFFFFF));
    p.shift = pick(rng, {-31, -10, -8, -3, 0, 2});
    p.activation_min = pick(rng, {-128, -128, -90});
    p.activation_max = pick(rng, {127, 127, 80});
    const bool per_channel = rng() % 4 == 0, with_bias = rng() % 5 != 0;
    const auto x = random_values<int8_t>(size_t(p.batches) * p.in_features, rng);
    const auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
    const auto bias = random_values<int32_t>(p.out_features, rng, -100000, 100000);
    std::vector<int32_t> mults(p.out_features), shifts(p.out_features);
    for (int o = 0; o < p.out_features; ++o)
      mults[o] = int32_t(1u << 30 | (rng() & 0x3FFFFFFF)), shifts[o] = pick(rng, {-12, -9, -1, 0, 1});
    const size_t n = size_t(p.batches) * p.out_features;
    std::vector<int8_t> want(n), got(n, 0x55);
    const int32_t* b = with_bias ? bias.data() : nullptr;
    if (per_channel) {
      ref::fully_connected_s8(p, x.data(), w.data(), b, mults.data(), shifts.data(), true, want.data());
      linear_s8_per_channel(p, x.data(), w.data(), b, mults.data(), shifts.data(), got.data(),
                            exec.make(linear_s8_scratch_bytes(p, 2)));
    } else {
      ref::fully_connected_s8(p, x.data(), w.data(), b, &p.multiplier, &p.shift, false, want.data());
      linear_s8(p, x.data(), w.data(), b, nullptr, got.data(), exec.make(linear_s8_scratch_bytes(p, 2)));
    }
    ASSERT_EQ(got, want) << "iteration " << iteration << ": " << p.batches << "x" << p.in_features << " -> "
                         << p.out_features << " in_off " << p.input_offset << " w_off " << p.filter_offset
                         << (per_channel ? " per channel" : "") << (with_bias ? "" : " no bias");
  }
}

TEST(CortexMFastPaths, SmallLinearMatchesReference) {
  testing_support::at_every_isa_level(small_linear_matches_reference_at_one_level);
}

// Big enough (>= 1M MACs) that the packed GEMM splits the work over two threads: by column
// panels when there are few rows (every case but the last two), by rows otherwise; row counts
// that are not multiples of the 8-row tile or the 32-row block put the cuts in odd places.
void linear_split_over_two_threads_at_any_shape_at_one_level() {
  std::mt19937 rng(91);
  TestExec exec(2);
  const std::pair<int, int> shapes[] = {{9, 3512}, {33, 970}, {49, 659}, {57, 569}, {100, 331}, {196, 177},
                                        {1000, 40}, {1001, 33}};
  for (auto [rows, columns] : shapes) {
    LinearParams p;
    p.batches = rows;
    p.in_features = 200;
    p.out_features = columns;  // >= 6M MACs: several tasks
    p.input_offset = 3;
    p.filter_offset = 0;
    p.output_offset = -5;
    p.multiplier = int32_t(1u << 30 | (rng() & 0x3FFFFFFF));
    p.shift = -9;
    p.activation_min = -128;
    p.activation_max = 127;
    const auto x = random_values<int8_t>(size_t(p.batches) * p.in_features, rng);
    const auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
    const auto bias = random_values<int32_t>(p.out_features, rng, -100000, 100000);
    const size_t n = size_t(p.batches) * p.out_features;
    std::vector<int8_t> want(n), got(n, 0x55);
    ref::fully_connected_s8(p, x.data(), w.data(), bias.data(), &p.multiplier, &p.shift, false, want.data());
    linear_s8(p, x.data(), w.data(), bias.data(), nullptr, got.data(), exec.make(linear_s8_scratch_bytes(p, 2)));
    ASSERT_EQ(got, want) << rows << " rows";
  }
}

TEST(CortexMFastPaths, LinearSplitOverTwoThreadsAtAnyShape) {
  testing_support::at_every_isa_level(linear_split_over_two_threads_at_any_shape_at_one_level);
}

// ---- average pool (int16 sums, float division) ------------------------------------------------
void average_pool_matches_reference_at_one_level() {
  std::mt19937 rng(99);
  TestExec exec(2);
  for (int iteration = 0; iteration < 300; ++iteration) {
    PoolParams p;
    p.batches = pick(rng, {1, 1, 2});
    p.channels = pick(rng, {1, 5, 16, 31, 64, 65, 100, 130});
    p.kernel_h = pick(rng, {1, 2, 3, 7, 16, 17});
    p.kernel_w = pick(rng, {1, 2, 3, 5, 16, 17});
    p.stride_h = pick(rng, {1, 2, 3}), p.stride_w = pick(rng, {1, 2, 4});
    p.pad_h = int32_t(rng() % std::min(3, p.kernel_h)), p.pad_w = int32_t(rng() % std::min(3, p.kernel_w));
    p.in_h = std::max(p.kernel_h - 2 * p.pad_h, 1 + int32_t(rng() % 18));
    p.in_w = std::max(p.kernel_w - 2 * p.pad_w, 1 + int32_t(rng() % 18));
    p.out_h = (p.in_h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
    p.out_w = (p.in_w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
    p.activation_min = pick(rng, {-128, -128, -60});
    p.activation_max = pick(rng, {127, 127, 50});
    // Extreme inputs (all −128 / all 127) reach the largest sums; small ranges give many ties.
    const int range = pick(rng, {0, 1, 2, 3});
    const int lo = range == 0 ? -128 : range == 1 ? 127 : range == 2 ? -2 : -128;
    const int hi = range == 0 ? -128 : range == 1 ? 127 : range == 2 ? 2 : 127;
    const auto input = random_values<int8_t>(size_t(p.batches) * p.in_h * p.in_w * p.channels, rng, lo, hi);
    const size_t n = size_t(p.batches) * p.out_h * p.out_w * p.channels;
    std::vector<int8_t> want(n), got(n, 0x55);
    ref::avg_pool2d_s8(p, input.data(), want.data());
    ASSERT_TRUE(avg_pool2d_s8(p, input.data(), got.data(), exec.make(avg_pool2d_scratch_bytes(p, 2))).is_ok());
    ASSERT_EQ(got, want) << "iteration " << iteration << ": " << p.in_h << "x" << p.in_w << "x" << p.channels << " k"
                         << p.kernel_h << "x" << p.kernel_w << " s" << p.stride_h << "," << p.stride_w << " pad "
                         << p.pad_h << "," << p.pad_w;
  }
}

TEST(CortexMFastPaths, AveragePoolMatchesReference) {
  testing_support::at_every_isa_level(average_pool_matches_reference_at_one_level);
}

}  // namespace
}  // namespace vkrt::cortex_m
