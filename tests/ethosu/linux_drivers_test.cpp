// The two Linux drivers against a fake kernel (fake_device.h): the exact ioctl sequences, what
// each request carries, how answers and failures come back, and that everything is released.
// Plus driver selection by name / first device found.
#include <gtest/gtest.h>

#include <time.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "ethosu/drivers/driver_select.h"
#include "ethosu/drivers/drm_accel_driver.h"
#include "ethosu/drivers/ethosu_char_driver.h"
#include "ethosu/format/driver_payload.h"
#include "tests/ethosu/fake_device.h"
#include "tests/ethosu/test_payloads.h"

namespace vkrt::ethosu {
namespace {

using testing::FakeDevice;
using Calls = std::vector<std::string>;

// Calls recorded since `from`.
Calls since(const FakeDevice& fake, size_t from) { return Calls(fake.calls.begin() + long(from), fake.calls.end()); }

struct CharFixture : ::testing::Test {
  void SetUp() override {
    fake.add_node("/dev/ethosu0", FakeDevice::Kind::Char);
    fake.capabilities.hw_id.arch_major_rev = 2;  // U85
    fake.capabilities.hw_cfg.macs_per_cc = 8;    // log2(256)
    fake.capabilities.hw_cfg.cmd_stream_version = 1;
    fake.capabilities.hw_cfg.type = char_uapi::kDeviceDirect;
    cmd_data = write_cop2(kConfigU85_256, kIdU85_256, kCop2FeatureSeparateIo, 0, testing::sample_stream(true));
    payload = *parse_driver_payload(cmd_data);
  }
  FakeDevice fake;
  std::vector<uint8_t> cmd_data;
  DriverPayload payload;
};

TEST_F(CharFixture, OpenReadsVersionAndCapabilities) {
  auto driver = open_ethosu_char_driver("/dev/ethosu0", fake);
  ASSERT_TRUE(driver.ok()) << driver.status().to_string();
  EXPECT_EQ(fake.calls, (Calls{"open /dev/ethosu0", "ioctl DRIVER_VERSION_GET", "ioctl CAPABILITIES_REQ"}));
  const DriverCapabilities& caps = (*driver)->capabilities();
  EXPECT_EQ(caps.driver, "ethosu-char");
  EXPECT_EQ(caps.device_path, "/dev/ethosu0");
  EXPECT_EQ(caps.driver_version, "4.0.0");
  EXPECT_TRUE(caps.arch_known);
  EXPECT_EQ(caps.arch.product, NpuProduct::U85);
  EXPECT_EQ(caps.arch.macs_per_cycle, 256u);
  EXPECT_FALSE(caps.accepts_cop1);
  EXPECT_TRUE(caps.requires_separate_io);
  driver->reset();
  EXPECT_EQ(fake.calls.back(), "close device");
  EXPECT_EQ(fake.open_fds(), 0);
}

TEST_F(CharFixture, InvokeSequenceAndRequestContents) {
  auto driver = std::move(open_ethosu_char_driver("/dev/ethosu0", fake)).value();
  size_t mark = fake.calls.size();
  std::array<std::unique_ptr<DriverBuffer>, 5> buffers;
  const size_t sizes[] = {32, 48, 0, 32, 16};
  for (int r = 0; r < 5; ++r) {
    if (sizes[r] == 0) continue;
    auto b = driver->create_buffer(sizes[r]);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    buffers[size_t(r)] = std::move(b).value();
    EXPECT_EQ(buffers[size_t(r)]->data().size(), sizes[r]);
  }
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl BUFFER_CREATE", "mmap", "ioctl BUFFER_CREATE", "mmap", "ioctl BUFFER_CREATE",
                                      "mmap", "ioctl BUFFER_CREATE", "mmap"}));
  mark = fake.calls.size();
  auto network = driver->create_network(NetworkDescription{cmd_data, &payload});
  ASSERT_TRUE(network.ok()) << network.status().to_string();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl NETWORK_CREATE", "ioctl NETWORK_INFO"}));
  EXPECT_EQ(fake.network_data, cmd_data);  // the whole COP2 payload goes to the kernel

  // The "NPU" copies the first input byte to the output buffer.
  fake.on_run = [](FakeDevice& f) {
    auto* in = f.buffer_for_fd(int(f.last_inference.ifm_fd[0]));
    auto* out = f.buffer_for_fd(int(f.last_inference.ofm_fd[0]));
    out->data.get()[5] = uint8_t(in->data.get()[0] + 1);
  };
  buffers[3]->data()[0] = 41;
  RegionTable regions{};
  for (int r = 0; r < 5; ++r)
    if (buffers[size_t(r)]) regions[size_t(r)] = RegionBinding{buffers[size_t(r)].get(), sizes[r]};
  InvokeOptions options;
  options.pmu_events[0] = 17;
  options.pmu_events[3] = 5;
  InvokeResult result;
  mark = fake.calls.size();
  Status s = driver->invoke(**network, regions, options, &result);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl INFERENCE_CREATE", "poll", "ioctl INFERENCE_STATUS", "close inference"}));
  const auto& req = fake.last_inference;
  EXPECT_EQ(req.ifm_count, 1u);
  EXPECT_EQ(req.ofm_count, 1u);
  EXPECT_EQ(fake.buffer_for_fd(int(req.ifm_fd[0]))->data.get(), buffers[3]->data().data());
  EXPECT_EQ(fake.buffer_for_fd(int(req.ofm_fd[0]))->data.get(), buffers[4]->data().data());
  EXPECT_EQ(fake.buffer_for_fd(req.intermediate_fd)->data.get(), buffers[1]->data().data());
  EXPECT_EQ(fake.buffer_for_fd(req.constant_fd)->data.get(), buffers[0]->data().data());
  EXPECT_EQ(req.pmu_config.events[0], 17u);
  EXPECT_EQ(req.pmu_config.events[3], 5u);
  EXPECT_EQ(req.pmu_config.cycle_count, 1u);
  EXPECT_EQ(buffers[4]->data()[5], 42);  // written by the fake NPU, seen through our mapping
  EXPECT_TRUE(result.cycle_count_valid);
  EXPECT_EQ(result.cycle_count, 777u);
  EXPECT_EQ(result.pmu_counts[0], 10u);
  EXPECT_EQ(result.pmu_counts[3], 13u);
  EXPECT_EQ(result.pmu_counts[1], 0u);

  network->reset();
  for (auto& b : buffers) b.reset();
  driver.reset();
  EXPECT_EQ(fake.open_fds(), 0);
}

