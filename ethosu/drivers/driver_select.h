// Opening a driver by name (EthosUBackend.driver / .device), or the first device found.
#pragma once

#include <memory>
#include <string_view>

#include "ethosu/driver.h"
#include "ethosu/drivers/syscalls.h"

namespace vkrt::ethosu {

// driver: "", "auto", "ethosu-char", "drm-accel", "virtual" or "recording"; device: a node path or "".
// With no device found: NotFound listing every path tried and why it failed.
// An unknown driver name: InvalidArgument listing the known ones.
Result<std::unique_ptr<Driver>> open_driver(std::string_view driver, std::string_view device,
                                            Syscalls& sys = active_syscalls());

}  // namespace vkrt::ethosu
