// CONV2D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D and MATMUL against hand-computed values, and
// CONV2D -> RESCALE against independently written loops (tosa.md §5, §6).
#include <random>

#include "arith/fixed_point.h"
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

std::vector<int8_t> iota8(int n, int start = 1) {
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = int8_t(start + i);
  return v;
}

TEST(TosaConv2d, Int8Valid2x2) {
  // input 3x3 = [1 2 3; 4 5 6; 7 8 9], kernel 2x2 = [1 2; 3 4], bias 10:
  //   (0,0) = 1+4+12+20 = 37 -> 47   (0,1) = 2+6+15+24 = 47 -> 57
  //   (1,0) = 4+10+21+32 = 67 -> 77  (1,1) = 5+12+24+36 = 77 -> 87
  auto in = i8({1, 3, 3, 1}, iota8(9));
  auto w = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto b = i32({1}, {10});
  auto out = i32({1, 2, 2, 1});
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, ConvAttr{}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{47, 57, 77, 87}));
}

TEST(TosaConv2d, Int8ZeroPoints) {
  // input_zp 1, weight_zp 1: input becomes 0..8, kernel 0..3.
  //   (0,0) = 0*0+1*1+3*2+4*3 = 19 -> 29   (0,1) = 1*0+2*1+4*2+5*3 = 25 -> 35
  //   (1,0) = 3*0+4*1+6*2+7*3 = 37 -> 47   (1,1) = 4*0+5*1+7*2+8*3 = 43 -> 53
  auto in = i8({1, 3, 3, 1}, iota8(9));
  auto w = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto b = i32({1}, {10});
  auto out = i32({1, 2, 2, 1});
  ConvAttr a;
  a.input_zp = 1;
  a.weight_zp = 1;
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{29, 35, 47, 53}));
}

TEST(TosaConv2d, PaddingTapsContributeNothingEvenWithZeroPoint) {
  // 2x2 input [1 2; 3 4], 3x3 kernel of ones, pad 1: every window covers the whole input.
  // With input_zp 1 the in-bounds taps give (0+1+2+3) = 6 and padding adds (zp - zp) * w = 0.
  auto in = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto w = i8({1, 3, 3, 1}, std::vector<int8_t>(9, 1));
  auto b = i32({1}, {0});
  auto out = i32({1, 2, 2, 1});
  ConvAttr a;
  a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = 1;
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{10, 10, 10, 10}));
  a.input_zp = 1;
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{6, 6, 6, 6}));
}

TEST(TosaConv2d, AsymmetricPaddingStrideAndDilation) {
  // Stride 2 with a 1x1 kernel of 2 picks the corners of [1..9]: 2*[1 3; 7 9].
  auto in = i8({1, 3, 3, 1}, iota8(9));
  auto b = i32({1}, {0});
  {
    auto w = i8({1, 1, 1, 1}, {2});
    auto out = i32({1, 2, 2, 1});
    ConvAttr a;
    a.stride[0] = a.stride[1] = 2;
    EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{2, 6, 14, 18}));
  }
  {
    // Dilation 2, 2x2 kernel of ones: taps (0,0) (0,2) (2,0) (2,2) = 1+3+7+9 = 20.
    auto w = i8({1, 2, 2, 1}, {1, 1, 1, 1});
    auto out = i32({1, 1, 1, 1});
    ConvAttr a;
    a.dilation[0] = a.dilation[1] = 2;
    EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{20}));
  }
  {
    // pad top 1 only, 2x1 kernel [1; 10]: OH = (3-1+1-1)/1+1 = 3, OW = 3.
    // row 0: padding*1 + row0*10; row 1: row0 + row1*10; row 2: row1 + row2*10.
    auto w = i8({1, 2, 1, 1}, {1, 10});
    auto out = i32({1, 3, 3, 1});
    ConvAttr a;
    a.pad[0] = 1;
    EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{10, 20, 30, 41, 52, 63, 74, 85, 96}));
  }
}

TEST(TosaConv2d, TwoOutputChannelsPerChannelBias) {
  // 1x1 conv over 2 input channels: oc0 = x0 + x1, oc1 = x0 - x1, bias [100, -100].
  auto in = i8({1, 1, 2, 2}, {3, 4, -5, 6});
  auto w = i8({2, 1, 1, 2}, {1, 1, 1, -1});
  auto b = i32({2}, {100, -100});
  auto out = i32({1, 1, 2, 2});
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, ConvAttr{}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{107, -101, 101, -111}));
}