TEST_F(CharFixture, Errors) {
  EXPECT_EQ(open_ethosu_char_driver("/dev/ethosu7", fake).status().code(), Error::NotFound);
  EXPECT_NE(open_ethosu_char_driver("/dev/ethosu7", fake).status().message().find("/dev/ethosu7: cannot open"),
            std::string::npos);

  fake.driver_version = {3, 1, 0};
  auto old = open_ethosu_char_driver("/dev/ethosu0", fake);
  EXPECT_EQ(old.status().code(), Error::NotSupported);
  EXPECT_NE(old.status().message().find("3.1.0 is older than 4.0"), std::string::npos) << old.status().message();
  fake.driver_version = {4, 0, 0};

  fake.fail["DRIVER_VERSION_GET"] = -ENOTTY;  // e.g. the NXP firmware-driven fork
  auto nxp = open_ethosu_char_driver("/dev/ethosu0", fake);
  EXPECT_EQ(nxp.status().code(), Error::NotSupported);
  EXPECT_NE(nxp.status().message().find("not an Arm Ethos-U kernel driver"), std::string::npos);
  fake.fail.clear();
  EXPECT_EQ(fake.open_fds(), 0);  // failed opens close the device

  auto driver = std::move(open_ethosu_char_driver("/dev/ethosu0", fake)).value();
  auto cop1 = write_cop1(kConfigU85_256, kIdU85_256, testing::sample_stream());
  auto cop1_payload = *parse_driver_payload(cop1);
  auto rejected = driver->create_network(NetworkDescription{cop1, &cop1_payload});
  EXPECT_EQ(rejected.status().code(), Error::NotSupported);
  EXPECT_NE(rejected.status().message().find("COP2 command streams only"), std::string::npos);

  fake.fail["BUFFER_CREATE"] = -ENOMEM;
  EXPECT_EQ(driver->create_buffer(64).status().code(), Error::MemoryAllocationFailed);
  fake.fail.clear();
  fake.fail["mmap"] = -EINVAL;
  int fds_before = fake.open_fds();
  EXPECT_EQ(driver->create_buffer(64).status().code(), Error::MemoryAllocationFailed);
  EXPECT_EQ(fake.open_fds(), fds_before);  // the buffer fd was closed again
  fake.fail.clear();

  auto in = std::move(driver->create_buffer(16)).value();
  auto out = std::move(driver->create_buffer(16)).value();
  auto network = std::move(driver->create_network(NetworkDescription{cmd_data, &payload})).value();
  RegionTable regions{};
  regions[3] = RegionBinding{in.get(), 16};
  regions[4] = RegionBinding{out.get(), 16};
  InvokeOptions options;
  options.timeout_ns = 5'000'000;
  fake.poll_times_out = true;
  size_t mark = fake.calls.size();
  Status timeout = driver->invoke(*network, regions, options, nullptr);
  EXPECT_EQ(timeout.code(), Error::OutOfResources);
  EXPECT_NE(timeout.message().find("timed out after 5 ms"), std::string::npos) << timeout.message();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl INFERENCE_CREATE", "poll", "ioctl INFERENCE_CANCEL", "close inference"}));
  fake.poll_times_out = false;

  fake.inference_status = char_uapi::kError;
  Status failed = driver->invoke(*network, regions, options, nullptr);
  EXPECT_EQ(failed.code(), Error::Internal);
  EXPECT_NE(failed.message().find("inference status ERROR (1)"), std::string::npos) << failed.message();

  RegionTable missing_output{};
  missing_output[3] = regions[3];
  EXPECT_EQ(driver->invoke(*network, missing_output, options, nullptr).code(), Error::InvalidArgument);
}

