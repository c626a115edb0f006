// /dev/ethosuN driver (see ethosu_char_driver.h).
#include "ethosu/drivers/ethosu_char_driver.h"

#include <fcntl.h>

#include <cstring>

#include "ethosu/drivers/ethosu_char_uapi.h"

namespace vkrt::ethosu {
namespace {

namespace uapi = char_uapi;

std::string errno_text(int negative_errno) { return std::strerror(-negative_errno); }

class CharBuffer final : public DriverBuffer {
 public:
  CharBuffer(Syscalls& sys, int fd, void* data, size_t size) : sys_(sys), fd_(fd), data_(data), size_(size) {}
  ~CharBuffer() override {
    (void)sys_.munmap(data_, size_);
    (void)sys_.close(fd_);
  }
  std::span<uint8_t> data() override { return {static_cast<uint8_t*>(data_), size_}; }
  int fd() const { return fd_; }

 private:
  Syscalls& sys_;
  int fd_;
  void* data_;
  size_t size_;
};

class CharNetwork final : public DriverNetwork {
 public:
  CharNetwork(Syscalls& sys, int fd) : sys_(sys), fd_(fd) {}
  ~CharNetwork() override { (void)sys_.close(fd_); }
  int fd() const { return fd_; }

 private:
  Syscalls& sys_;
  int fd_;
};

class EthosuCharDriver final : public Driver {
 public:
  EthosuCharDriver(Syscalls& sys, int fd, DriverCapabilities caps) : sys_(sys), fd_(fd), caps_(std::move(caps)) {}
  ~EthosuCharDriver() override { (void)sys_.close(fd_); }

  const DriverCapabilities& capabilities() const override { return caps_; }

  Result<std::unique_ptr<DriverBuffer>> create_buffer(size_t bytes) override {
    VKRT_CHECK_OR_RETURN(bytes > 0 && bytes <= UINT32_MAX, InvalidArgument, caps_.device_path,
                         ": buffer size ", bytes, " out of range");
    uapi::BufferCreate request{uint32_t(bytes)};
    int buffer_fd = sys_.ioctl(fd_, uapi::kBufferCreate, &request);
    VKRT_CHECK_OR_RETURN(buffer_fd >= 0, MemoryAllocationFailed, caps_.device_path,
                         ": BUFFER_CREATE of ", bytes, " bytes failed: ", errno_text(buffer_fd));
    void* data = nullptr;
    int r = sys_.mmap(buffer_fd, bytes, 0, &data);
    if (r < 0) {
      (void)sys_.close(buffer_fd);
      return make_error(Error::MemoryAllocationFailed, caps_.device_path, ": mmap of a ", bytes,
                        "-byte buffer failed: ", errno_text(r));
    }
    std::memset(data, 0, bytes);
    return std::unique_ptr<DriverBuffer>(new CharBuffer(sys_, buffer_fd, data, bytes));
  }

  Result<std::unique_ptr<DriverNetwork>> create_network(const NetworkDescription& network) override {
    VKRT_CHECK_OR_RETURN(network.payload->format == CopFormat::Cop2, NotSupported, caps_.device_path,
                         ": the character device runs COP2 command streams only (compile with "
                         "--cop-format=COP2 --separate-io-regions)");
    uapi::NetworkCreate request{};
    request.type = uapi::kNetworkUserBuffer;
    request.network.data_ptr = reinterpret_cast<uintptr_t>(network.cmd_data.data());
    request.network.size = uint32_t(network.cmd_data.size());
    int net_fd = sys_.ioctl(fd_, uapi::kNetworkCreate, &request);
    VKRT_CHECK_OR_RETURN(net_fd >= 0, InvalidProgram, caps_.device_path,
                         ": NETWORK_CREATE rejected the command stream: ", errno_text(net_fd));
    auto net = std::make_unique<CharNetwork>(sys_, net_fd);
    uapi::NetworkInfo info{};
    int r = sys_.ioctl(net_fd, uapi::kNetworkInfo, &info);
    VKRT_CHECK_OR_RETURN(r >= 0, Internal, caps_.device_path, ": NETWORK_INFO failed: ", errno_text(r));
    return std::unique_ptr<DriverNetwork>(std::move(net));
  }

  Status invoke(DriverNetwork& network, const RegionTable& regions, const InvokeOptions& options,
                InvokeResult* result) override {
    auto* net = dynamic_cast<CharNetwork*>(&network);
    VKRT_CHECK_OR_RETURN(net != nullptr, InvalidArgument, caps_.device_path,
                         ": network was not created by this driver");
    auto fd_of = [](const RegionBinding& r) -> int {
      auto* b = dynamic_cast<CharBuffer*>(r.buffer);
      return b ? b->fd() : -1;
    };
    for (int i = 0; i < kMaxRegions; ++i) {
      VKRT_CHECK_OR_RETURN(regions[i].buffer == nullptr || fd_of(regions[i]) >= 0, InvalidArgument,
                           caps_.device_path, ": region ", i, " buffer was not created by this driver");
    }
    VKRT_CHECK_OR_RETURN(regions[kRegionInputs].buffer && regions[kRegionOutputs].buffer, InvalidArgument,
                         caps_.device_path, ": Direct Drive needs input (3) and output (4) region buffers");
    uapi::InferenceCreate request{};
    request.ifm_count = 1;
    request.ifm_fd[0] = uint32_t(fd_of(regions[kRegionInputs]));
    request.ofm_count = 1;
    request.ofm_fd[0] = uint32_t(fd_of(regions[kRegionOutputs]));
    for (int i = 0; i < uapi::kPmuEventMax; ++i) request.pmu_config.events[i] = options.pmu_events[size_t(i)];
    request.pmu_config.cycle_count = options.enable_cycle_counter ? 1 : 0;
    request.intermediate_fd = fd_of(regions[kRegionScratch]);
    request.constant_fd = fd_of(regions[kRegionWeights]);
    int inference_fd = sys_.ioctl(net->fd(), uapi::kInferenceCreate, &request);
    VKRT_CHECK_OR_RETURN(inference_fd >= 0, Internal, caps_.device_path,
                         ": INFERENCE_CREATE failed: ", errno_text(inference_fd));
    Status status = wait_and_collect(inference_fd, options, result);
    (void)sys_.close(inference_fd);
    return status;
  }

