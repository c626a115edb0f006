// TRANSPOSE_CONV2D on the compute core (compute/transpose_conv.h). int8 against the reference
// loops, byte for byte: strides, negative and positive output pads (taps cut off and output rows
// no tap reaches), zero points, a broadcast bias, batches, at every ISA level, one and three
// threads; and sums past int32, which wrap as the definition's do. int16 against the reference
// loops the same way, its biases past int48 (clamped before they are added, as the definition
// does, after the sum is whole). fp32 against sums in double,
// within the float rounding of n = KH·KW·IC + 1 steps: |err| <= γ_n·(Σ|x·w| + |bias|).
#include <cmath>
#include <limits>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

struct Case {
  int64_t n, ih, iw, ic, oc, kh, kw, sy, sx;
  int out_pad[4];
  int32_t in_zp, w_zp;
  bool bias_per_channel;
};

const Case kCases[] = {
    {1, 4, 5, 3, 4, 3, 3, 2, 2, {-1, -1, -1, -1}, 6, 0, true},      // cortex_m's k3 s2 p1
    {2, 7, 7, 16, 8, 2, 2, 2, 2, {0, 0, 0, 0}, -128, 0, true},     // the U-Net upsampling step
    {1, 3, 6, 33, 17, 4, 3, 1, 3, {2, 1, -2, 0}, 5, -3, false},    // uneven, output rows no tap reaches
    {1, 1, 1, 70, 5, 5, 5, 1, 1, {0, 0, 0, 0}, 0, 127, true},      // one input pixel
    {1, 9, 4, 1, 40, 3, 1, 3, 1, {-2, 1, 0, 0}, 127, -128, true},  // one input channel
};

int64_t output_size(int64_t in, int64_t stride, int pad_a, int pad_b, int64_t k) {
  return (in - 1) * stride + pad_a + pad_b + k;
}

// An integer TRANSPOSE_CONV2D (int8: int32 sums; int16: int48) on the compute core, at every level
// on one and three threads, against the reference loops byte for byte; inputs and weights over
// their types' ranges, biases within ±2^bias_bits (int16's reach past int48).
template <typename In, typename Sum>
void expect_reference_bytes(const Case& k, DType in_type, DType sum_type, AccType acc, int bias_bits,
                            std::mt19937& rng) {
  auto value = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Tensor<In> in(in_type, {k.n, k.ih, k.iw, k.ic});
  auto w = i8({k.oc, k.kh, k.kw, k.ic});
  Tensor<Sum> b(sum_type, {k.bias_per_channel ? k.oc : 1});
  for (auto& v : in.data) v = In(value(std::numeric_limits<In>::min(), std::numeric_limits<In>::max()));
  for (auto& v : w.data) v = int8_t(value(-128, 127));
  for (auto& v : b.data) v = Sum(value(-(int64_t(1) << bias_bits), int64_t(1) << bias_bits));
  TransposeConvAttr a;
  a.acc_type = acc;
  a.stride[0] = int(k.sy), a.stride[1] = int(k.sx);
  for (int i = 0; i < 4; ++i) a.out_pad[i] = k.out_pad[i];
  a.input_zp = in_type == DType::Int8 ? k.in_zp : 0;  // int16's input zero point is 0
  a.weight_zp = k.w_zp;
  const std::vector<int64_t> shape = {k.n, output_size(k.ih, k.sy, k.out_pad[0], k.out_pad[1], k.kh),
                                      output_size(k.iw, k.sx, k.out_pad[2], k.out_pad[3], k.kw), k.oc};
  Tensor<Sum> want(sum_type, shape);
  ASSERT_TOSA_OK(check_transpose_conv2d(in, w, b, a, want));
  detail::transpose_conv2d_reference(in, w, b, a, want);
  for (compute::Isa isa : compute::available_isas()) {
    compute::ScopedIsa pin(isa);
    for (int threads : {1, 3}) {
      CountingThreads pool(threads);
      Tensor<Sum> out(sum_type, shape, std::vector<Sum>(want.data.size(), Sum(0x55555555)));
      std::vector<uint8_t> scratch(transpose_conv2d_scratch_bytes(in, w, b, a, out, threads), 0xA5);
      ASSERT_GT(scratch.size(), 0u);
      ASSERT_TOSA_OK(transpose_conv2d(in, w, b, a, out, threads > 1 ? &pool : nullptr, scratch));
      EXPECT_EQ(out.data, want.data) << k.ih << "x" << k.iw << "x" << k.ic << " kernel " << k.kh << "x" << k.kw
                                     << " stride " << k.sy << "x" << k.sx << " at " << compute::isa_name(isa) << ", "
                                     << threads << " thread(s)";
    }
  }
}

TEST(TosaTransposeConvFast, Int8MatchesTheReferenceLoops) {
  std::mt19937 rng(23);
  for (const Case& k : kCases) expect_reference_bytes<int8_t, int32_t>(k, DType::Int8, DType::Int32, AccType::Int32, 17, rng);
}

