// The Ethos-U INT8 recipe's sample (examples/ethos_u_sample.h: a hand-encoded U55-128 command stream)
// through vkrt::Module on the virtual NPU, compared byte for byte with the same network computed by the
// cortex_m kernels (CMSIS-NN-exact; cpu_fallback/cortex_m/) from the sample's own parameters.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "cortex_m/avg_pool2d.h"
#include "cortex_m/conv2d.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "ethos_u_sample.h"
#include "ethosu/format/vela_bin_stream.h"
#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/virtual_npu.h"
#include "vkrt/ethosu.h"
#include "vkrt/module.h"

namespace vkrt::ethosu {
namespace {

using samples::EthosUSampleParameters;
constexpr int kSize = samples::kEthosUSampleSize, kIn = samples::kEthosUSampleInChannels,
              kCh = samples::kEthosUSampleChannels, kClasses = samples::kEthosUSampleClasses;

// The network on the cortex_m kernels: conv2d_s8, depthwise_conv2d_s8, avg_pool2d_s8, linear_s8.
std::vector<int8_t> cortex_m_network(const EthosUSampleParameters& p, const std::vector<int8_t>& input) {
  namespace cm = vkrt::cortex_m;
  const cm::Exec exec{};  // serial, no scratch: the kernels' plain paths
  cm::Conv2dParams conv;
  conv.in_h = conv.in_w = kSize, conv.in_ch = kIn;
  conv.out_h = conv.out_w = kSize, conv.out_ch = kCh;
  conv.kernel_h = conv.kernel_w = 3, conv.pad_h = conv.pad_w = 1;
  conv.input_offset = -p.in_zero_point, conv.output_offset = p.conv_zero_point;
  conv.activation_min = p.conv_zero_point, conv.activation_max = 127;  // ReLU
  EXPECT_TRUE(cm::check_conv2d(conv, false).is_ok());
  std::vector<int8_t> a(size_t(kSize) * kSize * kCh);
  cm::conv2d_s8(conv, input.data(), p.conv_weights.data(), p.conv_bias.data(), p.conv_multipliers.data(),
                p.conv_shifts.data(), a.data(), exec);

  cm::DepthwiseConv2dParams dw;
  dw.in_h = dw.in_w = kSize, dw.in_ch = kCh, dw.ch_mult = 1, dw.out_h = dw.out_w = kSize;
  dw.kernel_h = dw.kernel_w = 3, dw.pad_h = dw.pad_w = 1;
  dw.input_offset = -p.conv_zero_point, dw.output_offset = p.dw_zero_point;
  dw.activation_min = p.dw_zero_point, dw.activation_max = 127;
  EXPECT_TRUE(cm::check_depthwise_conv2d(dw, false).is_ok());
  std::vector<int8_t> b(a.size());
  cm::depthwise_conv2d_s8(dw, a.data(), p.dw_weights.data(), p.dw_bias.data(), p.dw_multipliers.data(),
                          p.dw_shifts.data(), b.data(), exec);

  cm::PoolParams pool;
  pool.in_h = pool.in_w = kSize, pool.channels = kCh, pool.out_h = pool.out_w = 1;
  pool.kernel_h = pool.kernel_w = kSize, pool.stride_h = pool.stride_w = kSize;
  std::vector<int8_t> c(kCh);
  EXPECT_TRUE(cm::avg_pool2d_s8(pool, b.data(), c.data(), exec).is_ok());

  cm::LinearParams fc;
  fc.in_features = kCh, fc.out_features = kClasses;
  fc.input_offset = -p.dw_zero_point, fc.output_offset = p.out_zero_point;
  fc.multiplier = p.fc_multiplier, fc.shift = p.fc_shift;
  EXPECT_TRUE(cm::check_linear(fc, false).is_ok());
  std::vector<int8_t> out(kClasses);
  cm::linear_s8(fc, c.data(), p.fc_weights.data(), p.fc_bias.data(), nullptr, out.data(), exec);
  return out;
}

TEST(EthosUSample, VirtualNpuMatchesCortexMKernels) {
  const EthosUSampleParameters p = samples::ethos_u_sample_parameters();
  auto program = samples::ethos_u_sample_program(p);
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  LoadOptions options;
  options.backend_options.set(kOptionDriver, "virtual");
  auto module = Module::load_from_buffer(*program, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_TRUE((*method)->notices().empty()) << "the virtual driver computes its outputs";

  std::mt19937 rng(2024);
  std::set<std::vector<int8_t>> distinct_outputs;
  std::set<int> values;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int8_t> x(size_t(kSize) * kSize * kIn);
    // Full range, then narrower inputs (mostly small activations) to reach other rounding cases.
    const int span = trial < 10 ? 256 : 1 + int(rng() % 64);
    for (int8_t& v : x) v = int8_t(int(rng() % uint32_t(span)) - span / 2);
    const int32_t sizes[] = {1, kSize, kSize, kIn};
    auto input = Tensor::make(ScalarType::Char, sizes, x.data());
    ASSERT_TRUE(input.ok());
    ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&input.value())).is_ok());
    const Status run = (*method)->execute();
    ASSERT_TRUE(run.is_ok()) << run.to_string();
    const Tensor& out = (*method)->output(0).to_tensor();
    ASSERT_EQ(out.numel(), kClasses);
    const std::vector<int8_t> got(out.data_as<int8_t>(), out.data_as<int8_t>() + kClasses);
    const std::vector<int8_t> want = cortex_m_network(p, x);
    EXPECT_EQ(got, want) << "trial " << trial;
    distinct_outputs.insert(got);
    for (int8_t v : got) values.insert(v);
  }
  // Not a degenerate network: the outputs vary with the input and are not stuck at a clamp.
  EXPECT_GT(distinct_outputs.size(), 15u);
  EXPECT_GT(values.size(), 40u);
}

