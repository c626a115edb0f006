// A Cortex-M INT8 keyword-spotting program as ExecuTorch's Cortex-M flow writes it, built with
// the project's writer and run through Module: float [1,1,49,10] in, quantized by
// cortex_m::quantize_per_tensor into dim_order [0,2,1,3] (one channel: the exporter's order,
// whose bytes are already NHWC), a depthwise convolution (channel multiplier 8), a pointwise
// convolution, a global average pool, a view and a linear layer, dequantized at the end.
// The expected outputs come from the reference loops (tests/cortex_m/reference) and a plain
// quantize formula, not from the kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cortex_m/reference/reference_ops.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::testing::reference;

constexpr ScalarType I8 = ScalarType::Char, I32 = ScalarType::Int, F32 = ScalarType::Float;

struct Network {
  float in_scale = 0.05f;
  int32_t in_zp = -3;
  // depthwise 3x3, stride 2, pad 1, 1 -> 8 channels
  DepthwiseConv2dParams dw;
  std::vector<int8_t> dw_w;  // [1,3,3,8]
  std::vector<int32_t> dw_bias, dw_mult, dw_shift;
  // pointwise 8 -> 16
  Conv2dParams pw;
  std::vector<int8_t> pw_w;  // OIHW [16,8,1,1] in dim_order [0,2,3,1]: OHWI bytes
  std::vector<int32_t> pw_bias, pw_mult, pw_shift;
  PoolParams pool;
  LinearParams fc;
  std::vector<int8_t> fc_w;  // [12,16]
  std::vector<int32_t> fc_bias;
  float out_scale = 0.1f;
  int32_t out_zp = 5;
};

Network make_network() {
  std::mt19937 rng(49);
  auto ints = [&](size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  };
  auto bytes = [&](size_t n) {
    std::vector<int8_t> v;
    for (int32_t x : ints(n, -127, 127)) v.push_back(int8_t(x));
    return v;
  };
  Network n;
  DepthwiseConv2dParams& dw = n.dw;
  dw.in_h = 49, dw.in_w = 10, dw.in_ch = 1, dw.ch_mult = 8, dw.out_h = 25, dw.out_w = 5;
  dw.kernel_h = dw.kernel_w = 3, dw.stride_h = dw.stride_w = 2, dw.pad_h = dw.pad_w = 1;
  dw.input_offset = -n.in_zp, dw.output_offset = -128, dw.activation_min = -128, dw.activation_max = 127;
  n.dw_w = bytes(72), n.dw_bias = ints(8, -2000, 2000), n.dw_mult = ints(8, 1 << 30, 0x7fffffff);
  n.dw_shift = ints(8, -9, -6);
  Conv2dParams& pw = n.pw;
  pw.in_h = 25, pw.in_w = 5, pw.in_ch = 8, pw.out_h = 25, pw.out_w = 5, pw.out_ch = 16;
  pw.input_offset = 128, pw.output_offset = -128, pw.activation_min = -128, pw.activation_max = 127;
  n.pw_w = bytes(128), n.pw_bias = ints(16, -4000, 4000), n.pw_mult = ints(16, 1 << 30, 0x7fffffff);
  n.pw_shift = ints(16, -10, -7);
  PoolParams& pool = n.pool;
  pool.in_h = 25, pool.in_w = 5, pool.channels = 16, pool.out_h = pool.out_w = 1;
  pool.kernel_h = 25, pool.kernel_w = 5, pool.stride_h = 25, pool.stride_w = 5;
  LinearParams& fc = n.fc;
  fc.in_features = 16, fc.out_features = 12, fc.input_offset = 128, fc.output_offset = n.out_zp;
  fc.multiplier = 1518500250, fc.shift = -7;
  n.fc_w = bytes(192), n.fc_bias = ints(12, -3000, 3000);
  return n;
}

std::vector<uint8_t> bytes_of_ints(const std::vector<int32_t>& v) { return to_bytes(v); }
std::vector<uint8_t> bytes_of_i8(const std::vector<int8_t>& v) { return to_bytes(v); }

