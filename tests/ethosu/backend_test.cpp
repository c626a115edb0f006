// EthosUBackend through the backend interface, with the recording driver (and once with the
// character-device driver on a fake kernel): inputs land at their region offsets, outputs come
// back, every tensor is checked, targets are checked against the driver, options reach it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ethosu/backend/ethosu_backend.h"
#include "ethosu/drivers/recording_driver.h"
#include "ethosu/drivers/syscalls.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "tests/ethosu/fake_device.h"
#include "tests/ethosu/test_payloads.h"
#include "vkrt/backend.h"
#include "vkrt/ethosu.h"

namespace vkrt::ethosu {
namespace {

class NoNamedData final : public NamedDataMap {
 public:
  Result<std::span<const uint8_t>> get(std::string_view key) const override {
    return make_error(Error::NotFound, "no key ", key);
  }
  size_t size() const override { return 0; }
  std::string_view key_at(size_t) const override { return {}; }
};

// A tensor with its own storage.
struct OwnedTensor {
  OwnedTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> bytes = {}) : storage(std::move(bytes)) {
    size_t numel = 1;
    for (int32_t s : sizes) numel *= size_t(s);
    storage.resize(numel * element_size(dtype), 0);
    tensor = *Tensor::make(dtype, sizes, storage.data());
    value = EValue::from_tensor(&tensor);
  }
  std::vector<uint8_t> storage;
  Tensor tensor;
  EValue value;
};

struct BackendFixture : ::testing::Test {
  void SetUp() override {
    recording_driver_state().reset();
    options.set(kOptionDriver, "recording");
    backend = BackendRegistry::global().find("EthosUBackend");
    ASSERT_NE(backend, nullptr);
  }
  Result<std::unique_ptr<DelegateHandle>> init(const std::vector<uint8_t>& payload,
                                               std::span<const CompileSpec> specs = {}) {
    payload_copy = payload;
    BackendInitContext ctx;
    ctx.method_name = "forward";
    ctx.named_data = &named;
    ctx.options = &options;
    ctx.memory_budget = &budget;
    ctx.notices = &notices;
    return backend->init(ctx, payload_copy, specs);
  }
  Status execute(DelegateHandle& h, std::vector<EValue*> args) {
    BackendExecuteContext ctx;
    ctx.method_name = "forward";
    return backend->execute(ctx, h, args);
  }
  Backend* backend = nullptr;
  NoNamedData named;
  BackendOptions options;
  MemoryBudget budget{uint64_t(1) << 30};
  std::vector<std::string> notices;
  std::vector<uint8_t> payload_copy;
};

template <typename T>
std::vector<uint8_t> to_bytes(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t at, size_t n) {
  return std::vector<uint8_t>(v.begin() + long(at), v.begin() + long(at + n));
}

TEST_F(BackendFixture, InputsLandAtTheirOffsetsAndOutputsComeBack) {
  auto contents = testing::sample_contents();
  auto handle = init(write_vela_bin_stream(contents));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  auto& state = recording_driver_state();
  EXPECT_EQ(state.buffer_sizes, (std::vector<size_t>{32, 64}));  // weights (18 → 32), scratch 64
  EXPECT_EQ(state.networks_created, 1);

  OwnedTensor in0(ScalarType::Char, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<int16_t> in1_values = {-1, 300, 7, -32768};
  OwnedTensor in1(ScalarType::Short, {4}, to_bytes(in1_values));
  OwnedTensor out(ScalarType::Char, {2, 3});
  state.output_writes = {{kRegionScratch, 0, {10, 20, 30, 40, 50, 60}}};
  Status s = execute(**handle, {&in0.value, &in1.value, &out.value});
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  ASSERT_EQ(state.invocations.size(), 1u);
  const auto& inv = state.invocations[0];
  EXPECT_EQ(inv.cmd_data, contents.cmd_data);
  ASSERT_TRUE(inv.bound[0] && inv.bound[1]);
  EXPECT_FALSE(inv.bound[2] || inv.bound[3] || inv.bound[4]);
  EXPECT_EQ(inv.regions[0], contents.weight_data);           // region 0: the weights, exact size
  ASSERT_EQ(inv.regions[1].size(), 64u);                       // region 1: scratch_size bytes
  EXPECT_EQ(slice(inv.regions[1], 32, 6), in0.storage);        // input 0 at offset 32
  EXPECT_EQ(slice(inv.regions[1], 48, 8), in1.storage);        // input 1 at offset 48
  EXPECT_EQ(out.storage, (std::vector<uint8_t>{10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(inv.options.timeout_ns, 60'000'000'000);
  EXPECT_TRUE(inv.options.enable_cycle_counter);
  const InvokeResult* result = last_invoke_result(**handle);
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->cycle_count, 1234u);

  // A second run reuses everything made at init.
  in0.storage[0] = 77;
  ASSERT_TRUE(execute(**handle, {&in0.value, &in1.value, &out.value}).is_ok());
  EXPECT_EQ(state.buffer_sizes.size(), 2u);
  EXPECT_EQ(state.invocations[1].regions[1][32], 77);
}

TEST_F(BackendFixture, ArmBackendIsAnAlias) {
  Backend* arm = BackendRegistry::global().find("ArmBackend");
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->name(), "ArmBackend");
  backend = arm;
  auto handle = init(write_vela_bin_stream(testing::sample_contents(VelaIoLayout::Shape4D)));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
}

TEST_F(BackendFixture, TensorChecks) {
  auto handle = init(write_vela_bin_stream(testing::sample_contents()));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  OwnedTensor in0(ScalarType::Char, {2, 3});
  OwnedTensor in1(ScalarType::Short, {4});
  OwnedTensor out(ScalarType::Char, {2, 3});

  OwnedTensor wrong_dtype(ScalarType::Float, {2, 3});
  Status s = execute(**handle, {&wrong_dtype.value, &in1.value, &out.value});
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("input[0]: tensor dtype float32"), std::string::npos) << s.message();

  OwnedTensor wrong_width(ScalarType::Char, {4});  // int8 where the NPU has 2-byte elements
  s = execute(**handle, {&in0.value, &wrong_width.value, &out.value});
  EXPECT_NE(s.message().find("input[1]"), std::string::npos) << s.message();

  OwnedTensor wrong_size(ScalarType::Char, {3, 3});
  s = execute(**handle, {&wrong_size.value, &in1.value, &out.value});
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("input[0]: tensor has 9 elements, the command stream expects 6"), std::string::npos)
      << s.message();

  OwnedTensor big_out(ScalarType::Char, {2, 5});
  s = execute(**handle, {&in0.value, &in1.value, &big_out.value});
  EXPECT_NE(s.message().find("output[0]"), std::string::npos) << s.message();

  s = execute(**handle, {&in0.value, &in1.value});
  EXPECT_NE(s.message().find("called with 2 arguments"), std::string::npos) << s.message();

  EValue not_tensor = EValue::from_int(3);
  s = execute(**handle, {&in0.value, &not_tensor, &out.value});
  EXPECT_NE(s.message().find("input[1]: expected a tensor"), std::string::npos) << s.message();

  // A tensor of the right shape with no memory bound (the program fuzzer's find): an error, not a
  // copy through a null pointer.
  OwnedTensor no_memory(ScalarType::Char, {2, 3});
  no_memory.tensor.set_data(nullptr);
  s = execute(**handle, {&in0.value, &in1.value, &no_memory.value});
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("output[0] has 6 bytes and no memory"), std::string::npos) << s.message();
  s = execute(**handle, {&no_memory.value, &in1.value, &out.value});
  EXPECT_NE(s.message().find("input[0] has 6 bytes and no memory"), std::string::npos) << s.message();
  EXPECT_TRUE(recording_driver_state().invocations.empty());  // nothing reached the driver
}

TEST_F(BackendFixture, InitErrors) {
  auto& state = recording_driver_state();
  // Target mismatch: the stream is for a U55-128, the device a U85-256.
  state.capabilities.arch = *decode_npu_arch(kConfigU85_256, kIdU85_256);
  auto mismatch = init(write_vela_bin_stream(testing::sample_contents()));
  EXPECT_EQ(mismatch.status().code(), Error::DelegateInvalidCompatibility);
  EXPECT_NE(mismatch.status().message().find("compiled for Ethos-U55-128"), std::string::npos);
  EXPECT_NE(mismatch.status().message().find("Ethos-U85-256"), std::string::npos);
  EXPECT_EQ(mismatch.status().message().rfind("EthosUBackend: driver recording: command stream compiled for", 0), 0u)
      << mismatch.status().message();
  state.reset();

  state.capabilities.accepts_cop1 = false;
  auto cop1 = init(write_vela_bin_stream(testing::sample_contents()));
  EXPECT_EQ(cop1.status().code(), Error::NotSupported);
  EXPECT_NE(cop1.status().message().find("does not accept COP1"), std::string::npos) << cop1.status().message();
  state.reset();

  state.capabilities.requires_separate_io = true;
  auto io = init(write_vela_bin_stream(testing::sample_contents()));
  EXPECT_NE(io.status().message().find("--separate-io-regions"), std::string::npos) << io.status().message();
  state.reset();

  auto bad = write_vela_bin_stream(testing::sample_contents());
  bad[0] = 'x';
  auto malformed = init(bad);
  EXPECT_EQ(malformed.status().code(), Error::InvalidProgram);
  EXPECT_NE(malformed.status().message().find("first block is 'xela_bin_stream'"), std::string::npos);

  auto contents = testing::sample_contents();
  contents.cmd_data[0] = 'K';
  auto bad_cop = init(write_vela_bin_stream(contents));
  EXPECT_NE(bad_cop.status().message().find("expected 'COP1' or 'COP2'"), std::string::npos);

  options.set(kOptionTimeoutNs, "soon");
  auto bad_option = init(write_vela_bin_stream(testing::sample_contents()));
  EXPECT_EQ(bad_option.status().code(), Error::InvalidArgument);
  EXPECT_NE(bad_option.status().message().find("'soon' is not an integer"), std::string::npos);
}

TEST_F(BackendFixture, NoDeviceFailsAtInitNamingThePathsTried) {
  testing::FakeDevice no_devices;
  Syscalls* previous = set_active_syscalls(&no_devices);
  BackendOptions defaults;  // no driver chosen: probe the device nodes
  options = defaults;
  auto r = init(write_vela_bin_stream(testing::sample_contents()));
  set_active_syscalls(previous);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Error::NotFound);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("no Ethos-U NPU device found"), std::string::npos) << m;
  EXPECT_NE(m.find("/dev/ethosu0"), std::string::npos) << m;
  EXPECT_NE(m.find("/dev/accel/accel0"), std::string::npos) << m;
}

