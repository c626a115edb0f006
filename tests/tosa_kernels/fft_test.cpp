// FFT2D / RFFT2D CPU kernels: exact spectra of hand-made inputs (a delta, a constant, a single
// cosine), a naive long-double direct DFT on random data (the spec's pseudocode evaluated in
// long double), inverse(forward(x)) = H*W*x, RFFT2D against FFT2D, threads, and every ERROR_IF.
//
// Tolerances. The kernel sums in double and rounds once to fp32, so against an accurate
// reference an output may differ by its own rounding (2^-24 relative) plus the double-precision
// sum and twiddle error, which for a sum of H*W terms of modulus |x| is below
// (H + W + 4) * 2^-52 * sum|x| (separable order: an H-term then a W-term sum, twiddles within
// 1 ulp). The tests allow 2^-23 relative (twice the rounding) plus that absolute bound: tight
// enough that a wrong twiddle, sign or index (errors of order |x|) fails by orders of magnitude.
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <thread>
#include <vector>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

using Shape3 = std::vector<int64_t>;

// The spec's pseudocode (FFT2D.tosac) evaluated in long double: the direct 2D sum, angle from
// the reduced indices, sign +1 forward / -1 inverse. Returns (real, imag) for every output.
struct Spectrum {
  std::vector<long double> re, im;
};
Spectrum naive_dft(const std::vector<float>& in_re, const std::vector<float>* in_im, int64_t N, int64_t H,
                   int64_t W, int64_t out_w, bool inverse) {
  const long double sign = inverse ? -1.0L : 1.0L;
  const long double two_pi = 2.0L * std::numbers::pi_v<long double>;
  Spectrum s{std::vector<long double>(size_t(N * H * out_w)), std::vector<long double>(size_t(N * H * out_w))};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < H; ++oy)
      for (int64_t ox = 0; ox < out_w; ++ox) {
        long double sr = 0, si = 0;
        for (int64_t iy = 0; iy < H; ++iy)
          for (int64_t ix = 0; ix < W; ++ix) {
            const size_t i = size_t((n * H + iy) * W + ix);
            const long double vr = in_re[i], vi = in_im ? (*in_im)[i] : 0.0f;
            const long double a =
                sign * two_pi * ((long double)((iy * oy) % H) / H + (long double)((ix * ox) % W) / W);
            sr += vr * cosl(a) + vi * sinl(a);
            si += -vr * sinl(a) + vi * cosl(a);
          }
        const size_t o = size_t((n * H + oy) * out_w + ox);
        s.re[o] = sr;
        s.im[o] = si;
      }
  return s;
}

// sum of |re| + |im| over image n: the scale of every output of that image.
double image_l1(const std::vector<float>& re, const std::vector<float>* im, int64_t n, int64_t hw) {
  double sum = 0;
  for (int64_t i = n * hw; i < (n + 1) * hw; ++i) sum += std::fabs(re[size_t(i)]) + (im ? std::fabs((*im)[size_t(i)]) : 0.0);
  return sum;
}

// Every output within the bound of the header comment of `reference`.
void expect_matches(const Spectrum& ref, const Tensor<float>& out_re, const Tensor<float>& out_im,
                    const std::vector<float>& in_re, const std::vector<float>* in_im, int64_t H, int64_t W,
                    int64_t out_w) {
  const int64_t per_image = H * out_w;
  int failures = 0;
  for (size_t o = 0; o < ref.re.size() && failures < 5; ++o) {
    const int64_t n = int64_t(o) / per_image;
    const double abs_bound = double(H + W + 4) * std::ldexp(1.0, -52) * image_l1(in_re, in_im, n, H * W);
    const double tol_re = std::ldexp(double(std::fabs(ref.re[o])), -23) + abs_bound;
    const double tol_im = std::ldexp(double(std::fabs(ref.im[o])), -23) + abs_bound;
    const double err_re = std::fabs(double(out_re.data[o]) - double(ref.re[o]));
    const double err_im = std::fabs(double(out_im.data[o]) - double(ref.im[o]));
    if (err_re > tol_re || err_im > tol_im) {
      ADD_FAILURE() << "output " << o << ": got (" << out_re.data[o] << ", " << out_im.data[o] << "), expected ("
                    << double(ref.re[o]) << ", " << double(ref.im[o]) << "), errors " << err_re << ", " << err_im
                    << " > " << tol_re << ", " << tol_im;
      ++failures;
    }
  }
}

