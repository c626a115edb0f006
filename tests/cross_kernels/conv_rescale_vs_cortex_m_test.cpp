// Where TOSA and the cortex_m operators define the same arithmetic, the two CPU front ends must
// agree bit for bit: TOSA CONV2D (int8 -> int32) followed by RESCALE (per-channel, double
// rounding) against cortex_m::quantized_conv2d's compute functions (portable and fast paths).
// The shift conventions differ: TOSA right-shifts by `shift` (tosa.md §5), CMSIS-NN uses
// round(v * m / 2^(31 - shift)) (cortex-m-ops.md §4), so tosa_shift = 31 - cmsis_shift.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cortex_m/conv2d.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt {
namespace {

struct Case {
  int in_h, in_w, in_ch, out_ch, k, stride, pad, input_zp, output_zp;
};

void check_case(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  auto rand_i8 = [&] { return int8_t(int(rng() % 256) - 128); };
  const int out_h = (c.in_h + 2 * c.pad - c.k) / c.stride + 1;
  const int out_w = (c.in_w + 2 * c.pad - c.k) / c.stride + 1;
  std::vector<int8_t> input(size_t(c.in_h * c.in_w * c.in_ch)), weight(size_t(c.out_ch * c.k * c.k * c.in_ch));
  for (auto& v : input) v = rand_i8();
  for (auto& v : weight) v = rand_i8();
  std::vector<int32_t> bias(size_t(c.out_ch)), multiplier(size_t(c.out_ch)), cmsis_shift(size_t(c.out_ch)),
      tosa_shift(size_t(c.out_ch));
  for (int oc = 0; oc < c.out_ch; ++oc) {
    bias[size_t(oc)] = int32_t(rng() % 20001) - 10000;
    multiplier[size_t(oc)] = int32_t((1u << 30) + rng() % (1u << 30));
    cmsis_shift[size_t(oc)] = int32_t(rng() % 14) - 12;  // negative and positive shifts
    tosa_shift[size_t(oc)] = 31 - cmsis_shift[size_t(oc)];
  }

  // TOSA: CONV2D to int32, then RESCALE to int8.
  const int64_t in_shape[] = {1, c.in_h, c.in_w, c.in_ch}, w_shape[] = {c.out_ch, c.k, c.k, c.in_ch},
                b_shape[] = {c.out_ch}, out_shape[] = {1, out_h, out_w, c.out_ch};
  std::vector<int32_t> acc(size_t(out_h * out_w * c.out_ch));
  std::vector<int8_t> tosa_out(acc.size()), cm_out(acc.size()), cm_fast_out(acc.size());
  tosa::ConvAttr conv;
  for (auto& p : conv.pad) p = c.pad;
  conv.stride[0] = conv.stride[1] = c.stride;
  conv.input_zp = c.input_zp;
  ASSERT_TRUE(tosa::conv2d({tosa::DType::Int8, in_shape, input.data()}, {tosa::DType::Int8, w_shape, weight.data()},
                           {tosa::DType::Int32, b_shape, bias.data()}, conv, {tosa::DType::Int32, out_shape, acc.data()})
                  .is_ok());
  tosa::RescaleAttr rescale;
  rescale.multiplier = multiplier;
  rescale.shift.assign(tosa_shift.begin(), tosa_shift.end());
  rescale.output_zp = c.output_zp;
  rescale.rounding_mode = tosa::RoundingMode::DoubleRound;
  rescale.per_channel = true;
  Status s = tosa::rescale({tosa::DType::Int32, out_shape, acc.data()}, rescale, {tosa::DType::Int8, out_shape, tosa_out.data()});
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  // cortex_m: one kernel with CMSIS offsets (input_offset = -zp, output_offset = +zp).
  cortex_m::Conv2dParams p;
  p.in_h = c.in_h, p.in_w = c.in_w, p.in_ch = c.in_ch;
  p.out_h = out_h, p.out_w = out_w, p.out_ch = c.out_ch;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.pad_h = p.pad_w = c.pad;
  p.input_offset = -c.input_zp;
  p.output_offset = c.output_zp;
  ASSERT_TRUE(cortex_m::check_conv2d(p, false).is_ok());
  cortex_m::conv2d_s8_portable(p, input.data(), weight.data(), bias.data(), multiplier.data(), cmsis_shift.data(),
                               cm_out.data());
  std::vector<uint8_t> scratch(cortex_m::conv2d_s8_scratch_bytes(p, 1));
  cortex_m::Exec exec;
  exec.scratch = scratch;
  cortex_m::conv2d_s8(p, input.data(), weight.data(), bias.data(), multiplier.data(), cmsis_shift.data(),
                      cm_fast_out.data(), exec);

  EXPECT_EQ(tosa_out, cm_out) << "TOSA CONV2D+RESCALE and cortex_m conv2d (portable) differ, seed " << seed;
  EXPECT_EQ(tosa_out, cm_fast_out) << "TOSA CONV2D+RESCALE and cortex_m conv2d (fast path) differ, seed " << seed;
}

TEST(CrossKernels, TosaConvRescaleEqualsCortexMConv) {
  const Case cases[] = {
      {7, 7, 5, 4, 3, 2, 1, -3, 5},      // stride 2, padding, odd channels
      {8, 8, 16, 8, 1, 1, 0, 0, -128},   // 1x1 (the fast GEMM path reads in place)
      {9, 9, 3, 6, 3, 1, 1, 127, 0},     // extreme input zero point
      {5, 5, 8, 3, 5, 1, 2, -128, 12},   // padding as large as half the kernel
  };
  uint32_t seed = 1;
  for (const Case& c : cases)
    for (int rep = 0; rep < 5; ++rep) check_case(c, seed++);
}

}  // namespace
}  // namespace vkrt
