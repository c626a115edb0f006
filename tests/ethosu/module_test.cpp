// EthosUBackend through the public embedding API (vkrt::Module) with the recording driver: the
// conformance Ethos-U program end to end (quantize → delegate → dequantize), programs built with
// the .pte writer (external blocks in named data, the ArmBackend id), and the no-device error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "common/etdump_checks.h"
#include "ethosu/drivers/recording_driver.h"
#include "ethosu/drivers/syscalls.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "tests/ethosu/fake_device.h"
#include "tests/ethosu/test_payloads.h"
#include "vkrt/etdump.h"
#include "vkrt/ethosu.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt::ethosu {
namespace {

constexpr const char* kMinimalExample =
    "pte/Arm-Examples_CMSIS-Executorch__ai_layer_engine_model_ethos_u_minimal_example.pte";

LoadOptions recording_options() {
  LoadOptions o;
  o.backend_options.set(kOptionDriver, "recording");
  return o;
}

struct FloatInput {
  explicit FloatInput(float v) : value(v) {
    const int32_t sizes[] = {1, 1, 1, 1};
    tensor = *Tensor::make(ScalarType::Float, sizes, &value);
    evalue = EValue::from_tensor(&tensor);
  }
  float value;
  Tensor tensor;
  EValue evalue;
};

TEST(EthosUModule, ConformanceProgramRunsEndToEnd) {
  VKRT_REQUIRE_CONFORMANCE(path, kMinimalExample);
  auto& state = recording_driver_state();
  state.reset();
  state.output_writes = {{kRegionScratch, 0, {10}}};  // the "NPU" result: int8 10 at scratch offset 0
  auto module = Module::load(path, recording_options());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_EQ(state.networks_created, 1);
  // Regions: weights (32 bytes), scratch (144).
  EXPECT_EQ(state.buffer_sizes, (std::vector<size_t>{32, 144}));

  FloatInput x(0.2f), y(0.6f);
  ASSERT_TRUE((*method)->set_input(0, x.evalue).is_ok());
  ASSERT_TRUE((*method)->set_input(1, y.evalue).is_ok());
  Status s = (*method)->execute();
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  ASSERT_EQ(state.invocations.size(), 1u);
  const auto& regions = state.invocations[0].regions;
  ASSERT_EQ(regions[1].size(), 144u);
  // quantize_per_tensor(scale 1/255, zero point -128): 0.2 → 51 - 128 = -77 at offset 64 (the
  // delegate's first input), 0.6 → 153 - 128 = 25 at offset 16.
  EXPECT_EQ(int8_t(regions[1][64]), -77);
  EXPECT_EQ(int8_t(regions[1][16]), 25);
  // The output (int8 10 at offset 0) is dequantized with scale 2/255, zero point -128.
  const EValue& out = (*method)->output(0);
  ASSERT_TRUE(out.is_tensor());
  EXPECT_NEAR(out.to_tensor().data_as<float>()[0], (10 + 128) * 0.007843137719f, 1e-6);
}

TEST(EthosUModule, EveryConformanceEthosUProgramLoadsAndExecutes) {
  VKRT_REQUIRE_CONFORMANCE(dir, "pte");
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pte") continue;
    auto module = Module::load(entry.path().string(), recording_options());
    if (!module.ok()) continue;  // not every conformance file is a valid program (corrupt.pte)
    for (const std::string& name : (*module)->method_names()) {
      auto meta = (*module)->method_meta(name);
      if (!meta.ok()) continue;
      bool ethos_u = false;
      for (const auto& b : meta->backends) ethos_u |= b == "EthosUBackend" || b == "ArmBackend";
      if (!ethos_u) continue;
      ++found;
      SCOPED_TRACE(entry.path().string() + " method " + name);
      recording_driver_state().reset();
      auto method = (*module)->load_method(name);
      ASSERT_TRUE(method.ok()) << method.status().to_string();
      // Every tensor input set to zeros of its own dtype and shape.
      std::vector<std::vector<uint8_t>> storage;
      std::vector<Tensor> tensors;
      storage.reserve(meta->inputs.size());
      tensors.reserve(meta->inputs.size());
      for (size_t i = 0; i < meta->inputs.size(); ++i) {
        const ValueInfo& info = meta->inputs[i];
        if (info.tag != Tag::Tensor) continue;
        storage.emplace_back(info.nbytes + 16, 0);
        tensors.push_back(*Tensor::make(info.dtype, info.sizes, info.dim_order, storage.back().data()));
        ASSERT_TRUE((*method)->set_input(i, EValue::from_tensor(&tensors.back())).is_ok());
      }
      Status s = (*method)->execute();
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      EXPECT_GE(recording_driver_state().invocations.size(), 1u);
    }
  }
  EXPECT_GE(found, 1);
}