std::vector<float> random_values(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// ---------------------------------------------------------------- hand-computed spectra

// A delta at (0,0): every output is 1 + 0i, forward and inverse.
TEST(Fft2d, DeltaAtOriginIsFlat) {
  for (bool inverse : {false, true}) {
    auto re = f32({1, 4, 8}), im = f32({1, 4, 8}), out_re = f32({1, 4, 8}), out_im = f32({1, 4, 8});
    re.data[0] = 1.0f;
    EXPECT_TOSA_OK(fft2d(re, im, FftAttr{inverse}, out_re, out_im));
    for (size_t i = 0; i < 32; ++i) {
      EXPECT_EQ(out_re.data[i], 1.0f) << i;
      EXPECT_EQ(out_im.data[i], 0.0f) << i;
    }
  }
}

// A delta at (y0, x0) = (1, 2) in 4x4: X[oy,ox] = exp(-/+ 2*pi*i*(oy + 2*ox)/4) = (-/+ i)^(oy+2ox),
// all quarter turns, so exact: 1, -i, -1, i (forward) and 1, i, -1, -i (inverse).
TEST(Fft2d, ShiftedDeltaIsExactQuarterTurns) {
  for (bool inverse : {false, true}) {
    auto re = f32({1, 4, 4}), im = f32({1, 4, 4}), out_re = f32({1, 4, 4}), out_im = f32({1, 4, 4});
    re.data[1 * 4 + 2] = 1.0f;
    EXPECT_TOSA_OK(fft2d(re, im, FftAttr{inverse}, out_re, out_im));
    const float cycle_re[4] = {1, 0, -1, 0};
    const float cycle_im_fwd[4] = {0, -1, 0, 1};
    for (int oy = 0; oy < 4; ++oy)
      for (int ox = 0; ox < 4; ++ox) {
        const int k = (oy + 2 * ox) % 4;
        EXPECT_EQ(out_re.data[size_t(oy * 4 + ox)], cycle_re[k]) << oy << "," << ox;
        EXPECT_EQ(out_im.data[size_t(oy * 4 + ox)], inverse ? -cycle_im_fwd[k] : cycle_im_fwd[k]) << oy << "," << ox;
      }
  }
}

// An imaginary delta: i at (0,0) transforms to i everywhere (checks the imaginary input path).
TEST(Fft2d, ImaginaryDelta) {
  auto re = f32({1, 2, 4}), im = f32({1, 2, 4}), out_re = f32({1, 2, 4}), out_im = f32({1, 2, 4});
  im.data[0] = 1.0f;
  EXPECT_TOSA_OK(fft2d(re, im, FftAttr{}, out_re, out_im));
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(out_re.data[i], 0.0f) << i;
    EXPECT_EQ(out_im.data[i], 1.0f) << i;
  }
}

// A constant c over 8x16 (two images, different constants): DC = c*H*W, every other bin 0 (up to
// the twiddles' rounding, which leaves at most ~1e-13 * H*W*|c|).
TEST(Fft2d, ConstantHasOnlyDc) {
  const float c[2] = {0.75f, -3.0f};
  auto re = f32({2, 8, 16}), im = f32({2, 8, 16}), out_re = f32({2, 8, 16}), out_im = f32({2, 8, 16});
  for (size_t i = 0; i < 256; ++i) re.data[i] = c[i / 128];
  EXPECT_TOSA_OK(fft2d(re, im, FftAttr{}, out_re, out_im));
  for (size_t i = 0; i < 256; ++i) {
    const float dc = (i % 128 == 0) ? c[i / 128] * 128.0f : 0.0f;
    EXPECT_NEAR(out_re.data[i], dc, 1e-9) << i;
    EXPECT_NEAR(out_im.data[i], 0.0, 1e-9) << i;
  }
}

