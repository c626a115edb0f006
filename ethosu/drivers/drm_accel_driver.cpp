// /dev/accel/accelN driver (see drm_accel_driver.h).
#include "ethosu/drivers/drm_accel_driver.h"

#include <fcntl.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "ethosu/drivers/drm_accel_uapi.h"

namespace vkrt::ethosu {
namespace {

namespace uapi = drm_uapi;

std::string errno_text(int negative_errno) { return std::strerror(-negative_errno); }

void close_handle(Syscalls& sys, int fd, uint32_t handle) {
  uapi::GemClose request{handle, 0};
  (void)sys.ioctl(fd, uapi::kGemClose, &request);
}

class DrmBuffer final : public DriverBuffer {
 public:
  DrmBuffer(Syscalls& sys, int fd, uint32_t handle, void* data, size_t size)
      : sys_(sys), fd_(fd), handle_(handle), data_(data), size_(size) {}
  ~DrmBuffer() override {
    (void)sys_.munmap(data_, size_);
    close_handle(sys_, fd_, handle_);
  }
  std::span<uint8_t> data() override { return {static_cast<uint8_t*>(data_), size_}; }
  uint32_t handle() const { return handle_; }

 private:
  Syscalls& sys_;
  int fd_;
  uint32_t handle_;
  void* data_;
  size_t size_;
};

class DrmNetwork final : public DriverNetwork {
 public:
  DrmNetwork(Syscalls& sys, int fd, uint32_t handle, uint8_t regions)
      : sys_(sys), fd_(fd), handle_(handle), regions_referenced_(regions) {}
  ~DrmNetwork() override { close_handle(sys_, fd_, handle_); }
  uint32_t handle() const { return handle_; }
  uint8_t regions_referenced() const { return regions_referenced_; }

 private:
  Syscalls& sys_;
  int fd_;
  uint32_t handle_;
  uint8_t regions_referenced_;
};

class DrmAccelDriver final : public Driver {
 public:
  DrmAccelDriver(Syscalls& sys, int fd, DriverCapabilities caps) : sys_(sys), fd_(fd), caps_(std::move(caps)) {}
  ~DrmAccelDriver() override { (void)sys_.close(fd_); }

  const DriverCapabilities& capabilities() const override { return caps_; }

  Result<std::unique_ptr<DriverBuffer>> create_buffer(size_t bytes) override {
    VKRT_CHECK_OR_RETURN(bytes > 0, InvalidArgument, caps_.device_path, ": empty buffer requested");
    uapi::BoCreate create{};
    create.size = bytes;
    int r = sys_.ioctl(fd_, uapi::kBoCreate, &create);
    VKRT_CHECK_OR_RETURN(r >= 0, MemoryAllocationFailed, caps_.device_path, ": BO_CREATE of ", bytes,
                         " bytes failed: ", errno_text(r));
    uapi::BoMmapOffset offset{};
    offset.handle = create.handle;
    r = sys_.ioctl(fd_, uapi::kBoMmapOffset, &offset);
    if (r < 0) {
      close_handle(sys_, fd_, create.handle);
      return make_error(Error::MemoryAllocationFailed, caps_.device_path, ": BO_MMAP_OFFSET failed: ",
                        errno_text(r));
    }
    void* data = nullptr;
    r = sys_.mmap(fd_, bytes, off_t(offset.offset), &data);
    if (r < 0) {
      close_handle(sys_, fd_, create.handle);
      return make_error(Error::MemoryAllocationFailed, caps_.device_path, ": mmap of BO ",
                        create.handle, " failed: ", errno_text(r));
    }
    std::memset(data, 0, bytes);
    return std::unique_ptr<DriverBuffer>(new DrmBuffer(sys_, fd_, create.handle, data, bytes));
  }

  Result<std::unique_ptr<DriverNetwork>> create_network(const NetworkDescription& network) override {
    // The kernel parses the bare command stream itself: hand over the words without the COP header.
    auto stream = network.payload->command_stream;
    uapi::CmdstreamBoCreate create{};
    create.size = uint32_t(stream.size());
    create.data = reinterpret_cast<uintptr_t>(stream.data());
    int r = sys_.ioctl(fd_, uapi::kCmdstreamBoCreate, &create);
    VKRT_CHECK_OR_RETURN(r >= 0, InvalidProgram, caps_.device_path,
                         ": CMDSTREAM_BO_CREATE rejected the command stream: ", errno_text(r));
    return std::unique_ptr<DriverNetwork>(
        new DrmNetwork(sys_, fd_, create.handle, network.payload->summary.regions_referenced));
  }