Result<std::vector<uint8_t>> build_program(const Network& n) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  // Planned tensors with an explicit dim order: add_planned_tensor gives contiguous ones, so
  // the channels-last and [0,2,1,3] tensors are laid out by hand in buffer 2.
  uint64_t offset = 0;
  auto at = [&](ScalarType t, std::vector<int32_t> sizes, std::vector<uint8_t> order) {
    TensorSpec s = TensorSpec::make(t, std::move(sizes)).with_dim_order(std::move(order));
    s.at(2, offset);
    offset += (s.nbytes() + 15) / 16 * 16;
    return m.add_tensor(s);
  };
  const std::vector<uint8_t> nhwc = {0, 2, 3, 1};
  const int32_t x = m.add_planned_tensor(F32, {1, 1, 49, 10});
  const int32_t q = at(I8, {1, 1, 49, 10}, {0, 2, 1, 3});
  const int32_t dw_out = at(I8, {1, 8, 25, 5}, nhwc);
  const int32_t pw_out = at(I8, {1, 16, 25, 5}, nhwc);
  const int32_t pooled = at(I8, {1, 16, 1, 1}, nhwc);
  const int32_t flat = m.add_planned_tensor(I8, {1, 16});
  const int32_t logits = m.add_planned_tensor(I8, {1, 12});
  const int32_t y = m.add_planned_tensor(F32, {1, 12});
  const int32_t scratch = m.add_planned_tensor(I8, {16});

  auto constant = [&](ScalarType t, std::vector<int32_t> sizes, std::vector<uint8_t> data) {
    return m.add_constant_tensor(TensorSpec::make(t, std::move(sizes)), data);
  };
  auto ilist = [&](std::initializer_list<int64_t> v) { return m.add_int_list(v); };
  const int32_t i8_code = m.add_int(int64_t(ScalarType::Char));

  // quantize: (input, scale, zero_point, quant_min, quant_max, dtype, out) + return
  m.add_kernel_call("cortex_m::quantize_per_tensor.out",
                    {x, m.add_double(n.in_scale), m.add_int(n.in_zp), m.add_int(-128), m.add_int(127), i8_code, q, q});
  // depthwise: (input, weight, bias, stride, padding, dilation, depth_multiplier, input_offset,
  // output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max, scratch, out)
  m.add_kernel_call("cortex_m::quantized_depthwise_conv2d.out",
                    {q, constant(I8, {1, 3, 3, 8}, bytes_of_i8(n.dw_w)), constant(I32, {8}, bytes_of_ints(n.dw_bias)),
                     ilist({2, 2}), ilist({1, 1}), ilist({1, 1}), m.add_int(8), m.add_int(n.dw.input_offset),
                     m.add_int(n.dw.output_offset), constant(I32, {8}, bytes_of_ints(n.dw_mult)),
                     constant(I32, {8}, bytes_of_ints(n.dw_shift)), m.add_int(-128), m.add_int(127), scratch, dw_out,
                     dw_out});
  // pointwise: (input, weight, bias, stride, padding, dilation, input_offset, output_offset,
  // requantize_multipliers, requantize_shifts, activation_min, activation_max, scratch, out)
  m.add_kernel_call("cortex_m::quantized_conv2d.out",
                    {dw_out, m.add_constant_tensor(TensorSpec::make(I8, {16, 8, 1, 1}).with_dim_order(nhwc), bytes_of_i8(n.pw_w)),
                     constant(I32, {16}, bytes_of_ints(n.pw_bias)), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}),
                     m.add_int(n.pw.input_offset), m.add_int(n.pw.output_offset),
                     constant(I32, {16}, bytes_of_ints(n.pw_mult)), constant(I32, {16}, bytes_of_ints(n.pw_shift)),
                     m.add_int(-128), m.add_int(127), scratch, pw_out, pw_out});
  // average pool: (input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift, scratch, out)
  m.add_kernel_call("cortex_m::quantized_avg_pool2d.out",
                    {pw_out, ilist({25, 5}), ilist({25, 5}), ilist({0, 0}), m.add_bool(false), m.add_int(-128),
                     m.add_int(1 << 30), m.add_int(1), scratch, pooled, pooled});
  m.add_kernel_call("aten::view_copy.out", {pooled, ilist({1, 16}), flat, flat});
  // linear: (input, weights, bias, kernel_sum, input_offset, filter_offset, output_offset,
  // requantize_multipliers, requantize_shifts, activation_max, activation_min, out)
  m.add_kernel_call("cortex_m::quantized_linear.out",
                    {flat, constant(I8, {12, 16}, bytes_of_i8(n.fc_w)), constant(I32, {12}, bytes_of_ints(n.fc_bias)),
                     m.add_none(), m.add_int(n.fc.input_offset), m.add_int(0), m.add_int(n.fc.output_offset),
                     m.add_int_list({int64_t(n.fc.multiplier)}), m.add_int_list({int64_t(n.fc.shift)}), m.add_int(127), m.add_int(-128), logits, logits});
  m.add_kernel_call("cortex_m::dequantize_per_tensor.out",
                    {logits, m.add_double(n.out_scale), m.add_int(n.out_zp), m.add_int(-128), m.add_int(127), i8_code, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  return program.build();
}

TEST(CortexMProgram, KeywordSpottingNetworkWithTheExportersDimOrders) {
  const Network n = make_network();
  auto program = build_program(n);
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
    const double v = std::nearbyint(double(1.0f / n.in_scale * features[i])) + n.in_zp;
    q[i] = int8_t(std::clamp(v, -128.0, 127.0));
  }
  std::vector<int8_t> dw(25 * 5 * 8), pw(25 * 5 * 16), pooled(16), logits(12);
  ref::depthwise_conv2d_s8(n.dw, q.data(), n.dw_w.data(), n.dw_bias.data(), n.dw_mult.data(), n.dw_shift.data(),
                           dw.data());
  ref::conv2d_s8(n.pw, dw.data(), n.pw_w.data(), n.pw_bias.data(), n.pw_mult.data(), n.pw_shift.data(), pw.data());
  ref::avg_pool2d_s8(n.pool, pw.data(), pooled.data());
  ref::fully_connected_s8(n.fc, pooled.data(), n.fc_w.data(), n.fc_bias.data(), &n.fc.multiplier, &n.fc.shift,
                          false, logits.data());
  const Tensor& out = method.value()->output(0).to_tensor();
  ASSERT_EQ(out.numel(), 12);
  int distinct = 0;
  for (int i = 0; i < 12; ++i) {
    const float want = float(int32_t(logits[size_t(i)]) - n.out_zp) * n.out_scale;
    EXPECT_EQ(out.data_as<float>()[i], want) << "class " << i;
    distinct += logits[size_t(i)] != logits[0];
  }
  EXPECT_GT(distinct, 0) << "degenerate network: every logit equal";
}

// An argument error that depends only on constants and static shapes fails the load, naming
// the instruction, instead of surfacing at the first execute.
TEST(CortexMProgram, ConstantArgumentErrorsFailTheLoad) {
  Network n = make_network();
  n.dw_shift[3] = 40;  // outside CMSIS-NN's [-31, 30]
  auto program = build_program(n);
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