 private:
  Status wait_and_collect(int inference_fd, const InvokeOptions& options, InvokeResult* result) {
    int timeout_ms = options.timeout_ns < 0 ? -1
                     : options.timeout_ns / 1'000'000 > INT32_MAX ? INT32_MAX
                                                                  : int(options.timeout_ns / 1'000'000);
    int ready = sys_.poll_in(inference_fd, timeout_ms);
    if (ready == 0) {
      uapi::CancelStatus cancel{};
      (void)sys_.ioctl(inference_fd, uapi::kInferenceCancel, &cancel);
      return make_error(Error::OutOfResources, caps_.device_path, ": inference timed out after ",
                        timeout_ms, " ms (cancelled)");
    }
    VKRT_CHECK_OR_RETURN(ready > 0, Internal, caps_.device_path, ": waiting for the inference failed: ",
                         errno_text(ready));
    uapi::ResultStatus status{};
    int r = sys_.ioctl(inference_fd, uapi::kInferenceStatus, &status);
    VKRT_CHECK_OR_RETURN(r >= 0, Internal, caps_.device_path, ": INFERENCE_STATUS failed: ", errno_text(r));
    static const char* const kNames[] = {"OK", "ERROR", "RUNNING", "REJECTED", "ABORTED", "ABORTING"};
    VKRT_CHECK_OR_RETURN(status.status == uapi::kOk, Internal, "Ethos-U invocation failed on ",
                         caps_.device_path, ": inference status ",
                         status.status < 6 ? kNames[status.status] : "unknown", " (", status.status, ")");
    if (result) {
      *result = InvokeResult{};
      result->cycle_count_valid = status.pmu_config.cycle_count != 0;
      result->cycle_count = status.pmu_count.cycle_count;
      result->pmu_event_count = uapi::kPmuEventMax;
      for (int i = 0; i < uapi::kPmuEventMax; ++i) result->pmu_counts[size_t(i)] = status.pmu_count.events[i];
    }
    return Status::ok();
  }

  Syscalls& sys_;
  int fd_;
  DriverCapabilities caps_;
};

// The capabilities report has no product field; arch major 2 is U85, otherwise U55 and U65 share
// architecture 1.x and only the MAC count may tell them apart (512 exists on U65 only).
NpuArch arch_from_capabilities(const uapi::Capabilities& c, bool* product_known) {
  NpuArch arch;
  uint32_t macs_code = c.hw_cfg.macs_per_cc;
  arch.macs_per_cycle = macs_code < 16 ? (1u << macs_code) : macs_code;
  arch.cmd_stream_version = c.hw_cfg.cmd_stream_version;
  arch.arch_major = c.hw_id.arch_major_rev;
  arch.arch_minor = c.hw_id.arch_minor_rev;
  arch.arch_patch = c.hw_id.arch_patch_rev;
  *product_known = true;
  if (arch.arch_major == 2) {
    arch.product = NpuProduct::U85;
  } else if (arch.macs_per_cycle == 512) {
    arch.product = NpuProduct::U65;
  } else if (arch.macs_per_cycle < 256) {
    arch.product = NpuProduct::U55;
  } else {
    arch.product = NpuProduct::U55;
    *product_known = false;
  }
  return arch;
}

}  // namespace

Result<std::unique_ptr<Driver>> open_ethosu_char_driver(const std::string& path, Syscalls& sys) {
  int fd = sys.open(path.c_str(), O_RDWR | O_NONBLOCK);
  VKRT_CHECK_OR_RETURN(fd >= 0, NotFound, path, ": cannot open: ", errno_text(fd));
  auto fail = [&](Status s) { (void)sys.close(fd); return s; };
  uapi::DriverVersion version{};
  int r = sys.ioctl(fd, uapi::kDriverVersion, &version);
  if (r < 0) {
    return fail(make_error(Error::NotSupported, path, ": DRIVER_VERSION_GET failed (",
                           errno_text(r), "); not an Arm Ethos-U kernel driver >= 4.0"));
  }
  if (version.major < 4) {
    return fail(make_error(Error::NotSupported, path, ": kernel driver ", version.major, ".",
                           version.minor, ".", version.patch, " is older than 4.0"));
  }
  uapi::Capabilities c{};
  r = sys.ioctl(fd, uapi::kCapabilities, &c);
  if (r < 0) return fail(make_error(Error::Internal, path, ": CAPABILITIES_REQ failed: ", errno_text(r)));
  DriverCapabilities caps;
  caps.driver = kEthosuCharDriverName;
  caps.device_path = path;
  caps.driver_version = std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
                        std::to_string(version.patch);
  bool product_known = false;
  caps.arch = arch_from_capabilities(c, &product_known);
  caps.arch_known = product_known;
  caps.accepts_cop1 = false;
  caps.accepts_cop2 = true;
  caps.requires_separate_io = true;
  caps.has_cycle_counter = true;
  caps.pmu_event_slots = uapi::kPmuEventMax;
  return std::unique_ptr<Driver>(new EthosuCharDriver(sys, fd, std::move(caps)));
}

}  // namespace vkrt::ethosu
