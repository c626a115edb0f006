// ioctl interface of the Linux driver stack's character device /dev/ethosuN (Arm kernel driver
// 4.0.0 and the Direct Drive additions; docs/ethos-u.md §5.2). Written from the documented
// facts: ioctl type 0x01, the numbers, field lists and the user library's use of them
// (Arm-Examples/Paddle-on-Ethos-U linux_driver_stack/driver_library/src/ethosu.cpp). Field orders
// marked UNVERIFIED are our reading and must be checked against the uapi header of the kernel
// driver before use on hardware.
#pragma once

#include <linux/ioctl.h>

#include <cstdint>

namespace vkrt::ethosu::char_uapi {

inline constexpr unsigned kIoctlType = 0x01;
inline constexpr int kFdMax = 16;         // IFM/OFM buffers per inference
inline constexpr int kPmuEventMax = 8;    // Arm driver 4.0.0 (NXP fork: 4)

enum Status : uint32_t { kOk = 0, kError, kRunning, kRejected, kAborted, kAborting };
enum NetworkType : uint32_t { kNetworkUserBuffer = 1, kNetworkIndex = 2 };
enum DeviceType : uint32_t { kDeviceUnknown = 0, kDeviceSubsystem = 1, kDeviceDirect = 2 };

struct DriverVersion {
  uint32_t major, minor, patch;
};

struct HardwareId {
  uint32_t version_status, version_minor, version_major, product_major;
  uint32_t arch_patch_rev, arch_minor_rev, arch_major_rev;
};

struct HardwareConfig {  // `type` appended by driver 4.0.0 (UNVERIFIED position)
  uint32_t macs_per_cc;  // log2 of the MAC count, as in the CONFIG register
  uint32_t cmd_stream_version;
  uint32_t custom_dma;
  uint32_t type;         // DeviceType
};

struct Capabilities {
  HardwareId hw_id;
  HardwareConfig hw_cfg;
  uint32_t driver_patch_rev, driver_minor_rev, driver_major_rev;
};

struct BufferCreate {
  uint32_t size;
};

struct NetworkCreate {
  uint32_t type;  // NetworkType
  union {
    struct {
      uint64_t data_ptr;  // user buffer the kernel copies
      uint32_t size;
    } network;
    uint32_t index;
  };
};

struct NetworkInfo {
  char desc[32];
  uint32_t ifm_count;
  uint32_t ifm_size[kFdMax];
  uint32_t ofm_count;
  uint32_t ofm_size[kFdMax];
};

struct PmuConfig {
  uint32_t events[kPmuEventMax];
  uint32_t cycle_count;  // non-zero enables the cycle counter
};

struct PmuCounts {
  uint32_t events[kPmuEventMax];
  uint64_t cycle_count;
};

// Driver 4.0.0 inference request, plus the Direct Drive (26.05) intermediate (region 1) and
// constant (region 0) buffers, appended (UNVERIFIED layout; -1 = none).
struct InferenceCreate {
  uint32_t ifm_count;
  uint32_t ifm_fd[kFdMax];
  uint32_t ofm_count;
  uint32_t ofm_fd[kFdMax];
  PmuConfig pmu_config;
  int32_t intermediate_fd;
  int32_t constant_fd;
};

struct ResultStatus {
  uint32_t status;  // Status
  PmuConfig pmu_config;
  PmuCounts pmu_count;
};

struct CancelStatus {
  uint32_t status;
};

// The driver stack declares every request with _IOR (even those it reads).
inline constexpr unsigned long kPing = _IO(kIoctlType, 0x00);
inline constexpr unsigned long kCapabilities = _IOR(kIoctlType, 0x02, Capabilities);
inline constexpr unsigned long kDriverVersion = _IOR(kIoctlType, 0x03, DriverVersion);
inline constexpr unsigned long kBufferCreate = _IOR(kIoctlType, 0x10, BufferCreate);
inline constexpr unsigned long kNetworkCreate = _IOR(kIoctlType, 0x20, NetworkCreate);
inline constexpr unsigned long kNetworkInfo = _IOR(kIoctlType, 0x21, NetworkInfo);
inline constexpr unsigned long kInferenceCreate = _IOR(kIoctlType, 0x30, InferenceCreate);
inline constexpr unsigned long kInferenceStatus = _IOR(kIoctlType, 0x31, ResultStatus);
inline constexpr unsigned long kInferenceCancel = _IOR(kIoctlType, 0x32, CancelStatus);

}  // namespace vkrt::ethosu::char_uapi