TEST(TosaConv2d, Int8AccumulatorWrapsModulo2To32) {
  // bias INT32_MAX + 1*1 wraps to INT32_MIN (tosa.md §6: a runtime wraps deterministically).
  auto in = i8({1, 1, 1, 1}, {1});
  auto w = i8({1, 1, 1, 1}, {1});
  auto b = i32({1}, {INT32_MAX});
  auto out = i32({1, 1, 1, 1});
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, ConvAttr{}, out));
  EXPECT_EQ(out.data[0], INT32_MIN);
}

TEST(TosaConv2d, Int16AccumulatesInInt48AndClamps) {
  // 32767*127 + (-32768)*127 = -127; then 4 taps of 32767*127 = 16645636 over a 2^40 bias.
  ConvAttr a;
  a.acc_type = AccType::Int48;
  {
    auto in = i16({1, 1, 1, 2}, {32767, -32768});
    auto w = i8({1, 1, 1, 2}, {127, 127});
    auto b = i48({1}, {0});
    auto out = i48({1, 1, 1, 1});
    EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
    EXPECT_EQ(out.data[0], -127);
  }
  auto in = i16({1, 1, 1, 4}, {32767, 32767, 32767, 32767});
  auto w = i8({1, 1, 1, 4}, {127, 127, 127, 127});
  auto b = i48({1}, {int64_t(1) << 40});
  auto out = i48({1, 1, 1, 1});
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_EQ(out.data[0], (int64_t(1) << 40) + 16645636);
  b.data[0] = (int64_t(1) << 47) - 1;  // int48 max: the sum clamps
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_EQ(out.data[0], (int64_t(1) << 47) - 1);
}

TEST(TosaConv2d, Fp32) {
  auto in = f32({1, 2, 2, 1}, {0.5f, 1.5f, -2.0f, 4.0f});
  auto w = f32({1, 2, 2, 1}, {2.0f, 1.0f, 0.5f, 0.25f});
  auto b = f32({1}, {0.125f});
  auto out = f32({1, 1, 1, 1});
  ConvAttr a;
  a.acc_type = AccType::Fp32;
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, a, out));
  EXPECT_FLOAT_EQ(out.data[0], 1.0f + 1.5f - 1.0f + 1.0f + 0.125f);
}

TEST(TosaConv2d, Errors) {
  auto in = i8({1, 4, 4, 1});
  auto w = i8({1, 1, 1, 1});
  auto b = i32({1});
  auto out = i32({1, 2, 2, 1});
  ConvAttr a;
  a.stride[0] = a.stride[1] = 2;
  // (4 - 1) / 2 is not exact.
  EXPECT_TOSA_ERROR(conv2d_every_path(in, w, b, a, out), InvalidArgument, "exact");
  a = ConvAttr{};
  EXPECT_TOSA_ERROR(check_conv2d(in, w, b, a, out), InvalidArgument, "output: expected shape [1,4,4,1]");
  auto out4 = i32({1, 4, 4, 1});
  a.stride[0] = 0;
  EXPECT_TOSA_ERROR(check_conv2d(in, w, b, a, out4), InvalidArgument, "stride[0]");
  a = ConvAttr{};
  a.acc_type = AccType::Int48;
  EXPECT_TOSA_ERROR(check_conv2d(in, w, b, a, out4), InvalidArgument, "acc_type");
  a = ConvAttr{};
  a.input_zp = 200;
  EXPECT_TOSA_ERROR(check_conv2d(in, w, b, a, out4), InvalidArgument, "input_zp");
  auto w_bad_ic = i8({1, 1, 1, 2});
  EXPECT_TOSA_ERROR(check_conv2d(in, w_bad_ic, b, ConvAttr{}, out4), InvalidArgument, "input channels");
  auto b_bad = i32({3});
  EXPECT_TOSA_ERROR(check_conv2d(in, w, b_bad, ConvAttr{}, out4), InvalidArgument, "bias");
  auto in16 = i16({1, 4, 4, 1});
  ConvAttr a16;
  a16.acc_type = AccType::Int48;
  a16.input_zp = 3;  // zero points must be 0 for int16
  auto b48 = i48({1});
  auto out48 = i48({1, 4, 4, 1});
  EXPECT_TOSA_ERROR(check_conv2d(in16, w, b48, a16, out48), InvalidArgument, "input_zp must be 0");
  auto in_f = f32({1, 4, 4, 1});
  EXPECT_TOSA_ERROR(check_conv2d(in_f, w, b, ConvAttr{}, out4), InvalidArgument, "weight: expected fp32");
  // A null data pointer on a non-empty tensor is rejected, not dereferenced.
  TensorRef null_in = in.ref();
  null_in.data = nullptr;
  EXPECT_TOSA_ERROR(conv2d_every_path(null_in, w, b, ConvAttr{}, out4), InvalidArgument, "no data");
  // Negative dims and ranks beyond kMaxRank are rejected.
  std::vector<int64_t> neg = {1, -4, 4, 1};
  TensorRef neg_in{DType::Int8, neg, in.data.data()};
  EXPECT_TOSA_ERROR(conv2d_every_path(neg_in, w, b, ConvAttr{}, out4), InvalidArgument, "negative dim");
}

