// The vectorised int8 paths against independent expectations:
//  - CONV2D on the compute core's GEMM (conv2d_int8.cpp) at every ISA level, weights packed
//    ahead or not, and DEPTHWISE_CONV2D (depthwise_int8.cpp), bit-exact with the reference
//    loops straight from the spec's pseudocode (detail::conv2d_reference), over shapes that
//    exercise every edge: windows read in place or gathered, padding on each side, stride,
//    dilation, zero points, a broadcast bias, tiny and large channel counts;
//  - sums past int32, which must wrap modulo 2^32 on every path;
//  - the same results when the work is split over threads (a ParallelRunner), bands in any order;
//  - RESCALE with scale32 (its hoisted and its 32-bit-lane loops) element by element against
//    arith::apply_scale_32 as tosa.md §5 writes it, for every in/out dtype pair, and with
//    unsigned operands against the per-element reference formula.
#include <algorithm>
#include <atomic>
#include <limits>
#include <random>
#include <thread>

#include "arith/fixed_point.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

struct ConvCase {
  int64_t n, ih, iw, ic, oc, kh, kw;
  int64_t pad_t, pad_b, pad_l, pad_r, stride_y, stride_x, dil_y, dil_x;
  int64_t in_zp, w_zp;
  bool bias_broadcast;
};

int64_t out_size(int64_t in, int64_t pad_a, int64_t pad_b, int64_t k, int64_t dil, int64_t stride) {
  return (in - 1 + pad_a + pad_b - (k - 1) * dil) / stride + 1;
}

ConvAttr attrs_of(const ConvCase& c) {
  ConvAttr a;
  a.pad[0] = c.pad_t, a.pad[1] = c.pad_b, a.pad[2] = c.pad_l, a.pad[3] = c.pad_r;
  a.stride[0] = c.stride_y, a.stride[1] = c.stride_x;
  a.dilation[0] = c.dil_y, a.dilation[1] = c.dil_x;
  a.input_zp = c.in_zp, a.weight_zp = c.w_zp;
  return a;
}

template <typename T>
void fill_random(std::vector<T>& v, std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  for (auto& x : v) x = T(d(rng));
}

// Shapes chosen so that: OW is not a multiple of the 4-pixel block (1, 3, 5, 7, 13), channel
// counts are not multiples of any vector width (1, 3, 17, 33), a patch spans more than one
// 1024-tap chunk, output channels run past one 16-channel block and one 128-channel group of
// the few-taps kernel (150), and MobileNetV2's own layers appear (3x3 stride 2 over 3 channels,
// 1x1 expand).
const ConvCase kConvCases[] = {
    {1, 7, 7, 3, 8, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1, -128, 0, false},      // MNV2 stem-like
    {1, 5, 13, 16, 96, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 5, -3, false},     // 1x1 expand, OW % 4 = 1
    {2, 6, 5, 33, 17, 3, 2, 2, 0, 1, 0, 1, 2, 2, 1, -7, 3, false},      // uneven pads, dilation
    {1, 10, 7, 1, 3, 5, 5, 2, 2, 2, 2, 3, 1, 1, 2, 127, -128, true},    // IC 1, bias broadcast
    {1, 1, 3, 160, 5, 1, 3, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, false},       // one row, K 480
    {3, 4, 1, 17, 2, 2, 1, 1, 0, 0, 0, 1, 1, 1, 1, -1, 1, false},       // OW 1: a block of one pixel
    {1, 3, 5, 700, 5, 1, 2, 0, 0, 1, 0, 1, 1, 1, 1, 3, -2, false},      // 1400 taps: two chunks
    {1, 6, 37, 5, 150, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, -9, 0, false},     // 5 taps, 150 channels
};

TEST(TosaFastPaths, Conv2dInt8MatchesReferenceLoops) {
  std::mt19937 rng(2026);
  for (const ConvCase& c : kConvCases) {
    const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
    const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
    auto in = i8({c.n, c.ih, c.iw, c.ic});
    auto w = i8({c.oc, c.kh, c.kw, c.ic});
    auto bias = i32({c.bias_broadcast ? 1 : c.oc});
    fill_random(in.data, rng, -128, 127);
    fill_random(w.data, rng, -128, 127);
    fill_random(bias.data, rng, -100000, 100000);
    auto fast = i32({c.n, oh, ow, c.oc}), reference = i32({c.n, oh, ow, c.oc});
    const ConvAttr a = attrs_of(c);
    ASSERT_TOSA_OK(conv2d_every_path(in, w, bias, a, fast));
    detail::conv2d_reference(in, w, bias, a, reference);
    EXPECT_EQ(fast.data, reference.data) << "conv " << c.ih << "x" << c.iw << "x" << c.ic << " -> " << c.oc
                                         << " kernel " << c.kh << "x" << c.kw;
  }
}

TEST(TosaFastPaths, DepthwiseInt8MatchesReferenceLoops) {
  std::mt19937 rng(7);
  for (const ConvCase& c : kConvCases) {
    // The engine runs where the weight zero point is 0 (each case once that way); multiplier 2
    // takes its portable row.
    for (const auto& [multiplier, weight_zp] : {std::pair<int64_t, int64_t>{1, c.w_zp}, {1, 0}, {2, 0}}) {
      const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
      const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
      const int64_t channels = c.ic * multiplier;
      auto in = i8({c.n, c.ih, c.iw, c.ic});
      auto w = i8({c.kh, c.kw, c.ic, multiplier});
      auto bias = i32({c.bias_broadcast ? 1 : channels});
      fill_random(in.data, rng, -128, 127);
      fill_random(w.data, rng, -128, 127);
      fill_random(bias.data, rng, -100000, 100000);
      auto fast = i32({c.n, oh, ow, channels}), reference = i32({c.n, oh, ow, channels});
      ConvAttr a = attrs_of(c);
      a.weight_zp = weight_zp;
      ASSERT_TOSA_OK(depthwise_conv2d_every_path(in, w, bias, a, fast));
      detail::depthwise_conv2d_reference(in, w, bias, a, reference);
      EXPECT_EQ(fast.data, reference.data) << "depthwise " << c.ih << "x" << c.iw << "x" << c.ic << " multiplier "
                                           << multiplier << " weight_zp " << weight_zp;
    }
  }
}