TEST_F(BackendFixture, OptionsAndCompileSpecsReachTheDriver) {
  std::string timeout = "5000";
  std::vector<CompileSpec> specs = {
      {"ethosu.timeout_ns", {reinterpret_cast<const uint8_t*>(timeout.data()), timeout.size()}},
      {"tosa_spec", {}},
  };
  options.set("EthosUBackend.pmu_event2", "17");
  options.set(kOptionEnableCycleCounter, "0");
  auto handle = init(write_vela_bin_stream(testing::sample_contents()), specs);
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  OwnedTensor in0(ScalarType::Char, {2, 3}), in1(ScalarType::Short, {4}), out(ScalarType::Char, {2, 3});
  ASSERT_TRUE(execute(**handle, {&in0.value, &in1.value, &out.value}).is_ok());
  const auto& opts = recording_driver_state().invocations.at(0).options;
  EXPECT_EQ(opts.timeout_ns, 5000);
  EXPECT_EQ(opts.pmu_events[2], 17u);
  EXPECT_FALSE(opts.enable_cycle_counter);
  EXPECT_FALSE(last_invoke_result(**handle)->cycle_count_valid);

  options.set(kOptionTimeoutNs, "9");  // options win over compile specs
  auto second = init(write_vela_bin_stream(testing::sample_contents()), specs);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(execute(**second, {&in0.value, &in1.value, &out.value}).is_ok());
  EXPECT_EQ(recording_driver_state().invocations.at(1).options.timeout_ns, 9);
}

