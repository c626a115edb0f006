// The int8 depthwise engine at every ISA level the CPU has, bit for bit: its int32 sums against
// direct loops, and its int8 output stage with either rounding (RequantizeRow::single_round)
// against the definitions (arith::requantize, arith::apply_scale_32) on those sums. Random
// layers reach every path: kernels of 1 to 25 taps, strides 1 and 2, padding, dilation, channel
// counts around the vector widths, every int8 input offset range, channel multipliers (the
// portable row), with scratch (the VNNI path) or without, one and two threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/depthwise_s8.h"
#include "compute/exec.h"
#include "compute/isa.h"
#include "vkrt/thread_pool.h"

namespace vkrt::compute {
namespace {

int pick(std::mt19937& rng, std::initializer_list<int> values) { return *(values.begin() + rng() % values.size()); }

// bias[oc] + Σ over the taps inside the input of (in + input_offset)·w, modulo 2^32.
std::vector<int32_t> direct_sums(const DepthwiseS8Params& p, const std::vector<int8_t>& in,
                                 const std::vector<int8_t>& w, const std::vector<int32_t>& bias) {
  const int32_t oc_count = p.out_ch();
  std::vector<int32_t> sums(size_t(p.batches) * p.out_h * p.out_w * oc_count);
  for (int32_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.out_h; ++oy)
      for (int32_t ox = 0; ox < p.out_w; ++ox)
        for (int32_t oc = 0; oc < oc_count; ++oc) {
          uint32_t acc = uint32_t(bias[size_t(oc)]);
          for (int32_t ky = 0; ky < p.kernel_h; ++ky)
            for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
              const int32_t iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
              const int32_t ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
              if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
              const int32_t x = in[((size_t(b) * p.in_h + iy) * p.in_w + ix) * p.in_ch + oc / p.ch_mult];
              acc += uint32_t(x + p.input_offset) * uint32_t(int32_t(w[(size_t(ky) * p.kernel_w + kx) * oc_count + oc]));
            }
          sums[((size_t(b) * p.out_h + oy) * p.out_w + ox) * oc_count + oc] = int32_t(acc);
        }
  return sums;
}

TEST(ComputeDepthwiseS8, SumsAndBothRoundingsEqualTheDefinitionsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 3);
    for (int iteration = 0; iteration < 60; ++iteration) {
      DepthwiseS8Params p;
      p.batches = pick(rng, {1, 1, 2});
      p.in_h = pick(rng, {1, 5, 9, 16}), p.in_w = pick(rng, {1, 7, 12, 33});
      p.in_ch = pick(rng, {1, 8, 15, 16, 32, 33, 64, 96, 150});
      p.ch_mult = iteration % 10 == 9 ? 2 : 1;
      p.kernel_h = pick(rng, {1, 3, 3, 5}), p.kernel_w = pick(rng, {1, 3, 3, 5, 7});
      p.stride_h = pick(rng, {1, 2}), p.stride_w = pick(rng, {1, 2});
      p.dilation_h = pick(rng, {1, 1, 2}), p.dilation_w = pick(rng, {1, 1, 2});
      p.pad_h = int32_t(rng() % uint32_t(p.kernel_h)), p.pad_w = int32_t(rng() % uint32_t(p.kernel_w));
      p.out_h = (p.in_h + 2 * p.pad_h - (p.kernel_h - 1) * p.dilation_h - 1) / p.stride_h + 1;
      p.out_w = (p.in_w + 2 * p.pad_w - (p.kernel_w - 1) * p.dilation_w - 1) / p.stride_w + 1;
      if (p.out_h <= 0 || p.out_w <= 0) continue;
      p.input_offset = pick(rng, {128, -127, 0, 3});
      p.output_offset = pick(rng, {-128, 0, 7});
      p.activation_min = pick(rng, {-128, -128, -10}), p.activation_max = pick(rng, {127, 127, 50});
      p.single_round = iteration % 2 == 0;
      const int32_t oc_count = p.out_ch();
      std::uniform_int_distribution<int> byte(-128, 127);
      std::vector<int8_t> in(size_t(p.batches) * p.in_h * p.in_w * p.in_ch),
          w(size_t(p.kernel_h) * p.kernel_w * oc_count);
      for (auto& v : in) v = int8_t(byte(rng));
      for (auto& v : w) v = int8_t(byte(rng));
      const size_t channels = size_t(oc_count);
      std::vector<int32_t> bias(channels), mult(channels), shift(channels);
      for (int32_t c = 0; c < oc_count; ++c) {
        bias[size_t(c)] = int32_t(rng() % 200001) - 100000;
        // Right shifts that put the sums (up to about ±2^22) near int8, and multipliers over [0, 2^31).
        shift[size_t(c)] = p.single_round ? -pick(rng, {8, 12, 14, 16}) : pick(rng, {-8, -12, -14, -16, 0, 2});
        mult[size_t(c)] = c % 9 == 4 ? pick(rng, {0, 1, INT32_MAX}) : int32_t((1u << 30) | (uint32_t(rng()) >> 2));
      }
      const std::vector<int32_t> sums = direct_sums(p, in, w, bias);
      std::vector<int8_t> want(sums.size());
      for (size_t i = 0; i < sums.size(); ++i) {
        const size_t c = i % size_t(oc_count);
        const int32_t v = p.single_round ? arith::apply_scale_32(sums[i], mult[c], 31 - shift[c], false)
                                         : arith::requantize(sums[i], mult[c], shift[c]);
        want[i] = int8_t(std::clamp(arith::wrap_add(v, p.output_offset), p.activation_min, p.activation_max));
      }
      const std::string what = "iteration " + std::to_string(iteration) + ": " + std::to_string(p.in_h) + "x" +
                               std::to_string(p.in_w) + "x" + std::to_string(p.in_ch) + " kernel " +
                               std::to_string(p.kernel_h) + "x" + std::to_string(p.kernel_w) + " stride " +
                               std::to_string(p.stride_h) + "," + std::to_string(p.stride_w) +
                               (p.single_round ? ", single rounding" : ", double rounding");
      for (int threads : {1, 2})
        for (bool with_scratch : {false, true}) {
          Exec exec;
          exec.runner = threads == 2 ? &two : nullptr;
          std::vector<uint8_t> scratch(with_scratch ? depthwise_s8_scratch_bytes(p, false, threads) + 64 : 0, 0xA5);
          exec.scratch = scratch;
          std::vector<int32_t> got_sums(sums.size(), 0x5A5A5A5A);
          DepthwiseS8Output to32;
          to32.s32 = got_sums.data();
          depthwise_s8(p, in.data(), w.data(), bias.data(), to32, exec);
          ASSERT_EQ(got_sums, sums) << what << ", int32 sums, " << threads << " thread(s)";
          std::vector<int8_t> got(want.size(), 0x5A);
          DepthwiseS8Output to8;
          to8.s8 = got.data(), to8.multiplier = mult.data(), to8.shift = shift.data();
          depthwise_s8(p, in.data(), w.data(), bias.data(), to8, exec);
          ASSERT_EQ(got, want) << what << ", int8 out, " << threads << " thread(s)" << (with_scratch ? ", scratch" : "");
        }
    }
  }
}

