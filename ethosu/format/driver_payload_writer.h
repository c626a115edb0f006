// Writers of COP1/COP2 driver payloads around a command stream (the format parse_driver_payload
// reads), laid out as Vela 5.x writes them, so tests can build cmd_data blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vkrt::ethosu {

// Register values Vela writes for common targets (docs/ethos-u.md §4).
inline constexpr uint32_t kConfigU55_128 = 0x00001807;
inline constexpr uint32_t kIdU55_128 = 0x10066001;
inline constexpr uint32_t kConfigU85_256 = 0x20000118;
inline constexpr uint32_t kIdU85_256 = 0x20007000;

// Command-stream words: a cmd0 word and a cmd1 pair.
inline uint32_t cmd0(uint32_t opcode, uint32_t param) { return (opcode & 0x3FF) | (param << 16); }
inline void append_cmd1(std::vector<uint32_t>& words, uint32_t opcode, uint32_t param, uint32_t payload) {
  words.push_back((opcode & 0x3FF) | 0x4000 | (param << 16));
  words.push_back(payload);
}
// OP_STOP as Vela writes it (param 0xFFFF).
inline uint32_t op_stop() { return cmd0(0x000, 0xFFFF); }

// COP1, OPTIMIZER_CONFIG(config, id), three NOPs, COMMAND_STREAM(len): stream at byte 32.
std::vector<uint8_t> write_cop1(uint32_t config, uint32_t id, std::span<const uint32_t> stream);
// COP2 v1.0 with one command-stream entry, VEUM metadata padded with 0xFF: stream at byte 64.
std::vector<uint8_t> write_cop2(uint32_t config, uint32_t id, uint32_t features, uint64_t staging_bytes,
                                std::span<const uint32_t> stream);

}  // namespace vkrt::ethosu
