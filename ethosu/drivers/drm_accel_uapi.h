// ioctl interface of the mainline Linux DRM accel driver `ethosu` (include/uapi/drm/ethosu_accel.h,
// MIT; docs/ethos-u.md §5.3) and the two generic DRM ioctls we use. Written here because the
// distribution's kernel headers may predate the driver.
#pragma once

#include <linux/ioctl.h>

#include <cstddef>
#include <cstdint>

namespace vkrt::ethosu::drm_uapi {

inline constexpr unsigned kDrmIoctlType = 'd';
inline constexpr unsigned kDrmCommandBase = 0x40;
inline constexpr int kMaxRegions = 8;

// Generic DRM (include/uapi/drm/drm.h).
struct Version {
  int version_major, version_minor, version_patchlevel;
  size_t name_len;
  char* name;
  size_t date_len;
  char* date;
  size_t desc_len;
  char* desc;
};
struct GemClose {
  uint32_t handle;
  uint32_t pad;
};

// ethosu_accel.h
enum QueryType : uint32_t { kQueryNpuInfo = 0 };
struct NpuInfo {
  uint32_t id;      // ID register
  uint32_t config;  // CONFIG register
  uint32_t sram_size;
};
struct DevQuery {
  uint32_t type;
  uint32_t size;
  uint64_t pointer;
};
struct BoCreate {
  uint64_t size;
  uint32_t flags;
  uint32_t handle;
};
struct BoWait {
  uint32_t handle;
  uint32_t pad;
  int64_t timeout_ns;  // absolute, CLOCK_MONOTONIC
};
struct BoMmapOffset {
  uint32_t handle;
  uint32_t pad;
  uint64_t offset;
};
struct CmdstreamBoCreate {
  uint32_t size;
  uint32_t flags;
  uint64_t data;
  uint32_t handle;
  uint32_t pad;
};
struct Job {
  uint32_t cmd_bo;
  uint32_t sram_size;
  uint32_t region_bo_handles[kMaxRegions];
};
struct Submit {
  uint64_t jobs;
  uint32_t job_count;
  uint32_t pad;
};

inline constexpr unsigned long kVersion = _IOWR(kDrmIoctlType, 0x00, Version);
inline constexpr unsigned long kGemClose = _IOW(kDrmIoctlType, 0x09, GemClose);
inline constexpr unsigned long kDevQuery = _IOWR(kDrmIoctlType, kDrmCommandBase + 0, DevQuery);
inline constexpr unsigned long kBoCreate = _IOWR(kDrmIoctlType, kDrmCommandBase + 1, BoCreate);
inline constexpr unsigned long kBoWait = _IOWR(kDrmIoctlType, kDrmCommandBase + 2, BoWait);
inline constexpr unsigned long kBoMmapOffset = _IOWR(kDrmIoctlType, kDrmCommandBase + 3, BoMmapOffset);
inline constexpr unsigned long kCmdstreamBoCreate =
    _IOWR(kDrmIoctlType, kDrmCommandBase + 4, CmdstreamBoCreate);
inline constexpr unsigned long kSubmit = _IOWR(kDrmIoctlType, kDrmCommandBase + 5, Submit);

static_assert(sizeof(Job) == 40 && sizeof(Submit) == 16 && sizeof(CmdstreamBoCreate) == 24);

}  // namespace vkrt::ethosu::drm_uapi
