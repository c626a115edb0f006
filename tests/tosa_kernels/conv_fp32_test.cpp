// fp32 CONV2D on the compute core's fp32 GEMM and fp32 DEPTHWISE_CONV2D (conv2d_fp32.cpp)
// against sums in double: each output within the float rounding of a chain of taps + 1 steps,
// |err| <= γ·(Σ|x·w| + |bias|) with γ = n·u/(1 − n·u), u = 2^-24, n = taps + 1.
#include <algorithm>
#include <cmath>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

struct Window {
  int64_t n, ih, iw, c, kh, kw;
  int stride, pad, dilation;
};

ConvAttr attrs_of(const Window& w) {
  ConvAttr a;
  a.acc_type = AccType::Fp32;
  a.stride[0] = a.stride[1] = w.stride;
  a.dilation[0] = a.dilation[1] = w.dilation;
  for (int& p : a.pad) p = w.pad;
  return a;
}

int64_t output_size(int64_t in, int64_t k, const Window& w) {
  return (in + 2 * w.pad - (k - 1) * w.dilation - 1) / w.stride + 1;
}

Tensor<float> random_f32(std::vector<int64_t> shape, std::mt19937& rng) {
  Tensor<float> t = f32(std::move(shape));
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (float& v : t.data) v = value(rng);
  return t;
}

// Checks `got` against the double sums `want` with their magnitudes Σ|x·w| + |bias|.
void expect_within_rounding(const std::vector<float>& got, const std::vector<double>& want,
                            const std::vector<double>& magnitude, int64_t steps, const std::string& where) {
  ASSERT_EQ(got.size(), want.size());
  const double n = double(steps), u = std::ldexp(1.0, -24), gamma = n * u / (1 - n * u);
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (std::fabs(double(got[i]) - want[i]) > gamma * magnitude[i]) {
      ADD_FAILURE() << where << ": output " << i << " is " << got[i] << ", the double sum " << want[i]
                    << " (bound " << gamma * magnitude[i] << ")";
      ++bad;
    }
  }
}

// Calls tap(ky, kx, y, x) for each tap of output pixel (oy, ox)'s window inside the input: TOSA
// leaves padding taps out of the sum.
template <typename Tap>
void for_each_window_tap(const Window& win, int64_t oy, int64_t ox, const Tap& tap) {
  for (int64_t ky = 0; ky < win.kh; ++ky)
    for (int64_t kx = 0; kx < win.kw; ++kx) {
      const int64_t y = oy * win.stride - win.pad + ky * win.dilation;
      const int64_t x = ox * win.stride - win.pad + kx * win.dilation;
      if (y >= 0 && y < win.ih && x >= 0 && x < win.iw) tap(ky, kx, y, x);
    }
}

// CONV2D in double, skipping padding taps, as TOSA defines it.
void conv2d_in_double(const Tensor<float>& in, const Tensor<float>& w, const Tensor<float>& b, const Window& win,
                      int64_t oc_count, std::vector<double>* sums, std::vector<double>* magnitudes) {
  const int64_t oh = output_size(win.ih, win.kh, win), ow = output_size(win.iw, win.kw, win);
  for (int64_t n = 0; n < win.n; ++n)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t oc = 0; oc < oc_count; ++oc) {
          double sum = 0, magnitude = 0;
          for_each_window_tap(win, oy, ox, [&](int64_t ky, int64_t kx, int64_t y, int64_t x) {
            for (int64_t ic = 0; ic < win.c; ++ic) {
              const double p = double(in.data[size_t(((n * win.ih + y) * win.iw + x) * win.c + ic)]) *
                               double(w.data[size_t(((oc * win.kh + ky) * win.kw + kx) * win.c + ic)]);
              sum += p, magnitude += std::fabs(p);
            }
          });
          const double bias = b.data[b.data.size() == 1 ? 0 : size_t(oc)];
          sums->push_back(sum + bias), magnitudes->push_back(magnitude + std::fabs(bias));
        }
}

