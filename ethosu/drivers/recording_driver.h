// A driver for tests: checks everything the runtime hands over (buffer alignment, region sizes,
// the command-stream header, regions the stream uses), records copies of the region contents at
// each invoke and writes the outputs a test set into the regions, as an NPU would.
//
// Selected with EthosUBackend.driver=recording; all recording drivers share the process-wide
// recording_driver_state(), which tests configure before loading and inspect after executing.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

#include "ethosu/driver.h"

namespace vkrt::ethosu {

inline constexpr const char* kRecordingDriverName = "recording";

// Records are bounded so that a runner executing a large stream many times stays small: the
// first kMaxRecordedInvocations invocations are kept, each region's first
// kMaxRecordedRegionBytes bytes.
inline constexpr size_t kMaxRecordedInvocations = 16;
inline constexpr size_t kMaxRecordedRegionBytes = size_t(16) << 20;

struct RecordedInvocation {
  std::vector<uint8_t> cmd_data;                           // the network's payload
  // Contents of each bound region (its first min(size, kMaxRecordedRegionBytes) bytes).
  std::array<std::vector<uint8_t>, kMaxRegions> regions;
  std::array<size_t, kMaxRegions> region_sizes{};          // each bound region's size
  std::array<bool, kMaxRegions> bound{};
  InvokeOptions options;
};

struct RecordingOutputWrite {
  int region = kRegionScratch;
  size_t offset = 0;
  std::vector<uint8_t> bytes;
};

class RecordingDriverState {
 public:
  RecordingDriverState() { reset(); }
  // Back to defaults: an Ethos-U55-128 (the conformance program's target), no writes, no records.
  void reset();

  // Configuration (set before the driver is opened / invoked).
  DriverCapabilities capabilities;
  std::vector<RecordingOutputWrite> output_writes;  // applied at every invoke
  Status invoke_status;                            // returned by invoke after the checks (Ok default)
  uint64_t cycle_count = 1234;                     // reported when the cycle counter is enabled
  uint64_t pmu_count_base = 100;                   // PMU slot i reports base + i when an event is set in it

  // Records.
  std::vector<RecordedInvocation> invocations;  // the first kMaxRecordedInvocations
  uint64_t invocation_count = 0;               // all of them
  std::vector<size_t> buffer_sizes;  // every create_buffer request, in order
  int networks_created = 0;
  int drivers_opened = 0;

  std::mutex mutex;  // guards everything above while a driver uses it
};

RecordingDriverState& recording_driver_state();

class RecordingDriver final : public Driver {
 public:
  explicit RecordingDriver(RecordingDriverState& state);
  const DriverCapabilities& capabilities() const override { return caps_; }
  Result<std::unique_ptr<DriverBuffer>> create_buffer(size_t bytes) override;
  Result<std::unique_ptr<DriverNetwork>> create_network(const NetworkDescription& network) override;
  Status invoke(DriverNetwork& network, const RegionTable& regions, const InvokeOptions& options,
                InvokeResult* result) override;

 private:
  RecordingDriverState& state_;
  DriverCapabilities caps_;  // copied at open
};

}  // namespace vkrt::ethosu
