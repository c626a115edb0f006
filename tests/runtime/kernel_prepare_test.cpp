// Load-time kernel preparation (KernelPrepareContext): a method calls a kernel's prepare
// function once per instruction at load, tells it which arguments are program constants,
// gives it memory that lives with the method, and hands what it left to every execute.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "vkrt/kernel.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

// test::scaled_copy.out(Tensor x, Tensor scale, Tensor(a!) out): out = x * scale[0] (float).
// Its prepare function copies scale[0] into persistent memory when `scale` is a constant, and
// counts its calls; execute uses the prepared copy when there is one and says so in out[1].
int g_prepare_calls = 0;
bool g_fail_prepare = false;

Status scaled_copy_prepare(KernelPrepareContext& ctx, std::span<EValue* const> args) {
  ++g_prepare_calls;
  if (g_fail_prepare) return Status(Error::MemoryAllocationFailed, "test: no memory for the prepared scale");
  if (args.size() < 3 || !args[1]->is_tensor() || !ctx.is_constant(args[1])) return Status::ok();
  auto* copy = static_cast<float*>(ctx.allocate_persistent(sizeof(float), alignof(float)));
  if (!copy) return Status(Error::MemoryAllocationFailed, "test: persistent memory");
  *copy = args[1]->to_tensor().data_as<float>()[0];
  ctx.set_state(copy);
  return Status::ok();
}

Status scaled_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  const Tensor& x = args[0]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  const float* prepared = static_cast<const float*>(ctx.prepared_state());
  const float scale = prepared ? *prepared : args[1]->to_tensor().data_as<float>()[0];
  out.data_as<float>()[0] = x.data_as<float>()[0] * scale;
  out.data_as<float>()[1] = prepared ? 1.f : 0.f;
  return Status::ok();
}

VKRT_REGISTER_KERNEL_WITH_PREPARE("test::scaled_copy.out", scaled_copy_out, scaled_copy_prepare);

std::vector<uint8_t> program(bool scale_is_constant) {
  constexpr ScalarType F = ScalarType::Float;
  std::vector<float> scale{2.5f, 0.f};
  std::vector<uint8_t> scale_bytes(scale.size() * sizeof(float));
  std::memcpy(scale_bytes.data(), scale.data(), scale_bytes.size());
  auto bytes = make_one_op_program(
      "test::scaled_copy.out",
      {OpArg::input(F, {2}), scale_is_constant ? OpArg::constant(TensorSpec::make(F, {2}), scale_bytes) : OpArg::input(F, {2}),
       OpArg::output(F, {2})});
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

// Runs with x = 4 (and scale = 3 when scale is an input); returns out.
std::vector<float> run(Method& method, bool scale_is_input) {
  std::vector<float> x{4.f, 0.f}, scale{3.f, 0.f};
  const int32_t sizes[] = {2};
  auto xt = Tensor::make(ScalarType::Float, sizes, x.data());
  auto st = Tensor::make(ScalarType::Float, sizes, scale.data());
  EXPECT_TRUE(method.set_input(0, EValue::from_tensor(&xt.value())).is_ok());
  if (scale_is_input) {
    EXPECT_TRUE(method.set_input(1, EValue::from_tensor(&st.value())).is_ok());
  }
  const Status s = method.execute();
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  const Tensor& out = method.output(0).to_tensor();
  return {out.data_as<float>()[0], out.data_as<float>()[1]};
}

TEST(KernelPrepare, ConstantArgumentIsPreparedOnceAtLoad) {
  g_prepare_calls = 0;
  g_fail_prepare = false;
  const std::vector<uint8_t> bytes = program(true);
  auto module = Module::load_from_buffer(bytes);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_EQ(g_prepare_calls, 1);
  EXPECT_EQ((*method)->load_stats().prepared_instructions, 1u);
  EXPECT_EQ((*method)->load_stats().prepared_bytes, sizeof(float));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run(**method, false), (std::vector<float>{10.f, 1.f})) << "run " << i;
  EXPECT_EQ(g_prepare_calls, 1) << "execute must not prepare again";
}

TEST(KernelPrepare, InputArgumentIsNotConstant) {
  g_prepare_calls = 0;
  g_fail_prepare = false;
  const std::vector<uint8_t> bytes = program(false);
  auto module = Module::load_from_buffer(bytes);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_EQ(g_prepare_calls, 1);
  EXPECT_EQ((*method)->load_stats().prepared_instructions, 0u);
  EXPECT_EQ(run(**method, true), (std::vector<float>{12.f, 0.f}));
}

TEST(KernelPrepare, PrepareErrorFailsTheLoadNamingTheInstruction) {
  g_fail_prepare = true;
  const std::vector<uint8_t> bytes = program(true);
  auto module = Module::load_from_buffer(bytes);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  g_fail_prepare = false;
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), Error::MemoryAllocationFailed);
  const std::string message = method.status().to_string();
  EXPECT_NE(message.find("instruction 0 (test::scaled_copy.out)"), std::string::npos) << message;
  EXPECT_NE(message.find("no memory for the prepared scale"), std::string::npos) << message;
}

}  // namespace
}  // namespace vkrt