TEST_F(BackendFixture, InvocationFailureIsReported) {
  auto handle = init(write_vela_bin_stream(testing::sample_contents()));
  ASSERT_TRUE(handle.ok());
  recording_driver_state().invoke_status = make_error(Error::Internal, "NPU bus error");
  OwnedTensor in0(ScalarType::Char, {2, 3}), in1(ScalarType::Short, {4}), out(ScalarType::Char, {2, 3});
  Status s = execute(**handle, {&in0.value, &in1.value, &out.value});
  EXPECT_EQ(s.code(), Error::Internal);
  EXPECT_NE(s.message().find("Ethos-U invocation failed: NPU bus error"), std::string::npos) << s.message();
}

TEST_F(BackendFixture, SeparateIoRegions) {
  auto& state = recording_driver_state();
  state.capabilities.arch = *decode_npu_arch(kConfigU85_256, kIdU85_256);
  auto handle = init(write_vela_bin_stream(testing::sample_contents_separate_io()));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  // weights 18 → 32, scratch 32, inputs region 24 → 32, outputs region 6 → 16.
  EXPECT_EQ(state.buffer_sizes, (std::vector<size_t>{32, 32, 32, 16}));
  OwnedTensor in0(ScalarType::Char, {2, 3}, {9, 8, 7, 6, 5, 4});
  OwnedTensor in1(ScalarType::Short, {4}, {1, 0, 2, 0, 3, 0, 4, 0});
  OwnedTensor out(ScalarType::Char, {2, 3});
  state.output_writes = {{kRegionOutputs, 0, {1, 1, 2, 3, 5, 8}}};
  ASSERT_TRUE(execute(**handle, {&in0.value, &in1.value, &out.value}).is_ok());
  const auto& inv = state.invocations.at(0);
  ASSERT_EQ(inv.regions[3].size(), 24u);
  EXPECT_EQ(slice(inv.regions[3], 0, 6), in0.storage);
  EXPECT_EQ(slice(inv.regions[3], 16, 8), in1.storage);
  EXPECT_EQ(inv.regions[4].size(), 6u);
  EXPECT_EQ(out.storage, (std::vector<uint8_t>{1, 1, 2, 3, 5, 8}));
}