TEST(TosaDepthwiseConv2d, ChannelMultiplier) {
  // input 2x2, C=2: c0 = [1 2; 3 4], c1 = [5 6; 7 8]; kernel 2x2, M=2:
  //   (c0,m0) ones -> 10; (c0,m1) = [0 1; 2 3] -> 0+2+6+12 = 20; (c1,m0) ones -> 26; (c1,m1) -1 -> -26
  // output channel c*M+m, bias [0 1 2 3] -> [10 21 28 -23].
  auto in = i8({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8});
  std::vector<int8_t> wv;
  for (int p = 0; p < 4; ++p) {  // [ky][kx][c][m]
    wv.push_back(1);
    wv.push_back(int8_t(p));
    wv.push_back(1);
    wv.push_back(-1);
  }
  auto w = i8({2, 2, 2, 2}, wv);
  auto b = i32({4}, {0, 1, 2, 3});
  auto out = i32({1, 1, 1, 4});
  EXPECT_TOSA_OK(depthwise_conv2d_every_path(in, w, b, ConvAttr{}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{10, 21, 28, -23}));
  // Padding 1 on all sides, stride 2: OH = (2-1+2-1)/2+1 = 2; output (0,0) sees only input (0,0)
  // at kernel tap (1,1) (p = 3): c0m0 1, c0m1 3, c1m0 5, c1m1 -5, plus bias.
  ConvAttr a;
  a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = 1;
  a.stride[0] = a.stride[1] = 2;
  auto out2 = i32({1, 2, 2, 4});
  EXPECT_TOSA_OK(depthwise_conv2d_every_path(in, w, b, a, out2));
  EXPECT_EQ(std::vector<int32_t>(out2.data.begin(), out2.data.begin() + 4), (std::vector<int32_t>{1, 4, 7, -2}));
  // Output (1,1) sees input (1,1) = (4, 8) at tap (0,0) (p = 0): 4, 0, 8, -8.
  EXPECT_EQ(std::vector<int32_t>(out2.data.end() - 4, out2.data.end()), (std::vector<int32_t>{4, 1, 10, -5}));
  auto bad_w = i8({2, 2, 3, 2});
  auto b1 = i32({1});
  EXPECT_TOSA_ERROR(check_depthwise_conv2d(in, bad_w, b1, ConvAttr{}, out), InvalidArgument,
                    "has 3 channels");
  EXPECT_TOSA_ERROR(check_depthwise_conv2d(in, w, b1, ConvAttr{}, out2), InvalidArgument,
                    "expected shape [1,1,1,4]");
}

TEST(TosaConv3d, DepthPaddingAndZeroPoints) {
  // input [1,2,2,2,1] = 1..8 (depth-major), 2x2x2 kernel of ones: 36; with input_zp 1: 0+..+7 = 28.
  auto in = i8({1, 2, 2, 2, 1}, iota8(8));
  auto ones = i8({1, 2, 2, 2, 1}, std::vector<int8_t>(8, 1));
  auto b = i32({1}, {0});
  auto out = i32({1, 1, 1, 1, 1});
  EXPECT_TOSA_OK(conv3d(in, ones, b, ConvAttr{}, out));
  EXPECT_EQ(out.data[0], 36);
  ConvAttr zp;
  zp.input_zp = 1;
  EXPECT_TOSA_OK(conv3d(in, ones, b, zp, out));
  EXPECT_EQ(out.data[0], 28);
  // Depth kernel [1; 10] with one plane of front padding: OD = 2;
  // od 0 = pad + plane0 * 10, od 1 = plane0 + plane1 * 10.
  auto kd = i8({1, 2, 1, 1, 1}, {1, 10});
  ConvAttr a;
  a.pad[0] = 1;
  auto out2 = i32({1, 2, 2, 2, 1});
  EXPECT_TOSA_OK(conv3d(in, kd, b, a, out2));
  EXPECT_EQ(out2.data, (std::vector<int32_t>{10, 20, 30, 40, 51, 62, 73, 84}));
  EXPECT_TOSA_ERROR(check_conv3d(in, kd, b, a, out), InvalidArgument, "expected shape [1,2,2,2,1]");
  auto in4 = i8({1, 2, 2, 1});
  EXPECT_TOSA_ERROR(check_conv3d(in4, kd, b, a, out2), InvalidArgument, "input: expected rank 5");
}

