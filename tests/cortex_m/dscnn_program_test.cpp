// The Cortex-M INT8 recipe's sample program (examples/dscnn_program.h: a DS-CNN keyword-spotting
// network as ExecuTorch's Cortex-M flow writes it) run through Module. The expected outputs come
// from the reference loops (cpu_fallback/cortex_m/reference) over the sample's own parameters and a
// plain quantize formula, not from the kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cortex_m/reference/reference_ops.h"
#include "dscnn_program.h"
#include "vkrt/module.h"

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::cortex_m::reference;

constexpr ScalarType F32 = ScalarType::Float;

// The reference loops' parameters for the sample's layers (shapes fixed by the network).
struct ReferenceLayers {
  DepthwiseConv2dParams dw;
  Conv2dParams pw;
  PoolParams pool;
  LinearParams fc;
};

ReferenceLayers reference_layers(const samples::DsCnnParameters& p) {
  ReferenceLayers r;
  DepthwiseConv2dParams& dw = r.dw;
  dw.in_h = 49, dw.in_w = 10, dw.in_ch = 1, dw.ch_mult = 8, dw.out_h = 25, dw.out_w = 5;
  dw.kernel_h = dw.kernel_w = 3, dw.stride_h = dw.stride_w = 2, dw.pad_h = dw.pad_w = 1;
  dw.input_offset = -p.in_zero_point, dw.output_offset = p.dw_output_offset;
  dw.activation_min = -128, dw.activation_max = 127;
  Conv2dParams& pw = r.pw;
  pw.in_h = 25, pw.in_w = 5, pw.in_ch = 8, pw.out_h = 25, pw.out_w = 5, pw.out_ch = 16;
  pw.input_offset = p.pw_input_offset, pw.output_offset = p.pw_output_offset;
  pw.activation_min = -128, pw.activation_max = 127;
  PoolParams& pool = r.pool;
  pool.in_h = 25, pool.in_w = 5, pool.channels = 16, pool.out_h = pool.out_w = 1;
  pool.kernel_h = 25, pool.kernel_w = 5, pool.stride_h = 25, pool.stride_w = 5;
  LinearParams& fc = r.fc;
  fc.in_features = 16, fc.out_features = 12, fc.input_offset = p.fc_input_offset, fc.output_offset = p.out_zero_point;
  fc.multiplier = p.fc_multiplier, fc.shift = p.fc_shift;
  return r;
}

TEST(CortexMProgram, KeywordSpottingNetworkWithTheExportersDimOrders) {
  const samples::DsCnnParameters n = samples::dscnn_parameters();
  const ReferenceLayers layers = reference_layers(n);
  auto program = samples::dscnn_int8_program(n);
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto module = Module::load_from_buffer(program.value());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = module.value()->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  // Load checks, execute trusts: every cortex_m call (all but the view) was parsed at load.
  EXPECT_EQ(method.value()->load_stats().prepared_instructions, 6u);

  std::mt19937 rng(10);
  std::uniform_real_distribution<float> mfcc(-6.0f, 6.0f);
  std::vector<float> features(490);
  for (float& f : features) f = mfcc(rng);
  const int32_t sizes[] = {1, 1, 49, 10};
  auto input = Tensor::make(F32, sizes, features.data());
  ASSERT_TRUE(input.ok());
  ASSERT_TRUE(method.value()->set_input(0, EValue::from_tensor(&input.value())).is_ok());
  const Status run = method.value()->execute();
  ASSERT_TRUE(run.is_ok()) << run.to_string();

  // The reference: quantize (round half to even, as CMSIS-NN's arm_quantize and upstream's
  // kernel do), then the reference loops over NHWC bytes (one channel: H, W order).
  std::vector<int8_t> q(490);
  for (size_t i = 0; i < q.size(); ++i) {
    const double v = std::nearbyint(double(1.0f / n.in_scale * features[i])) + n.in_zero_point;
    q[i] = int8_t(std::clamp(v, -128.0, 127.0));
  }
  std::vector<int8_t> dw(25 * 5 * 8), pw(25 * 5 * 16), pooled(16), logits(12);
  ref::depthwise_conv2d_s8(layers.dw, q.data(), n.dw_weights.data(), n.dw_bias.data(), n.dw_multipliers.data(),
                           n.dw_shifts.data(), dw.data());
  ref::conv2d_s8(layers.pw, dw.data(), n.pw_weights.data(), n.pw_bias.data(), n.pw_multipliers.data(),
                 n.pw_shifts.data(), pw.data());
  ref::avg_pool2d_s8(layers.pool, pw.data(), pooled.data());
  ref::fully_connected_s8(layers.fc, pooled.data(), n.fc_weights.data(), n.fc_bias.data(), &layers.fc.multiplier,
                          &layers.fc.shift, false, logits.data());
  const Tensor& out = method.value()->output(0).to_tensor();
  ASSERT_EQ(out.numel(), 12);
  int distinct = 0;
  for (int i = 0; i < 12; ++i) {
    const float want = float(int32_t(logits[size_t(i)]) - n.out_zero_point) * n.out_scale;
    EXPECT_EQ(out.data_as<float>()[i], want) << "class " << i;
    distinct += logits[size_t(i)] != logits[0];
  }
  EXPECT_GT(distinct, 0) << "degenerate network: every logit equal";
}

// An argument error that depends only on constants and static shapes fails the load, naming
// the instruction, instead of surfacing at the first execute.
TEST(CortexMProgram, ConstantArgumentErrorsFailTheLoad) {
  samples::DsCnnParameters n = samples::dscnn_parameters();
  n.dw_shifts[3] = 40;  // outside CMSIS-NN's [-31, 30]
  auto program = samples::dscnn_int8_program(n);
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto module = Module::load_from_buffer(program.value());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = module.value()->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::InvalidArgument);
  const std::string& msg = method.status().message();
  EXPECT_NE(msg.find("instruction 1 (cortex_m::quantized_depthwise_conv2d.out)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("requantize_shifts"), std::string::npos) << msg;
}

}  // namespace
}  // namespace vkrt::cortex_m
