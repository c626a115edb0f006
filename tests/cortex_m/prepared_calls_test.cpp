// Load checks, execute trusts (docs/cortex-m-kernels.md): the cortex_m kernels parse their
// calls in their prepare step. A small program of several of them, built with the project's
// writer: every call of a static program with constant parameters is prepared at load, and an
// argument error fails load_method naming the instruction instead of the first execute.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt::cortex_m {
namespace {

constexpr ScalarType I8 = ScalarType::Char, F32 = ScalarType::Float;

enum class Fault { None, AddShift, SoftmaxZeroPoint, ShortLut };

// quantize -> quantized_add (x + x) -> softmax -> quantized_activation -> transpose -> dequantize.
Result<std::vector<uint8_t>> build_program(Fault fault) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(F32, {2, 8});
  const int32_t q = m.add_planned_tensor(I8, {2, 8});
  const int32_t sum = m.add_planned_tensor(I8, {2, 8});
  const int32_t probs = m.add_planned_tensor(I8, {2, 8});
  const int32_t act = m.add_planned_tensor(I8, {2, 8});
  const int32_t t = m.add_planned_tensor(I8, {8, 2});
  const int32_t y = m.add_planned_tensor(F32, {8, 2});
  const int32_t i8_code = m.add_int(int64_t(I8));
  std::vector<int8_t> lut(fault == Fault::ShortLut ? 255 : 256);
  for (size_t i = 0; i < lut.size(); ++i) lut[i] = int8_t(int(i) / 2 - 64);

  // quantize: (input, scale, zero_point, quant_min, quant_max, dtype, out) + return
  m.add_kernel_call("cortex_m::quantize_per_tensor.out",
                    {x, m.add_double(0.05), m.add_int(3), m.add_int(-128), m.add_int(127), i8_code, q, q});
  // add: (self, zp, multiplier, shift, other, zp, multiplier, shift, out_zp, out_multiplier,
  // out_shift, activation_min, activation_max, out) + return
  m.add_kernel_call("cortex_m::quantized_add.out",
                    {q, m.add_int(3), m.add_int(1 << 30), m.add_int(fault == Fault::AddShift ? 31 : -1), q,
                     m.add_int(3), m.add_int(1 << 30), m.add_int(-1), m.add_int(-5), m.add_int(1 << 30),
                     m.add_int(-19), m.add_int(-128), m.add_int(127), sum, sum});
  // softmax: (input, dim, input_zero_point, output_zero_point, input_multiplier, input_shift,
  // diff_min, out) + return
  m.add_kernel_call("cortex_m::softmax.out",
                    {sum, m.add_int(-1), m.add_int(-5), m.add_int(fault == Fault::SoftmaxZeroPoint ? 0 : -128),
                     m.add_int(1 << 30), m.add_int(22), m.add_int(-248), probs, probs});
  // activation: (input, lut, out) + return
  m.add_kernel_call("cortex_m::quantized_activation.out",
                    {probs, m.add_constant_tensor<int8_t>({int32_t(lut.size())}, lut), act, act});
  m.add_kernel_call("cortex_m::transpose.out", {act, m.add_int_list({1, 0}), t, t});
  m.add_kernel_call("cortex_m::dequantize_per_tensor.out",
                    {t, m.add_double(1.0 / 256), m.add_int(-128), m.add_int(-128), m.add_int(127), i8_code, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  return program.build();
}

Status load_status(Fault fault, size_t* prepared = nullptr) {
  auto program = build_program(fault);
  if (!program.ok()) return program.status();
  auto module = Module::load_from_buffer(program.value());
  if (!module.ok()) return module.status();
  auto method = module.value()->load_method("forward");
  if (!method.ok()) return method.status();
  if (prepared) *prepared = method.value()->load_stats().prepared_instructions;
  return Status::ok();
}

TEST(CortexMPreparedCalls, EveryCallOfAStaticProgramIsPreparedAtLoad) {
  auto program = build_program(Fault::None);
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  auto module = Module::load_from_buffer(program.value());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = module.value()->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_EQ(method.value()->load_stats().prepared_instructions, 6u);

  std::vector<float> in(16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(int(i) - 7) * 0.3f;
  const int32_t sizes[] = {2, 8};
  auto input = Tensor::make(F32, sizes, in.data());
  ASSERT_TRUE(input.ok());
  ASSERT_TRUE(method.value()->set_input(0, EValue::from_tensor(&input.value())).is_ok());
  // Twice: execute reuses the prepared calls.
  std::vector<float> first;
  for (int run = 0; run < 2; ++run) {
    const Status s = method.value()->execute();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    const Tensor& out = method.value()->output(0).to_tensor();
    ASSERT_EQ(out.numel(), 16);
    std::vector<float> values(out.data_as<float>(), out.data_as<float>() + 16);
    if (run == 0) first = values;
    EXPECT_EQ(values, first);
  }
  int distinct = 0;
  for (float v : first) distinct += v != first[0];
  EXPECT_GT(distinct, 0) << "degenerate program: every output equal";
}

TEST(CortexMPreparedCalls, ConstantArgumentErrorsFailTheLoadNamingTheInstruction) {
  struct Case {
    Fault fault;
    const char* instruction;
    const char* argument;
  };
  const Case cases[] = {
      {Fault::AddShift, "instruction 1 (cortex_m::quantized_add.out)", "self_shift"},
      {Fault::SoftmaxZeroPoint, "instruction 2 (cortex_m::softmax.out)", "output_zero_point"},
      {Fault::ShortLut, "instruction 3 (cortex_m::quantized_activation.out)", "expected 256 entries"},
  };
  for (const Case& c : cases) {
    const Status s = load_status(c.fault);
    ASSERT_FALSE(s.is_ok()) << c.instruction;
    EXPECT_EQ(s.code(), Error::InvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find(c.instruction), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.argument), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace vkrt::cortex_m
