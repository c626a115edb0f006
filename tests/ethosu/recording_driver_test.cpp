// The recording driver's own checks: it refuses what a real NPU would trip over, so backend tests
// that pass through it show the runtime handed over the right regions.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ethosu/drivers/recording_driver.h"
#include "ethosu/format/vela_bin_stream.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "tests/ethosu/test_payloads.h"

namespace vkrt::ethosu {
namespace {

struct RecordingFixture : ::testing::Test {
  void SetUp() override {
    recording_driver_state().reset();
    bytes = write_vela_bin_stream(testing::sample_contents());
    stream = *parse_vela_bin_stream(bytes, nullptr);
    payload = *parse_driver_payload(stream.cmd_data);
    weights = std::move(driver.create_buffer(32)).value();
    scratch = std::move(driver.create_buffer(64)).value();
    std::memcpy(weights->data().data(), stream.weight_data.data(), stream.weight_data.size());
    network = std::move(driver.create_network(NetworkDescription{stream.cmd_data, &payload, &stream})).value();
    regions[0] = RegionBinding{weights.get(), stream.weight_data.size()};
    regions[1] = RegionBinding{scratch.get(), 64};
  }
  std::string invoke_error() {
    Status s = driver.invoke(*network, regions, InvokeOptions{}, nullptr);
    return s.is_ok() ? "" : s.message();
  }
  RecordingDriver driver{recording_driver_state()};
  std::vector<uint8_t> bytes;
  VelaBinStream stream;
  DriverPayload payload;
  std::unique_ptr<DriverBuffer> weights, scratch;
  std::unique_ptr<DriverNetwork> network;
  RegionTable regions{};
};

TEST_F(RecordingFixture, AcceptsWhatTheBackendWouldHandOver) {
  EXPECT_EQ(invoke_error(), "");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(scratch->data().data()) % 16, 0u);
  ASSERT_EQ(recording_driver_state().invocations.size(), 1u);
  EXPECT_EQ(recording_driver_state().buffer_sizes, (std::vector<size_t>{32, 64}));
}

TEST_F(RecordingFixture, ChecksRegionsAgainstThePayload) {
  weights->data()[3] ^= 0xFF;
  EXPECT_NE(invoke_error().find("region 0 contents differ from weight_data"), std::string::npos);
  weights->data()[3] ^= 0xFF;

  regions[1].size = 40;
  EXPECT_NE(invoke_error().find("region 1 holds 40 bytes, the payload needs 64"), std::string::npos);
  regions[1].size = 64;

  regions[0] = RegionBinding{};
  EXPECT_NE(invoke_error().find("uses region 0 but it is not bound"), std::string::npos);
  regions[0] = RegionBinding{weights.get(), stream.weight_data.size()};

  regions[1].size = 65;
  EXPECT_NE(invoke_error().find("region 1 size 65 outside its buffer"), std::string::npos);
  regions[1].size = 64;

  regions[2] = RegionBinding{nullptr, 16};
  EXPECT_NE(invoke_error().find("region 2 has a size but no buffer"), std::string::npos);
  regions[2] = RegionBinding{};

  recording_driver_state().output_writes = {{kRegionScratch, 60, {1, 2, 3, 4, 5}}};
  EXPECT_NE(invoke_error().find("output write [60, 65) outside region 1"), std::string::npos);
  EXPECT_TRUE(recording_driver_state().invocations.size() >= 1);
}

TEST_F(RecordingFixture, ChecksTheCommandStreamHeaderAndTarget) {
  std::vector<uint8_t> cmd(stream.cmd_data.begin(), stream.cmd_data.end());
  cmd[1] = 'X';
  auto r = driver.create_network(NetworkDescription{cmd, &payload, nullptr});
  EXPECT_EQ(r.status().code(), Error::InvalidProgram);
  EXPECT_NE(r.status().message().find("recording driver: cmd_data: starts with"), std::string::npos)
      << r.status().message();

  recording_driver_state().capabilities.arch = *decode_npu_arch(kConfigU85_256, kIdU85_256);
  RecordingDriver u85(recording_driver_state());
  auto mismatch = u85.create_network(NetworkDescription{stream.cmd_data, &payload, &stream});
  EXPECT_EQ(mismatch.status().code(), Error::DelegateInvalidCompatibility);
}

}  // namespace
}  // namespace vkrt::ethosu
