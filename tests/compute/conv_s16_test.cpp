// The compute core's A16W8 convolutions (conv_s16.h) at every ISA level the CPU has, bit for bit
// against the definitions written out here: each output's Σ x·(w − weight_zp) over the window's
// taps inside the input, in int64, then CMSIS-NN's 64-bit output stage (arm_nn_requantize_s64
// after REDUCE_MULTIPLIER), its 32-bit one (the int32 accumulator wrapping, arm_nn_requantize), or
// TOSA's int48 clamp. Random layers reach every path: the vector path with scratch and the
// portable loop without, 1x1 rows read in place and im2col'd ones, groups, dilation, padding
// (windows wholly in it), channel multipliers, tails of every size, one and two threads; extreme
// values make the largest sums, past the int32 runs' bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/conv_s16.h"
#include "compute/gemm_s16.h"
#include "compute/isa.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

int pick(std::mt19937& rng, std::initializer_list<int> values) { return *(values.begin() + rng() % values.size()); }

// Output channel j's value from its exact sum, as the stages define it.
int64_t stage_of(const S16Output& o, int32_t j, int64_t sum) {
  const int32_t jb = o.bias_per_channel ? j : 0, js = o.scale_per_channel ? j : 0;
  if (o.stage == S16OutputStage::kInt48 || o.stage == S16OutputStage::kRescale16) {
    const int64_t bias = o.bias64 ? o.bias64[jb] : 0;
    const int64_t acc = arith::clamp_int48(arith::clamp_int48(sum) + arith::clamp_int48(bias));
    if (o.stage == S16OutputStage::kInt48) return acc;
    // RESCALE (scale16, tosa.md §5) then CLAMP.
    const int64_t r = int64_t(arith::apply_scale_16(acc, int16_t(o.multiplier[js]), o.rescale_shift[js])) + o.output_zp;
    return std::clamp<int64_t>(r, o.activation_min, o.activation_max);
  }
  int32_t v;
  if (o.stage == S16OutputStage::kRequantize64) {
    const int64_t bias = o.bias64 ? o.bias64[jb] : o.bias32 ? o.bias32[jb] : 0;
    const int64_t acc = int64_t(uint64_t(sum) + uint64_t(bias));
    const int32_t reduced = o.multiplier[js] < 0x7FFF0000 ? int32_t((int64_t(o.multiplier[js]) + (1 << 15)) >> 16) : 0x7FFF;
    v = arith::requantize_s64(acc, reduced, o.shift[js]);
  } else {
    const int32_t acc = int32_t(uint32_t(uint64_t(sum)) + uint32_t(o.bias32 ? o.bias32[jb] : 0));
    v = arith::requantize(acc, o.multiplier[js], o.shift[js]);
  }
  return std::clamp<int32_t>(v, o.activation_min, o.activation_max);
}