// A program whose delegate reads int8/int16 method inputs directly.
Result<std::vector<uint8_t>> build_program(const std::string& backend_id, const std::vector<uint8_t>& payload,
                                           const std::vector<std::pair<std::string, std::vector<uint8_t>>>& named) {
  ProgramBuilder program;
  for (const auto& [key, bytes] : named) program.add_named_data(key, bytes);
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Char, {2, 3});
  int32_t y = m.add_planned_tensor(ScalarType::Short, {4});
  int32_t out = m.add_planned_tensor(ScalarType::Char, {2, 3});
  int32_t delegate = m.add_delegate(backend_id, payload);
  m.add_delegate_call(delegate, {x, y, out});
  m.set_inputs({x, y});
  m.set_outputs({out});
  return program.build();
}

Status set_inputs(Method& method, std::vector<int8_t>& xs, std::vector<int16_t>& ys) {
  const int32_t x_sizes[] = {2, 3}, y_sizes[] = {4};
  Tensor x = *Tensor::make(ScalarType::Char, x_sizes, xs.data());
  Tensor y = *Tensor::make(ScalarType::Short, y_sizes, ys.data());
  VKRT_RETURN_IF_ERROR(method.set_input(0, EValue::from_tensor(&x)));
  return method.set_input(1, EValue::from_tensor(&y));  // planned inputs are copied in
}

TEST(EthosUModule, ExternalBlocksComeFromTheProgramsNamedData) {
  auto contents = testing::sample_contents();
  const std::string cmd_key(64, 'c'), weight_key = std::string(32, '0') + std::string(32, 'f');
  contents.cmd_data_key = cmd_key;
  contents.weight_data_key = weight_key;
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(contents),
                             {{cmd_key, contents.cmd_data}, {weight_key, contents.weight_data}});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto& state = recording_driver_state();
  state.reset();
  state.output_writes = {{kRegionScratch, 0, {6, 5, 4, 3, 2, 1}}};
  auto module = Module::load_from_buffer(*bytes, recording_options());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  std::vector<int8_t> xs = {1, -2, 3, -4, 5, -6};
  std::vector<int16_t> ys = {1000, -1000, 2, 3};
  ASSERT_TRUE(set_inputs(**method, xs, ys).is_ok());
  Status s = (*method)->execute();
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const auto& inv = state.invocations.at(0);
  EXPECT_EQ(inv.cmd_data, contents.cmd_data);
  EXPECT_EQ(inv.regions[0], contents.weight_data);
  EXPECT_EQ(std::memcmp(inv.regions[1].data() + 32, xs.data(), 6), 0);
  EXPECT_EQ(std::memcmp(inv.regions[1].data() + 48, ys.data(), 8), 0);
  const Tensor& out = (*method)->output(0).to_tensor();
  EXPECT_EQ(std::vector<uint8_t>(out.data_as<uint8_t>(), out.data_as<uint8_t>() + 6),
            (std::vector<uint8_t>{6, 5, 4, 3, 2, 1}));

  // Without the named data the load fails and names the missing key.
  auto missing = build_program("EthosUBackend", write_vela_bin_stream(contents), {});
  ASSERT_TRUE(missing.ok());
  auto bad = Module::load_from_buffer(*missing, recording_options());
  ASSERT_TRUE(bad.ok());
  auto failed = (*bad)->load_method("forward");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), Error::InvalidExternalData) << failed.status().to_string();
  EXPECT_NE(failed.status().message().find(cmd_key), std::string::npos) << failed.status().message();
}

