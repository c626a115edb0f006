#include "dscnn_program.h"

#include <random>

#include "vkrt/pte_writer.h"

namespace vkrt::samples {

DsCnnParameters dscnn_parameters(uint32_t seed) {
  std::mt19937 rng(seed);
  auto ints = [&](size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  };
  auto weights = [&](size_t n) {
    std::vector<int8_t> v;
    for (int32_t x : ints(n, -127, 127)) v.push_back(int8_t(x));
    return v;
  };
  DsCnnParameters p;
  p.dw_weights = weights(72), p.dw_bias = ints(8, -2000, 2000), p.dw_multipliers = ints(8, 1 << 30, 0x7fffffff);
  p.dw_shifts = ints(8, -9, -6);
  p.pw_weights = weights(128), p.pw_bias = ints(16, -4000, 4000), p.pw_multipliers = ints(16, 1 << 30, 0x7fffffff);
  p.pw_shifts = ints(16, -10, -7);
  p.fc_weights = weights(192), p.fc_bias = ints(12, -3000, 3000);
  return p;
}

Result<std::vector<uint8_t>> dscnn_int8_program(const DsCnnParameters& p) {
  constexpr ScalarType I8 = ScalarType::Char, I32 = ScalarType::Int, F32 = ScalarType::Float;
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
  const int32_t x = m.add_planned_tensor(F32, {1, 1, kDsCnnFrames, kDsCnnCoefficients});
  const int32_t q = at(I8, {1, 1, kDsCnnFrames, kDsCnnCoefficients}, {0, 2, 1, 3});
  const int32_t dw_out = at(I8, {1, 8, 25, 5}, nhwc);
  const int32_t pw_out = at(I8, {1, 16, 25, 5}, nhwc);
  const int32_t pooled = at(I8, {1, 16, 1, 1}, nhwc);
  const int32_t flat = m.add_planned_tensor(I8, {1, 16});
  const int32_t logits = m.add_planned_tensor(I8, {1, kDsCnnClasses});
  const int32_t y = m.add_planned_tensor(F32, {1, kDsCnnClasses});
  const int32_t scratch = m.add_planned_tensor(I8, {16});

  auto constant = [&](ScalarType t, std::vector<int32_t> sizes, std::vector<uint8_t> data) {
    return m.add_constant_tensor(TensorSpec::make(t, std::move(sizes)), data);
  };
  auto ilist = [&](std::initializer_list<int64_t> v) { return m.add_int_list(v); };
  const int32_t i8_code = m.add_int(int64_t(ScalarType::Char));

  // quantize: (input, scale, zero_point, quant_min, quant_max, dtype, out) + return
  m.add_kernel_call("cortex_m::quantize_per_tensor.out", {x, m.add_double(p.in_scale), m.add_int(p.in_zero_point),
                                                          m.add_int(-128), m.add_int(127), i8_code, q, q});
  // depthwise: (input, weight, bias, stride, padding, dilation, depth_multiplier, input_offset,
  // output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max, scratch, out)
  m.add_kernel_call("cortex_m::quantized_depthwise_conv2d.out",
                    {q, constant(I8, {1, 3, 3, 8}, to_bytes(p.dw_weights)), constant(I32, {8}, to_bytes(p.dw_bias)),
                     ilist({2, 2}), ilist({1, 1}), ilist({1, 1}), m.add_int(8), m.add_int(-p.in_zero_point),
                     m.add_int(p.dw_output_offset), constant(I32, {8}, to_bytes(p.dw_multipliers)),
                     constant(I32, {8}, to_bytes(p.dw_shifts)), m.add_int(-128), m.add_int(127), scratch, dw_out,
                     dw_out});
  // pointwise: (input, weight, bias, stride, padding, dilation, input_offset, output_offset,
  // requantize_multipliers, requantize_shifts, activation_min, activation_max, scratch, out)
  m.add_kernel_call("cortex_m::quantized_conv2d.out",
                    {dw_out,
                     m.add_constant_tensor(TensorSpec::make(I8, {16, 8, 1, 1}).with_dim_order(nhwc), to_bytes(p.pw_weights)),
                     constant(I32, {16}, to_bytes(p.pw_bias)), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}),
                     m.add_int(p.pw_input_offset), m.add_int(p.pw_output_offset),
                     constant(I32, {16}, to_bytes(p.pw_multipliers)), constant(I32, {16}, to_bytes(p.pw_shifts)),
                     m.add_int(-128), m.add_int(127), scratch, pw_out, pw_out});
  // average pool: (input, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift, scratch, out)
  m.add_kernel_call("cortex_m::quantized_avg_pool2d.out",
                    {pw_out, ilist({25, 5}), ilist({25, 5}), ilist({0, 0}), m.add_bool(false),
                     m.add_int(p.pool_zero_point), m.add_int(p.pool_multiplier), m.add_int(p.pool_shift), scratch,
                     pooled, pooled});
  m.add_kernel_call("aten::view_copy.out", {pooled, ilist({1, 16}), flat, flat});
  // linear: (input, weights, bias, kernel_sum, input_offset, filter_offset, output_offset,
  // requantize_multipliers, requantize_shifts, activation_max, activation_min, out)
  m.add_kernel_call("cortex_m::quantized_linear.out",
                    {flat, constant(I8, {kDsCnnClasses, 16}, to_bytes(p.fc_weights)),
                     constant(I32, {kDsCnnClasses}, to_bytes(p.fc_bias)), m.add_none(), m.add_int(p.fc_input_offset),
                     m.add_int(0), m.add_int(p.out_zero_point), m.add_int_list({int64_t(p.fc_multiplier)}),
                     m.add_int_list({int64_t(p.fc_shift)}), m.add_int(127), m.add_int(-128), logits, logits});
  m.add_kernel_call("cortex_m::dequantize_per_tensor.out",
                    {logits, m.add_double(p.out_scale), m.add_int(p.out_zero_point), m.add_int(-128), m.add_int(127),
                     i8_code, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  return program.build();
}

}  // namespace vkrt::samples