  Status invoke(DriverNetwork& network, const RegionTable& regions, const InvokeOptions& options,
                InvokeResult* result) override {
    auto* net = dynamic_cast<DrmNetwork*>(&network);
    VKRT_CHECK_OR_RETURN(net != nullptr, InvalidArgument, caps_.device_path,
                         ": network was not created by this driver");
    uapi::Job job{};
    job.cmd_bo = net->handle();
    for (int i = 0; i < kMaxRegions; ++i) {
      bool referenced = (net->regions_referenced() >> i) & 1;
      if (!referenced) continue;  // the kernel rejects a BO for a region the stream does not use
      auto* buffer = dynamic_cast<DrmBuffer*>(regions[size_t(i)].buffer);
      if (buffer) {
        job.region_bo_handles[i] = buffer->handle();
      } else if (i == kRegionFastScratch && caps_.sram_bytes > 0) {
        job.sram_size = uint32_t(caps_.sram_bytes);  // region 2 = on-chip SRAM
      } else {
        return make_error(Error::InvalidArgument, caps_.device_path, ": the command stream uses region ",
                          i, " but no buffer from this driver is bound to it");
      }
    }
    uapi::Submit submit{};
    submit.jobs = reinterpret_cast<uintptr_t>(&job);
    submit.job_count = 1;
    int r = sys_.ioctl(fd_, uapi::kSubmit, &submit);
    VKRT_CHECK_OR_RETURN(r >= 0, Internal, "Ethos-U invocation failed on ", caps_.device_path,
                         ": SUBMIT: ", errno_text(r));
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t deadline = options.timeout_ns < 0 ? INT64_MAX
                       : int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec + options.timeout_ns;
    for (int i = 0; i < kMaxRegions; ++i) {
      if (job.region_bo_handles[i] == 0) continue;
      uapi::BoWait wait{job.region_bo_handles[i], 0, deadline};
      r = sys_.ioctl(fd_, uapi::kBoWait, &wait);
      VKRT_CHECK_OR_RETURN(r != -ETIME && r != -ETIMEDOUT, OutOfResources, caps_.device_path,
                           ": job timed out after ", options.timeout_ns / 1'000'000, " ms");
      VKRT_CHECK_OR_RETURN(r >= 0, Internal, "Ethos-U invocation failed on ", caps_.device_path,
                           ": BO_WAIT on region ", i, ": ", errno_text(r));
    }
    if (result) *result = InvokeResult{};  // no perfmon support yet: no counters
    return Status::ok();
  }

 private:
  Syscalls& sys_;
  int fd_;
  DriverCapabilities caps_;
};

}  // namespace

Result<std::unique_ptr<Driver>> open_drm_accel_driver(const std::string& path, Syscalls& sys) {
  int fd = sys.open(path.c_str(), O_RDWR);
  VKRT_CHECK_OR_RETURN(fd >= 0, NotFound, path, ": cannot open: ", errno_text(fd));
  auto fail = [&](Status s) { (void)sys.close(fd); return s; };
  char name[32] = {};
  uapi::Version version{};
  version.name = name;
  version.name_len = sizeof(name) - 1;
  int r = sys.ioctl(fd, uapi::kVersion, &version);
  if (r < 0) return fail(make_error(Error::NotSupported, path, ": DRM VERSION failed: ", errno_text(r)));
  name[sizeof(name) - 1] = 0;
  if (std::strcmp(name, "ethosu") != 0) {
    return fail(make_error(Error::NotSupported, path, ": accel driver is '", name, "', not 'ethosu'"));
  }
  uapi::NpuInfo info{};
  uapi::DevQuery query{};
  query.type = uapi::kQueryNpuInfo;
  query.size = sizeof(info);
  query.pointer = reinterpret_cast<uintptr_t>(&info);
  r = sys.ioctl(fd, uapi::kDevQuery, &query);
  if (r < 0) return fail(make_error(Error::Internal, path, ": DEV_QUERY failed: ", errno_text(r)));
  auto arch = decode_npu_arch(info.config, info.id);
  if (!arch.ok()) return fail(Status(arch.status()).with_context(path + ": DEV_QUERY"));
  DriverCapabilities caps;
  caps.driver = kDrmAccelDriverName;
  caps.device_path = path;
  caps.driver_version = std::to_string(version.version_major) + "." +
                        std::to_string(version.version_minor) + "." +
                        std::to_string(version.version_patchlevel);
  caps.arch_known = true;
  caps.arch = *arch;
  caps.sram_bytes = info.sram_size;
  caps.accepts_cop1 = true;
  caps.accepts_cop2 = true;
  return std::unique_ptr<Driver>(new DrmAccelDriver(sys, fd, std::move(caps)));
}

}  // namespace vkrt::ethosu