// The command stream the sample carries: what it runs, for the reader (and a check that it stays four
// operations with the registers Vela would write).
TEST(EthosUSample, PayloadIsAU55_128StreamOfFourOperations) {
  auto payload = samples::ethos_u_sample_payload(samples::ethos_u_sample_parameters());
  ASSERT_TRUE(payload.ok()) << payload.status().to_string();
  auto stream = parse_vela_bin_stream(*payload, nullptr);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  EXPECT_EQ(stream->scratch_size, uint32_t(samples::EthosUSampleScratch::kSize));
  auto cop = parse_driver_payload(stream->cmd_data);
  ASSERT_TRUE(cop.ok()) << cop.status().to_string();
  const std::string text = virtual_npu::disassemble(cop->command_stream);
  size_t ops = 0;
  for (const char* op : {"OP_CONV", "OP_DEPTHWISE", "OP_POOL", "OP_STOP"})
    for (size_t at = text.find(op); at != std::string::npos; at = text.find(op, at + 1)) ++ops;
  EXPECT_EQ(ops, 5u) << text;
  EXPECT_NE(text.find("OFM_SCALE scale=2147483649 shift=37"), std::string::npos) << text;
  // The average pool runs with zero points 0 (the raw values averaged, as TFLite does): with the
  // depthwise output's zero point 5 written instead, sums S with 0 < S < 320 and S = 32 mod 64 round
  // one lower than TFLite's round(S / 64) (e.g. S = 32: round(-288 / 64) + 5 = 0, not 1).
  const size_t dw = text.find("OP_DEPTHWISE"), pool = text.find("OP_POOL");
  ASSERT_LT(dw, pool);
  const std::string pool_registers = text.substr(dw, pool - dw);
  EXPECT_NE(pool_registers.find("IFM_ZERO_POINT 0\n"), std::string::npos) << pool_registers;
  EXPECT_NE(pool_registers.find("OFM_ZERO_POINT 0\n"), std::string::npos) << pool_registers;
}

// The recording driver runs the program too, and says that its outputs are not computed.
TEST(EthosUSample, RecordingDriverSaysOutputsAreNotComputed) {
  auto program = samples::ethos_u_sample_program();
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  LoadOptions options;
  options.backend_options.set(kOptionDriver, "recording");
  auto module = Module::load_from_buffer(*program, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  ASSERT_FALSE((*method)->notices().empty());
  std::string all;
  for (const auto& n : (*method)->notices()) all += std::string(n) + "\n";
  EXPECT_NE(all.find("not computed"), std::string::npos) << all;
}

}  // namespace
}  // namespace vkrt::ethosu
