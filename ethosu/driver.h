// The Ethos-U driver interface: what EthosUBackend needs from an NPU driver.
//
// Life cycle (mirrors the Linux driver stacks, docs/ethos-u.md §3.3, §5): at delegate init the
// backend asks for the capabilities, creates buffers for the regions (0 weights, 1 scratch, 2 fast
// scratch, 3/4 inputs/outputs of separate-IO streams), hands over the command stream once
// (create_network), and at execute fills the buffers and calls invoke() with the region table.
// Buffers are CPU-mapped, so execute copies and invokes without allocating.
//
// Implementations: drivers/ethosu_char_driver (/dev/ethosuN), drivers/drm_accel_driver
// (/dev/accel/accelN), drivers/recording_driver (tests). drivers/driver_select opens one by name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ethosu/format/driver_payload.h"
#include "ethosu/format/vela_bin_stream.h"
#include "vkrt/error.h"

namespace vkrt::ethosu {

inline constexpr int kMaxPmuEvents = 8;
// Region buffers and the command stream must be 16-byte aligned (core driver rule).
inline constexpr size_t kNpuBufferAlignment = 16;

struct DriverCapabilities {
  std::string driver;         // "ethosu-char", "drm-accel", "recording"
  std::string device_path;    // "/dev/ethosu0", ... ("" when there is no device node)
  std::string driver_version; // kernel driver version when reported, e.g. "4.0.0"
  // The hardware, when the driver reports it; the backend checks the stream's target against it.
  bool arch_known = false;
  NpuArch arch;
  bool accepts_cop1 = true;
  bool accepts_cop2 = true;
  // The character device's Direct Drive passes inputs and outputs as separate buffers, so it needs
  // streams compiled with --separate-io-regions (regions 3/4).
  bool requires_separate_io = false;
  size_t sram_bytes = 0;          // on-chip SRAM the driver binds to region 2 itself (DRM sram_size)
  bool has_cycle_counter = false;
  bool cycle_count_estimated = false;  // the virtual NPU's performance model, not a counter
  int pmu_event_slots = 0;        // PMU event counters per inference (0 = none)
  // False for drivers that accept and check everything but run nothing (the recording
  // driver): users are told that the outputs are not computed.
  bool computes_outputs = true;
};

// Memory the NPU can address, mapped for the CPU. Owned by whoever created it; destroyed before
// its driver.
class DriverBuffer {
 public:
  virtual ~DriverBuffer() = default;
  // CPU view, at least the size asked for and 16-byte aligned.
  virtual std::span<uint8_t> data() = 0;
};

// A command stream the driver has accepted (a network fd, a command-stream BO, ...).
class DriverNetwork {
 public:
  virtual ~DriverNetwork() = default;
};

struct NetworkDescription {
  std::span<const uint8_t> cmd_data;  // the whole COP1/COP2 payload; lives as long as the program
  const DriverPayload* payload = nullptr;  // cmd_data parsed; never null
  // The whole delegate payload (weights, scratch size, I/O placement), for drivers that check
  // what they are handed; may be null. Lives as long as the network.
  const VelaBinStream* stream = nullptr;
};

// Base pointer r of the command stream -> buffer. `size` is the byte count the stream may touch
// (≤ the buffer's size); an unbound region has buffer == nullptr and size 0.
struct RegionBinding {
  DriverBuffer* buffer = nullptr;
  size_t size = 0;
};
using RegionTable = std::array<RegionBinding, kMaxRegions>;

struct InvokeOptions {
  int64_t timeout_ns = 60'000'000'000;  // ExecuTorch's default (60 s); < 0 waits forever
  bool enable_cycle_counter = true;
  std::array<uint32_t, kMaxPmuEvents> pmu_events{};  // event ids; 0 = counter unused
};

struct InvokeResult {
  bool cycle_count_valid = false;
  uint64_t cycle_count = 0;
  int pmu_event_count = 0;  // valid entries in pmu_counts
  std::array<uint64_t, kMaxPmuEvents> pmu_counts{};
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual const DriverCapabilities& capabilities() const = 0;
  // A zero-filled buffer of at least `bytes` (> 0) bytes.
  virtual Result<std::unique_ptr<DriverBuffer>> create_buffer(size_t bytes) = 0;
  virtual Result<std::unique_ptr<DriverNetwork>> create_network(const NetworkDescription& network) = 0;
  // Runs the network once and waits for it (up to options.timeout_ns). Errors: NotSupported,
  // InvalidArgument (bad regions), Internal (the device reported a failure), OutOfResources
  // (timeout); the message names the device and the failing step.
  virtual Status invoke(DriverNetwork& network, const RegionTable& regions,
                        const InvokeOptions& options, InvokeResult* result) = 0;
};

}  // namespace vkrt::ethosu