TEST(TosaConv2dFp32, GemmMatchesDoubleSumsWithinRounding) {
  std::mt19937 rng(2026);
  struct Case {
    Window win;
    int64_t oc;
    bool bias_per_channel;
  };
  const Case cases[] = {
      {{2, 5, 7, 19, 1, 1, 1, 0, 1}, 23, true},    // 1x1: the input is A as it is
      {{1, 17, 17, 3, 3, 3, 2, 1, 1}, 32, true},   // the RGB stem: 3x3, stride 2, padding
      {{1, 9, 11, 8, 3, 2, 1, 2, 2}, 5, false},    // dilation, a broadcast bias
      {{1, 56, 56, 3, 3, 3, 1, 1, 1}, 16, true},   // 3136 pixels: several im2col bands
      {{1, 7, 7, 40, 1, 1, 2, 0, 1}, 70, true},    // 1x1 with a stride: im2col
  };
  for (const Case& k : cases) {
    const Window& win = k.win;
    auto in = random_f32({win.n, win.ih, win.iw, win.c}, rng);
    auto w = random_f32({k.oc, win.kh, win.kw, win.c}, rng);
    auto b = random_f32({k.bias_per_channel ? k.oc : 1}, rng);
    auto out = f32({win.n, output_size(win.ih, win.kh, win), output_size(win.iw, win.kw, win), k.oc});
    std::vector<double> want, magnitude;
    conv2d_in_double(in, w, b, win, k.oc, &want, &magnitude);
    const ConvAttr a = attrs_of(win);
    for (compute::Isa isa : compute::available_isas()) {
      compute::ScopedIsa pin(isa);
      for (int threads : {1, 3}) {
        for (bool pack : {false, true}) {
          CountingThreads pool(threads);
          ParallelRunner* runner = threads > 1 ? &pool : nullptr;
          std::vector<uint8_t> packed(pack ? conv2d_packed_weights_bytes(w, b, a) : 0);
          ASSERT_EQ(packed.size(), pack ? w.data.size() * sizeof(float) : 0u);
          const void* packed_weights = pack ? conv2d_pack_weights(w, b, a, packed) : nullptr;
          std::vector<uint8_t> scratch(conv2d_scratch_bytes(in, w, b, a, out, threads, packed_weights), 0xA5);
          ASSERT_GT(scratch.size(), 0u);
          std::fill(out.data.begin(), out.data.end(), std::nanf(""));
          ASSERT_TOSA_OK(conv2d(in, w, b, a, out, runner, ConvResources{scratch, packed_weights}));
          const std::string where = std::string("CONV2D ") + std::to_string(win.kh) + "x" + std::to_string(win.kw) +
                                    " at " + compute::isa_name(isa) + ", " + std::to_string(threads) + " thread(s)" +
                                    (pack ? ", weights packed" : "");
          expect_within_rounding(out.data, want, magnitude, win.kh * win.kw * win.c + 1, where);
          // The large case splits over the threads: the GEMM ran, not the single-threaded loops.
          if (threads > 1 && win.ih == 56) {
            EXPECT_GT(pool.tasks.load(), 0) << where;
          }
        }
      }
    }
  }
}

// Without the scratch conv2d_scratch_bytes asks for, the reference loops run: their exact bytes.
TEST(TosaConv2dFp32, ShortScratchRunsTheReferenceLoops) {
  std::mt19937 rng(7);
  const Window win{1, 6, 5, 4, 3, 3, 1, 1, 1};
  auto in = random_f32({1, 6, 5, 4}, rng);
  auto w = random_f32({6, 3, 3, 4}, rng);
  auto b = random_f32({6}, rng);
  auto out = f32({1, 6, 5, 6}), reference = f32({1, 6, 5, 6});
  const ConvAttr a = attrs_of(win);
  detail::conv2d_reference(in, w, b, a, reference);
  std::vector<uint8_t> scratch(conv2d_scratch_bytes(in, w, b, a, out, 1) - 1);
  ASSERT_TOSA_OK(conv2d(in, w, b, a, out, nullptr, ConvResources{scratch, nullptr}));
  EXPECT_EQ(std::memcmp(out.data.data(), reference.data.data(), out.data.size() * sizeof(float)), 0);
}

TEST(TosaDepthwiseFp32, MatchesDoubleSumsWithinRounding) {
  std::mt19937 rng(11);
  struct Case {
    Window win;
    int64_t m;
  };
  const Case cases[] = {
      {{1, 30, 30, 144, 3, 3, 1, 1, 1}, 1},  // a MobileNetV2 3x3 depthwise, stride 1
      {{2, 15, 13, 32, 3, 3, 2, 1, 1}, 1},   // stride 2, two images
      {{1, 9, 10, 5, 3, 2, 1, 2, 2}, 3},     // a channel multiplier, dilation
  };
  for (const Case& k : cases) {
    const Window& win = k.win;
    const int64_t oh = output_size(win.ih, win.kh, win), ow = output_size(win.iw, win.kw, win), oc = win.c * k.m;
    auto in = random_f32({win.n, win.ih, win.iw, win.c}, rng);
    auto w = random_f32({win.kh, win.kw, win.c, k.m}, rng);
    auto b = random_f32({oc}, rng);
    std::vector<double> want, magnitude;
    for (int64_t n = 0; n < win.n; ++n)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t c = 0; c < win.c; ++c)
            for (int64_t m = 0; m < k.m; ++m) {
              double sum = 0, mag = 0;
              for_each_window_tap(win, oy, ox, [&](int64_t ky, int64_t kx, int64_t y, int64_t x) {
                const double p = double(in.data[size_t(((n * win.ih + y) * win.iw + x) * win.c + c)]) *
                                 double(w.data[size_t(((ky * win.kw + kx) * win.c + c) * k.m + m)]);
                sum += p, mag += std::fabs(p);
              });
              const double bias = b.data[size_t(c * k.m + m)];
              want.push_back(sum + bias), magnitude.push_back(mag + std::fabs(bias));
            }
    for (int threads : {1, 3}) {
      CountingThreads pool(threads);
      auto out = f32({win.n, oh, ow, oc});
      ASSERT_TOSA_OK(depthwise_conv2d(in, w, b, attrs_of(win), out, threads > 1 ? &pool : nullptr));
      expect_within_rounding(out.data, want, magnitude, win.kh * win.kw + 1,
                             "DEPTHWISE_CONV2D " + std::to_string(oc) + " channels, " + std::to_string(threads) +
                                 " thread(s)");
      // The 30x30x144 case is past the threading threshold: the fast path ran on the threads.
      if (threads > 1 && win.c == 144) {
        EXPECT_GT(pool.tasks.load(), 0);
      }
    }
  }
}