// Every output's sum by the definition, in int64 with no run splitting.
std::vector<int64_t> defined_sums(const ConvS16& c, bool depthwise) {
  const ConvS16Shape& s = c.shape;
  std::vector<int64_t> sums(size_t(s.batches) * s.out_h * s.out_w * s.out_ch);
  const int32_t kc = depthwise ? 1 : s.in_ch / s.groups, per_group = depthwise ? 1 : s.out_ch / s.groups;
  for (int32_t b = 0; b < s.batches; ++b)
    for (int32_t oy = 0; oy < s.out_h; ++oy)
      for (int32_t ox = 0; ox < s.out_w; ++ox)
        for (int32_t oc = 0; oc < s.out_ch; ++oc) {
          int64_t sum = 0;
          for (int32_t ky = 0; ky < s.kernel_h; ++ky)
            for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
              const int64_t y = int64_t(oy) * s.stride_h - s.pad_top + int64_t(ky) * s.dilation_h;
              const int64_t x = int64_t(ox) * s.stride_w - s.pad_left + int64_t(kx) * s.dilation_w;
              if (y < 0 || y >= s.in_h || x < 0 || x >= s.in_w) continue;
              const int16_t* px = c.input + ((int64_t(b) * s.in_h + y) * s.in_w + x) * s.in_ch;
              if (depthwise) {
                sum += int64_t(px[oc / s.ch_mult]) *
                       (int64_t(c.weight[(int64_t(ky) * s.kernel_w + kx) * s.out_ch + oc]) - c.weight_zero_point);
              } else {
                for (int32_t i = 0; i < kc; ++i)
                  sum += int64_t(px[(oc / per_group) * kc + i]) *
                         (int64_t(c.weight[((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * kc + i]) - c.weight_zero_point);
              }
            }
          sums[((size_t(b) * s.out_h + oy) * s.out_w + ox) * s.out_ch + oc] = sum;
        }
  return sums;
}

struct Layer {
  ConvS16 c;
  std::vector<int16_t> input;
  std::vector<int8_t> weight;
  std::vector<int64_t> bias64;
  std::vector<int32_t> bias32, multiplier, shift;
  std::vector<int8_t> rescale_shift;
  std::string name;
};

// A random layer; `depthwise` picks the weight layout. mode 0/1: all activations and weights at
// one extreme (the largest sums), else uniform.
Layer random_layer(std::mt19937& rng, bool depthwise, int iteration) {
  Layer l;
  ConvS16Shape& s = l.c.shape;
  s.batches = pick(rng, {1, 1, 2});
  const bool deep = iteration % 9 == 4;  // past the int32 runs: k > 128 pairs a lane, > 256 taps
  s.in_h = deep && depthwise ? 20 : pick(rng, {1, 3, 5, 8, 11});
  s.in_w = deep && depthwise ? 19 : pick(rng, {1, 2, 5, 7});
  if (depthwise) {
    s.ch_mult = pick(rng, {1, 1, 1, 2, 3});
    s.in_ch = pick(rng, {1, 5, 8, 15, 16, 17, 33, 64, 100, 129});
    s.out_ch = s.in_ch * s.ch_mult;
  } else {
    s.groups = pick(rng, {1, 1, 1, 2, 3});
    s.in_ch = s.groups * (deep ? 1500 : pick(rng, {1, 3, 8, 16, 17, 31, 64, 70}));
    s.out_ch = s.groups * pick(rng, {1, 2, 3, 5, 8, 13, 16, 33, 260});  // 260: past the 256-channel runs
  }
  const bool one_by_one = !deep && rng() % 3 == 0;
  s.kernel_h = deep ? (depthwise ? 17 : 1) : one_by_one ? 1 : std::min(s.in_h + 1, pick(rng, {1, 2, 3, 5}));
  s.kernel_w = deep ? (depthwise ? 17 : 1) : one_by_one ? 1 : std::min(s.in_w + 1, pick(rng, {1, 2, 3}));
  s.stride_h = pick(rng, {1, 2, 3}), s.stride_w = pick(rng, {1, 2});
  s.dilation_h = one_by_one || deep ? 1 : pick(rng, {1, 1, 2}), s.dilation_w = one_by_one || deep ? 1 : pick(rng, {1, 2});
  // Padding up to a whole dilated kernel: some windows lie wholly in it.
  const int32_t span_h = (s.kernel_h - 1) * s.dilation_h + 1, span_w = (s.kernel_w - 1) * s.dilation_w + 1;
  s.pad_top = int32_t(rng() % uint32_t(span_h + 1)), s.pad_left = int32_t(rng() % uint32_t(span_w + 1));
  const int32_t pad_bottom = int32_t(rng() % uint32_t(span_h + 1)), pad_right = int32_t(rng() % uint32_t(span_w + 1));
  s.out_h = std::max(1, (s.in_h + s.pad_top + pad_bottom - span_h) / s.stride_h + 1);
  s.out_w = std::max(1, (s.in_w + s.pad_left + pad_right - span_w) / s.stride_w + 1);

  const int mode = int(rng() % 4);
  l.c.weight_zero_point = pick(rng, {0, 0, 127, -128, 9});
  std::uniform_int_distribution<int32_t> x16(-32768, 32767), w8(-128, 127);
  l.input.resize(size_t(s.batches) * s.in_h * s.in_w * s.in_ch);
  for (auto& v : l.input) v = int16_t(mode == 0 ? -32768 : mode == 1 ? 32767 : x16(rng));
  // The weights at the extreme away from the zero point: |w − zp| up to 255.
  const int8_t far = l.c.weight_zero_point >= 0 ? -128 : 127;
  l.weight.resize(depthwise ? size_t(s.kernel_h) * s.kernel_w * s.out_ch
                            : size_t(s.out_ch) * s.kernel_h * s.kernel_w * (s.in_ch / s.groups));
  for (auto& v : l.weight) v = int8_t(mode < 2 ? far : w8(rng));

  S16Output& o = l.c.out;
  o.stage = S16OutputStage(iteration % 4);
  const int bias_kind = int(rng() % 3);  // none, 64-bit, 32-bit
  o.bias_per_channel = rng() % 4 != 0;
  o.scale_per_channel = rng() % 4 != 0;
  std::uniform_int_distribution<int64_t> b64(-(int64_t(1) << 50), int64_t(1) << 50);
  for (int32_t j = 0; j < s.out_ch; ++j) {
    l.bias64.push_back(j == 1 ? std::numeric_limits<int64_t>::max() : b64(rng));  // wraps in kRequantize64
    l.bias32.push_back(int32_t(rng()));
    // Negative multipliers too: the reduced one is then negative, which the vector stage's
    // 64-bit product on AVX2 corrects for.
    l.multiplier.push_back(
        pick(rng, {0x7FFFFFFF, 0x7FFF8000, 0x40000000, 1234567890, int(rng() >> 1), -1234567890, -0x7FFFFFFF}));
    l.shift.push_back(pick(rng, {-31, -20, -12, -1, 0, 5, 14}));
    l.rescale_shift.push_back(int8_t(pick(rng, {1, 2, 13, 30, 38, 47, 62})));
  }
  if (o.stage == S16OutputStage::kRescale16) {  // int16 multipliers, negative ones too (as TOSA casts them)
    for (auto& m : l.multiplier) m = pick(rng, {0, 1, 16384, 32767, int(rng() % 32768), -5, 0x12345});
    o.rescale_shift = l.rescale_shift.data();
    o.output_zp = pick(rng, {0, 0, -7, 300});
    // Half the layers with results that fit int32 (smaller biases, larger shifts): the vector
    // stage's int32 form (S16StageFacts::rescaled_in_int32) where the bounds prove it.
    if (rng() % 2 == 0)
      for (int32_t j = 0; j < s.out_ch; ++j) {
        l.bias64[size_t(j)] >>= 20;
        l.rescale_shift[size_t(j)] = int8_t(pick(rng, {30, 38, 47, 62}));
      }
  }
  if (o.stage == S16OutputStage::kRequantize32) {
    o.bias32 = bias_kind == 0 ? nullptr : l.bias32.data();
  } else if (bias_kind == 1) {
    o.bias64 = l.bias64.data();
  } else if (bias_kind == 2 && o.stage == S16OutputStage::kRequantize64) {
    o.bias32 = l.bias32.data();
  }
  o.multiplier = l.multiplier.data(), o.shift = l.shift.data();
  o.activation_min = pick(rng, {-32768, -32768, -1000}), o.activation_max = pick(rng, {32767, 32767, 2000});
  l.c.input = l.input.data(), l.c.weight = l.weight.data();
  l.name = std::to_string(s.batches) + "x" + std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + "x" +
           std::to_string(s.in_ch) + " -> " + std::to_string(s.out_h) + "x" + std::to_string(s.out_w) + "x" +
           std::to_string(s.out_ch) + " kernel " + std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) +
           " stride " + std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w) + " dilation " +
           std::to_string(s.dilation_h) + "x" + std::to_string(s.dilation_w) + " pad " + std::to_string(s.pad_top) + "," +
           std::to_string(s.pad_left) + " groups " + std::to_string(s.groups) + " mult " + std::to_string(s.ch_mult) +
           " wzp " + std::to_string(l.c.weight_zero_point) + " stage " + std::to_string(iteration % 4) + " bias " +
           std::to_string(bias_kind) + " mode " + std::to_string(mode);
  return l;
}