struct DrmFixture : ::testing::Test {
  void SetUp() override {
    fake.add_node("/dev/accel/accel0", FakeDevice::Kind::Drm);
    fake.npu_info = {kIdU85_256, kConfigU85_256, 0};
    cmd_data = write_cop1(kConfigU85_256, kIdU85_256, testing::sample_stream());
    payload = *parse_driver_payload(cmd_data);
  }
  FakeDevice fake;
  std::vector<uint8_t> cmd_data;
  DriverPayload payload;
};

TEST_F(DrmFixture, OpenChecksTheDriverNameAndQueriesTheNpu) {
  fake.npu_info.sram_size = 65536;
  auto driver = open_drm_accel_driver("/dev/accel/accel0", fake);
  ASSERT_TRUE(driver.ok()) << driver.status().to_string();
  EXPECT_EQ(fake.calls, (Calls{"open /dev/accel/accel0", "ioctl VERSION", "ioctl DEV_QUERY"}));
  const auto& caps = (*driver)->capabilities();
  EXPECT_EQ(caps.driver, "drm-accel");
  EXPECT_TRUE(caps.arch_known);
  EXPECT_EQ(caps.arch.product, NpuProduct::U85);
  EXPECT_EQ(caps.arch.macs_per_cycle, 256u);
  EXPECT_EQ(caps.sram_bytes, 65536u);
  EXPECT_TRUE(caps.accepts_cop1);

  fake.drm_name = "amdxdna";
  auto other = open_drm_accel_driver("/dev/accel/accel0", fake);
  EXPECT_EQ(other.status().code(), Error::NotSupported);
  EXPECT_NE(other.status().message().find("'amdxdna', not 'ethosu'"), std::string::npos) << other.status().message();
  fake.drm_name = "ethosu";
  fake.npu_info.config = 0x70000000;
  EXPECT_EQ(open_drm_accel_driver("/dev/accel/accel0", fake).status().code(), Error::InvalidProgram);
  driver->reset();
  EXPECT_EQ(fake.open_fds(), 0);
}