TEST_F(BackendFixture, LegacyFourDimensionalIoIsPermutedBetweenNchwAndNhwc) {
  auto contents = testing::sample_contents();
  const int32_t nhwc[] = {1, 2, 2, 3};  // Vela's view: N,H,W,C
  contents.inputs = {make_vela_io_4d(nhwc, 1, 0)};
  contents.outputs = {make_vela_io_4d(nhwc, 1, 16)};
  contents.scratch_size = 32;
  auto handle = init(write_vela_bin_stream(contents));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  // The tensor is NCHW (1,3,2,2): value = 10*c + 2*h + w.
  std::vector<uint8_t> nchw;
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w) nchw.push_back(uint8_t(10 * c + 2 * h + w));
  OwnedTensor in(ScalarType::Char, {1, 3, 2, 2}, nchw);
  OwnedTensor out(ScalarType::Char, {1, 3, 2, 2});
  // The NPU "copies" input to output (NHWC both).
  std::vector<uint8_t> expected_nhwc;
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2; ++w)
      for (int c = 0; c < 3; ++c) expected_nhwc.push_back(uint8_t(10 * c + 2 * h + w));
  recording_driver_state().output_writes = {{kRegionScratch, 16, expected_nhwc}};
  ASSERT_TRUE(execute(**handle, {&in.value, &out.value}).is_ok());
  EXPECT_EQ(slice(recording_driver_state().invocations[0].regions[1], 0, 12), expected_nhwc);
  EXPECT_EQ(out.storage, nchw);
}

