// EthosUBackend options (LoadOptions::backend_options). The backend is registered as
// "EthosUBackend" and, for ExecuTorch v0.4/v0.5 programs, "ArmBackend"; both read these keys.
//
//   EthosUBackend.driver   "auto" (default: the first device found, /dev/ethosu0..3 then
//                          /dev/accel/accel0..3), "ethosu-char" (Linux driver stack character
//                          device), "drm-accel" (mainline DRM accel driver), "virtual" (runs
//                          U55/U65 streams on the host CPU: the virtual NPU), "recording" (test
//                          driver: checks what it is handed and returns preset outputs)
//   EthosUBackend.device   device node, e.g. "/dev/ethosu1" or "/dev/accel/accel0"
//   EthosUBackend.timeout_ns            per-inference timeout (default 60 000 000 000; < 0 = none)
//   EthosUBackend.enable_cycle_counter  "1" (default) / "0"
//   EthosUBackend.pmu_event<N>          PMU event id for counter N (0..7), e.g. pmu_event0=17
//   EthosUBackend.fast_scratch_size     bytes for region 2 when the stream uses it and the driver
//                                       has no SRAM of its own (default: the COP2 staging size)
// The compile specs ethosu.device, ethosu.timeout_ns, ethosu.enable_cycle_counter and
// ethosu.pmu_event<N> (ExecuTorch's Linux Direct Drive keys) are read too; options win over them.
#pragma once

namespace vkrt::ethosu {

inline constexpr const char* kOptionDriver = "EthosUBackend.driver";
inline constexpr const char* kOptionDevice = "EthosUBackend.device";
inline constexpr const char* kOptionTimeoutNs = "EthosUBackend.timeout_ns";
inline constexpr const char* kOptionEnableCycleCounter = "EthosUBackend.enable_cycle_counter";
inline constexpr const char* kOptionPmuEventPrefix = "EthosUBackend.pmu_event";
inline constexpr const char* kOptionFastScratchSize = "EthosUBackend.fast_scratch_size";

}  // namespace vkrt::ethosu