TEST(TosaTransposeConv2d, KernelOrientationStrideAndCrop) {
  auto b = i32({1}, {0});
  {
    // A single input pixel scatters the kernel itself: out(ky, kx) = w[ky, kx].
    auto in = i8({1, 1, 1, 1}, {1});
    auto w = i8({1, 2, 2, 1}, {1, 2, 3, 4});
    auto out = i32({1, 2, 2, 1});
    EXPECT_TOSA_OK(transpose_conv2d(in, w, b, TransposeConvAttr{}, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{1, 2, 3, 4}));
  }
  auto in = i8({1, 2, 2, 1}, {1, 2, 3, 4});
  auto ones = i8({1, 2, 2, 1}, {1, 1, 1, 1});
  {
    // Stride 2: each input pixel fills its own 2x2 block.
    TransposeConvAttr a;
    a.stride[0] = a.stride[1] = 2;
    auto out = i32({1, 4, 4, 1});
    EXPECT_TOSA_OK(transpose_conv2d(in, ones, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  }
  {
    // Stride 1: the "full" correlation, 3x3.
    auto out = i32({1, 3, 3, 1});
    EXPECT_TOSA_OK(transpose_conv2d(in, ones, b, TransposeConvAttr{}, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  }
  {
    // out_pad -1 everywhere crops one pixel per side (PyTorch padding=1): the centre, 10.
    TransposeConvAttr a;
    a.out_pad[0] = a.out_pad[1] = a.out_pad[2] = a.out_pad[3] = -1;
    auto out = i32({1, 1, 1, 1});
    EXPECT_TOSA_OK(transpose_conv2d(in, ones, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{10}));
    a.out_pad[0] = -2;  // must be > -KH
    EXPECT_TOSA_ERROR(check_transpose_conv2d(in, ones, b, a, out), InvalidArgument, "out_pad[0]");
  }
  {
    // Zero points: (in - 1) * (w - (-1)) with w = 1 -> (0,1,2,3) * 2 scattered, stride 2.
    TransposeConvAttr a;
    a.stride[0] = a.stride[1] = 2;
    a.input_zp = 1;
    a.weight_zp = -1;
    auto out = i32({1, 4, 4, 1});
    EXPECT_TOSA_OK(transpose_conv2d(in, ones, b, a, out));
    EXPECT_EQ(out.data, (std::vector<int32_t>{0, 0, 2, 2, 0, 0, 2, 2, 4, 4, 6, 6, 4, 4, 6, 6}));
  }
}

TEST(TosaMatmul, Int8WithZeroPointsInt16AndFp32) {
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
  auto A = i8({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto B = i8({1, 3, 2}, {7, 8, 9, 10, 11, 12});
  auto out = i32({1, 2, 2});
  EXPECT_TOSA_OK(matmul(A, B, MatmulAttr{}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{58, 64, 139, 154}));
  // A_zp 1, B_zp -1: [0 1 2; 3 4 5] x [8 9; 10 11; 12 13] = [34 37; 124 136].
  EXPECT_TOSA_OK(matmul(A, B, MatmulAttr{1, -1}, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{34, 37, 124, 136}));
  // int16: 32767 * 32767 * 3 = 3221028867 > INT32_MAX, exact in int48.
  auto A16 = i16({1, 1, 3}, {32767, 32767, 32767});
  auto B16 = i16({1, 3, 1}, {32767, 32767, 32767});
  auto out48 = i48({1, 1, 1});
  EXPECT_TOSA_OK(matmul(A16, B16, MatmulAttr{}, out48));
  EXPECT_EQ(out48.data[0], int64_t(3) * 32767 * 32767);
  auto Af = f32({2, 1, 2}, {1, 2, 3, 4});
  auto Bf = f32({2, 2, 1}, {0.5f, 0.25f, -1, 2});
  auto outf = f32({2, 1, 1});
  EXPECT_TOSA_OK(matmul(Af, Bf, MatmulAttr{}, outf));
  EXPECT_EQ(outf.data, (std::vector<float>{1.0f, 5.0f}));
  auto Bbad = i8({1, 2, 2});
  EXPECT_TOSA_ERROR(check_matmul(A, Bbad, MatmulAttr{}, out), InvalidArgument, "do not match");
  EXPECT_TOSA_ERROR(check_matmul(A16, B16, MatmulAttr{1, 0}, out48), InvalidArgument, "A_zp");
}

// CONV2D (int8, zero points, padding, stride) followed by per-channel RESCALE
// (scale32, DOUBLE_ROUND), against loops written here from the definitions: the input is
// padded explicitly with input_zp, and requantization uses the CMSIS-NN double-rounding
// requantize, which equals apply_scale_32(v, m, 31 - s, true) (cortex-m-ops.md §3).
TEST(TosaConv2d, FollowedByRescaleMatchesIndependentLoops) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(-128, 127);
  const int N = 2, IH = 5, IW = 6, IC = 3, OC = 4, KH = 3, KW = 2;
  const int pad_t = 1, pad_b = 1, pad_l = 0, pad_r = 1, sy = 2, sx = 1, dy = 1, dx = 2;
  const int OH = (IH - 1 + pad_t + pad_b - (KH - 1) * dy) / sy + 1;  // 3
  const int OW = (IW - 1 + pad_l + pad_r - (KW - 1) * dx) / sx + 1;  // 5
  const int in_zp = -7, w_zp = 3, out_zp = 5;
  auto in = i8({N, IH, IW, IC});
  for (auto& v : in.data) v = int8_t(byte(rng));
  auto w = i8({OC, KH, KW, IC});
  for (auto& v : w.data) v = int8_t(byte(rng));
  auto bias = i32({OC}, {1000, -2000, 0, 123456});
  std::vector<int32_t> mult = {1 << 30, 1518500250, 1932735283, 1073741825};
  std::vector<int32_t> shift = {42, 43, 41, 44};

  auto acc = i32({N, OH, OW, OC});
  ConvAttr ca;
  ca.pad[0] = pad_t; ca.pad[1] = pad_b; ca.pad[2] = pad_l; ca.pad[3] = pad_r;
  ca.stride[0] = sy; ca.stride[1] = sx; ca.dilation[0] = dy; ca.dilation[1] = dx;
  ca.input_zp = in_zp;
  ca.weight_zp = w_zp;
  ASSERT_TRUE(conv2d_every_path(in, w, bias, ca, acc).is_ok());
  auto out = i8({N, OH, OW, OC});
  RescaleAttr ra;
  ra.multiplier = mult;
  ra.shift.assign(shift.begin(), shift.end());
  ra.output_zp = out_zp;
  ra.scale32 = true;
  ra.rounding_mode = RoundingMode::DoubleRound;
  ra.per_channel = true;
  ASSERT_TRUE(rescale(acc, ra, out).is_ok());

  // Independent reference: materialise the padded input, plain loops, CMSIS requantize.
  const int PH = IH + pad_t + pad_b, PW = IW + pad_l + pad_r;
  std::vector<int> padded(size_t(N * PH * PW * IC), in_zp);
  for (int n = 0; n < N; ++n)
    for (int y = 0; y < IH; ++y)
      for (int x = 0; x < IW; ++x)
        for (int c = 0; c < IC; ++c)
          padded[size_t(((n * PH + y + pad_t) * PW + x + pad_l) * IC + c)] = in.data[size_t(((n * IH + y) * IW + x) * IC + c)];
  int mismatches = 0;
  for (int n = 0; n < N; ++n)
    for (int oy = 0; oy < OH; ++oy)
      for (int ox = 0; ox < OW; ++ox)
        for (int oc = 0; oc < OC; ++oc) {
          int32_t sum = bias.data[size_t(oc)];
          for (int ky = 0; ky < KH; ++ky)
            for (int kx = 0; kx < KW; ++kx)
              for (int c = 0; c < IC; ++c) {
                const int v = padded[size_t(((n * PH + oy * sy + ky * dy) * PW + ox * sx + kx * dx) * IC + c)];
                sum += (v - in_zp) * (w.data[size_t(((oc * KH + ky) * KW + kx) * IC + c)] - w_zp);
              }
          const size_t o = size_t(((n * OH + oy) * OW + ox) * OC + oc);
          ASSERT_EQ(acc.data[o], sum) << "accumulator at " << o;
          const int32_t q = arith::requantize(sum, mult[size_t(oc)], 31 - shift[size_t(oc)]) + out_zp;
          const int8_t want = int8_t(std::clamp(q, -128, 127));
          if (out.data[o] != want) ++mismatches;
        }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace vkrt::tosa::test