// The layer's outputs by the definition: int16 for the requantizing stages and kRescale16, int64
// for kInt48.
std::vector<int64_t> defined_outputs(const Layer& l, bool depthwise) {
  std::vector<int64_t> out = defined_sums(l.c, depthwise);
  for (size_t i = 0; i < out.size(); ++i) out[i] = stage_of(l.c.out, int32_t(i % size_t(l.c.shape.out_ch)), out[i]);
  return out;
}

// Where two outputs first differ, for the failure message ("" where they are equal).
std::string first_difference(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  if (got.size() != want.size()) return "sizes differ";
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "output " + std::to_string(i) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
  return "";
}

// Runs `run` on the layer with fresh outputs and returns them widened to int64.
template <typename Run>
std::vector<int64_t> outputs_of(Layer& l, const Run& run) {
  const size_t count = size_t(l.c.shape.batches) * l.c.shape.out_h * l.c.shape.out_w * l.c.shape.out_ch;
  std::vector<int16_t> out16(count, int16_t(0x5555));
  std::vector<int64_t> out64(count, 0x5555);
  l.c.out.out16 = out16.data(), l.c.out.out64 = out64.data();
  run(l.c);
  if (l.c.out.stage != S16OutputStage::kInt48) return std::vector<int64_t>(out16.begin(), out16.end());
  return out64;
}

