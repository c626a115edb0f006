// Writer of the vela_bin_stream container (the format read by vela_bin_stream.h), so tests and
// tools can build payloads the way ExecuTorch's exporter does (backends/arm/arm_vela.py).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ethosu/format/vela_bin_stream.h"

namespace vkrt::ethosu {

// Low level: appends blocks with exactly the bytes given (tests use it to build malformed payloads).
class VelaBlockWriter {
 public:
  // Appends one block: 32-byte header, payload, zero padding to 16. `name` must be < 16 chars.
  VelaBlockWriter& add(std::string_view name, std::span<const uint8_t> payload, bool external = false);
  VelaBlockWriter& add_empty(std::string_view name) { return add(name, {}, false); }
  VelaBlockWriter& add_u32(std::string_view name, uint32_t value);
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

// The contents of a payload, written in the exporter's block order.
struct VelaBinStreamContents {
  std::vector<uint8_t> cmd_data;
  std::vector<uint8_t> weight_data;
  uint32_t scratch_size = 0;
  // Write `scratch_data` (scratch_size zero bytes) instead of `scratch_size` (≤ v0.6.0 files).
  bool legacy_scratch_data = false;
  // Descriptors are written with each VelaIo's layout (all of one list must agree).
  std::vector<VelaIo> inputs;
  std::vector<VelaIo> outputs;
  // When set, the block is written external with this 64-character key instead of its bytes.
  std::optional<std::string> cmd_data_key;
  std::optional<std::string> weight_data_key;
};

// Encodes an `inputs`/`outputs` block payload: int32 count then the descriptors.
std::vector<uint8_t> encode_vela_io_block(std::span<const VelaIo> ios);
// The whole payload.
std::vector<uint8_t> write_vela_bin_stream(const VelaBinStreamContents& contents);

// A 6-D descriptor with leading 1s, as ExecuTorch ≥ 1.0 writes: shape (2,3) → (1,1,1,1,2,3).
VelaIo make_vela_io_6d(std::span<const int32_t> shape, int32_t elem_size, int32_t offset,
                       int32_t region = kRegionScratch);
// A 4-D descriptor with trailing 0s, as ≤ 0.7 wrote: shape (2,3) → (2,3,0,0).
VelaIo make_vela_io_4d(std::span<const int32_t> shape, int32_t elem_size, int32_t offset,
                       int32_t region = kRegionScratch);

}  // namespace vkrt::ethosu
