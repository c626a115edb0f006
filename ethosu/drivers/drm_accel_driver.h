// Driver for the mainline Linux DRM accel driver `ethosu` (/dev/accel/accelN; U65/U85;
// docs/ethos-u.md §5.3).
//
// Sequence: open → DRM VERSION (name must be "ethosu") → DEV_QUERY(NPU_INFO); per buffer
// BO_CREATE → BO_MMAP_OFFSET → mmap; the command stream once CMDSTREAM_BO_CREATE with the bare
// stream (COP header stripped; the kernel validates it); per invoke SUBMIT one job with a BO per
// region the stream references → BO_WAIT on each bound region BO. GEM_CLOSE releases BOs.
#pragma once

#include <memory>
#include <string>

#include "ethosu/driver.h"
#include "ethosu/drivers/syscalls.h"

namespace vkrt::ethosu {

inline constexpr const char* kDrmAccelDriverName = "drm-accel";

// NotFound when the path cannot be opened; NotSupported when it is another accel driver.
Result<std::unique_ptr<Driver>> open_drm_accel_driver(const std::string& path, Syscalls& sys);

}  // namespace vkrt::ethosu
