// Little-endian reads and writes over byte spans (the Vela container and the COP payloads are
// little-endian regardless of the host). Callers check bounds before reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace vkrt::ethosu {

inline uint16_t read_u16_le(std::span<const uint8_t> bytes, size_t offset) {
  return uint16_t(bytes[offset] | (uint16_t(bytes[offset + 1]) << 8));
}

inline uint32_t read_u32_le(std::span<const uint8_t> bytes, size_t offset) {
  return uint32_t(bytes[offset]) | (uint32_t(bytes[offset + 1]) << 8) |
         (uint32_t(bytes[offset + 2]) << 16) | (uint32_t(bytes[offset + 3]) << 24);
}

inline int32_t read_i32_le(std::span<const uint8_t> bytes, size_t offset) {
  return static_cast<int32_t>(read_u32_le(bytes, offset));
}

inline uint64_t read_u64_le(std::span<const uint8_t> bytes, size_t offset) {
  return uint64_t(read_u32_le(bytes, offset)) | (uint64_t(read_u32_le(bytes, offset + 4)) << 32);
}

inline void append_u16_le(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}

inline void append_u32_le(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

inline void append_i32_le(std::vector<uint8_t>& out, int32_t v) {
  append_u32_le(out, static_cast<uint32_t>(v));
}

inline void append_u64_le(std::vector<uint8_t>& out, uint64_t v) {
  append_u32_le(out, uint32_t(v));
  append_u32_le(out, uint32_t(v >> 32));
}

inline constexpr size_t round_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// "0x0000abcd" for messages.
inline std::string hex32(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xF];
  return s;
}

}  // namespace vkrt::ethosu