// x = cos(2*pi*(ky*iy/H + kx*ix/W)) over 8x16 with (ky, kx) = (3, 5): the spectrum is H*W/2 at
// (3, 5) and at (H-3, W-5), zero elsewhere. The input is rounded to fp32 (relative 2^-24), which
// moves every bin by at most 2^-24 * H*W: tolerance 2e-5 on values of 64.
TEST(Fft2d, SingleCosine) {
  const int64_t H = 8, W = 16, ky = 3, kx = 5;
  auto re = f32({1, H, W}), im = f32({1, H, W}), out_re = f32({1, H, W}), out_im = f32({1, H, W});
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x)
      re.data[size_t(y * W + x)] =
          float(std::cos(2.0 * std::numbers::pi * (double(ky * y) / H + double(kx * x) / W)));
  EXPECT_TOSA_OK(fft2d(re, im, FftAttr{}, out_re, out_im));
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W; ++x) {
      const bool peak = (y == ky && x == kx) || (y == H - ky && x == W - kx);
      EXPECT_NEAR(out_re.data[size_t(y * W + x)], peak ? H * W / 2.0 : 0.0, 2e-5) << y << "," << x;
      EXPECT_NEAR(out_im.data[size_t(y * W + x)], 0.0, 2e-5) << y << "," << x;
    }
  // RFFT2D keeps the first W/2+1 columns: only the (3, 5) peak ((5, 11) is beyond W/2).
  auto r_re = f32({1, H, W / 2 + 1}), r_im = f32({1, H, W / 2 + 1});
  EXPECT_TOSA_OK(rfft2d(re, FftAttr{}, r_re, r_im));
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x <= W / 2; ++x) {
      EXPECT_NEAR(r_re.data[size_t(y * (W / 2 + 1) + x)], (y == ky && x == kx) ? H * W / 2.0 : 0.0, 2e-5);
      EXPECT_NEAR(r_im.data[size_t(y * (W / 2 + 1) + x)], 0.0, 2e-5);
    }
}

// ---------------------------------------------------------------- random data vs the naive DFT

const Shape3 kShapes[] = {{2, 4, 8}, {3, 8, 2}, {1, 16, 16}, {2, 1, 8}, {2, 8, 1}, {1, 1, 1}, {1, 32, 4}, {1, 2, 64}};

TEST(Fft2d, RandomMatchesNaiveDft) {
  std::mt19937 rng(17);
  for (const Shape3& shape : kShapes)
    for (bool inverse : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2]
                                        << (inverse ? " inverse" : " forward"));
      const int64_t N = shape[0], H = shape[1], W = shape[2];
      auto re = f32(shape, random_values(size_t(N * H * W), rng));
      auto im = f32(shape, random_values(size_t(N * H * W), rng));
      auto out_re = f32(shape), out_im = f32(shape);
      ASSERT_TRUE(fft2d(re, im, FftAttr{inverse}, out_re, out_im).is_ok());
      expect_matches(naive_dft(re.data, &im.data, N, H, W, W, inverse), out_re, out_im, re.data, &im.data, H, W, W);
    }
}

TEST(Rfft2d, RandomMatchesNaiveDft) {
  std::mt19937 rng(18);
  for (const Shape3& shape : kShapes) {
    SCOPED_TRACE(::testing::Message() << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2]);
    const int64_t N = shape[0], H = shape[1], W = shape[2], out_w = W / 2 + 1;
    auto re = f32(shape, random_values(size_t(N * H * W), rng));
    auto out_re = f32({N, H, out_w}), out_im = f32({N, H, out_w});
    ASSERT_TRUE(rfft2d(re, FftAttr{}, out_re, out_im).is_ok());
    expect_matches(naive_dft(re.data, nullptr, N, H, W, out_w, false), out_re, out_im, re.data, nullptr, H, W,
                   out_w);
  }
}