TEST_F(BackendFixture, OutputLayoutAdjustments) {
  auto contents = testing::sample_contents();
  const int32_t padded[] = {2, 4};   // Vela rows of 4 for a (2,3) tensor
  const int32_t packed[] = {2, 2};   // 4-bit packed: 2 bytes per row for 4 int8 values
  const int32_t scalar_in[] = {1};
  contents.inputs = {make_vela_io_6d(scalar_in, 1, 0)};
  contents.outputs = {make_vela_io_6d(padded, 1, 16), make_vela_io_6d(packed, 1, 32)};
  auto handle = init(write_vela_bin_stream(contents));
  ASSERT_TRUE(handle.ok()) << handle.status().to_string();
  OwnedTensor in(ScalarType::Char, {1});
  OwnedTensor rows(ScalarType::Char, {2, 3});
  OwnedTensor nibbles(ScalarType::Char, {2, 4});
  recording_driver_state().output_writes = {
      {kRegionScratch, 16, {1, 2, 3, 0xEE, 4, 5, 6, 0xEE}},
      {kRegionScratch, 32, {0x21, 0xF7, 0x08, 0x9A}},  // low nibble first, sign-extended
  };
  ASSERT_TRUE(execute(**handle, {&in.value, &rows.value, &nibbles.value}).is_ok());
  EXPECT_EQ(rows.storage, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  std::vector<int8_t> expected = {1, 2, 7, -1, -8, 0, -6, -7};
  EXPECT_EQ(nibbles.storage, to_bytes(expected));
}

TEST_F(BackendFixture, EndToEndThroughTheCharacterDeviceDriver) {
  testing::FakeDevice fake;
  fake.add_node("/dev/ethosu0", testing::FakeDevice::Kind::Char);
  fake.capabilities.hw_id.arch_major_rev = 2;
  fake.capabilities.hw_cfg.macs_per_cc = 8;
  fake.capabilities.hw_cfg.cmd_stream_version = 1;
  // The "NPU" adds 1 to every byte of the first input and writes it to the output region.
  fake.on_run = [](testing::FakeDevice& f) {
    auto* in = f.buffer_for_fd(int(f.last_inference.ifm_fd[0]));
    auto* out = f.buffer_for_fd(int(f.last_inference.ofm_fd[0]));
    for (int i = 0; i < 6; ++i) out->data.get()[i] = uint8_t(in->data.get()[i] + 1);
  };
  Syscalls* previous = set_active_syscalls(&fake);
  options = BackendOptions();
  options.set(kOptionDriver, "ethosu-char");
  options.set(kOptionDevice, "/dev/ethosu0");
  {
    auto handle = init(write_vela_bin_stream(testing::sample_contents_separate_io()));
    ASSERT_TRUE(handle.ok()) << handle.status().to_string();
    OwnedTensor in0(ScalarType::Char, {2, 3}, {10, 20, 30, 40, 50, 60});
    OwnedTensor in1(ScalarType::Short, {4});
    OwnedTensor out(ScalarType::Char, {2, 3});
    Status s = execute(**handle, {&in0.value, &in1.value, &out.value});
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(out.storage, (std::vector<uint8_t>{11, 21, 31, 41, 51, 61}));
    EXPECT_EQ(last_invoke_result(**handle)->cycle_count, 777u);
    backend->destroy(std::move(handle).value());
  }
  set_active_syscalls(previous);
  EXPECT_EQ(fake.open_fds(), 0);  // every buffer, the network and the device were closed
}

}  // namespace
}  // namespace vkrt::ethosu