// conv2d_clamp and depthwise_conv2d_clamp (the fp32 chains the CPU executor fuses): the same bytes
// as the convolution and then CLAMP, with `sums` left unwritten on the fast paths; both NaN modes;
// and CONV2D without scratch, where the two kernels run in turn and `sums` is written.
TEST(TosaConvClampFp32, SameAsTheKernelsInTurn) {
  std::mt19937 rng(5);
  const Window win{1, 15, 13, 24, 3, 3, 2, 1, 1};
  const int64_t oh = output_size(win.ih, win.kh, win), ow = output_size(win.iw, win.kw, win);
  auto in = random_f32({1, win.ih, win.iw, win.c}, rng);
  in.data[5] = std::nanf("");  // a NaN reaches some outputs: the NaN modes differ there
  const ConvAttr a = attrs_of(win);
  for (NanMode nan_mode : {NanMode::Propagate, NanMode::Ignore}) {
    ClampAttr relu6;
    relu6.min_fp = 0.0, relu6.max_fp = 6.0, relu6.nan_mode = nan_mode;
    for (bool depthwise : {false, true}) {
      const int64_t oc = depthwise ? win.c : 40;
      auto w = depthwise ? random_f32({win.kh, win.kw, win.c, 1}, rng) : random_f32({oc, win.kh, win.kw, win.c}, rng);
      auto b = random_f32({oc}, rng);
      auto sums = f32({1, oh, ow, oc}), want = f32({1, oh, ow, oc}), got = f32({1, oh, ow, oc});
      for (bool with_scratch : {true, false}) {
        if (depthwise && !with_scratch) continue;  // the fp32 depthwise takes no scratch
        std::vector<uint8_t> scratch(with_scratch ? conv2d_scratch_bytes(in, w, b, a, sums, 1) : 0);
        if (depthwise) {
          ASSERT_TOSA_OK(depthwise_conv2d(in, w, b, a, sums));
        } else {
          ASSERT_TOSA_OK(conv2d(in, w, b, a, sums, nullptr, ConvResources{scratch, nullptr}));
        }
        ASSERT_TOSA_OK(clamp(sums, relu6, want));
        std::fill(sums.data.begin(), sums.data.end(), -1.0f);
        if (depthwise) {
          ASSERT_TOSA_OK(depthwise_conv2d_clamp(in, w, b, a, sums, relu6, got));
        } else {
          ASSERT_TOSA_OK(conv2d_clamp(in, w, b, a, sums, relu6, got, nullptr, ConvResources{scratch, nullptr}));
        }
        const std::string where = std::string(depthwise ? "DEPTHWISE_CONV2D" : "CONV2D") + "+CLAMP, nan_mode " +
                                  (nan_mode == NanMode::Ignore ? "IGNORE" : "PROPAGATE") +
                                  (with_scratch ? "" : ", no scratch");
        EXPECT_EQ(std::memcmp(got.data.data(), want.data.data(), got.data.size() * sizeof(float)), 0) << where;
        const bool sums_written = std::any_of(sums.data.begin(), sums.data.end(), [](float v) { return v != -1.0f; });
        EXPECT_EQ(sums_written, !with_scratch) << where;
        EXPECT_TRUE(std::any_of(got.data.begin(), got.data.end(), [](float v) { return v == 6.0f; })) << where;
        EXPECT_TRUE(std::any_of(got.data.begin(), got.data.end(), [](float v) { return v == 0.0f; })) << where;
      }
    }
  }
}

}  // namespace
}  // namespace vkrt::tosa::test
