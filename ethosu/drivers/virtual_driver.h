// The virtual driver: runs the command stream on the virtual NPU (virtual/virtual_npu.h) on the host
// CPU instead of handing it to a device, so that every Ethos-U55/U65 program runs, with computed
// outputs, on any Linux host (EthosUBackend.driver=virtual, executor_runner --ethosu_driver virtual).
//
// It accepts COP1 and COP2 payloads for any U55/U65 configuration (the stream says which; there is
// no hardware to be compatible with) and refuses U85 streams. The cycle count it reports is the
// virtual NPU's estimate (virtual/performance_model.h), not a measurement; PMU counters are not modelled.
#pragma once

#include "ethosu/driver.h"

namespace vkrt::ethosu {

inline constexpr const char* kVirtualDriverName = "virtual";

Result<std::unique_ptr<Driver>> open_virtual_driver();

}  // namespace vkrt::ethosu