void check_random_layers(bool depthwise, Isa isa, ThreadPool& two) {
  std::mt19937 rng(uint32_t(int(isa)) * 11 + (depthwise ? 1 : 0));
  for (int iteration = 0; iteration < 60; ++iteration) {
    Layer l = random_layer(rng, depthwise, iteration);
    SCOPED_TRACE(l.name);
    const std::vector<int64_t> want = defined_outputs(l, depthwise);
    for (ThreadPool* runner : {static_cast<ThreadPool*>(nullptr), &two}) {
      SCOPED_TRACE(runner ? "two threads" : "one thread");
      std::vector<uint8_t> scratch(conv_s16_scratch_bytes(l.c.shape, runner ? 2 : 1));
      const Exec exec{scratch, runner};
      EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { depthwise ? depthwise_s16(c, exec) : conv_s16(c, exec); }), want), "");
    }
    SCOPED_TRACE("portable");
    EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { depthwise ? depthwise_s16_portable(c) : conv_s16_portable(c); }), want), "");
    if (!depthwise) {  // no scratch: the portable loop, whatever the level
      SCOPED_TRACE("without scratch");
      EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { conv_s16(c, Exec{}); }), want), "");
    }
    if (!depthwise) {  // the weights packed ahead (where the level has the panel form), then stale
      std::vector<uint8_t> memory(conv_s16_packed_weights_bytes(l.c.shape));
      l.c.packed = conv_s16_pack_weights(l.c, memory);
      EXPECT_EQ(l.c.packed != nullptr, !memory.empty());
      std::vector<uint8_t> scratch(conv_s16_scratch_bytes(l.c.shape, 2, l.c.packed));
      SCOPED_TRACE("weights packed ahead");
      EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { conv_s16(c, Exec{scratch, &two}); }), want), "");
      if (l.c.packed) {  // packed with another zero point: ignored, and the scratch for packing per call
        ConvS16 other = l.c;
        other.weight_zero_point += 1;
        std::vector<uint8_t> other_memory(memory.size());
        l.c.packed = conv_s16_pack_weights(other, other_memory);
        scratch.assign(conv_s16_scratch_bytes(l.c.shape, 2), 0);
        EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { conv_s16(c, Exec{scratch, &two}); }), want),
                  "");
      }
      l.c.packed = nullptr;
    }
  }
}

TEST(ComputeConvS16, ConvolutionsEqualTheDefinitionAtEveryLevel) {
  ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    check_random_layers(/*depthwise=*/false, isa, two);
  }
}

