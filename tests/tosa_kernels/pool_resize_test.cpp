// AVG_POOL2D, MAX_POOL2D (tosa.md §7) and RESIZE (tosa.md §11).
#include <cmath>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

PoolAttr avg(int64_t kh, int64_t kw, int64_t pad_all = 0) {
  PoolAttr a;
  a.kernel[0] = kh;
  a.kernel[1] = kw;
  for (auto& p : a.pad) p = pad_all;
  return a;
}

TEST(TosaAvgPool2d, RoundingWithReciprocalScale) {
  // 2x2 window over [1 2; 3 5]: 11 / 4 = 2.75 -> reciprocal_scale(4) = (2^30 + 1, 32):
  // (11 * (2^30 + 1) + 2^31) >> 32 = 3.
  auto in = i8({1, 2, 2, 1}, {1, 2, 3, 5});
  auto out = i8({1, 1, 1, 1});
  EXPECT_TOSA_OK(avg_pool2d(in, avg(2, 2), out));
  EXPECT_EQ(out.data[0], 3);
  // Pad 1 on all sides, stride 1 -> 3x3; padding taps are left out of the count:
  //   corners 1, 2, 3, 5; edges (1+2)/2 = 1.5 -> 2, (1+3)/2 = 2, (2+5)/2 = 3.5 -> 4, (3+5)/2 = 4; centre 3.
  auto out3 = i8({1, 3, 3, 1});
  EXPECT_TOSA_OK(avg_pool2d(in, avg(2, 2, 1), out3));
  EXPECT_EQ(out3.data, (std::vector<int8_t>{1, 2, 2, 2, 3, 4, 3, 4, 5}));
  // Negative halves go away from zero: (-1 + -2) / 2 = -1.5 -> -2.
  auto neg = i8({1, 1, 2, 1}, {-1, -2});
  auto neg_out = i8({1, 1, 1, 1});
  EXPECT_TOSA_OK(avg_pool2d(neg, avg(1, 2), neg_out));
  EXPECT_EQ(neg_out.data[0], -2);
}

TEST(TosaAvgPool2d, ZeroPointsRoundTheShiftedSum) {
  // tosa.md §7: sum -255 over 2 taps with zp -128 (in and out): TOSA rounds (1) / 2 = 0.5 -> 1,
  // giving -127 (CMSIS would give -128).
  auto in = i8({1, 1, 2, 1}, {-128, -127});
  auto out = i8({1, 1, 1, 1});
  auto a = avg(1, 2);
  a.input_zp = -128;
  a.output_zp = -128;
  EXPECT_TOSA_OK(avg_pool2d(in, a, out));
  EXPECT_EQ(out.data[0], -127);
  // Saturation after the output zero point: avg 100 + out_zp 100 -> 127.
  auto big = i8({1, 1, 1, 1}, {100});
  auto b = avg(1, 1);
  b.output_zp = 100;
  EXPECT_TOSA_OK(avg_pool2d(big, b, out));
  EXPECT_EQ(out.data[0], 127);
}