// The imaginary part at (0 or H/2, 0 or W/2) is exactly 0 (the spec skips those sin terms), and
// the rest of RFFT2D equals FFT2D of (x, 0) on its first W/2+1 columns: both sum the same
// products in the same order (the zero imaginary terms add nothing).
TEST(Rfft2d, EqualsFft2dOfRealInput) {
  std::mt19937 rng(19);
  for (const Shape3& shape : kShapes) {
    SCOPED_TRACE(::testing::Message() << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2]);
    const int64_t N = shape[0], H = shape[1], W = shape[2], out_w = W / 2 + 1;
    auto re = f32(shape, random_values(size_t(N * H * W), rng));
    auto zeros = f32(shape), f_re = f32(shape), f_im = f32(shape);
    auto r_re = f32({N, H, out_w}), r_im = f32({N, H, out_w});
    ASSERT_TRUE(fft2d(re, zeros, FftAttr{}, f_re, f_im).is_ok());
    ASSERT_TRUE(rfft2d(re, FftAttr{}, r_re, r_im).is_ok());
    for (int64_t n = 0; n < N; ++n)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < out_w; ++x) {
          const size_t r = size_t((n * H + y) * out_w + x), f = size_t((n * H + y) * W + x);
          EXPECT_EQ(r_re.data[r], f_re.data[f]) << n << "," << y << "," << x;
          EXPECT_EQ(r_im.data[r], f_im.data[f]) << n << "," << y << "," << x;
          const bool self_conjugate = (y == 0 || 2 * y == H) && (x == 0 || 2 * x == W);
          if (self_conjugate) {
            EXPECT_EQ(r_im.data[r], 0.0f) << n << "," << y << "," << x;
          }
        }
  }
}

// inverse(forward(x)) = H*W*x. The forward outputs carry their fp32 rounding (2^-24 relative each);
// the inverse sums them with unit-modulus twiddles, so the error is at most 2^-24 * sum|X| (plus the
// final rounding, 2^-24 * H*W*|x|): the tolerance is twice that.
TEST(Fft2d, InverseOfForwardScalesByHW) {
  std::mt19937 rng(20);
  for (const Shape3& shape : kShapes) {
    SCOPED_TRACE(::testing::Message() << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2]);
    const int64_t N = shape[0], H = shape[1], W = shape[2];
    auto re = f32(shape, random_values(size_t(N * H * W), rng));
    auto im = f32(shape, random_values(size_t(N * H * W), rng));
    auto X_re = f32(shape), X_im = f32(shape), back_re = f32(shape), back_im = f32(shape);
    ASSERT_TRUE(fft2d(re, im, FftAttr{false}, X_re, X_im).is_ok());
    ASSERT_TRUE(fft2d(X_re, X_im, FftAttr{true}, back_re, back_im).is_ok());
    for (int64_t n = 0; n < N; ++n) {
      const double spectrum_l1 = image_l1(X_re.data, &X_im.data, n, H * W);
      for (int64_t i = n * H * W; i < (n + 1) * H * W; ++i) {
        const double hw = double(H * W);
        const double tol = std::ldexp(spectrum_l1 + hw * 2.0, -23);
        EXPECT_NEAR(back_re.data[size_t(i)], hw * re.data[size_t(i)], tol) << i;
        EXPECT_NEAR(back_im.data[size_t(i)], hw * im.data[size_t(i)], tol) << i;
      }
    }
  }
}

