// EthosUBackend: runs Vela-compiled delegate segments through an Ethos-U driver (driver.h).
//
// Init parses and validates the payload once (vela_bin_stream + COP1/COP2 + command-stream walk),
// opens a driver (options in vkrt/ethosu.h), checks the stream's target against the device, sizes
// and creates the region buffers (0 weights, 1 scratch, 2 fast scratch, 3/4 separate IO), copies
// the weights and hands the command stream to the driver. Execute copies inputs to their region
// offsets, invokes with the region table and copies outputs back, checking every tensor's dtype
// and size. Registered as "EthosUBackend" and its pre-2025 name "ArmBackend".
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ethosu/driver.h"
#include "vkrt/backend.h"

namespace vkrt::ethosu {

class EthosUBackend final : public Backend {
 public:
  explicit EthosUBackend(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Result<std::unique_ptr<DelegateHandle>> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                                               std::span<const CompileSpec> compile_specs) override;
  Status execute(BackendExecuteContext& ctx, DelegateHandle& handle, std::span<EValue* const> args) override;
  // When the method is profiled or traced: copy in, the NPU's inference (its cycle and PMU
  // counts as the step's metadata) and copy out of the last execute.
  std::vector<DelegateProfileEntry> profile(const DelegateHandle& handle) const override;

 private:
  std::string name_;
};

// What the last execute of a delegate reported (cycle counter / PMU), for runners and tests.
const InvokeResult* last_invoke_result(const DelegateHandle& handle);

}  // namespace vkrt::ethosu