// The integer average a pixel at a time (channels contiguous) against the spec's loop one
// element at a time: windows with padding on each side, strides, zero points, channel counts
// past one 512-channel chunk, a global pool, and a window of int16 sums that wraps int32.
TEST(TosaAvgPool2d, IntegerPathMatchesReferenceLoop) {
  std::mt19937 rng(11);
  struct Case {
    int64_t n, h, w, c;
    int32_t kh, kw, sy, sx, pad_t, pad_b, pad_l, pad_r;
    int32_t in_zp, out_zp;
  };
  const Case cases[] = {
      {1, 7, 7, 1280, 7, 7, 1, 1, 0, 0, 0, 0, -128, -128},  // MobileNetV2's global pool: 3 chunks
      {2, 9, 9, 5, 3, 3, 2, 2, 1, 1, 1, 1, 3, -7},         // padding on every side, stride 2
      {1, 6, 11, 17, 2, 4, 1, 3, 1, 0, 3, 2, -1, 5},       // uneven pads and strides
      {1, 1, 1, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},
  };
  auto run = [&](auto in, const PoolAttr& a, auto out, auto want) {
    for (auto& v : in.data) v = std::remove_reference_t<decltype(v)>(rng());
    ASSERT_TOSA_OK(avg_pool2d(in, a, out));
    detail::avg_pool2d_reference(in, a, want);
    EXPECT_EQ(out.data, want.data) << "avg_pool2d " << in.shape[1] << "x" << in.shape[2] << "x" << in.shape[3];
  };
  for (const Case& k : cases) {
    PoolAttr a;
    a.kernel[0] = k.kh, a.kernel[1] = k.kw, a.stride[0] = k.sy, a.stride[1] = k.sx;
    a.pad[0] = k.pad_t, a.pad[1] = k.pad_b, a.pad[2] = k.pad_l, a.pad[3] = k.pad_r;
    a.input_zp = k.in_zp, a.output_zp = k.out_zp;
    const int64_t oh = (k.h + k.pad_t + k.pad_b - k.kh) / k.sy + 1, ow = (k.w + k.pad_l + k.pad_r - k.kw) / k.sx + 1;
    run(i8({k.n, k.h, k.w, k.c}), a, i8({k.n, oh, ow, k.c}), i8({k.n, oh, ow, k.c}));
    a.input_zp = a.output_zp = 0;  // int16 has none
    run(i16({k.n, k.h, k.w, k.c}), a, i16({k.n, oh, ow, k.c}), i16({k.n, oh, ow, k.c}));
  }
  // 300x300 int16 taps near 32767: the window's sum passes 2^31 and wraps, as the device's.
  PoolAttr big;
  big.kernel[0] = big.kernel[1] = 300;
  auto in = i16({1, 300, 300, 2}), out = i16({1, 1, 1, 2}), want = i16({1, 1, 1, 2});
  for (auto& v : in.data) v = int16_t(32767 - int(rng() % 8));
  ASSERT_TOSA_OK(avg_pool2d(in, big, out));
  detail::avg_pool2d_reference(in, big, want);
  EXPECT_EQ(out.data, want.data);
}

TEST(TosaAvgPool2d, Int16Fp32AndErrors) {
  auto in16 = i16({1, 1, 3, 1}, {30000, 30000, 30001});
  auto out16 = i16({1, 1, 1, 1});
  EXPECT_TOSA_OK(avg_pool2d(in16, avg(1, 3), out16));
  EXPECT_EQ(out16.data[0], 30000);  // 90001 / 3 = 30000.33
  auto inf = f32({1, 2, 2, 1}, {1, 2, 3, 5});
  auto outf = f32({1, 1, 1, 1});
  auto af = avg(2, 2);
  af.acc_type = AccType::Fp32;
  EXPECT_TOSA_OK(avg_pool2d(inf, af, outf));
  EXPECT_FLOAT_EQ(outf.data[0], 2.75f);
  auto in = i8({1, 4, 4, 1});
  auto out = i8({1, 2, 2, 1});
  EXPECT_TOSA_ERROR(check_avg_pool2d(in, avg(2, 2, 2), out), InvalidArgument, "pad[0] = 2");
  auto s = avg(2, 2);
  s.stride[0] = s.stride[1] = 3;  // (4 - 2) / 3 is not exact
  EXPECT_TOSA_ERROR(check_avg_pool2d(in, s, out), InvalidArgument, "no exact output size");
  auto z = avg(2, 2);
  z.stride[0] = z.stride[1] = 2;
  z.input_zp = 1;
  EXPECT_TOSA_OK(check_avg_pool2d(in, z, out));
  auto out16b = i16({1, 1, 1, 1});
  auto z16 = avg(1, 3);
  z16.input_zp = 1;
  EXPECT_TOSA_ERROR(check_avg_pool2d(in16, z16, out16b), InvalidArgument, "input_zp must be 0");
  z16 = avg(1, 3);
  z16.acc_type = AccType::Int48;
  EXPECT_TOSA_ERROR(check_avg_pool2d(in16, z16, out16b), InvalidArgument, "acc_type");
}

TEST(TosaMaxPool2d, PaddingNeverWinsAndNanModes) {
  // All-negative input with pad 1: a zero pad would win if it were counted.
  auto in = i8({1, 2, 2, 1}, {-5, -3, -7, -9});
  auto out = i8({1, 3, 3, 1});
  PoolAttr a;
  a.kernel[0] = a.kernel[1] = 2;
  for (auto& p : a.pad) p = 1;
  EXPECT_TOSA_OK(max_pool2d(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{-5, -3, -3, -5, -3, -3, -7, -7, -9}));
  auto f = f32({1, 1, 4, 1}, {kNaN, 1, 2, kNaN});
  auto fo = f32({1, 1, 2, 1});
  PoolAttr b;
  b.kernel[0] = 1;
  b.kernel[1] = 2;
  b.stride[1] = 2;
  EXPECT_TOSA_OK(max_pool2d(f, b, fo));
  EXPECT_TRUE(std::isnan(fo.data[0]));
  EXPECT_TRUE(std::isnan(fo.data[1]));
  b.nan_mode = NanMode::Ignore;
  EXPECT_TOSA_OK(max_pool2d(f, b, fo));
  EXPECT_EQ(fo.data[0], 1.0f);
  EXPECT_EQ(fo.data[1], 2.0f);
  auto in32 = i32({1, 2, 2, 1});
  auto out32 = i32({1, 1, 1, 1});
  PoolAttr c;
  c.kernel[0] = c.kernel[1] = 2;
  EXPECT_TOSA_ERROR(check_max_pool2d(in32, c, out32), NotSupported, "int32");
}

