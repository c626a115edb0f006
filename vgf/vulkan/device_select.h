// Which Vulkan physical device an executor uses.
//
// Rule (docs/vulkan-executor.md): an explicit selector — VgfOptions::device (the backend option
// "VgfBackend.device", else the env var VKRT_VULKAN_DEVICE, as parse_vgf_options reads them) — is
// either a decimal index into the enumeration order or a case-insensitive substring of the device
// name; otherwise the first discrete GPU, else the first integrated GPU, else the first virtual
// GPU, else the first CPU implementation (lavapipe).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class DeviceKind { Other = 0, IntegratedGpu = 1, DiscreteGpu = 2, VirtualGpu = 3, Cpu = 4 };

struct DeviceCandidate {
  std::string name;
  DeviceKind kind = DeviceKind::Other;
};

// Index of the chosen candidate. NotFound when there are no candidates, the index is out of
// range, or no name contains the substring (the message lists the available devices).
Result<size_t> choose_device(std::span<const DeviceCandidate> candidates, std::string_view selector);

}  // namespace vkrt::vulkan