TEST(EthosUModule, ArmBackendProgramsLoadAndRun) {
  auto bytes = build_program("ArmBackend", write_vela_bin_stream(testing::sample_contents(VelaIoLayout::Shape4D)), {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  recording_driver_state().reset();
  auto module = Module::load_from_buffer(*bytes, recording_options());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  std::vector<int8_t> xs(6, 1);
  std::vector<int16_t> ys(4, 2);
  ASSERT_TRUE(set_inputs(**method, xs, ys).is_ok());
  Status s = (*method)->execute();
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(recording_driver_state().invocations.size(), 1u);
}

// An ETDump through the library (LoadOptions::event_tracer): the delegate call holds the copy in,
// the NPU's inference with the driver's cycle and PMU counts as its metadata, and the copy out.
TEST(EthosUModule, EtdumpRecordsTheInferenceAndItsCounters) {
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(testing::sample_contents(VelaIoLayout::Shape4D)), {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  recording_driver_state().reset();
  LoadOptions options = recording_options();
  options.backend_options.set(std::string(kOptionPmuEventPrefix) + "0", "17");
  options.backend_options.set(std::string(kOptionPmuEventPrefix) + "2", "3");
  EtdumpWriter etdump;
  options.event_tracer = &etdump;
  auto module = Module::load_from_buffer(*bytes, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  std::vector<int8_t> xs(6, 1);
  std::vector<int16_t> ys(4, 2);
  ASSERT_TRUE(set_inputs(**method, xs, ys).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());

  auto decoded = read_etdump(etdump.serialize());  // through the file format
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->runs.size(), 2u);
  vkrt::testing::expect_load_run(decoded->runs[0]);
  const EtdumpRun& exec = decoded->runs[1];
  vkrt::testing::expect_execute_run(exec);
  std::vector<const EtdumpEvent*> steps = vkrt::testing::delegate_events(exec);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]->delegate_debug_id_str, "+EthosUBackend::execute()handles.input.memcpy()");
  EXPECT_EQ(steps[1]->delegate_debug_id_str, "+EthosUBackend::execute()NPU");
  EXPECT_EQ(steps[2]->delegate_debug_id_str, "+EthosUBackend::execute()handles.output.memcpy()");
  const auto& meta = steps[1]->delegate_debug_metadata;
  EXPECT_EQ(std::string(meta.begin(), meta.end()), "cycles=1234 pmu17=100 pmu3=102");
  for (size_t i = 0; i + 1 < steps.size(); ++i) EXPECT_LE(steps[i]->end_time, steps[i + 1]->start_time);
}

TEST(EthosUModule, NoDeviceFailsAtLoadWithTheDevicePathsTried) {
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(testing::sample_contents()), {});
  ASSERT_TRUE(bytes.ok());
  testing::FakeDevice no_devices;
  Syscalls* previous = set_active_syscalls(&no_devices);
  auto module = Module::load_from_buffer(*bytes);
  ASSERT_TRUE(module.ok());
  auto method = (*module)->load_method("forward");
  set_active_syscalls(previous);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), Error::NotFound) << method.status().to_string();
  EXPECT_NE(method.status().message().find("/dev/ethosu0: cannot open"), std::string::npos)
      << method.status().message();
  EXPECT_NE(method.status().message().find("/dev/accel/accel3"), std::string::npos);
}