// int16 CONV2D and DEPTHWISE_CONV2D on the compute core's A16W8 convolutions against the
// reference loops, over the same shapes: int16 activations over their whole range (no zero
// point), the cases' weight zero points, int48 biases up to ±2^46 (broadcast where the case has
// it) and, once per case, all activations and weights at the extremes (the largest sums).
TEST(TosaFastPaths, Int16ConvolutionsMatchReferenceLoops) {
  std::mt19937 rng(16);
  for (const ConvCase& c : kConvCases) {
    for (bool extremes : {false, true}) {
      const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
      const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
      ConvAttr a = attrs_of(c);
      a.input_zp = 0, a.acc_type = AccType::Int48;
      auto in = i16({c.n, c.ih, c.iw, c.ic});
      auto w = i8({c.oc, c.kh, c.kw, c.ic});
      auto bias = i48({c.bias_broadcast ? 1 : c.oc});
      fill_random(in.data, rng, -32768, 32767);
      fill_random(w.data, rng, -128, 127);
      if (extremes) {
        std::fill(in.data.begin(), in.data.end(), int16_t(-32768));
        std::fill(w.data.begin(), w.data.end(), int8_t(c.w_zp >= 0 ? -128 : 127));
      }
      std::uniform_int_distribution<int64_t> b48(-(int64_t(1) << 46), int64_t(1) << 46);
      for (auto& b : bias.data) b = b48(rng);
      auto fast = i48({c.n, oh, ow, c.oc}), reference = i48({c.n, oh, ow, c.oc});
      ASSERT_TOSA_OK(conv2d_every_path(in, w, bias, a, fast));
      detail::conv2d_reference(in, w, bias, a, reference);
      EXPECT_EQ(fast.data, reference.data) << "int16 conv " << c.ih << "x" << c.iw << "x" << c.ic << " -> " << c.oc;

      for (int64_t multiplier : {1, 2}) {
        const int64_t channels = c.ic * multiplier;
        auto dw = i8({c.kh, c.kw, c.ic, multiplier});
        auto dbias = i48({c.bias_broadcast ? 1 : channels});
        fill_random(dw.data, rng, -128, 127);
        if (extremes) std::fill(dw.data.begin(), dw.data.end(), int8_t(c.w_zp >= 0 ? -128 : 127));
        for (auto& b : dbias.data) b = b48(rng);
        auto dfast = i48({c.n, oh, ow, channels}), dreference = i48({c.n, oh, ow, channels});
        ASSERT_TOSA_OK(depthwise_conv2d_every_path(in, dw, dbias, a, dfast));
        detail::depthwise_conv2d_reference(in, dw, dbias, a, dreference);
        EXPECT_EQ(dfast.data, dreference.data) << "int16 depthwise " << c.ih << "x" << c.iw << "x" << c.ic
                                               << " multiplier " << multiplier;
      }
    }
  }
}

// 33026 taps of (-128 - 127) * (-128 - 127) = 65025 each sum to 2147515650, past INT32_MAX:
// every path must wrap as the reference loops do (tosa.md §6).
TEST(TosaFastPaths, SumsPastInt32WrapLikeTheReference) {
  const int64_t taps = 33026;
  auto in = i8({1, 1, 1, taps}, std::vector<int8_t>(size_t(taps), -128));
  auto w = i8({1, 1, 1, taps}, std::vector<int8_t>(size_t(taps), -128));
  auto bias = i32({1}, {0});
  auto out = i32({1, 1, 1, 1});
  ConvAttr a;
  a.input_zp = 127, a.weight_zp = 127;
  ASSERT_TOSA_OK(conv2d_every_path(in, w, bias, a, out));
  EXPECT_EQ(out.data[0], int32_t(uint32_t(int64_t(taps) * 65025)));
  EXPECT_LT(out.data[0], 0);  // wrapped

  // One tap fewer still fits: exact.
  auto in2 = i8({1, 1, 1, taps - 1}, std::vector<int8_t>(size_t(taps - 1), -128));
  auto w2 = i8({1, 1, 1, taps - 1}, std::vector<int8_t>(size_t(taps - 1), -128));
  ASSERT_TOSA_OK(conv2d_every_path(in2, w2, bias, a, out));
  EXPECT_EQ(out.data[0], (taps - 1) * 65025);
}

