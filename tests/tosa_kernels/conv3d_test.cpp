// CONV3D on the compute core (conv3d.cpp). int8 (the int8 GEMM) against the reference loops,
// byte for byte: padding on every side (taps skipped, which the GEMM form gets from taps at the
// input zero point), strides, dilations, zero points, a broadcast bias, batches, at every ISA
// level, one and three threads; and sums past int32, which wrap as the definition's do. int16
// (CONV2D over depth-stacked channels) against the reference loops byte for byte, the same cases
// and one whose slices take a band each; fp32 (the same way) against sums in double, within the
// float rounding of one chain per output.
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

struct Case {
  int64_t n, id, ih, iw, ic, oc, kd, kh, kw;
  std::array<int32_t, 6> pad;
  std::array<int32_t, 3> stride, dilation;
  int32_t in_zp, w_zp;
  bool bias_per_channel;
};

const Case kCases[] = {
    {1, 4, 6, 6, 3, 8, 3, 3, 3, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}, -128, 0, true},  // a C3D block
    {2, 5, 7, 5, 17, 5, 2, 3, 1, {0, 1, 2, 0, 0, 0}, {2, 1, 2}, {1, 2, 1}, 9, -3, false},  // uneven
    {1, 3, 3, 3, 33, 20, 1, 1, 1, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0, 127, true},  // 1x1x1
    {1, 7, 6, 5, 1, 3, 3, 2, 2, {2, 2, 1, 1, 1, 1}, {3, 2, 1}, {2, 1, 2}, 127, -128, true},  // windows in the padding
};

