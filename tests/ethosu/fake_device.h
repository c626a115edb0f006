// A fake kernel for the Linux Ethos-U drivers: implements the Syscalls table for /dev/ethosuN
// (character device) and /dev/accel/accelN (DRM accel) nodes, records every call in order and
// lets a test script what the "NPU" does (write output bytes) and how each call answers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ethosu/drivers/drm_accel_uapi.h"
#include "ethosu/drivers/ethosu_char_uapi.h"
#include "ethosu/drivers/syscalls.h"

namespace vkrt::ethosu::testing {

class FakeDevice final : public Syscalls {
 public:
  enum class Kind { Char, Drm };

  // Memory the fake hands out through mmap: 64-byte aligned, zero-filled.
  struct Memory {
    explicit Memory(size_t n)
        : size(n), data(static_cast<uint8_t*>(std::aligned_alloc(64, (n + 63) / 64 * 64 + 64)), &std::free) {
      std::fill(data.get(), data.get() + size, 0);
    }
    size_t size;
    std::unique_ptr<uint8_t, decltype(&std::free)> data;
  };
  // What the fake's "NPU" sees at an inference/job: region (or fd) -> bytes.
  using NpuEffect = std::function<void(FakeDevice&)>;

  void add_node(std::string path, Kind kind) { nodes_[std::move(path)] = kind; }

  // Character device answers.
  char_uapi::DriverVersion driver_version{4, 0, 0};
  char_uapi::Capabilities capabilities{};
  uint32_t inference_status = char_uapi::kOk;
  uint64_t cycle_count = 777;
  bool poll_times_out = false;
  // DRM answers.
  std::string drm_name = "ethosu";
  drm_uapi::NpuInfo npu_info{};
  int bo_wait_result = 0;
  int submit_result = 0;
  // Runs at INFERENCE_CREATE / SUBMIT (after the request was recorded).
  NpuEffect on_run;
  // Error injection: the named call ("BUFFER_CREATE", "open /dev/ethosu0", ...) returns this.
  std::map<std::string, int> fail;

  // Records.
  std::vector<std::string> calls;                        // "open /dev/ethosu0", "ioctl CAPABILITIES", ...
  std::vector<uint8_t> network_data;                     // NETWORK_CREATE / CMDSTREAM_BO_CREATE bytes
  char_uapi::InferenceCreate last_inference{};
  drm_uapi::Job last_job{};
  int64_t last_wait_deadline = 0;
  int open_fds() const { return int(fds_.size()); }

  // Memory behind a buffer fd (char) or BO handle (DRM); null when unknown.
  Memory* buffer_for_fd(int fd);
  Memory* bo(uint32_t handle);

  int open(const char* path, int flags) override;
  int close(int fd) override;
  int ioctl(int fd, unsigned long request, void* arg) override;
  int mmap(int fd, size_t length, off_t offset, void** address) override;
  int munmap(void* address, size_t length) override;
  int poll_in(int fd, int timeout_ms) override;

 private:
  enum class FdType { Device, Buffer, Network, Inference };
  struct Fd {
    FdType type;
    Kind kind;
    std::shared_ptr<Memory> memory;  // Buffer
  };
  int new_fd(Fd fd);
  int char_ioctl(int fd, Fd& f, unsigned long request, void* arg);
  int drm_ioctl(unsigned long request, void* arg);
  bool failing(const std::string& call, int* result);

  std::map<std::string, Kind> nodes_;
  std::map<int, Fd> fds_;
  int next_fd_ = 100;
  std::map<uint32_t, std::shared_ptr<Memory>> bos_;
  uint32_t next_handle_ = 1;
  std::vector<uint32_t> cmd_bos_;
};

}  // namespace vkrt::ethosu::testing