// 2x upscale of [1 2; 3 4] with scale (2/1, 2/1), offset 0, border 1: OH = (1*2 + 1)/1 + 1 = 4.
// Source row of output row oy: y = oy, iy = y / 2, dy = y % 2 -> (iy0, iy1, dy) =
// (0,1,0) (0,1,1) (1,1,0) (1,1,1) (iy1 clamped to the last row).
ResizeAttr upscale2x(ResizeMode mode) {
  ResizeAttr a;
  a.scale[0] = 2; a.scale[1] = 1; a.scale[2] = 2; a.scale[3] = 1;
  a.border[0] = a.border[1] = 1;
  a.mode = mode;
  return a;
}

TEST(TosaResize, NearestInt8) {
  // NEAREST picks iy1 when 2*dy >= y_n: rows map to 0,1,1,1 and columns likewise.
  auto in = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto out = i8({1, 4, 4, 1});
  EXPECT_TOSA_OK(resize(in, upscale2x(ResizeMode::Nearest), out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4}));
}

TEST(TosaResize, BilinearInt8IsScaledByFourAndFp32Matches) {
  // out = v00*(2-dy)*(2-dx) + v01*(2-dy)*dx + v10*dy*(2-dx) + v11*dy*dx:
  //   (0,0) = 1*4 = 4; (0,1) = 1*2 + 2*2 = 6; (1,1) = 1+2+3+4 = 10; (3,3) = 4*4 = 16;
  //   (1,0) = 1*2 + 3*2 = 8; (2,1) = 3*2 + 4*2 = 14.
  auto in = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto out = i32({1, 4, 4, 1});
  EXPECT_TOSA_OK(resize(in, upscale2x(ResizeMode::Bilinear), out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{4, 6, 8, 8, 8, 10, 12, 12, 12, 14, 16, 16, 12, 14, 16, 16}));
  auto inf = f32({1, 2, 2, 1}, {1, 2, 3, 4});
  auto outf = f32({1, 4, 4, 1});
  EXPECT_TOSA_OK(resize(inf, upscale2x(ResizeMode::Bilinear), outf));
  for (size_t i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(outf.data[i], float(out.data[i]) / 4.0f) << i;
  auto in16 = i16({1, 2, 2, 1}, {1000, 2000, 3000, 4000});
  auto out48 = i48({1, 4, 4, 1});
  EXPECT_TOSA_OK(resize(in16, upscale2x(ResizeMode::Bilinear), out48));
  EXPECT_EQ(out48.data[5], 10000 * 1);  // (1,1): 1000+2000+3000+4000
}

TEST(TosaResize, Errors) {
  auto in = i8({1, 2, 2, 1});
  auto out = i8({1, 4, 4, 1});
  auto a = upscale2x(ResizeMode::Nearest);
  a.scale[1] = 0;
  EXPECT_TOSA_ERROR(check_resize(in, a, out), InvalidArgument, "positive");
  a = upscale2x(ResizeMode::Nearest);
  a.border[0] = 0;  // OH would be 3
  EXPECT_TOSA_ERROR(check_resize(in, a, out), InvalidArgument, "expected shape [1,3,4,1]");
  a = upscale2x(ResizeMode::Bilinear);
  EXPECT_TOSA_ERROR(check_resize(in, a, out), InvalidArgument, "output: expected int32");
  a = upscale2x(ResizeMode::Nearest);
  a.offset[0] = 32;  // >= 16 * y_n
  EXPECT_TOSA_ERROR(check_resize(in, a, out), InvalidArgument, "offset[0]");
  a = upscale2x(ResizeMode::Nearest);
  a.scale[1] = 40;  // downscale below 1/16
  EXPECT_TOSA_ERROR(check_resize(in, a, out), InvalidArgument, "1/16");
}

}  // namespace
}  // namespace vkrt::tosa::test
