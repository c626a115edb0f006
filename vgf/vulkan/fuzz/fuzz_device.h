// The device vulkan_cache_fuzzer checks cache files against, and its seeds were written for
// (runtime/fuzz/make_fuzz_seeds.cpp): fixed ids, device UUID all 0x11, pipeline-cache UUID all 0x22.
#pragma once

#include "vgf/vulkan/context.h"

namespace vkrt::vulkan::fuzzing {

inline DeviceInfo fuzz_device() {
  DeviceInfo d;
  d.driver_version = 0x01020304;
  d.vendor_id = 0x10005;
  d.device_id = 0;
  d.device_uuid.fill(0x11);
  d.pipeline_cache_uuid.fill(0x22);
  return d;
}

}  // namespace vkrt::vulkan::fuzzing
