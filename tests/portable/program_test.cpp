// A CPU-only program of the kind that stopped at load before the portable library was whole
// ("missing operators aten::alias_copy.out, aten::pow.Tensor_Scalar_out, aten::full_like.out,
// aten::neg.out"), built with the project's writer and run through Module:
//   y = neg(pow(alias_copy(x), 3)) + full_like(x, 0.5)
// The expected values are PyTorch's (torch 1.13: torch.neg(torch.pow(x, 3)) +
// torch.full_like(x, 0.5)), which here are exact in float32.
#include <gtest/gtest.h>

#include <vector>

#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

TEST(PortableProgram, AliasCopyPowFullLikeNeg) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const ScalarType f32 = ScalarType::Float;
  const int32_t x = m.add_planned_tensor(f32, {2, 3});
  const int32_t a = m.add_planned_tensor(f32, {2, 3});
  const int32_t p = m.add_planned_tensor(f32, {2, 3});
  const int32_t n = m.add_planned_tensor(f32, {2, 3});
  const int32_t f = m.add_planned_tensor(f32, {2, 3});
  const int32_t y = m.add_planned_tensor(f32, {2, 3});
  m.add_kernel_call("aten::alias_copy.out", {x, a, a});
  m.add_kernel_call("aten::pow.Tensor_Scalar_out", {a, m.add_int(3), p, p});
  m.add_kernel_call("aten::neg.out", {p, n, n});
  m.add_kernel_call("aten::full_like.out", {x, m.add_double(0.5), m.add_none(), f, f});
  m.add_kernel_call("aten::add.out", {n, f, m.add_int(1), y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto bytes = program.build();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto module = Module::load_from_buffer(bytes.value());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();

  std::vector<float> input = {1.5f, -2.0f, 0.25f, 3.0f, -0.5f, 4.0f};
  const int32_t sizes[] = {2, 3};
  auto t = Tensor::make(f32, sizes, input.data());
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&t.value())).is_ok());
  const Status run = (*method)->execute();
  ASSERT_TRUE(run.is_ok()) << run.to_string();
  const Tensor& out = (*method)->output(0).to_tensor();
  const std::vector<float> got(out.data_as<float>(), out.data_as<float>() + out.numel());
  EXPECT_EQ(got, (std::vector<float>{-2.875f, 8.5f, 0.484375f, -26.5f, 0.625f, -63.5f}));
}

}  // namespace
}  // namespace vkrt