TEST(TosaTransposeConvFast, Int16MatchesTheReferenceLoops) {
  std::mt19937 rng(27);
  for (const Case& k : kCases)
    expect_reference_bytes<int16_t, int64_t>(k, DType::Int16, DType::Int48, AccType::Int48, 48, rng);
}

// 33026 products of (−128 − 127)² = 65025 at one output pass INT32_MAX: the sum wraps.
TEST(TosaTransposeConvFast, Int8SumsPastInt32Wrap) {
  const int64_t channels = 33026;
  auto in = i8({1, 1, 1, channels}, std::vector<int8_t>(size_t(channels), -128));
  auto w = i8({1, 1, 1, channels}, std::vector<int8_t>(size_t(channels), -128));
  auto b = i32({1}, {0});
  TransposeConvAttr a;
  a.input_zp = 127, a.weight_zp = 127;
  auto out = i32({1, 1, 1, 1});
  std::vector<uint8_t> scratch(transpose_conv2d_scratch_bytes(in, w, b, a, out, 1));
  ASSERT_TOSA_OK(transpose_conv2d(in, w, b, a, out, nullptr, scratch));
  EXPECT_EQ(out.data[0], int32_t(uint32_t(uint64_t(channels) * 65025)));
  EXPECT_LT(out.data[0], 0);
}

TEST(TosaTransposeConvFast, Fp32MatchesDoubleSumsWithinRounding) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const Case& k : kCases) {
    auto in = f32({k.n, k.ih, k.iw, k.ic}), w = f32({k.oc, k.kh, k.kw, k.ic});
    auto b = f32({k.bias_per_channel ? k.oc : 1});
    for (float& v : in.data) v = value(rng);
    for (float& v : w.data) v = value(rng);
    for (float& v : b.data) v = value(rng);
    TransposeConvAttr a;
    a.acc_type = AccType::Fp32;
    a.stride[0] = int(k.sy), a.stride[1] = int(k.sx);
    for (int i = 0; i < 4; ++i) a.out_pad[i] = k.out_pad[i];
    const int64_t oh = output_size(k.ih, k.sy, k.out_pad[0], k.out_pad[1], k.kh);
    const int64_t ow = output_size(k.iw, k.sx, k.out_pad[2], k.out_pad[3], k.kw);
    // The definition in double: each input pixel's taps into the outputs they reach.
    std::vector<double> want(size_t(k.n * oh * ow * k.oc)), magnitude(want.size());
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t oc = 0; oc < k.oc; ++oc) {
            const size_t at = size_t(((n * oh + oy) * ow + ox) * k.oc + oc);
            const double bias = b.data[k.bias_per_channel ? size_t(oc) : 0];
            want[at] = bias, magnitude[at] = std::fabs(bias);
          }
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t iy = 0; iy < k.ih; ++iy)
        for (int64_t ix = 0; ix < k.iw; ++ix)
          for (int64_t ky = 0; ky < k.kh; ++ky)
            for (int64_t kx = 0; kx < k.kw; ++kx) {
              const int64_t oy = iy * k.sy + ky + k.out_pad[0], ox = ix * k.sx + kx + k.out_pad[2];
              if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
              for (int64_t oc = 0; oc < k.oc; ++oc)
                for (int64_t ic = 0; ic < k.ic; ++ic) {
                  const double p = double(in.data[size_t(((n * k.ih + iy) * k.iw + ix) * k.ic + ic)]) *
                                   w.data[size_t(((oc * k.kh + ky) * k.kw + kx) * k.ic + ic)];
                  const size_t at = size_t(((n * oh + oy) * ow + ox) * k.oc + oc);
                  want[at] += p, magnitude[at] += std::fabs(p);
                }
            }
    const double steps = double(k.kh * k.kw * k.ic + 1), u = std::ldexp(1.0, -24), gamma = steps * u / (1 - steps * u);
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      for (int threads : {1, 3}) {
        CountingThreads pool(threads);
        auto out = f32({k.n, oh, ow, k.oc}, std::vector<float>(want.size(), std::nanf("")));
        std::vector<uint8_t> scratch(transpose_conv2d_scratch_bytes(in, w, b, a, out, threads), 0xA5);
        ASSERT_GT(scratch.size(), 0u);
        ASSERT_TOSA_OK(transpose_conv2d(in, w, b, a, out, threads > 1 ? &pool : nullptr, scratch));
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_LE(std::fabs(double(out.data[i]) - want[i]), gamma * magnitude[i])
              << "output " << i << " of " << k.ih << "x" << k.iw << "x" << k.ic << " at " << compute::isa_name(isa)
              << ", " << threads << " thread(s)";
      }
    }
  }
}

}  // namespace
}  // namespace vkrt::tosa::test
