#include "vgf/vulkan/device_select.h"

#include <algorithm>
#include <cctype>

namespace vkrt::vulkan {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string device_list(std::span<const DeviceCandidate> candidates) {
  std::string out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(i) + ": " + candidates[i].name;
  }
  return out;
}

int kind_rank(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::DiscreteGpu: return 0;
    case DeviceKind::IntegratedGpu: return 1;
    case DeviceKind::VirtualGpu: return 2;
    case DeviceKind::Cpu: return 3;
    default: return 4;
  }
}

}  // namespace

Result<size_t> choose_device(std::span<const DeviceCandidate> candidates, std::string_view selector) {
  if (candidates.empty()) return make_error(Error::NotFound, "no Vulkan device found");
  if (!selector.empty()) {
    bool all_digits = std::all_of(selector.begin(), selector.end(),
                                  [](unsigned char c) { return std::isdigit(c) != 0; });
    if (all_digits && selector.size() <= 9) {
      size_t index = std::stoul(std::string(selector));
      if (index >= candidates.size()) {
        return make_error(Error::NotFound, "Vulkan device index ", index, " out of range (devices: ",
                          device_list(candidates), ")");
      }
      return index;
    }
    std::string needle = lower(selector);
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (lower(candidates[i].name).find(needle) != std::string::npos) return i;
    }
    return make_error(Error::NotFound, "no Vulkan device name contains \"", std::string(selector),
                      "\" (devices: ", device_list(candidates), ")");
  }
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (kind_rank(candidates[i].kind) < kind_rank(candidates[best].kind)) best = i;
  }
  return best;
}

}  // namespace vkrt::vulkan