// RESCALE scale32 against apply_scale_32 per element. Shifts all >= 32 take the 32-bit-lane
// loop, a mix takes the general one; both per-channel and per-tensor, both roundings.
template <typename TIn, typename TOut>
void check_rescale32(DType in_type, DType out_type, std::mt19937& rng, int64_t channels = 11, int64_t pixels = 37) {
  Tensor<TIn> in(in_type, {pixels, channels});
  std::uniform_int_distribution<int64_t> value(std::numeric_limits<TIn>::min(), std::numeric_limits<TIn>::max());
  for (auto& v : in.data) v = TIn(value(rng));
  in.data[0] = std::numeric_limits<TIn>::min(), in.data[1] = std::numeric_limits<TIn>::max(), in.data[2] = 0;
  std::uniform_int_distribution<int32_t> multiplier(0, INT32_MAX);
  const int64_t out_lo = std::numeric_limits<TOut>::min(), out_hi = std::numeric_limits<TOut>::max();
  const int64_t in_zp = in_type == DType::Int8 ? -17 : 0, out_zp = out_type == DType::Int8 ? 9 : 0;
  for (bool per_channel : {true, false})
    for (bool wide_shifts : {true, false})
      for (RoundingMode mode : {RoundingMode::SingleRound, RoundingMode::DoubleRound}) {
        RescaleAttr a;
        a.scale32 = true;
        a.rounding_mode = mode;
        a.per_channel = per_channel;
        a.input_zp = in_zp, a.output_zp = out_zp;
        std::uniform_int_distribution<int> shift(wide_shifts ? 32 : 2, wide_shifts ? 62 : 40);
        std::vector<int32_t> multipliers, shifts;
        for (int64_t c = 0; c < (per_channel ? channels : 1); ++c) {
          multipliers.push_back(multiplier(rng));
          shifts.push_back(shift(rng));
        }
        a.multiplier = multipliers;
        a.shift.assign(shifts.begin(), shifts.end());
        Tensor<TOut> out(out_type, {pixels, channels});
        ASSERT_TOSA_OK(rescale(in, a, out));
        for (int64_t i = 0; i < pixels * channels; ++i) {
          const size_t c = per_channel ? size_t(i % channels) : 0;
          const int32_t v = int32_t(int64_t(in.data[size_t(i)]) - in_zp);
          const int64_t r = int64_t(arith::apply_scale_32(v, a.multiplier[c], a.shift[c],
                                                          mode == RoundingMode::DoubleRound)) + out_zp;
          const TOut want = TOut(std::clamp(r, out_lo, out_hi));
          ASSERT_EQ(out.data[size_t(i)], want) << "element " << i << " value " << v << " multiplier "
                                                << a.multiplier[c] << " shift " << a.shift[c]
                                                << (per_channel ? " per channel" : " per tensor");
        }
      }
}

void check_rescale32_every_type() {
  std::mt19937 rng(99);
  check_rescale32<int8_t, int8_t>(DType::Int8, DType::Int8, rng);
  check_rescale32<int8_t, int32_t>(DType::Int8, DType::Int32, rng);
  check_rescale32<int16_t, int16_t>(DType::Int16, DType::Int16, rng);
  check_rescale32<int16_t, int8_t>(DType::Int16, DType::Int8, rng);
  check_rescale32<int32_t, int8_t>(DType::Int32, DType::Int8, rng);
  check_rescale32<int32_t, int16_t>(DType::Int32, DType::Int16, rng);
  check_rescale32<int32_t, int32_t>(DType::Int32, DType::Int32, rng);
  // More channels than one stack chunk of constants holds (256), not a multiple of it.
  check_rescale32<int32_t, int8_t>(DType::Int32, DType::Int8, rng, 300);
  // 1100 int8 values per tensor: looked up in a table of the 256 bytes' results.
  check_rescale32<int8_t, int8_t>(DType::Int8, DType::Int8, rng, 11, 100);
  check_rescale32<int8_t, int16_t>(DType::Int8, DType::Int16, rng, 11, 100);
  check_rescale32<int8_t, int32_t>(DType::Int8, DType::Int32, rng, 11, 100);
  // Whole vectors of channels: 16 (one AVX-512 step per pixel), 40 (two and a half).
  check_rescale32<int32_t, int8_t>(DType::Int32, DType::Int8, rng, 16);
  check_rescale32<int32_t, int16_t>(DType::Int32, DType::Int16, rng, 40);
}

TEST(TosaFastPaths, Rescale32MatchesApplyScale32) {
  for (compute::Isa isa : compute::available_isas()) {
    SCOPED_TRACE(compute::isa_name(isa));
    compute::ScopedIsa pin(isa);
    check_rescale32_every_type();
  }
}

// scale16 RESCALE (rows of channels, split over threads) element by element against
// arith::apply_scale_16 as tosa.md §5 writes it: int48 sums (past the int48 range too: the spec
// clamps them first) and int16 inputs, per channel (channel counts that do not divide the
// threads' slices) and per tensor, to int16, int8 and int32, with zero points and unsigned sides.
TEST(TosaFastPaths, Rescale16MatchesApplyScale16) {
  std::mt19937 rng(16);
  CountingThreads three(3);
  for (const auto& [in_type, out_type, in_unsigned, out_unsigned] :
       {std::tuple{DType::Int48, DType::Int16, false, false}, std::tuple{DType::Int48, DType::Int8, false, false},
        std::tuple{DType::Int48, DType::Int32, false, false}, std::tuple{DType::Int16, DType::Int16, false, false},
        std::tuple{DType::Int16, DType::Int8, true, false}, std::tuple{DType::Int16, DType::Int16, false, true}}) {
    for (bool per_channel : {true, false})
      for (ParallelRunner* runner : {static_cast<ParallelRunner*>(nullptr), static_cast<ParallelRunner*>(&three)}) {
        const int64_t pixels = 3001, channels = 37;  // 111037 elements: several slices a thread
        const int64_t shape[2] = {pixels, channels};
        std::vector<int64_t> in48(size_t(pixels * channels));
        std::vector<int16_t> in16(in48.size());
        std::uniform_int_distribution<int64_t> wide(-(int64_t(1) << 49), int64_t(1) << 49);
        for (size_t i = 0; i < in48.size(); ++i) in48[i] = wide(rng), in16[i] = int16_t(rng());
        const TensorRef in{in_type, shape, in_type == DType::Int48 ? static_cast<void*>(in48.data()) : in16.data()};
        RescaleAttr a;
        a.scale32 = false, a.rounding_mode = RoundingMode::SingleRound, a.per_channel = per_channel;
        a.input_unsigned = in_unsigned, a.output_unsigned = out_unsigned;
        a.input_zp = in_type == DType::Int16 && in_unsigned ? 32768 : 0;
        a.output_zp = out_type == DType::Int8 ? -7 : out_unsigned ? 32768 : 0;
        for (int64_t c = 0; c < (per_channel ? channels : 1); ++c) {
          a.multiplier.push_back(int32_t(rng() % 32768));
          a.shift.push_back(int8_t(in_type == DType::Int48 ? 30 + rng() % 20 : 2 + rng() % 20));
        }
        std::vector<int64_t> got(in48.size()), want(in48.size());
        const TensorRef got_ref{out_type, shape, got.data()}, want_ref{out_type, shape, want.data()};
        ASSERT_TOSA_OK(rescale(in, a, got_ref, runner));
        detail::rescale_reference(in, a, want_ref);
        EXPECT_EQ(got, want) << dtype_name(in_type) << " -> " << dtype_name(out_type)
                             << (per_channel ? " per channel" : " per tensor") << (runner ? ", three threads" : "");
      }
  }
  EXPECT_GT(three.tasks, 0);
}