TEST(ComputeConvS16, DepthwiseConvolutionsEqualTheDefinitionAtEveryLevel) {
  ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    check_random_layers(/*depthwise=*/true, isa, two);
  }
}

// Sums by hand: a 1x1 convolution of one pixel [1000, -2000, 3] by two weight rows, and the
// extremes' sum −32768·(−128 − 127)·6000 = 50_135_040_000, past int32 (kInt48 keeps it). 6000
// depths give each int32 lane of the dot form 188 pairs at AVX2 (16 depths a vector) and at
// AVX-512 (32), and the panel form's 3000, past kS16Int32Pairs: only the runs added into int64
// keep the lanes from overflowing.
TEST(ComputeConvS16, HandComputedSums) {
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    ConvS16 c;
    c.shape.in_ch = 3, c.shape.out_ch = 2;
    const int16_t x[3] = {1000, -2000, 3};
    const int8_t w[6] = {1, 2, 3, -4, 5, -128};
    int64_t out[2] = {};
    c.input = x, c.weight = w, c.out.stage = S16OutputStage::kInt48, c.out.out64 = out;
    std::vector<uint8_t> scratch(conv_s16_scratch_bytes(c.shape, 1));
    conv_s16(c, Exec{scratch, nullptr});
    EXPECT_EQ(out[0], 1000 - 4000 + 9);
    EXPECT_EQ(out[1], -4000 - 10000 - 384);

    // One pixel (the dot form), then 4x4 = 16 (the panel form, 16 columns of which 3 real).
    for (int32_t side : {1, 4}) {
      c.shape.in_h = c.shape.in_w = c.shape.out_h = c.shape.out_w = side;
      c.shape.in_ch = 6000, c.shape.out_ch = 3, c.weight_zero_point = 127;
      const std::vector<int16_t> xs(size_t(side) * side * 6000, -32768);
      const std::vector<int8_t> ws(3 * 6000, -128);
      std::vector<int64_t> outs(size_t(side) * side * 3);
      c.input = xs.data(), c.weight = ws.data(), c.out.out64 = outs.data();
      scratch.resize(conv_s16_scratch_bytes(c.shape, 1));
      conv_s16(c, Exec{scratch, nullptr});
      EXPECT_EQ(outs, std::vector<int64_t>(outs.size(), int64_t(50135040000))) << side << "x" << side;
    }
  }
}

// kRescale16's vector stage takes its int32 form exactly where the largest result, the zero
// point added, fits int32. Three products of 32768·255 (8355840) by 21931, shifted right 8, reach
// 2147483520, and a negative sum's rounding 1 more: 126 below INT32_MAX.
TEST(ComputeConvS16, RescaleTakesInt32LanesExactlyWhereResultsFit) {
  std::vector<int32_t> multiplier = {21931};
  std::vector<int8_t> shift = {8};
  std::vector<int64_t> one = {1};
  S16Output o;
  o.stage = S16OutputStage::kRescale16;
  o.multiplier = multiplier.data(), o.rescale_shift = shift.data(), o.scale_per_channel = false;
  o.output_zp = 126;
  EXPECT_TRUE(detail::s16_stage_facts(o, 3, 1).rescaled_in_int32);
  EXPECT_FALSE(detail::s16_stage_facts(o, 4, 1).rescaled_in_int32);  // a fourth product
  o.output_zp = -127;
  EXPECT_FALSE(detail::s16_stage_facts(o, 3, 1).rescaled_in_int32);
  o.output_zp = 126, o.bias64 = one.data(), o.bias_per_channel = false;  // a bias of 1: 85 more
  EXPECT_FALSE(detail::s16_stage_facts(o, 3, 1).rescaled_in_int32);
  o.bias64 = nullptr;
  EXPECT_TRUE(detail::s16_stage_facts(o, 16843009, 1).sums_in_int48);  // ·8355840 = 2^47 − 32768
  EXPECT_FALSE(detail::s16_stage_facts(o, 16843010, 1).sums_in_int48);

  // A 1x1 layer at that bound, 3 input channels, 32 output channels (whole vectors at every
  // level): channel 0's weights −128 and channel j's 127 − j, against a zero point of 127, so
  // w − zp = −255 and −j; pixels from −32768 and 32767 (sums at the bound, both signs) to ±1
  // (results inside int16, not clamped), each output as the stage defines it.
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    Layer l;
    ConvS16Shape& s = l.c.shape;
    s.in_h = 1, s.in_w = s.out_w = 17, s.out_h = 1, s.in_ch = 3, s.out_ch = 32;
    const int16_t pixel_values[17] = {-32768, 32767, 0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 11, 12, -13, 32767, -32768};
    for (int16_t v : pixel_values) l.input.insert(l.input.end(), 3, v);
    for (int32_t j = 0; j < 32; ++j) l.weight.insert(l.weight.end(), 3, int8_t(j == 0 ? -128 : 127 - j));
    l.c.weight_zero_point = 127;
    l.c.input = l.input.data(), l.c.weight = l.weight.data();
    l.c.out = o;
    ASSERT_TRUE(detail::s16_stage_facts(l.c.out, 3, 32).rescaled_in_int32);
    const std::vector<int64_t> want = defined_outputs(l, false);
    EXPECT_EQ(want[0], 32767);   // −32768·−255·3 → 2147483520 + 126, clamped
    EXPECT_EQ(want[32], -32768);  // 32767·−255·3·21931 / 256 + 126, clamped
    EXPECT_EQ(want[3 * 32 + 5], -1159);  // pixel 3 (x = 1), channel 5: floor((−15·21931 + 128) / 256) + 126
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      std::vector<uint8_t> scratch(conv_s16_scratch_bytes(s, threads));
      EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { conv_s16(c, Exec{scratch, &pool}); }), want), "");
    }
  }
}