TEST_F(DrmFixture, SubmitSequenceBindsOnlyReferencedRegions) {
  auto driver = std::move(open_drm_accel_driver("/dev/accel/accel0", fake)).value();
  size_t mark = fake.calls.size();
  auto weights = std::move(driver->create_buffer(32)).value();
  auto scratch = std::move(driver->create_buffer(64)).value();
  auto unused = std::move(driver->create_buffer(16)).value();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl BO_CREATE", "ioctl BO_MMAP_OFFSET", "mmap", "ioctl BO_CREATE",
                                      "ioctl BO_MMAP_OFFSET", "mmap", "ioctl BO_CREATE", "ioctl BO_MMAP_OFFSET", "mmap"}));
  mark = fake.calls.size();
  auto network = driver->create_network(NetworkDescription{cmd_data, &payload});
  ASSERT_TRUE(network.ok()) << network.status().to_string();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl CMDSTREAM_BO_CREATE"}));
  // The bare command stream, COP1 header stripped.
  EXPECT_EQ(fake.network_data, std::vector<uint8_t>(cmd_data.begin() + 32, cmd_data.end()));

  fake.on_run = [](FakeDevice& f) { f.bo(f.last_job.region_bo_handles[1])->data.get()[3] = 99; };
  RegionTable regions{};
  regions[0] = RegionBinding{weights.get(), 32};
  regions[1] = RegionBinding{scratch.get(), 64};
  regions[5] = RegionBinding{unused.get(), 16};  // bound but not used by the stream
  timespec before{};
  clock_gettime(CLOCK_MONOTONIC, &before);
  InvokeOptions options;
  options.timeout_ns = 2'000'000'000;
  mark = fake.calls.size();
  Status s = driver->invoke(**network, regions, options, nullptr);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(since(fake, mark), (Calls{"ioctl SUBMIT", "ioctl BO_WAIT", "ioctl BO_WAIT"}));
  const auto& job = fake.last_job;
  EXPECT_NE(job.cmd_bo, 0u);
  EXPECT_EQ(fake.bo(job.region_bo_handles[0])->data.get(), weights->data().data());
  EXPECT_EQ(fake.bo(job.region_bo_handles[1])->data.get(), scratch->data().data());
  EXPECT_EQ(job.region_bo_handles[5], 0u);  // the kernel rejects BOs for unused regions
  EXPECT_EQ(job.sram_size, 0u);
  EXPECT_EQ(scratch->data()[3], 99);
  int64_t now_ns = int64_t(before.tv_sec) * 1'000'000'000 + before.tv_nsec;
  EXPECT_GE(fake.last_wait_deadline, now_ns + 2'000'000'000);  // absolute deadline
  EXPECT_LT(fake.last_wait_deadline, now_ns + 60'000'000'000);

  network->reset();
  weights.reset();
  scratch.reset();
  unused.reset();
  int closes = 0;
  for (const auto& c : fake.calls) closes += c == "ioctl GEM_CLOSE";
  EXPECT_EQ(closes, 4);  // three BOs and the command-stream BO
  driver.reset();
  EXPECT_EQ(fake.open_fds(), 0);
}

TEST_F(DrmFixture, FastScratchUsesTheDeviceSramWhenUnbound) {
  fake.npu_info.sram_size = 4096;
  std::vector<uint32_t> stream = {cmd0(0x10F, 2), cmd0(0x11F, 2), cmd0(0x005, 0), op_stop()};
  auto sram_cmd = write_cop1(kConfigU85_256, kIdU85_256, stream);
  auto sram_payload = *parse_driver_payload(sram_cmd);
  auto driver = std::move(open_drm_accel_driver("/dev/accel/accel0", fake)).value();
  auto network = std::move(driver->create_network(NetworkDescription{sram_cmd, &sram_payload})).value();
  RegionTable regions{};
  ASSERT_TRUE(driver->invoke(*network, regions, InvokeOptions{}, nullptr).is_ok());
  EXPECT_EQ(fake.last_job.sram_size, 4096u);
  EXPECT_EQ(fake.last_job.region_bo_handles[2], 0u);
}

TEST_F(DrmFixture, Errors) {
  auto driver = std::move(open_drm_accel_driver("/dev/accel/accel0", fake)).value();
  auto network = std::move(driver->create_network(NetworkDescription{cmd_data, &payload})).value();
  auto scratch = std::move(driver->create_buffer(64)).value();
  RegionTable regions{};
  regions[1] = RegionBinding{scratch.get(), 64};
  Status unbound = driver->invoke(*network, regions, InvokeOptions{}, nullptr);  // region 0 used, unbound
  EXPECT_EQ(unbound.code(), Error::InvalidArgument);
  EXPECT_NE(unbound.message().find("uses region 0"), std::string::npos) << unbound.message();

  auto weights = std::move(driver->create_buffer(16)).value();
  regions[0] = RegionBinding{weights.get(), 16};
  fake.bo_wait_result = -ETIME;
  EXPECT_EQ(driver->invoke(*network, regions, InvokeOptions{}, nullptr).code(), Error::OutOfResources);
  fake.bo_wait_result = 0;
  fake.submit_result = -EINVAL;
  Status failed = driver->invoke(*network, regions, InvokeOptions{}, nullptr);
  EXPECT_EQ(failed.code(), Error::Internal);
  EXPECT_NE(failed.message().find("Ethos-U invocation failed on /dev/accel/accel0: SUBMIT"), std::string::npos);
  fake.submit_result = 0;

  fake.fail["CMDSTREAM_BO_CREATE"] = -EINVAL;  // the kernel's stream validator said no
  EXPECT_EQ(driver->create_network(NetworkDescription{cmd_data, &payload}).status().code(), Error::InvalidProgram);
  fake.fail["BO_MMAP_OFFSET"] = -ENOENT;
  EXPECT_EQ(driver->create_buffer(16).status().code(), Error::MemoryAllocationFailed);
}

TEST(DriverSelect, NoDeviceListsEveryPathTried) {
  FakeDevice fake;
  auto r = open_driver("", "", fake);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Error::NotFound);
  const std::string& m = r.status().message();
  for (const char* path : {"/dev/ethosu0", "/dev/ethosu3", "/dev/accel/accel0", "/dev/accel/accel3"}) {
    EXPECT_NE(m.find(std::string(path) + ": cannot open: No such file or directory"), std::string::npos) << m;
  }
  EXPECT_NE(m.find("EthosUBackend.driver"), std::string::npos) << m;
}