// The int8 table path with every other parameter: unsigned input or output, scale16, and split
// over threads: the same bytes as the per-element reference formula.
TEST(TosaFastPaths, RescaleInt8TableMatchesReference) {
  std::mt19937 rng(17);
  CountingThreads three(3);
  auto in = i8({3, 40000});  // above the threads' threshold; every byte value several times
  for (size_t i = 0; i < in.data.size(); ++i) in.data[i] = int8_t(uint8_t(i * 7 + i / 256));
  std::uniform_int_distribution<int32_t> multiplier(0, INT32_MAX), multiplier16(0, INT16_MAX);
  std::uniform_int_distribution<int> shift(2, 45);
  int cases = 0;
  for (bool scale32 : {true, false})
    for (bool input_unsigned : {false, true})
      for (DType out_type : {DType::Int8, DType::Int16, DType::Int32}) {
        RescaleAttr a;
        a.scale32 = scale32;
        a.rounding_mode = scale32 ? RoundingMode::DoubleRound : RoundingMode::SingleRound;
        a.input_unsigned = input_unsigned;
        a.input_zp = input_unsigned ? 131 : -7;
        a.output_zp = out_type == DType::Int8 ? 5 : 0;
        const std::vector<int32_t> m = {scale32 ? multiplier(rng) : multiplier16(rng)}, sh = {shift(rng)};
        a.multiplier = m;
        a.shift.assign(sh.begin(), sh.end());
        auto check = [&](auto fast, auto reference) {
          ASSERT_TOSA_OK(rescale(in, a, fast, &three));
          detail::rescale_reference(in, a, reference);
          EXPECT_EQ(fast.data, reference.data) << "scale32 " << scale32 << " unsigned " << input_unsigned << " out "
                                               << dtype_name(out_type);
        };
        if (out_type == DType::Int8) check(i8(in.shape), i8(in.shape));
        if (out_type == DType::Int16) check(i16(in.shape), i16(in.shape));
        if (out_type == DType::Int32) check(i32(in.shape), i32(in.shape));
        ++cases;
      }
  EXPECT_EQ(three.tasks, 3 * cases);
}

// Unsigned inputs and outputs (uint8 <-> int8, uint16) go through the hoisted general loop: the
// same bytes as the per-element reference formula.
TEST(TosaFastPaths, RescaleUnsignedMatchesReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int32_t> multiplier(0, INT32_MAX);
  std::uniform_int_distribution<int> shift(20, 45);
  for (bool input_unsigned : {true, false}) {
    auto in = i8({13, 5});
    for (auto& v : in.data) v = int8_t(byte(rng));
    RescaleAttr a;
    a.scale32 = true;
    a.per_channel = true;
    a.rounding_mode = RoundingMode::DoubleRound;
    a.input_unsigned = input_unsigned;
    a.output_unsigned = !input_unsigned;
    a.input_zp = input_unsigned ? 128 : -3;
    a.output_zp = input_unsigned ? 0 : 200;
    std::vector<int32_t> multipliers, shifts;
    for (int c = 0; c < 5; ++c) multipliers.push_back(multiplier(rng)), shifts.push_back(shift(rng));
    a.multiplier = multipliers;
    a.shift.assign(shifts.begin(), shifts.end());
    auto fast = i8({13, 5}), reference = i8({13, 5});
    ASSERT_TOSA_OK(rescale(in, a, fast));
    detail::rescale_reference(in, a, reference);
    EXPECT_EQ(fast.data, reference.data) << (input_unsigned ? "uint8 -> int8" : "int8 -> uint8");
  }
}

