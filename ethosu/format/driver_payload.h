// The `cmd_data` block: Vela's driver payload in COP1 or COP2 form, and the command stream in it.
//
// COP1 (docs/ethos-u.md §4; consumed by the bare-metal core driver): 32-bit words, "COP1" then
// driver actions {byte0 command, byte1 high length bits, u16 param}: OPTIMIZER_CONFIG (0x01, then the
// CONFIG and ID register values the stream was compiled for), COMMAND_STREAM (0x02, length in words
// = byte1 << 16 | param), NOP (0x05).
// COP2 (`--cop-format=COP2`, needed for --separate-io-regions; Linux Direct Drive): "COP2", version
// 1.x, u64 length of the entries, then entries {u32 type, u32 length, data}; type 1 = command stream
// with "VEUM" metadata (CONFIG, ID, features, staging usage) before the command-stream words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "vkrt/error.h"

namespace vkrt::ethosu {

enum class NpuProduct : uint8_t { U55 = 0, U65 = 1, U85 = 2 };
const char* npu_product_name(NpuProduct product);  // "Ethos-U55", ...

// What a command stream was compiled for, or what a device is: the CONFIG and ID registers decoded
// (bit fields as the Linux ethosu DRM driver and the core driver read them).
struct NpuArch {
  NpuProduct product = NpuProduct::U55;
  uint32_t macs_per_cycle = 0;      // 1 << CONFIG[3:0]
  uint32_t cmd_stream_version = 0;  // CONFIG[7:4]
  uint32_t arch_major = 0;          // ID[31:28]
  uint32_t arch_minor = 0;          // ID[27:20]
  uint32_t arch_patch = 0;          // ID[19:16]
  uint32_t config_register = 0;
  uint32_t id_register = 0;

  std::string to_string() const;    // "Ethos-U55-128 (arch 1.0.6, command stream v0)"
};

// Decodes and checks the register pair: known product (CONFIG[31:28] 0/1/2) and a MAC count that
// product exists with (U55 32..256, U65 256/512, U85 128..2048). InvalidProgram otherwise.
Result<NpuArch> decode_npu_arch(uint32_t config_register, uint32_t id_register);

// Whether a stream compiled for `stream` runs on `hardware`: same product, MAC count and command
// stream version, same architecture major and hardware minor >= stream minor (the core driver's
// check). DelegateInvalidCompatibility naming both otherwise.
Status check_arch_compatible(const NpuArch& stream, const NpuArch& hardware);

// What a walk over the command-stream words found.
struct CommandStreamSummary {
  size_t words = 0;
  size_t commands = 0;
  size_t operations = 0;          // CONV, DEPTHWISE, POOL, ELEMENTWISE, RESIZE, DMA_START
  uint8_t regions_referenced = 0; // bit r set when a region register selects base pointer r
};

// Walks the words: cmd0 (bits 14-15 = 00) or cmd1 (= 01, two words); anything else, a truncated
// cmd1, a missing final OP_STOP or words after it are InvalidProgram naming the word index.
Result<CommandStreamSummary> scan_command_stream(std::span<const uint8_t> stream);

enum class CopFormat : uint8_t { Cop1 = 1, Cop2 = 2 };

// COP2 feature bits (VEUM metadata).
inline constexpr uint32_t kCop2FeatureNetworkAddressing = 1;
inline constexpr uint32_t kCop2FeatureSeparateIo = 2;

struct DriverPayload {
  CopFormat format = CopFormat::Cop1;
  bool has_arch = false;  // COP1 without OPTIMIZER_CONFIG carries none
  NpuArch arch;
  std::span<const uint8_t> command_stream;  // the bare command-stream words
  size_t command_stream_offset = 0;         // of command_stream inside cmd_data
  uint32_t cop2_features = 0;
  uint64_t staging_bytes = 0;               // COP2: scratch_fast usage
  CommandStreamSummary summary;
};

// Parses and validates cmd_data. The command stream must start 16-byte aligned inside cmd_data
// (as Vela pads it with NOPs) since the NPU fetches it from an aligned address.
Result<DriverPayload> parse_driver_payload(std::span<const uint8_t> cmd_data);

}  // namespace vkrt::ethosu
