// shaders/glsl/fft2d.comp dispatched directly (no graph, no executor: the op is not lowered yet)
// against the CPU kernels tosa::fft2d / tosa::rfft2d on random data: forward, inverse, RFFT2D,
// N > 1, H != W, H or W = 1. Zero validation messages (the test environment checks at exit).
//
// Tolerance. The CPU result is the exact sum rounded to fp32 (fft_test.cpp). The shader sums in
// fp32: each input row's W products, then the H row sums, with twiddles rounded to fp32 once. By
// the standard bound for recursive summation, each output component is then within
// (W + H + 2) * 2^-24 * sum(|re| + |im|) of the exact sum (each product's component is at most
// |re| + |im| since |cos|, |sin| <= 1; the +2 covers the twiddle and product roundings). The test
// allows that plus the CPU result's own rounding (2^-24 relative): a worst-case bound, so it never
// fails spuriously, yet ~1e-3 of the output scale, while a wrong twiddle index, sign or
// batch/row offset moves outputs by the order of the outputs themselves.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu_fallback/tosa/tosa_kernels.h"
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/buffer.h"
#include "vgf/vulkan/command_program.h"
#include "vgf/vulkan/pipeline.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

struct Fft2dParams { FFT2D_PARAMS };

struct FftCase {
  int64_t n, h, w;
  bool inverse;
  bool real;  // RFFT2D
};