// Large enough to be split (above the kernels' thresholds), with an uneven row count (OH 27).
TEST(TosaFastPaths, SplitOverThreadsGivesTheSameBytes) {
  std::mt19937 rng(11);
  const ConvCase c{2, 27, 26, 24, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, -128, 0, false};
  const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
  const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
  auto in = i8({c.n, c.ih, c.iw, c.ic});
  auto w = i8({c.oc, c.kh, c.kw, c.ic});
  auto dw = i8({c.kh, c.kw, c.ic, 1});
  auto bias = i32({c.oc}), dw_bias = i32({c.ic});
  fill_random(in.data, rng, -128, 127);
  fill_random(w.data, rng, -128, 127);
  fill_random(dw.data, rng, -128, 127);
  fill_random(bias.data, rng, -5000, 5000);
  fill_random(dw_bias.data, rng, -5000, 5000);
  const ConvAttr a = attrs_of(c);
  CountingThreads threads(3);

  // CONV2D on the GEMM (12 M multiply-adds: 3 tasks), every level, packed ahead or not.
  auto serial = i32({c.n, oh, ow, c.oc}), split = i32({c.n, oh, ow, c.oc});
  ASSERT_TOSA_OK(conv2d(in, w, bias, a, serial));
  ASSERT_TOSA_OK(conv2d_every_path(in, w, bias, a, split, &threads));
  EXPECT_EQ(split.data, serial.data);
  EXPECT_GT(threads.tasks, 0);
  threads.tasks = 0;

  // Depthwise over 2*27 rows of 26 pixels x 24 channels x 9 taps (above its threshold too).
  auto dw_in = i8({2, 27 * 4, 26, c.ic});
  fill_random(dw_in.data, rng, -128, 127);
  auto dw_serial = i32({2, 27 * 4, 26, c.ic}), dw_split = i32({2, 27 * 4, 26, c.ic});
  ASSERT_TOSA_OK(depthwise_conv2d(dw_in, dw, dw_bias, a, dw_serial));
  ASSERT_TOSA_OK(depthwise_conv2d(dw_in, dw, dw_bias, a, dw_split, &threads));
  EXPECT_EQ(dw_split.data, dw_serial.data);
  EXPECT_EQ(threads.tasks, 3);
  ASSERT_TOSA_OK(depthwise_conv2d_every_path(dw_in, dw, dw_bias, a, dw_split, &threads));
  EXPECT_EQ(dw_split.data, dw_serial.data);
  EXPECT_GT(threads.tasks, 3);
  threads.tasks = 0;

  // RESCALE per channel and per tensor over the convolution's 2*27*26*40 = 56160 sums, repeated
  // to 280800 elements (above the threshold).
  auto sums = i32({5 * c.n * oh * ow, c.oc});
  for (size_t i = 0; i < sums.data.size(); ++i) sums.data[i] = serial.data[i % serial.data.size()];
  std::vector<int32_t> multipliers(size_t(c.oc)), shifts(size_t(c.oc));
  for (int64_t k = 0; k < c.oc; ++k) multipliers[size_t(k)] = 1073741824 + int32_t(k) * 9999991, shifts[size_t(k)] = 38 + int32_t(k % 5);
  for (bool per_channel : {true, false}) {
    RescaleAttr r;
    r.scale32 = true;
    r.rounding_mode = RoundingMode::DoubleRound;
    r.per_channel = per_channel;
    r.output_zp = -128;
    const size_t n = per_channel ? multipliers.size() : 1;
    r.multiplier.assign(multipliers.begin(), multipliers.begin() + ptrdiff_t(n));
    r.shift.assign(shifts.begin(), shifts.begin() + ptrdiff_t(n));
    auto q_serial = i8(sums.shape), q_split = i8(sums.shape);
    ASSERT_TOSA_OK(rescale(sums, r, q_serial));
    ASSERT_TOSA_OK(rescale(sums, r, q_split, &threads));
    EXPECT_EQ(q_split.data, q_serial.data) << (per_channel ? "per channel" : "per tensor");
  }
  EXPECT_EQ(threads.tasks, 6);

  // Below the thresholds nothing is handed to the threads.
  auto small_in = i8({1, 4, 4, 3});
  auto small_out = i32({1, 4, 4, c.oc});
  auto small_w = i8({c.oc, 1, 1, 3});
  ASSERT_TOSA_OK(conv2d_every_path(small_in, small_w, bias, ConvAttr{}, small_out, &threads));
  EXPECT_EQ(threads.tasks, 6);
}

// CONV2D -> RESCALE -> CLAMP as one kernel (conv2d_rescale, the CPU executor's fusion) equals
// the three reference kernels in turn, on every path: each ISA level, scratch or none (then the
// kernels run in turn), weights packed ahead or not, one thread or three; per-channel and
// per-tensor scales, with and without the CLAMP; the RESCALE as the GEMM's output stage
// (conv_requantize: either rounding, shifts of 32 to 62) or in bands (a shift below 32, a
// broadcast bias).
TEST(TosaFastPaths, Conv2dRescaleClampFusedEqualsTheOpsInTurn) {
  std::mt19937 rng(99);
  CountingThreads three(3);
  std::vector<ConvCase> cases(std::begin(kConvCases), std::end(kConvCases));
  // Several bands of output pixels: a windowed convolution (4 bands) and a pointwise one (10).
  cases.push_back({2, 27, 26, 24, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, -128, 0, false});
  cases.push_back({1, 40, 40, 16, 96, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 3, 0, false});
  // Few rows: one band by cache size, and at three threads bands of 8 rows, the last of 1 (a
  // 7x7 layer); one band of 196 rows by cache size, 9 at three threads.
  cases.push_back({1, 7, 7, 64, 160, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, -128, 0, false});
  cases.push_back({1, 14, 14, 48, 40, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 3, 0, false});
  for (const ConvCase& c : cases) {
    const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
    const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
    auto in = i8({c.n, c.ih, c.iw, c.ic});
    auto w = i8({c.oc, c.kh, c.kw, c.ic});
    auto bias = i32({c.bias_broadcast ? 1 : c.oc});
    fill_random(in.data, rng, -128, 127);
    fill_random(w.data, rng, -128, 127);
    fill_random(bias.data, rng, -100000, 100000);
    const ConvAttr a = attrs_of(c);
    const bool per_channel = c.oc % 2 == 0;
    RescaleAttr r;
    r.scale32 = true;
    // Every other case rounds once (what ExecuTorch's Arm backend emits).
    r.rounding_mode = (&c - cases.data()) % 2 == 1 ? RoundingMode::SingleRound : RoundingMode::DoubleRound;
    r.per_channel = per_channel;
    r.output_zp = -5;
    for (int64_t k = 0; k < (per_channel ? c.oc : 1); ++k) {
      r.multiplier.push_back(1 << 30 | int32_t(rng() % (1u << 29)));
      r.shift.push_back(int8_t(c.oc == 150 && k == 6 ? 30 : 36 + k % 4));  // 150 channels: one shift below 32, the general loop
    }
    ClampAttr clamp_attr;
    clamp_attr.min_int = -100, clamp_attr.max_int = 90;
    // The ops in turn, reference loops only.
    auto sums = i32({c.n, oh, ow, c.oc});
    auto want_rescaled = i8({c.n, oh, ow, c.oc}), want_clamped = i8({c.n, oh, ow, c.oc});
    detail::conv2d_reference(in, w, bias, a, sums);
    detail::rescale_reference(sums, r, want_rescaled);
    ASSERT_TOSA_OK(clamp(want_rescaled, clamp_attr, want_clamped));
    // The output stage form of the RESCALE, for the chain with and without the CLAMP; none for
    // the case with a shift of 30.
    const std::optional<ConvRequantize> forms[2] = {conv_requantize(r, nullptr, DType::Int8),
                                                    conv_requantize(r, &clamp_attr, DType::Int8)};
    EXPECT_EQ(forms[0].has_value(), c.oc != 150) << c.oc;
    if (forms[1]) {
      EXPECT_EQ(forms[1]->single_round, r.rounding_mode == RoundingMode::SingleRound);
      EXPECT_EQ(forms[1]->act_min, -100);
      EXPECT_EQ(forms[1]->act_max, 90);
      EXPECT_EQ(forms[1]->output_offset, -5);
      EXPECT_EQ(forms[1]->shift[0], 31 - r.shift[0]);
    }
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      for (ParallelRunner* runner : {static_cast<ParallelRunner*>(nullptr), static_cast<ParallelRunner*>(&three)}) {
        const int threads = runner ? 3 : 1;
        for (bool pack : {false, true})
          for (bool with_scratch : {false, true})
            for (bool with_clamp : {false, true})
              for (bool as_output_stage : {false, true}) {
                const ConvRequantize* rq = as_output_stage && forms[with_clamp] ? &*forms[with_clamp] : nullptr;
                if (as_output_stage && rq == nullptr) continue;
                std::vector<uint8_t> packed(pack ? conv2d_packed_weights_bytes(w, bias, a, rq) : 0);
                const void* packed_weights = packed.empty() ? nullptr : conv2d_pack_weights(w, bias, a, packed, rq);
                std::vector<uint8_t> scratch(
                    with_scratch ? conv2d_rescale_scratch_bytes(in, w, bias, a, sums, threads, packed_weights, rq) : 0,
                    0xA5);
                auto got_sums = i32({c.n, oh, ow, c.oc});
                auto rescaled = i8({c.n, oh, ow, c.oc}), clamped = i8({c.n, oh, ow, c.oc});
                ASSERT_TOSA_OK(conv2d_rescale(in, w, bias, a, got_sums, r, rescaled,
                                              with_clamp ? &clamp_attr : nullptr, clamped, runner,
                                              ConvResources{scratch, packed_weights, rq}));
                EXPECT_EQ(with_clamp ? clamped.data : rescaled.data, with_clamp ? want_clamped.data : want_rescaled.data)
                    << "conv " << c.ih << "x" << c.iw << "x" << c.ic << " -> " << c.oc << " at "
                    << compute::isa_name(isa) << ", " << threads << " threads" << (pack ? ", packed" : "")
                    << (with_scratch ? ", scratch" : "") << (with_clamp ? ", clamped" : "")
                    << (rq ? ", requantize as the output stage" : "")
                    << (r.rounding_mode == RoundingMode::SingleRound ? ", single rounding" : ", double rounding");
              }
      }
    }
  }
  EXPECT_GT(three.tasks, 0);  // the cases with several bands ran on the threads
}