// int16 × int16 (gemm_s16.h) against sums written out here and the stages' definitions: B as
// rows of depth (cortex_m's transposed RHS) and as columns (TOSA's [C][W]), odd depths, columns
// past whole panels, rows past whole tiles, every value −32768 (a VPMADDWD pair of 2^31), at every
// level, one and two threads, with and without scratch.
TEST(ComputeGemmS16, ProductsEqualTheDefinitionAtEveryLevel) {
  ThreadPool two(2);
  std::mt19937 rng(17);
  struct Case {
    int64_t m;
    int32_t n, k;
  };
  const Case cases[] = {{1, 1, 1}, {5, 17, 3}, {9, 40, 64}, {33, 7, 301}, {64, 130, 96}};
  for (const Case& shape : cases)
    for (bool columns : {false, true})
      for (int fill = 0; fill < 3; ++fill)  // random, all −32768, all 32767 against −32768
        for (S16OutputStage stage : {S16OutputStage::kRequantize64, S16OutputStage::kInt48}) {
          std::vector<int16_t> a(size_t(shape.m) * shape.k), b(size_t(shape.n) * shape.k);
          for (auto& v : a) v = fill == 0 ? int16_t(rng()) : fill == 1 ? int16_t(-32768) : int16_t(32767);
          for (auto& v : b) v = fill == 0 ? int16_t(rng()) : int16_t(-32768);
          GemmS16 g;
          g.m = shape.m, g.n = shape.n, g.k = shape.k;
          g.a = a.data(), g.a_stride = shape.k;
          g.b = b.data();
          g.b_column_stride = columns ? 1 : shape.k, g.b_depth_stride = columns ? shape.n : 1;
          std::vector<int32_t> multiplier = {1518500250}, shift = {-20};
          g.out.stage = stage, g.out.scale_per_channel = false, g.out.multiplier = multiplier.data(), g.out.shift = shift.data();
          std::vector<int64_t> want(size_t(shape.m) * shape.n);
          for (int64_t r = 0; r < shape.m; ++r)
            for (int32_t j = 0; j < shape.n; ++j) {
              int64_t sum = 0;
              for (int32_t i = 0; i < shape.k; ++i)
                sum += int64_t(a[size_t(r * shape.k + i)]) * b[size_t(j * g.b_column_stride + i * g.b_depth_stride)];
              want[size_t(r * shape.n + j)] = stage_of(g.out, j, sum);
            }
          if (fill == 1) ASSERT_EQ(stage_of(g.out, 0, int64_t(shape.k) << 30), want[0]);
          for (Isa isa : available_isas()) {
            ScopedIsa pin(isa);
            for (ThreadPool* runner : {static_cast<ThreadPool*>(nullptr), &two})
              for (bool with_scratch : {true, false}) {
                std::vector<uint8_t> scratch(with_scratch ? gemm_s16_scratch_bytes(g, runner ? 2 : 1) : 0);
                std::vector<int16_t> out16(want.size(), int16_t(0x5555));
                std::vector<int64_t> out64(want.size(), 0x5555);
                g.out.out16 = out16.data(), g.out.out64 = out64.data();
                gemm_s16(g, Exec{scratch, runner});
                const std::vector<int64_t> got =
                    stage == S16OutputStage::kInt48 ? out64 : std::vector<int64_t>(out16.begin(), out16.end());
                EXPECT_EQ(first_difference(got, want), "")
                    << shape.m << "x" << shape.k << " by " << shape.n << (columns ? " (B as columns)" : "") << " fill "
                    << fill << " stage " << int(stage) << " at " << isa_name(isa) << (runner ? ", two threads" : "")
                    << (with_scratch ? "" : ", no scratch");
              }
          }
        }
}

