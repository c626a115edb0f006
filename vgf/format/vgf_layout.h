// Private to vgf/format: the raw header layout (vgf-format.md §1.1) and little-endian helpers
// shared by the decoder and the encoder.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "vgf/format/vgf_file.h"

namespace vkrt::vgf {

inline constexpr uint32_t kLegacyVgfMagic = 0xF0E1D2C3u;  // bytes C3 D2 E1 F0
inline constexpr char kConstMagic[8] = {'C', 'O', 'N', 'S', 'T', '0', '0', '\0'};

struct SectionRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct VgfHeader {
  bool legacy_magic = false;
  uint16_t vk_header_version = 0;
  VgfVersion version;
  std::array<SectionRange, 4> sections;  // module, sequence, resource, constant
};

// Magic, version and section bounds.
Result<VgfHeader> parse_vgf_header(std::span<const uint8_t> bytes);

// Unaligned little-endian load/store (the fixed header and CONST00 section are raw LE; §1).
template <typename T>
T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // hosts are little-endian (x86-64, AArch64 Linux)
  return v;
}
template <typename T>
void store_le(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace vkrt::vgf