// A chain given no bytes for its intermediates (what the VGF CPU executor does where the chain's
// *_fuses says it runs fused): an int8 CONV2D → RESCALE → CLAMP and DEPTHWISE_CONV2D → RESCALE →
// CLAMP with their scratch run fused and give the reference kernels' bytes; without the scratch
// they would take the ops in turn, so they report an error and write nothing. An int16 CONV2D →
// RESCALE to int8 has no fused form: *_fuses says so, and without bytes it reports the error too.
TEST(TosaFastPaths, ChainsWithoutBytesForTheirIntermediatesRunFusedOrReportIt) {
  std::mt19937 rng(101);
  for (bool depthwise : {false, true}) {
    const int64_t n = 1, h = 9, w_ = 7, ic = 24, oc = depthwise ? 24 : 40;
    ConvAttr a;
    a.pad = {1, 1, 1, 1, 0, 0};
    a.input_zp = -3;
    auto in = i8({n, h, w_, ic});
    auto w = depthwise ? i8({3, 3, ic, 1}) : i8({oc, 3, 3, ic});
    auto bias = i32({oc});
    fill_random(in.data, rng, -128, 127);
    fill_random(w.data, rng, -128, 127);
    fill_random(bias.data, rng, -5000, 5000);
    RescaleAttr r;
    r.multiplier = {1 << 30};
    r.shift = {38};
    r.output_zp = 4;
    ClampAttr relu;
    relu.min_int = 4, relu.max_int = 127;
    auto sums = i32({n, h, w_, oc});
    auto want_rescaled = i8({n, h, w_, oc}), want = i8({n, h, w_, oc});
    if (depthwise)
      detail::depthwise_conv2d_reference(in, w, bias, a, sums);
    else
      detail::conv2d_reference(in, w, bias, a, sums);
    detail::rescale_reference(sums, r, want_rescaled);
    ASSERT_TOSA_OK(clamp(want_rescaled, relu, want));
    // The chain's intermediates as the executor passes them: shapes, no data.
    const TensorRef unbound_sums{DType::Int32, sums.shape, nullptr};
    const TensorRef unbound_rescaled{DType::Int8, want_rescaled.shape, nullptr};
    EXPECT_TRUE(depthwise ? depthwise_conv2d_rescale_fuses(in, w, bias, a, unbound_sums, r, unbound_rescaled, &relu, want)
                          : conv2d_rescale_fuses(in, w, bias, a, unbound_sums, r, unbound_rescaled, &relu, want));
    for (bool with_scratch : {true, false}) {
      std::vector<uint8_t> scratch(
          !with_scratch ? 0
          : depthwise   ? depthwise_conv2d_rescale_scratch_bytes(in, w, bias, a, unbound_sums, 1)
                        : conv2d_rescale_scratch_bytes(in, w, bias, a, unbound_sums, 1),
          0xA5);
      auto got = i8({n, h, w_, oc}, std::vector<int8_t>(want.data.size(), 0x55));
      const Status s = depthwise ? depthwise_conv2d_rescale(in, w, bias, a, unbound_sums, r, unbound_rescaled, &relu,
                                                            got, nullptr, scratch)
                                 : conv2d_rescale(in, w, bias, a, unbound_sums, r, unbound_rescaled, &relu, got,
                                                  nullptr, ConvResources{scratch});
      if (with_scratch) {
        ASSERT_TOSA_OK(s);
        EXPECT_EQ(got.data, want.data) << (depthwise ? "depthwise" : "conv");
      } else {
        EXPECT_EQ(s.code(), Error::InvalidState) << s.to_string();
        EXPECT_NE(s.message().find("no bytes"), std::string::npos) << s.to_string();
        EXPECT_EQ(got.data, std::vector<int8_t>(want.data.size(), 0x55));
      }
    }
  }
  // int16 → int48 sums → RESCALE (scale16) to int8: the core's A16W8 output stage writes int16 only.
  ConvAttr a;
  a.acc_type = AccType::Int48;
  auto in = i16({1, 4, 4, 8});
  auto w = i8({6, 1, 1, 8});
  auto bias = i48({6});
  fill_random(in.data, rng, -32768, 32767);
  fill_random(w.data, rng, -128, 127);
  RescaleAttr r;
  r.scale32 = false;
  r.multiplier = {1 << 14};
  r.shift = {30};
  auto out = i8({1, 4, 4, 6});
  const TensorRef unbound_sums{DType::Int48, std::span<const int64_t>(out.shape), nullptr};
  EXPECT_FALSE(conv2d_rescale_fuses(in, w, bias, a, unbound_sums, r, out, nullptr, out));
  std::vector<uint8_t> scratch(conv2d_rescale_scratch_bytes(in, w, bias, a, unbound_sums, 1));
  const Status s = conv2d_rescale(in, w, bias, a, unbound_sums, r, out, nullptr, out, nullptr, ConvResources{scratch});
  EXPECT_EQ(s.code(), Error::InvalidState) << s.to_string();
  // With its bytes the same chain runs its ops in turn.
  auto sums = i48({1, 4, 4, 6});
  ASSERT_TOSA_OK(conv2d_rescale(in, w, bias, a, sums, r, out, nullptr, out, nullptr, ConvResources{scratch}));
}