// int16 and fp32 (zero points 0): the cases above, and one whose stacked slices (64x64x(3·32)
// int16, 768 KiB) take a CONV2D call each, three in all.
const Case kWideCases[] = {
    {1, 4, 6, 6, 3, 8, 3, 3, 3, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, 0, true},
    {2, 5, 7, 5, 17, 5, 2, 3, 1, {0, 1, 2, 0, 0, 0}, {2, 1, 2}, {1, 2, 1}, 0, 0, false},
    {1, 3, 3, 3, 33, 20, 1, 1, 1, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0, 0, true},
    {1, 7, 6, 5, 1, 3, 3, 2, 2, {2, 2, 1, 1, 1, 1}, {3, 2, 1}, {2, 1, 2}, 0, 0, true},
    {1, 3, 64, 64, 32, 4, 3, 1, 1, {1, 1, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0, 0, true},
};

int64_t out_size(int64_t in, int32_t pad_a, int32_t pad_b, int64_t k, int32_t dilation, int32_t stride) {
  return (in + pad_a + pad_b - (k - 1) * dilation - 1) / stride + 1;
}

// The output's shape, [N, OD, OH, OW, OC].
std::vector<int64_t> output_shape(const Case& k) {
  return {k.n, out_size(k.id, k.pad[0], k.pad[1], k.kd, k.dilation[0], k.stride[0]),
          out_size(k.ih, k.pad[2], k.pad[3], k.kh, k.dilation[1], k.stride[1]),
          out_size(k.iw, k.pad[4], k.pad[5], k.kw, k.dilation[2], k.stride[2]), k.oc};
}

ConvAttr attrs_of(const Case& k, AccType acc) {
  ConvAttr a;
  a.acc_type = acc;
  a.pad = k.pad, a.stride = k.stride, a.dilation = k.dilation, a.input_zp = k.in_zp, a.weight_zp = k.w_zp;
  return a;
}

std::string describe(const Case& k, compute::Isa isa, int threads) {
  std::ostringstream o;
  o << k.id << "x" << k.ih << "x" << k.iw << "x" << k.ic << " kernel " << k.kd << "x" << k.kh << "x" << k.kw << " at "
    << compute::isa_name(isa) << ", " << threads << " thread(s)";
  return o.str();
}

// An integer CONV3D (int8: int32 sums; int16: int48) on the compute core, at every level on one
// and three threads, against the reference loops byte for byte; inputs, weights and biases drawn
// by `value` within each type's range (biases within ±2^bias_bits).
template <typename In, typename Sum>
void expect_reference_bytes(const Case& k, DType in_type, DType sum_type, AccType acc, int bias_bits,
                            std::mt19937& rng) {
  auto value = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Tensor<In> in(in_type, {k.n, k.id, k.ih, k.iw, k.ic});
  auto w = i8({k.oc, k.kd, k.kh, k.kw, k.ic});
  Tensor<Sum> b(sum_type, {k.bias_per_channel ? k.oc : 1});
  for (auto& v : in.data) v = In(value(std::numeric_limits<In>::min(), std::numeric_limits<In>::max()));
  for (auto& v : w.data) v = int8_t(value(-128, 127));
  for (auto& v : b.data) v = Sum(value(-(int64_t(1) << bias_bits), int64_t(1) << bias_bits));
  const ConvAttr a = attrs_of(k, acc);
  Tensor<Sum> want(sum_type, output_shape(k));
  ASSERT_TOSA_OK(check_conv3d(in, w, b, a, want));
  detail::conv3d_reference(in, w, b, a, want);
  for (compute::Isa isa : compute::available_isas()) {
    compute::ScopedIsa pin(isa);
    for (int threads : {1, 3}) {
      CountingThreads pool(threads);
      Tensor<Sum> out(sum_type, output_shape(k), std::vector<Sum>(want.data.size(), Sum(0x55555555)));
      std::vector<uint8_t> scratch(conv3d_scratch_bytes(in, w, b, a, out, threads), 0xA5);
      ASSERT_GT(scratch.size(), 0u);
      ASSERT_TOSA_OK(conv3d(in, w, b, a, out, threads > 1 ? &pool : nullptr, scratch));
      EXPECT_EQ(out.data, want.data) << describe(k, isa, threads);
    }
  }
}

TEST(TosaConv3dFast, Int8MatchesTheReferenceLoops) {
  std::mt19937 rng(31);
  for (const Case& k : kCases) expect_reference_bytes<int8_t, int32_t>(k, DType::Int8, DType::Int32, AccType::Int32, 17, rng);
}

TEST(TosaConv3dFast, Int16MatchesTheReferenceLoops) {
  std::mt19937 rng(37);
  for (const Case& k : kWideCases)
    expect_reference_bytes<int16_t, int64_t>(k, DType::Int16, DType::Int48, AccType::Int48, 40, rng);
}

// 33026 products of (−128 − 127)² = 65025 pass INT32_MAX: the sum wraps.
TEST(TosaConv3dFast, Int8SumsPastInt32Wrap) {
  const int64_t channels = 33026;
  auto in = i8({1, 1, 1, 1, channels}, std::vector<int8_t>(size_t(channels), -128));
  auto w = i8({1, 1, 1, 1, channels}, std::vector<int8_t>(size_t(channels), -128));
  auto b = i32({1}, {0});
  ConvAttr a;
  a.input_zp = 127, a.weight_zp = 127;
  auto out = i32({1, 1, 1, 1, 1});
  std::vector<uint8_t> scratch(conv3d_scratch_bytes(in, w, b, a, out, 1));
  ASSERT_TOSA_OK(conv3d(in, w, b, a, out, nullptr, scratch));
  EXPECT_EQ(out.data[0], int32_t(uint32_t(uint64_t(channels) * 65025)));
  EXPECT_LT(out.data[0], 0);
}

TEST(TosaConv3dFast, Fp32MatchesDoubleSumsWithinRounding) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const Case& k : kWideCases) {
    auto in = f32({k.n, k.id, k.ih, k.iw, k.ic}), w = f32({k.oc, k.kd, k.kh, k.kw, k.ic});
    auto b = f32({k.bias_per_channel ? k.oc : 1});
    for (float& v : in.data) v = value(rng);
    for (float& v : w.data) v = value(rng);
    for (float& v : b.data) v = value(rng);
    const ConvAttr a = attrs_of(k, AccType::Fp32);
    const std::vector<int64_t> shape = output_shape(k);
    const int64_t od = shape[1], oh = shape[2], ow = shape[3];
    // The definition in double, and each output's sum of magnitudes for the bound.
    std::vector<double> want(size_t(k.n * od * oh * ow * k.oc)), magnitude(want.size());
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t z = 0; z < od; ++z)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x)
            for (int64_t oc = 0; oc < k.oc; ++oc) {
              const size_t at = size_t((((n * od + z) * oh + y) * ow + x) * k.oc + oc);
              double sum = b.data[k.bias_per_channel ? size_t(oc) : 0], mag = std::fabs(sum);
              for (int64_t kd = 0; kd < k.kd; ++kd)
                for (int64_t ky = 0; ky < k.kh; ++ky)
                  for (int64_t kx = 0; kx < k.kw; ++kx) {
                    const int64_t iz = z * k.stride[0] - k.pad[0] + kd * k.dilation[0];
                    const int64_t iy = y * k.stride[1] - k.pad[2] + ky * k.dilation[1];
                    const int64_t ix = x * k.stride[2] - k.pad[4] + kx * k.dilation[2];
                    if (iz < 0 || iz >= k.id || iy < 0 || iy >= k.ih || ix < 0 || ix >= k.iw) continue;
                    for (int64_t ic = 0; ic < k.ic; ++ic) {
                      const double p = double(in.data[size_t((((n * k.id + iz) * k.ih + iy) * k.iw + ix) * k.ic + ic)]) *
                                       w.data[size_t((((oc * k.kd + kd) * k.kh + ky) * k.kw + kx) * k.ic + ic)];
                      sum += p, mag += std::fabs(p);
                    }
                  }
              want[at] = sum, magnitude[at] = mag;
            }
    const double steps = double(k.kd * k.kh * k.kw * k.ic + 1), u = std::ldexp(1.0, -24);
    const double gamma = steps * u / (1 - steps * u);
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      for (int threads : {1, 3}) {
        CountingThreads pool(threads);
        auto out = f32(shape, std::vector<float>(want.size(), std::nanf("")));
        std::vector<uint8_t> scratch(conv3d_scratch_bytes(in, w, b, a, out, threads), 0xA5);
        ASSERT_GT(scratch.size(), 0u);
        ASSERT_TOSA_OK(conv3d(in, w, b, a, out, threads > 1 ? &pool : nullptr, scratch));
        for (size_t i = 0; i < want.size(); ++i)
          ASSERT_LE(std::fabs(double(out.data[i]) - want[i]), gamma * magnitude[i])
              << "output " << i << " of " << describe(k, isa, threads);
      }
    }
  }
}

}  // namespace
}  // namespace vkrt::tosa::test