// A Vela stream is 1 KB whatever scratch_size it names: 0xffff96e0 bytes (4 GiB) must fail at
// load against the budget, before the driver allocates anything.
TEST(EthosUModule, ScratchSizeBeyondTheMemoryBudgetFailsAtLoad) {
  auto contents = testing::sample_contents();
  contents.scratch_size = 0xffff96e0u;
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(contents), {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  EXPECT_LT(bytes->size(), 4096u);
  recording_driver_state().reset();
  LoadOptions options = recording_options();
  options.memory_budget_bytes = uint64_t(1) << 30;
  auto module = Module::load_from_buffer(*bytes, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::MemoryAllocationFailed);
  EXPECT_NE(method.status().message().find("region 1 (scratch) needs 4294940384 bytes"), std::string::npos)
      << method.status().to_string();
  EXPECT_TRUE(recording_driver_state().buffer_sizes.empty()) << "the driver allocated before the budget check";
}

// The recording driver computes nothing: the method says so (the runner prints it), and a long
// run keeps a bounded record.
TEST(EthosUModule, RecordingDriverSaysOutputsAreNotComputedAndRecordsBoundedly) {
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(testing::sample_contents()), {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto& state = recording_driver_state();
  state.reset();
  auto module = Module::load_from_buffer(*bytes, recording_options());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  ASSERT_EQ((*method)->notices().size(), 1u);
  EXPECT_NE((*method)->notices()[0].find("outputs are not computed"), std::string::npos) << (*method)->notices()[0];
  for (size_t i = 0; i < (*method)->num_inputs(); ++i) ASSERT_TRUE((*method)->set_input(i, (*method)->input(i)).is_ok());
  const size_t runs = kMaxRecordedInvocations + 4;
  for (size_t i = 0; i < runs; ++i) ASSERT_TRUE((*method)->execute().is_ok());
  EXPECT_EQ(state.invocation_count, runs);
  EXPECT_EQ(state.invocations.size(), kMaxRecordedInvocations);
}

// A driver that runs the network adds no notice.
TEST(EthosUModule, ComputingDriverAddsNoNotice) {
  auto bytes = build_program("EthosUBackend", write_vela_bin_stream(testing::sample_contents()), {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  recording_driver_state().reset();
  recording_driver_state().capabilities.computes_outputs = true;  // as a device driver reports
  auto module = Module::load_from_buffer(*bytes, recording_options());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_TRUE((*method)->notices().empty());
  recording_driver_state().reset();
}

// The conformance program on the virtual NPU: the delegate's arithmetic, computed. Its inputs are
// quantized with scale 1/255 and zero point -128 (a = round(255·x) in [0, 255] after the zero point),
// its output has scale 2/255 and zero point -128, and the stream adds the two inputs (each widened to
// 32 bits and rescaled, then summed and rescaled to the output scale): the int8 result is
// (a + b) / 2 with halves rounded up, so the output is ⌊(a + b + 1) / 2⌋·2/255.
TEST(EthosUModule, ConformanceProgramComputesOnTheVirtualNpu) {
  VKRT_REQUIRE_CONFORMANCE(path, kMinimalExample);
  LoadOptions options;
  options.backend_options.set(kOptionDriver, "virtual");
  auto module = Module::load(path, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_TRUE((*method)->notices().empty()) << "the virtual driver computes its outputs";
  int checked = 0;
  for (int a = 0; a <= 255; a += 5) {
    for (int b = 0; b <= 255; b += 7) {
      FloatInput x(float(a) / 255.0f), y(float(b) / 255.0f);
      ASSERT_TRUE((*method)->set_input(0, x.evalue).is_ok());
      ASSERT_TRUE((*method)->set_input(1, y.evalue).is_ok());
      Status s = (*method)->execute();
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      const float got = (*method)->output(0).to_tensor().data_as<float>()[0];
      const int expected_q = (a + b + 1) / 2;  // (q + 128) of the int8 output
      ASSERT_NEAR(got, float(expected_q) * (2.0f / 255.0f), 1e-6) << "a=" << a << " b=" << b;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 52 * 37);
  // Inputs outside [0, 1] saturate in the quantize step: -0.3 counts as 0, 1.7 as 1.
  FloatInput lo(-0.3f), hi(1.7f);
  ASSERT_TRUE((*method)->set_input(0, lo.evalue).is_ok());
  ASSERT_TRUE((*method)->set_input(1, hi.evalue).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());
  EXPECT_NEAR((*method)->output(0).to_tensor().data_as<float>()[0], 128.0f * (2.0f / 255.0f), 1e-6);
}

}  // namespace
}  // namespace vkrt::ethosu