// Split over threads, the result is bit-identical (each output row is computed the same way).
TEST(Fft2d, ThreadsGiveTheSameBits) {
  std::mt19937 rng(21);
  // 4*64 rows of 64*(64+64) multiply-adds: above the kernel's 2^20 threshold for threads.
  const Shape3 shape = {4, 64, 64};
  auto re = f32(shape, random_values(4 * 64 * 64, rng)), im = f32(shape, random_values(4 * 64 * 64, rng));
  auto a_re = f32(shape), a_im = f32(shape), b_re = f32(shape), b_im = f32(shape);
  CountingThreads par(3);
  EXPECT_TOSA_OK(fft2d(re, im, FftAttr{}, a_re, a_im));
  EXPECT_TOSA_OK(fft2d(re, im, FftAttr{}, b_re, b_im, &par));
  EXPECT_EQ(a_re.data, b_re.data);
  EXPECT_EQ(a_im.data, b_im.data);
  auto ra_re = f32({4, 64, 33}), ra_im = f32({4, 64, 33}), rb_re = f32({4, 64, 33}), rb_im = f32({4, 64, 33});
  EXPECT_TOSA_OK(rfft2d(re, FftAttr{}, ra_re, ra_im));
  EXPECT_TOSA_OK(rfft2d(re, FftAttr{}, rb_re, rb_im, &par));
  EXPECT_EQ(ra_re.data, rb_re.data);
  EXPECT_EQ(ra_im.data, rb_im.data);
  EXPECT_EQ(par.dispatches, 2);  // both calls were large enough to use the threads
  EXPECT_EQ(par.tasks, 2 * 3);
}

// ---------------------------------------------------------------- the twiddle table