std::vector<float> random_floats(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// A host-visible storage buffer holding `data` (at least 4 bytes: Vulkan has no empty buffers).
Buffer upload(const std::shared_ptr<Context>& ctx, const std::vector<float>& data) {
  auto b = Buffer::create(ctx, std::max<size_t>(4, data.size() * sizeof(float)), MemoryKind::HostStaging);
  EXPECT_TRUE(b.ok()) << b.status().message();
  if (!b.ok()) return Buffer();
  if (!data.empty()) std::memcpy(b->mapped(), data.data(), data.size() * sizeof(float));
  return std::move(*b);
}

// Runs fft2d.comp once: what the Vulkan lowering will record for one FFT2D / RFFT2D op.
struct GpuResult {
  std::vector<float> re, im;
  double seconds = 0;
};
GpuResult run_shader(const std::shared_ptr<Context>& ctx, const FftCase& c, const std::vector<float>& in_re,
                     const std::vector<float>& in_im) {
  GpuResult result;
  const int64_t out_w = c.real ? c.w / 2 + 1 : c.w;
  const int64_t table_size = std::max(c.h, c.w);
  const size_t outputs = size_t(c.n * c.h * out_w);

  std::vector<float> table(size_t(2 * table_size));
  Status s = tosa::fft2d_twiddles(table_size, table);
  EXPECT_TRUE(s.is_ok()) << s.message();

  Buffer b_re = upload(ctx, in_re), b_im = upload(ctx, in_im), b_table = upload(ctx, table);
  Buffer b_out_re = upload(ctx, std::vector<float>(outputs)), b_out_im = upload(ctx, std::vector<float>(outputs));
  if (!b_re.handle() || !b_im.handle() || !b_table.handle() || !b_out_re.handle() || !b_out_im.handle())
    return result;

  PipelineSet pipelines(ctx, VK_NULL_HANDLE);
  auto pipeline = pipelines.get("fft2d", 5);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
  if (!pipeline.ok()) return result;

  Dispatch d;
  d.pipeline = *pipeline;
  auto range = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
  // RFFT2D reads no imaginary input: binding 1 gets input_real, as the lowering may do.
  d.bindings = {range(b_re), range(c.real ? b_re : b_im), range(b_table), range(b_out_re), range(b_out_im)};
  d.writes = {false, false, false, true, true};
  Fft2dParams params{int(c.n), int(c.h), int(c.w), int(out_w), int(table_size),
                     (c.inverse ? FFT2D_INVERSE : 0) | (c.real ? FFT2D_REAL_INPUT : 0)};
  std::memcpy(d.push.data(), &params, sizeof(params));
  grid_for(outputs, 64, ctx->features(), &d.groups_x, &d.groups_y);
  d.label = c.real ? "RFFT2D" : "FFT2D";

  auto program = CommandProgram::record(ctx, {d}, {}, {}, false);
  EXPECT_TRUE(program.ok()) << program.status().message();
  if (!program.ok()) return result;
  const auto start = std::chrono::steady_clock::now();
  s = (*program)->submit_and_wait();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(s.is_ok()) << s.message();

  result.re.resize(outputs);
  result.im.resize(outputs);
  std::memcpy(result.re.data(), b_out_re.mapped(), outputs * sizeof(float));
  std::memcpy(result.im.data(), b_out_im.mapped(), outputs * sizeof(float));
  return result;
}

TEST(VulkanFft2dShader, MatchesCpuKernelOnRandomData) {
  VKRT_REQUIRE_VULKAN();
  std::shared_ptr<Context> ctx = device_or_null(nullptr);
  const FftCase cases[] = {
      {2, 4, 8, false, false},  {2, 4, 8, true, false},  {3, 8, 2, false, false}, {1, 16, 16, true, false},
      {2, 1, 8, false, false},  {2, 8, 1, true, false},  {1, 1, 1, false, false}, {1, 32, 64, false, false},
      {2, 4, 8, false, true},   {3, 8, 2, false, true},  {2, 1, 8, false, true},  {2, 8, 1, false, true},
      {1, 1, 1, false, true},   {1, 64, 32, false, true}, {1, 64, 64, false, false},
  };
  std::mt19937 rng(2024);
  double worst = 0;  // largest error / tolerance seen, reported for the record
  for (const FftCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << (c.real ? "RFFT2D " : "FFT2D ") << c.n << "x" << c.h << "x" << c.w
                                      << (c.inverse ? " inverse" : ""));
    const int64_t out_w = c.real ? c.w / 2 + 1 : c.w;
    const size_t count = size_t(c.n * c.h * c.w), outputs = size_t(c.n * c.h * out_w);
    std::vector<float> in_re = random_floats(count, rng);
    std::vector<float> in_im = c.real ? std::vector<float>() : random_floats(count, rng);

    // The oracle.
    const std::vector<int64_t> in_shape = {c.n, c.h, c.w}, out_shape = {c.n, c.h, out_w};
    std::vector<float> cpu_re(outputs), cpu_im(outputs);
    const tosa::TensorRef t_re{tosa::DType::Fp32, in_shape, in_re.data()};
    const tosa::TensorRef t_im{tosa::DType::Fp32, in_shape, in_im.data()};
    const tosa::TensorRef o_re{tosa::DType::Fp32, out_shape, cpu_re.data()};
    const tosa::TensorRef o_im{tosa::DType::Fp32, out_shape, cpu_im.data()};
    Status s = c.real ? tosa::rfft2d(t_re, tosa::FftAttr{}, o_re, o_im)
                      : tosa::fft2d(t_re, t_im, tosa::FftAttr{c.inverse}, o_re, o_im);
    ASSERT_TRUE(s.is_ok()) << s.message();

    GpuResult gpu = run_shader(ctx, c, in_re, in_im);
    ASSERT_EQ(gpu.re.size(), outputs);
    if (c.h * c.w >= 4096) {
      std::printf("  lavapipe fft2d.comp %s %lldx%lldx%lld: %.1f ms\n", c.real ? "RFFT2D" : "FFT2D",
                  (long long)c.n, (long long)c.h, (long long)c.w, gpu.seconds * 1e3);
    }

    int failures = 0;
    for (int64_t n = 0; n < c.n; ++n) {
      double l1 = 0;  // sum(|re| + |im|) over the image
      for (int64_t i = n * c.h * c.w; i < (n + 1) * c.h * c.w; ++i)
        l1 += std::fabs(in_re[size_t(i)]) + (c.real ? 0.0 : std::fabs(in_im[size_t(i)]));
      const double bound = double(c.w + c.h + 2) * std::ldexp(l1, -24);
      for (int64_t i = n * c.h * out_w; i < (n + 1) * c.h * out_w && failures < 5; ++i) {
        const size_t o = size_t(i);
        const double err_re = std::fabs(double(gpu.re[o]) - cpu_re[o]);
        const double err_im = std::fabs(double(gpu.im[o]) - cpu_im[o]);
        const double tol_re = bound + std::ldexp(std::fabs(cpu_re[o]), -24);
        const double tol_im = bound + std::ldexp(std::fabs(cpu_im[o]), -24);
        worst = std::max({worst, err_re / tol_re, err_im / tol_im});
        if (err_re > tol_re || err_im > tol_im) {
          ADD_FAILURE() << "output " << o << ": GPU (" << gpu.re[o] << ", " << gpu.im[o] << "), CPU (" << cpu_re[o]
                        << ", " << cpu_im[o] << "), bound " << bound;
          ++failures;
        }
      }
    }
    // RFFT2D's self-conjugate bins: exactly 0 on both.
    if (c.real) {
      for (int64_t n = 0; n < c.n; ++n)
        for (int64_t y : {int64_t(0), c.h / 2})
          for (int64_t x : {int64_t(0), c.w / 2}) {
            EXPECT_EQ(gpu.im[size_t((n * c.h + y) * out_w + x)], 0.0f) << n << "," << y << "," << x;
          }
    }
  }
  std::printf("  largest error: %.3f of the tolerance\n", worst);
}

}  // namespace
}  // namespace vkrt::vulkan::testing