// Layers of few rows that do not share out evenly over two threads (7 rows: 4 against 3) are
// shared out by channel blocks instead, each thread all rows of its own blocks: the sums and the
// int8 output equal the definitions at every level. Channel counts that are no multiple of the
// vectors (a last block overlapping the one before, which must stay with it), and one of only
// one or two blocks (a thread with none).
TEST(ComputeDepthwiseS8, FewRowsSharedByChannelsEqualTheDefinitionsAtEveryLevel) {
  vkrt::ThreadPool two(2);
  struct Shape {
    int32_t batches, in_h, in_w, in_ch, stride;
  };
  // 7x7x600 (MobileNetV2's last blocks' kind), 7 rows of a wide image with 20 channels, a
  // stride-2 layer to 7x7, and 3 images of one row.
  const Shape shapes[] = {{1, 7, 7, 600, 1}, {1, 7, 640, 20, 1}, {1, 14, 14, 616, 2}, {3, 1, 300, 330, 1}};
  for (Isa isa : available_isas()) {
    ScopedIsa pin(isa);
    SCOPED_TRACE(std::string("ISA level ") + isa_name(isa));
    std::mt19937 rng(uint32_t(int(isa)) + 29);
    for (const Shape& shape : shapes) {
      DepthwiseS8Params p;
      p.batches = shape.batches, p.in_h = shape.in_h, p.in_w = shape.in_w, p.in_ch = shape.in_ch;
      p.kernel_h = p.kernel_w = 3, p.pad_h = p.pad_w = 1, p.stride_h = p.stride_w = shape.stride;
      p.out_h = (p.in_h + 2 - 3) / p.stride_h + 1, p.out_w = (p.in_w + 2 - 3) / p.stride_w + 1;
      p.input_offset = 5, p.output_offset = -3;
      std::uniform_int_distribution<int> byte(-128, 127);
      std::vector<int8_t> in(size_t(p.batches) * p.in_h * p.in_w * p.in_ch), w(size_t(9) * p.in_ch);
      for (auto& v : in) v = int8_t(byte(rng));
      for (auto& v : w) v = int8_t(byte(rng));
      std::vector<int32_t> bias(size_t(p.in_ch)), mult(size_t(p.in_ch)), shift(size_t(p.in_ch));
      for (int32_t c = 0; c < p.in_ch; ++c) {
        bias[size_t(c)] = int32_t(rng() % 200001) - 100000;
        shift[size_t(c)] = -pick(rng, {8, 12, 14});
        mult[size_t(c)] = int32_t((1u << 30) | (uint32_t(rng()) >> 2));
      }
      const std::vector<int32_t> sums = direct_sums(p, in, w, bias);
      std::vector<int8_t> want(sums.size());
      for (size_t i = 0; i < sums.size(); ++i) {
        const size_t c = i % size_t(p.in_ch);
        want[i] = int8_t(std::clamp(arith::wrap_add(arith::requantize(sums[i], mult[c], shift[c]), p.output_offset), -128, 127));
      }
      const std::string what = std::to_string(p.batches) + "x" + std::to_string(p.in_h) + "x" + std::to_string(p.in_w) +
                               "x" + std::to_string(p.in_ch) + " stride " + std::to_string(shape.stride);
      Exec exec;
      exec.runner = &two;
      std::vector<uint8_t> scratch(depthwise_s8_scratch_bytes(p, false, 2) + 64);
      exec.scratch = scratch;
      std::vector<int32_t> got_sums(sums.size(), 0x5A5A5A5A);
      DepthwiseS8Output to32;
      to32.s32 = got_sums.data();
      depthwise_s8(p, in.data(), w.data(), bias.data(), to32, exec);
      ASSERT_EQ(got_sums, sums) << what << ", int32 sums";
      std::vector<int8_t> got(want.size(), 0x5A);
      DepthwiseS8Output to8;
      to8.s8 = got.data(), to8.multiplier = mult.data(), to8.shift = shift.data();
      depthwise_s8(p, in.data(), w.data(), bias.data(), to8, exec);
      ASSERT_EQ(got, want) << what << ", int8 out";
    }
  }
}

}  // namespace
}  // namespace vkrt::compute