// A fully connected layer of three rows, 700 → 999 (1.4M multiply-adds a row): on two threads its
// output channels are shared out (blocks of 16, the last short), every worker taking all rows.
TEST(ComputeConvS16, FullyConnectedRowsSharedOutByChannels) {
  ThreadPool two(2);
  std::mt19937 rng(3);
  Layer l;
  ConvS16Shape& s = l.c.shape;
  s.batches = 3, s.in_ch = 700, s.out_ch = 999;
  l.input.resize(3 * 700), l.weight.resize(999 * 700);
  for (auto& v : l.input) v = int16_t(rng());
  for (auto& v : l.weight) v = int8_t(rng());
  for (int32_t j = 0; j < 999; ++j) l.bias64.push_back(int64_t(rng() % 2000001) - 1000000);
  l.multiplier = {1518500250}, l.shift = {-6};
  l.c.input = l.input.data(), l.c.weight = l.weight.data();
  l.c.out.bias64 = l.bias64.data(), l.c.out.multiplier = l.multiplier.data(), l.c.out.shift = l.shift.data();
  l.c.out.scale_per_channel = false;
  const std::vector<int64_t> want = defined_outputs(l, false);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::vector<uint8_t> scratch(conv_s16_scratch_bytes(s, 2));
    EXPECT_EQ(first_difference(outputs_of(l, [&](const ConvS16& c) { conv_s16(c, Exec{scratch, &two}); }), want), "");
  }
}

// A depthwise window of 17x17 = 289 taps at the extremes: each channel's sum
// 289·(−32768)·(−128 − 127) = 2_414_837_760 is past int32, which the int32 lanes reach unless
// they are added into int64 every 256 taps. 37 channels: a pass of four vectors, single ones and
// a tail at either vector width.
TEST(ComputeConvS16, DepthwiseSumsPastInt32) {
  ConvS16 c;
  c.shape.in_h = c.shape.in_w = c.shape.kernel_h = c.shape.kernel_w = 17;
  c.shape.in_ch = c.shape.out_ch = 37;
  c.weight_zero_point = 127;
  const std::vector<int16_t> x(17 * 17 * 37, -32768);
  const std::vector<int8_t> w(17 * 17 * 37, -128);
  c.input = x.data(), c.weight = w.data(), c.out.stage = S16OutputStage::kInt48;
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::vector<int64_t> out(37);
    c.out.out64 = out.data();
    depthwise_s16(c);
    EXPECT_EQ(out, std::vector<int64_t>(37, int64_t(2414837760)));
    std::fill(out.begin(), out.end(), 0);
    depthwise_s16_portable(c);
    EXPECT_EQ(out, std::vector<int64_t>(37, int64_t(2414837760)));
  }
}

}  // namespace
}  // namespace vkrt::compute