TEST(DriverSelect, AutoTakesTheFirstDeviceFound) {
  FakeDevice fake;
  fake.npu_info = {kIdU85_256, kConfigU85_256, 0};
  fake.add_node("/dev/accel/accel1", FakeDevice::Kind::Drm);
  auto drm = open_driver("auto", "", fake);
  ASSERT_TRUE(drm.ok()) << drm.status().to_string();
  EXPECT_EQ((*drm)->capabilities().driver, "drm-accel");
  EXPECT_EQ((*drm)->capabilities().device_path, "/dev/accel/accel1");

  fake.add_node("/dev/ethosu2", FakeDevice::Kind::Char);
  auto chr = open_driver("", "", fake);
  ASSERT_TRUE(chr.ok()) << chr.status().to_string();
  EXPECT_EQ((*chr)->capabilities().device_path, "/dev/ethosu2");  // character devices are tried first

  auto by_path = open_driver("", "/dev/accel/accel1", fake);
  ASSERT_TRUE(by_path.ok());
  EXPECT_EQ((*by_path)->capabilities().driver, "drm-accel");
  auto by_name = open_driver("drm-accel", "", fake);
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ((*by_name)->capabilities().device_path, "/dev/accel/accel1");

  auto missing = open_driver("ethosu-char", "/dev/ethosu9", fake);
  EXPECT_EQ(missing.status().code(), Error::NotFound);
  auto recording = open_driver("recording", "", fake);
  ASSERT_TRUE(recording.ok());
  EXPECT_EQ((*recording)->capabilities().driver, "recording");
  auto unknown = open_driver("vulkan", "", fake);
  EXPECT_EQ(unknown.status().code(), Error::InvalidArgument);
  EXPECT_NE(unknown.status().message().find("unknown driver 'vulkan'"), std::string::npos);
}

}  // namespace
}  // namespace vkrt::ethosu
