// COP1/COP2 driver payloads and the command-stream walk (docs/ethos-u.md §4, §6.1).
#include "ethosu/format/driver_payload.h"

#include "ethosu/format/byte_io.h"

namespace vkrt::ethosu {
namespace {

constexpr uint32_t kCop1Magic = 0x31504F43;  // "COP1" little-endian
constexpr uint32_t kCop2Magic = 0x32504F43;  // "COP2"
constexpr uint32_t kVeumMagic = 0x4D554556;  // "VEUM"

// COP1 driver actions (Vela "driver actions", core driver ethosu_driver.c).
constexpr uint8_t kActionOptimizerConfig = 0x01;
constexpr uint8_t kActionCommandStream = 0x02;
constexpr uint8_t kActionNop = 0x05;

constexpr uint32_t kCop2EntryCommandStream = 1;

// Command-stream opcodes (§6.2).
constexpr uint32_t kOpStop = 0x000;
constexpr uint32_t kCmd1Flag = 0x4000;
constexpr uint32_t kDmaDstInternalBit = 0x100;  // DMA0_DST_REGION: destination is SHRAM

bool is_operation(uint32_t opcode) {
  return (opcode >= 0x002 && opcode <= 0x007 && opcode != 0x004) || opcode == 0x010;
}

bool is_region_register(uint32_t opcode) {
  switch (opcode) {
    case 0x10F:  // IFM_REGION
    case 0x11F:  // OFM_REGION
    case 0x18F:  // IFM2_REGION
    case 0x128:  // WEIGHT_REGION
    case 0x129:  // SCALE_REGION
    case 0x130:  // DMA0_SRC_REGION
    case 0x131:  // DMA0_DST_REGION
    case 0x134:  // DMA0_IDX_REGION (U85)
      return true;
    default:
      return false;
  }
}

bool macs_valid_for(NpuProduct product, uint32_t macs) {
  switch (product) {
    case NpuProduct::U55: return macs >= 32 && macs <= 256;
    case NpuProduct::U65: return macs == 256 || macs == 512;
    case NpuProduct::U85: return macs >= 128 && macs <= 2048;
  }
  return false;
}

Result<DriverPayload> parse_cop1(std::span<const uint8_t> data) {
  DriverPayload out;
  out.format = CopFormat::Cop1;
  bool have_stream = false;
  size_t pos = 4;
  while (pos < data.size()) {
    uint32_t word = read_u32_le(data, pos);
    uint8_t action = uint8_t(word & 0xFF);
    uint32_t high = (word >> 8) & 0xFF;
    uint32_t param = word >> 16;
    if (action == kActionNop) {
      pos += 4;
    } else if (action == kActionOptimizerConfig) {
      VKRT_CHECK_OR_RETURN(data.size() - pos >= 12, InvalidProgram,
                           "cmd_data COP1: OPTIMIZER_CONFIG at byte ", pos,
                           " truncated (needs CONFIG and ID words)");
      VKRT_CHECK_OR_RETURN(!out.has_arch, InvalidProgram, "cmd_data COP1: second OPTIMIZER_CONFIG at byte ",
                           pos);
      auto arch = decode_npu_arch(read_u32_le(data, pos + 4), read_u32_le(data, pos + 8));
      if (!arch.ok()) return Status(arch.status()).with_context("cmd_data COP1 OPTIMIZER_CONFIG");
      out.arch = *arch;
      out.has_arch = true;
      pos += 12;
    } else if (action == kActionCommandStream) {
      VKRT_CHECK_OR_RETURN(!have_stream, NotSupported, "cmd_data COP1: second COMMAND_STREAM at byte ",
                           pos, " (one stream per payload is supported)");
      size_t length_words = (size_t(high) << 16) | param;
      size_t start = pos + 4;
      VKRT_CHECK_OR_RETURN(length_words <= (data.size() - start) / 4, InvalidProgram,
                           "cmd_data COP1: COMMAND_STREAM at byte ", pos, " declares ", length_words,
                           " words but only ", (data.size() - start) / 4, " follow");
      VKRT_CHECK_OR_RETURN(start % 16 == 0, InvalidProgram, "cmd_data COP1: command stream starts at byte ",
                           start, ", not 16-byte aligned");
      out.command_stream = data.subspan(start, length_words * 4);
      out.command_stream_offset = start;
      have_stream = true;
      pos = start + length_words * 4;
    } else {
      return make_error(Error::InvalidProgram, "cmd_data COP1: unknown driver action ",
                        hex32(action), " at byte ", pos);
    }
  }
  VKRT_CHECK_OR_RETURN(have_stream, InvalidProgram, "cmd_data COP1: no COMMAND_STREAM action");
  return out;
}

Result<DriverPayload> parse_cop2(std::span<const uint8_t> data) {
  DriverPayload out;
  out.format = CopFormat::Cop2;
  VKRT_CHECK_OR_RETURN(data.size() >= 16, InvalidProgram, "cmd_data COP2: ", data.size(),
                       " bytes, shorter than the 16-byte header");
  uint16_t major = read_u16_le(data, 4);
  VKRT_CHECK_OR_RETURN(major == 1, NotSupported, "cmd_data COP2: version ", major, ".",
                       read_u16_le(data, 6), " (only 1.x is known)");
  uint64_t entries_bytes = read_u64_le(data, 8);
  VKRT_CHECK_OR_RETURN(entries_bytes == data.size() - 16, InvalidProgram,
                       "cmd_data COP2: header says ", entries_bytes, " entry bytes, payload has ",
                       data.size() - 16);
  bool have_stream = false;
  size_t pos = 16;
  while (pos < data.size()) {
    VKRT_CHECK_OR_RETURN(data.size() - pos >= 8, InvalidProgram, "cmd_data COP2: truncated entry header at byte ",
                         pos);
    uint32_t type = read_u32_le(data, pos);
    uint32_t length = read_u32_le(data, pos + 4);
    size_t body = pos + 8;
    VKRT_CHECK_OR_RETURN(length <= data.size() - body, InvalidProgram, "cmd_data COP2: entry at byte ",
                         pos, " declares ", length, " bytes, ", data.size() - body, " left");
    VKRT_CHECK_OR_RETURN(type == kCop2EntryCommandStream, NotSupported, "cmd_data COP2: entry type ",
                         type, " at byte ", pos, " (only 1 = command stream is known)");
    VKRT_CHECK_OR_RETURN(!have_stream, NotSupported, "cmd_data COP2: second command stream at byte ",
                         pos);
    auto entry = data.subspan(body, length);
    // Entry: u32 metadata length, then "VEUM", u16/u16 version, u32 field bytes, fields, padding.
    VKRT_CHECK_OR_RETURN(entry.size() >= 4, InvalidProgram, "cmd_data COP2: command-stream entry at byte ",
                         pos, " too short for its metadata length");
    uint32_t meta_len = read_u32_le(entry, 0);
    VKRT_CHECK_OR_RETURN(meta_len >= 32 && meta_len <= entry.size() - 4, InvalidProgram,
                         "cmd_data COP2: metadata length ", meta_len, " at byte ", body,
                         " (need 32..", entry.size() - 4, ")");
    auto meta = entry.subspan(4, meta_len);
    VKRT_CHECK_OR_RETURN(read_u32_le(meta, 0) == kVeumMagic, InvalidProgram,
                         "cmd_data COP2: metadata at byte ", body + 4, " does not start with VEUM");
    uint32_t field_bytes = read_u32_le(meta, 8);
    VKRT_CHECK_OR_RETURN(field_bytes >= 20 && field_bytes <= meta_len - 12, InvalidProgram,
                         "cmd_data COP2: VEUM field size ", field_bytes, " (need 20..", meta_len - 12, ")");
    auto arch = decode_npu_arch(read_u32_le(meta, 12), read_u32_le(meta, 16));
    if (!arch.ok()) return Status(arch.status()).with_context("cmd_data COP2 VEUM");
    out.arch = *arch;
    out.has_arch = true;
    out.cop2_features = read_u32_le(meta, 20);
    out.staging_bytes = read_u64_le(meta, 24);
    size_t start = body + 4 + meta_len;
    VKRT_CHECK_OR_RETURN(start % 16 == 0, InvalidProgram, "cmd_data COP2: command stream starts at byte ",
                         start, ", not 16-byte aligned");
    size_t stream_bytes = length - 4 - meta_len;
    VKRT_CHECK_OR_RETURN(stream_bytes % 4 == 0, InvalidProgram, "cmd_data COP2: command stream of ",
                         stream_bytes, " bytes is not whole words");
    out.command_stream = data.subspan(start, stream_bytes);
    out.command_stream_offset = start;
    have_stream = true;
    pos = body + length;
  }
  VKRT_CHECK_OR_RETURN(have_stream, InvalidProgram, "cmd_data COP2: no command-stream entry");
  return out;
}

}  // namespace

const char* npu_product_name(NpuProduct product) {
  switch (product) {
    case NpuProduct::U55: return "Ethos-U55";
    case NpuProduct::U65: return "Ethos-U65";
    case NpuProduct::U85: return "Ethos-U85";
  }
  return "Ethos-U?";
}

std::string NpuArch::to_string() const {
  return std::string(npu_product_name(product)) + "-" + std::to_string(macs_per_cycle) + " (arch " +
         std::to_string(arch_major) + "." + std::to_string(arch_minor) + "." +
         std::to_string(arch_patch) + ", command stream v" + std::to_string(cmd_stream_version) + ")";
}

Result<NpuArch> decode_npu_arch(uint32_t config_register, uint32_t id_register) {
  NpuArch arch;
  uint32_t product = config_register >> 28;
  VKRT_CHECK_OR_RETURN(product <= 2, InvalidProgram, "unknown NPU product code ", product,
                       " in CONFIG ", hex32(config_register));
  arch.product = NpuProduct(product);
  arch.macs_per_cycle = 1u << (config_register & 0xF);
  arch.cmd_stream_version = (config_register >> 4) & 0xF;
  arch.arch_major = id_register >> 28;
  arch.arch_minor = (id_register >> 20) & 0xFF;
  arch.arch_patch = (id_register >> 16) & 0xF;
  arch.config_register = config_register;
  arch.id_register = id_register;
  VKRT_CHECK_OR_RETURN(macs_valid_for(arch.product, arch.macs_per_cycle), InvalidProgram,
                       arch.macs_per_cycle, " MACs per cycle is not an ", npu_product_name(arch.product),
                       " configuration");
  return arch;
}

Status check_arch_compatible(const NpuArch& stream, const NpuArch& hw) {
  bool ok = stream.product == hw.product && stream.macs_per_cycle == hw.macs_per_cycle &&
            stream.cmd_stream_version == hw.cmd_stream_version &&
            stream.arch_major == hw.arch_major && hw.arch_minor >= stream.arch_minor;
  VKRT_CHECK_OR_RETURN(ok, DelegateInvalidCompatibility, "command stream compiled for ",
                       stream.to_string(), " cannot run on the device's ", hw.to_string());
  return Status::ok();
}

Result<CommandStreamSummary> scan_command_stream(std::span<const uint8_t> stream) {
  CommandStreamSummary s;
  VKRT_CHECK_OR_RETURN(stream.size() % 4 == 0, InvalidProgram, "command stream: ", stream.size(),
                       " bytes is not whole words");
  s.words = stream.size() / 4;
  bool stopped = false;
  for (size_t i = 0; i < s.words;) {
    VKRT_CHECK_OR_RETURN(!stopped, InvalidProgram, "command stream: word ", i, " follows OP_STOP");
    uint32_t word = read_u32_le(stream, i * 4);
    uint32_t kind = word & 0xC000;
    uint32_t opcode = word & 0x3FF;
    uint32_t param = word >> 16;
    ++s.commands;
    if (kind == 0) {
      if (opcode == kOpStop) stopped = true;
      if (is_operation(opcode)) ++s.operations;
      if (is_region_register(opcode) && !(opcode == 0x131 && (param & kDmaDstInternalBit))) {
        s.regions_referenced |= uint8_t(1u << (param & 0x7));
      }
      i += 1;
    } else if (kind == kCmd1Flag) {
      VKRT_CHECK_OR_RETURN(i + 1 < s.words, InvalidProgram, "command stream: two-word command at word ",
                           i, " is cut off by the end of the stream");
      i += 2;
    } else {
      return make_error(Error::InvalidProgram, "command stream: word ", i, " has command-type bits ",
                        kind >> 14, " (expected 0 or 1)");
    }
  }
  VKRT_CHECK_OR_RETURN(stopped, InvalidProgram, "command stream: does not end with OP_STOP");
  return s;
}

Result<DriverPayload> parse_driver_payload(std::span<const uint8_t> cmd_data) {
  VKRT_CHECK_OR_RETURN(cmd_data.size() >= 4 && cmd_data.size() % 4 == 0, InvalidProgram,
                       "cmd_data: ", cmd_data.size(), " bytes (must be a non-empty multiple of 4)");
  uint32_t magic = read_u32_le(cmd_data, 0);
  Result<DriverPayload> payload = Status(Error::Internal, "unset");
  if (magic == kCop1Magic) {
    payload = parse_cop1(cmd_data);
  } else if (magic == kCop2Magic) {
    payload = parse_cop2(cmd_data);
  } else {
    return make_error(Error::InvalidProgram, "cmd_data: starts with ", hex32(magic),
                      ", expected 'COP1' or 'COP2'");
  }
  if (!payload.ok()) return payload.status();
  auto summary = scan_command_stream(payload->command_stream);
  if (!summary.ok()) return Status(summary.status()).with_context("cmd_data");
  payload->summary = *summary;
  return payload;
}

}  // namespace vkrt::ethosu
