// Driver for the Linux driver stack's character device /dev/ethosuN (Arm kernel driver ≥ 4.0,
// "Direct Drive" of COP2 command streams with separate IO regions; docs/ethos-u.md §3.3, §5.2).
//
// Sequence: open → DRIVER_VERSION_GET → CAPABILITIES_REQ; per buffer BUFFER_CREATE → mmap;
// the command stream once NETWORK_CREATE (user buffer) → NETWORK_INFO; per invoke
// INFERENCE_CREATE on the network fd → poll → INFERENCE_STATUS (INFERENCE_CANCEL on timeout).
#pragma once

#include <memory>
#include <string>

#include "ethosu/driver.h"
#include "ethosu/drivers/syscalls.h"

namespace vkrt::ethosu {

inline constexpr const char* kEthosuCharDriverName = "ethosu-char";

// NotFound when the path cannot be opened; NotSupported when the device is not a driver ≥ 4.0.
Result<std::unique_ptr<Driver>> open_ethosu_char_driver(const std::string& path, Syscalls& sys);

}  // namespace vkrt::ethosu