// The A16W8 chains, int16 CONV2D or DEPTHWISE_CONV2D → RESCALE (scale16, int48 → int16) → CLAMP,
// as the VGF CPU executor runs them (conv2d_rescale with conv2d_rescale_scratch_bytes of scratch,
// depthwise_conv2d_rescale: the compute core's conv_s16 and depthwise_s16 with the RESCALE and
// CLAMP as their output stage), equal the reference kernels in turn at every level, with and
// without scratch, on one and three threads, per channel and per tensor.
TEST(TosaFastPaths, Int16ConvRescaleClampEqualsTheOpsInTurn) {
  std::mt19937 rng(97);
  CountingThreads three(3);
  for (const ConvCase& c : kConvCases) {
    for (bool depthwise : {false, true}) {
      const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
      const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
      const int64_t multiplier = depthwise ? 1 + (c.ic % 2) : 1, oc = depthwise ? c.ic * multiplier : c.oc;
      ConvAttr a = attrs_of(c);
      a.input_zp = 0, a.acc_type = AccType::Int48;
      auto in = i16({c.n, c.ih, c.iw, c.ic});
      auto w = depthwise ? i8({c.kh, c.kw, c.ic, multiplier}) : i8({c.oc, c.kh, c.kw, c.ic});
      auto bias = i48({c.bias_broadcast ? 1 : oc});
      fill_random(in.data, rng, -32768, 32767);
      fill_random(w.data, rng, -128, 127);
      for (auto& b : bias.data) b = int64_t(rng() % 2000001) - 1000000;
      const bool per_channel = (&c - kConvCases) % 2 == 0;
      RescaleAttr r;  // an int48 input takes scale16
      r.scale32 = false, r.per_channel = per_channel, r.input_zp = 0, r.output_zp = 0;  // int16: zero points 0
      r.rounding_mode = RoundingMode::SingleRound;
      for (int64_t k = 0; k < (per_channel ? oc : 1); ++k) {
        r.multiplier.push_back(1 << 14 | int32_t(rng() % (1u << 13)));
        r.shift.push_back(int8_t((depthwise ? 26 : 34) + k % 3));
      }
      ClampAttr clamp_attr;
      clamp_attr.min_int = -20000, clamp_attr.max_int = 30000;
      auto sums = i48({c.n, oh, ow, oc});
      auto want_rescaled = i16({c.n, oh, ow, oc}), want_clamped = i16({c.n, oh, ow, oc});
      if (depthwise)
        detail::depthwise_conv2d_reference(in, w, bias, a, sums);
      else
        detail::conv2d_reference(in, w, bias, a, sums);
      detail::rescale_reference(sums, r, want_rescaled);
      ASSERT_TOSA_OK(clamp(want_rescaled, clamp_attr, want_clamped));
      for (compute::Isa isa : compute::available_isas()) {
        compute::ScopedIsa pin(isa);
        for (ParallelRunner* runner : {static_cast<ParallelRunner*>(nullptr), static_cast<ParallelRunner*>(&three)})
          for (bool with_scratch : {false, true}) {
            const int threads = runner ? 3 : 1;
            std::vector<uint8_t> scratch;
            if (with_scratch)
              scratch.assign(depthwise ? depthwise_conv2d_rescale_scratch_bytes(in, w, bias, a, sums, threads, nullptr)
                                       : conv2d_rescale_scratch_bytes(in, w, bias, a, sums, threads, nullptr, nullptr),
                             0xA5);
            auto got_sums = i48({c.n, oh, ow, oc});
            auto rescaled = i16({c.n, oh, ow, oc}), clamped = i16({c.n, oh, ow, oc});
            if (depthwise)
              ASSERT_TOSA_OK(depthwise_conv2d_rescale(in, w, bias, a, got_sums, r, rescaled, &clamp_attr, clamped,
                                                      runner, scratch, nullptr));
            else
              ASSERT_TOSA_OK(conv2d_rescale(in, w, bias, a, got_sums, r, rescaled, &clamp_attr, clamped, runner,
                                            ConvResources{scratch, nullptr, nullptr}));
            EXPECT_EQ(clamped.data, want_clamped.data)
                << (depthwise ? "int16 depthwise " : "int16 conv ") << c.ih << "x" << c.iw << "x" << c.ic << " -> "
                << oc << " at " << compute::isa_name(isa) << ", " << threads << " threads"
                << (with_scratch ? ", scratch" : "") << (per_channel ? ", per channel" : ", per tensor");
            // One pass: the int48 sums are never written.
            EXPECT_EQ(got_sums.data, std::vector<int64_t>(got_sums.data.size(), 0));
          }
      }
    }
  }
}

