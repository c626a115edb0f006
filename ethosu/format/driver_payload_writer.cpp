// COP1/COP2 writers (docs/ethos-u.md §4).
#include "ethosu/format/driver_payload_writer.h"

#include "ethosu/format/byte_io.h"

namespace vkrt::ethosu {

std::vector<uint8_t> write_cop1(uint32_t config, uint32_t id, std::span<const uint32_t> stream) {
  std::vector<uint8_t> out;
  out.insert(out.end(), {'C', 'O', 'P', '1'});
  append_u32_le(out, 0x01 | (0x10u << 16));  // OPTIMIZER_CONFIG, rel 0 patch 1
  append_u32_le(out, config);
  append_u32_le(out, id);
  for (int i = 0; i < 3; ++i) append_u32_le(out, 0x05);  // NOPs: stream starts at byte 32
  uint32_t len = uint32_t(stream.size());
  append_u32_le(out, 0x02 | (((len >> 16) & 0xFF) << 8) | ((len & 0xFFFF) << 16));
  for (uint32_t w : stream) append_u32_le(out, w);
  return out;
}

std::vector<uint8_t> write_cop2(uint32_t config, uint32_t id, uint32_t features, uint64_t staging_bytes,
                                std::span<const uint32_t> stream) {
  // Entry body: u32 metadata length, metadata (VEUM header 12 + fields 20 + pad to 16), stream.
  std::vector<uint8_t> meta;
  meta.insert(meta.end(), {'V', 'E', 'U', 'M'});
  append_u16_le(meta, 1);
  append_u16_le(meta, 0);
  append_u32_le(meta, 20);
  append_u32_le(meta, config);
  append_u32_le(meta, id);
  append_u32_le(meta, features);
  append_u64_le(meta, staging_bytes);
  // The stream starts at 28 + metadata length; pad so that is a multiple of 16.
  while ((28 + meta.size()) % 16 != 0) meta.push_back(0xFF);
  std::vector<uint8_t> out;
  out.insert(out.end(), {'C', 'O', 'P', '2'});
  append_u16_le(out, 1);
  append_u16_le(out, 0);
  uint32_t entry_len = uint32_t(4 + meta.size() + stream.size() * 4);
  append_u64_le(out, 8 + uint64_t(entry_len));
  append_u32_le(out, 1);  // COMMAND_STREAM entry
  append_u32_le(out, entry_len);
  append_u32_le(out, uint32_t(meta.size()));
  out.insert(out.end(), meta.begin(), meta.end());
  for (uint32_t w : stream) append_u32_le(out, w);
  return out;
}

}  // namespace vkrt::ethosu