TEST(Fft2dTwiddles, ExactQuarterTurnsAndAccurateElsewhere) {
  std::vector<float> t(2 * 16);
  EXPECT_TOSA_OK(fft2d_twiddles(16, t));
  const float quarter[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  for (int q = 0; q < 4; ++q) {
    EXPECT_EQ(t[size_t(2 * 4 * q)], quarter[q][0]) << q;
    EXPECT_EQ(t[size_t(2 * 4 * q + 1)], quarter[q][1]) << q;
  }
  for (int k = 0; k < 16; ++k) {
    // Within fp32 rounding of the exact value.
    EXPECT_NEAR(t[size_t(2 * k)], std::cos(2 * std::numbers::pi * k / 16), 6e-8) << k;
    EXPECT_NEAR(t[size_t(2 * k + 1)], std::sin(2 * std::numbers::pi * k / 16), 6e-8) << k;
  }
  std::vector<float> small(2);
  EXPECT_TOSA_OK(fft2d_twiddles(1, small));
  EXPECT_EQ(small[0], 1.0f);
  EXPECT_EQ(small[1], 0.0f);
  std::vector<float> big(2 * 16384);
  EXPECT_TOSA_ERROR(fft2d_twiddles(12, big), InvalidArgument, "power of two");
  EXPECT_TOSA_ERROR(fft2d_twiddles(16384, big), InvalidArgument, "power of two");
  EXPECT_TOSA_ERROR(fft2d_twiddles(16, std::span<float>(big).first(31)), InvalidArgument, "32 needed");
}

// ---------------------------------------------------------------- ERROR_IF and argument checks

TEST(Fft2d, RefusesBadArguments) {
  auto ok = [](Shape3 s) { return f32(std::move(s)); };
  {  // ERROR_IF(!power_of_two(H)), ERROR_IF(!power_of_two(W)), H = 0.
    auto a = ok({1, 6, 8}), b = ok({1, 6, 8}), c = ok({1, 6, 8}), d = ok({1, 6, 8});
    EXPECT_TOSA_ERROR(fft2d(a, b, {}, c, d), InvalidArgument, "ERROR_IF(!power_of_two(H)): H = 6");
    auto e = ok({1, 8, 3}), f = ok({1, 8, 3}), g = ok({1, 8, 3}), h = ok({1, 8, 3});
    EXPECT_TOSA_ERROR(fft2d(e, f, {}, g, h), InvalidArgument, "ERROR_IF(!power_of_two(W)): W = 3");
    auto z = ok({1, 0, 4});
    EXPECT_TOSA_ERROR(check_fft2d(z, z, {}, z, z), InvalidArgument, "power_of_two(H)");
  }
  {  // Level 8K: MAX_KERNEL 8192.
    auto a = ok({1, 1, 16384}), b = ok({1, 1, 16384});
    EXPECT_TOSA_ERROR(fft2d(a, b, {}, a, b), InvalidArgument, "W = 16384 exceeds MAX_KERNEL 8192");
  }
  {  // dtypes: fp32 only.
    auto a = i8({1, 4, 4});
    auto b = ok({1, 4, 4}), c = ok({1, 4, 4}), d = ok({1, 4, 4});
    EXPECT_TOSA_ERROR(fft2d(a, b, {}, c, d), NotSupported, "int8 not supported (fp32 only)");
    auto e = i32({1, 4, 4});
    EXPECT_TOSA_ERROR(fft2d(b, e, {}, c, d), InvalidArgument, "input_imag: expected fp32");
    EXPECT_TOSA_ERROR(fft2d(b, c, {}, d, e), InvalidArgument, "output_imag: expected fp32");
  }
  {  // ranks and shapes.
    auto r4 = ok({1, 1, 4, 4});
    EXPECT_TOSA_ERROR(fft2d(r4, r4, {}, r4, r4), InvalidArgument, "expected rank 3");
    auto a = ok({2, 4, 4}), b = ok({1, 4, 4}), c = ok({2, 4, 4}), d = ok({2, 4, 8});
    EXPECT_TOSA_ERROR(fft2d(a, b, {}, c, c), InvalidArgument, "input_imag: expected shape [2,4,4]");
    EXPECT_TOSA_ERROR(fft2d(a, a, {}, c, d), InvalidArgument, "output_imag: expected shape [2,4,4]");
    EXPECT_TOSA_ERROR(fft2d(a, a, {}, d, c), InvalidArgument, "output_real: expected shape [2,4,4]");
  }
  {  // Missing data.
    Shape3 s = {1, 2, 2};
    TensorRef null_ref{DType::Fp32, s, nullptr};
    auto a = ok(s);
    EXPECT_TOSA_ERROR(fft2d(a, null_ref, {}, a, a), InvalidArgument, "input_imag: no data");
  }
}

TEST(Rfft2d, RefusesBadArguments) {
  auto ok = [](Shape3 s) { return f32(std::move(s)); };
  auto a = ok({1, 4, 8}), good = ok({1, 4, 5}), full = ok({1, 4, 8});
  EXPECT_TOSA_OK(check_rfft2d(a, {}, good, good));
  EXPECT_TOSA_ERROR(rfft2d(a, {}, full, good), InvalidArgument, "output_real: expected shape [1,4,5]");
  EXPECT_TOSA_ERROR(rfft2d(a, {}, good, full), InvalidArgument, "output_imag: expected shape [1,4,5]");
  auto h = ok({1, 12, 8}), h_out = ok({1, 12, 5});
  EXPECT_TOSA_ERROR(rfft2d(h, {}, h_out, h_out), InvalidArgument, "RFFT2D: ERROR_IF(!power_of_two(H)): H = 12");
  auto w = ok({1, 4, 10}), w_out = ok({1, 4, 6});
  EXPECT_TOSA_ERROR(rfft2d(w, {}, w_out, w_out), InvalidArgument, "RFFT2D: ERROR_IF(!power_of_two(W)): W = 10");
  auto f16 = Tensor<uint16_t>(DType::Fp16, {1, 4, 8});
  EXPECT_TOSA_ERROR(rfft2d(f16.ref(), {}, good, good), NotSupported, "fp16 not supported");
  auto r2 = ok({4, 8});
  EXPECT_TOSA_ERROR(rfft2d(r2, {}, good, good), InvalidArgument, "expected rank 3");
}

}  // namespace
}  // namespace vkrt::tosa::test