// DEPTHWISE_CONV2D -> RESCALE -> CLAMP as one kernel (depthwise_conv2d_rescale) equals the
// three reference kernels in turn on every path, as for CONV2D above; several images and bands of
// output rows, padding seen by the first bands only, strides 1 and 2; a single-rounding RESCALE
// and a double-rounding one, each in bands and as the engine's own output stage (conv_requantize).
TEST(TosaFastPaths, DepthwiseRescaleClampFusedEqualsTheOpsInTurn) {
  std::mt19937 rng(98);
  CountingThreads three(3);
  std::vector<ConvCase> cases(std::begin(kConvCases), std::end(kConvCases));
  cases.push_back({2, 27, 26, 150, 150, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, -128, 0, false});  // 5 bands an image
  cases.push_back({1, 57, 40, 96, 96, 3, 3, 3, 1, 0, 1, 2, 2, 1, 1, 7, 0, true});      // stride 2, pad 3 on top
  cases.push_back({1, 8, 130, 150, 150, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, -3, 0, false});  // one row a band: bands 1, 2 padded
  cases.push_back({1, 14, 14, 96, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, -128, 0, false});  // 2-row bands at three threads
  for (const ConvCase& c : cases) {
    const int64_t oh = out_size(c.ih, c.pad_t, c.pad_b, c.kh, c.dil_y, c.stride_y);
    const int64_t ow = out_size(c.iw, c.pad_l, c.pad_r, c.kw, c.dil_x, c.stride_x);
    auto in = i8({c.n, c.ih, c.iw, c.ic});
    auto w = i8({c.kh, c.kw, c.ic, 1});
    auto bias = i32({c.bias_broadcast ? 1 : c.ic});
    fill_random(in.data, rng, -128, 127);
    fill_random(w.data, rng, -128, 127);
    fill_random(bias.data, rng, -100000, 100000);
    ConvAttr a = attrs_of(c);
    a.weight_zp = 0;  // the engine's case; a weight zero point takes the kernels in turn
    RescaleAttr r;
    r.scale32 = true;
    r.rounding_mode = RoundingMode::SingleRound;
    r.per_channel = true;
    r.output_zp = 3;
    for (int64_t k = 0; k < c.ic; ++k) {
      r.multiplier.push_back(1 << 30 | int32_t(rng() % (1u << 29)));
      r.shift.push_back(int8_t(33 + k % 5));
    }
    ClampAttr clamp_attr;
    clamp_attr.min_int = -128, clamp_attr.max_int = 100;
    auto sums = i32({c.n, oh, ow, c.ic});
    detail::depthwise_conv2d_reference(in, w, bias, a, sums);
    for (RoundingMode rounding : {RoundingMode::SingleRound, RoundingMode::DoubleRound}) {
      r.rounding_mode = rounding;
      auto want_rescaled = i8({c.n, oh, ow, c.ic}), want_clamped = i8({c.n, oh, ow, c.ic});
      detail::rescale_reference(sums, r, want_rescaled);
      ASSERT_TOSA_OK(clamp(want_rescaled, clamp_attr, want_clamped));
      const std::optional<ConvRequantize> forms[2] = {conv_requantize(r, nullptr, DType::Int8),
                                                      conv_requantize(r, &clamp_attr, DType::Int8)};
      ASSERT_TRUE(forms[0].has_value() && forms[1].has_value());
      EXPECT_EQ(forms[1]->single_round, rounding == RoundingMode::SingleRound);
      for (compute::Isa isa : compute::available_isas()) {
        compute::ScopedIsa pin(isa);
        for (ParallelRunner* runner : {static_cast<ParallelRunner*>(nullptr), static_cast<ParallelRunner*>(&three)})
          for (bool with_scratch : {false, true})
            for (bool with_clamp : {false, true})
              for (bool as_output_stage : {false, true}) {
                const ConvRequantize* rq = as_output_stage && forms[with_clamp] ? &*forms[with_clamp] : nullptr;
                if (as_output_stage && rq == nullptr) continue;
                const int threads = runner ? 3 : 1;
                std::vector<uint8_t> scratch(
                    with_scratch ? depthwise_conv2d_rescale_scratch_bytes(in, w, bias, a, sums, threads, rq) : 0, 0xA5);
                auto got_sums = i32({c.n, oh, ow, c.ic});
                auto rescaled = i8({c.n, oh, ow, c.ic}), clamped = i8({c.n, oh, ow, c.ic});
                ASSERT_TOSA_OK(depthwise_conv2d_rescale(in, w, bias, a, got_sums, r, rescaled,
                                                        with_clamp ? &clamp_attr : nullptr, clamped, runner, scratch,
                                                        rq));
                EXPECT_EQ(with_clamp ? clamped.data : rescaled.data, with_clamp ? want_clamped.data : want_rescaled.data)
                    << "depthwise " << c.n << "x" << c.ih << "x" << c.iw << "x" << c.ic << " at "
                    << compute::isa_name(isa) << ", " << threads << " threads" << (with_scratch ? ", scratch" : "")
                    << (with_clamp ? ", clamped" : "") << (rq ? ", requantize as the output stage" : "")
                    << (rounding == RoundingMode::SingleRound ? ", single rounding" : ", double rounding");
              }
      }
    }
  }
  EXPECT_GT(three.tasks, 0);  // the cases with several bands ran on the threads
}

}  // namespace
}  // namespace vkrt::tosa::test
