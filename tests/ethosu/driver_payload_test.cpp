// COP1/COP2 driver payloads and the command-stream walk: layouts against docs/ethos-u.md §4,
// register decoding against the documented Vela values, and every error.
#include <gtest/gtest.h>

#include <string>

#include "ethosu/format/byte_io.h"
#include "ethosu/format/driver_payload.h"
#include "ethosu/format/driver_payload_writer.h"
#include "tests/ethosu/test_payloads.h"

namespace vkrt::ethosu {
namespace {

std::vector<uint8_t> words_to_bytes(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> b;
  for (uint32_t w : words) append_u32_le(b, w);
  return b;
}

#define EXPECT_STATUS(expr, err, fragment)                                   \
  do {                                                                        \
    auto r_ = (expr);                                                         \
    ASSERT_FALSE(r_.ok());                                                    \
    EXPECT_EQ(r_.status().code(), Error::err) << r_.status().to_string();    \
    EXPECT_NE(r_.status().message().find(fragment), std::string::npos)        \
        << r_.status().message();                                             \
  } while (0)

TEST(NpuArch, DecodesTheDocumentedVelaRegisterValues) {
  auto u55 = decode_npu_arch(kConfigU55_128, kIdU55_128);
  ASSERT_TRUE(u55.ok());
  EXPECT_EQ(u55->product, NpuProduct::U55);
  EXPECT_EQ(u55->macs_per_cycle, 128u);  // CONFIG[3:0] = 7
  EXPECT_EQ(u55->cmd_stream_version, 0u);
  EXPECT_EQ(u55->arch_major, 1u);
  EXPECT_EQ(u55->arch_minor, 0u);
  EXPECT_EQ(u55->arch_patch, 6u);
  EXPECT_EQ(u55->to_string(), "Ethos-U55-128 (arch 1.0.6, command stream v0)");
  auto u85 = decode_npu_arch(kConfigU85_256, kIdU85_256);
  ASSERT_TRUE(u85.ok());
  EXPECT_EQ(u85->product, NpuProduct::U85);
  EXPECT_EQ(u85->macs_per_cycle, 256u);
  EXPECT_EQ(u85->cmd_stream_version, 1u);
  EXPECT_EQ(u85->arch_major, 2u);
  // U65-512: product 1, macs code 9.
  auto u65 = decode_npu_arch(0x10000009, 0x10010000);
  ASSERT_TRUE(u65.ok());
  EXPECT_EQ(u65->product, NpuProduct::U65);
  EXPECT_EQ(u65->macs_per_cycle, 512u);
}

TEST(NpuArch, RejectsUnknownProductsAndMacCounts) {
  EXPECT_STATUS(decode_npu_arch(0x30000007, kIdU55_128), InvalidProgram, "unknown NPU product code 3");
  EXPECT_STATUS(decode_npu_arch(0x0000000A, kIdU55_128), InvalidProgram, "1024 MACs per cycle is not an Ethos-U55");
  EXPECT_STATUS(decode_npu_arch(0x10000007, kIdU55_128), InvalidProgram, "128 MACs per cycle is not an Ethos-U65");
}

TEST(NpuArch, CompatibilityFollowsTheCoreDriverRules) {
  NpuArch stream = *decode_npu_arch(kConfigU55_128, kIdU55_128);
  EXPECT_TRUE(check_arch_compatible(stream, stream).is_ok());
  NpuArch newer_minor = *decode_npu_arch(kConfigU55_128, kIdU55_128 + (1u << 20));
  EXPECT_TRUE(check_arch_compatible(stream, newer_minor).is_ok());
  EXPECT_FALSE(check_arch_compatible(newer_minor, stream).is_ok());  // hardware older than stream
  NpuArch u55_256 = *decode_npu_arch(0x00001808, kIdU55_128);
  Status s = check_arch_compatible(stream, u55_256);
  EXPECT_EQ(s.code(), Error::DelegateInvalidCompatibility);
  EXPECT_NE(s.message().find("Ethos-U55-128"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Ethos-U55-256"), std::string::npos) << s.message();
  NpuArch u85 = *decode_npu_arch(kConfigU85_256, kIdU85_256);
  EXPECT_FALSE(check_arch_compatible(stream, u85).is_ok());
}

TEST(DriverPayload, Cop1LayoutAndParse) {
  auto stream = testing::sample_stream();
  auto cop1 = write_cop1(kConfigU55_128, kIdU55_128, stream);
  // Documented: COP1, OPTIMIZER_CONFIG(0.1), cfg, id, NOP x3, COMMAND_STREAM(len), stream at 32.
  EXPECT_EQ(read_u32_le(cop1, 0), 0x31504F43u);
  EXPECT_EQ(read_u32_le(cop1, 4), 0x00100001u);
  EXPECT_EQ(read_u32_le(cop1, 8), kConfigU55_128);
  EXPECT_EQ(read_u32_le(cop1, 12), kIdU55_128);
  EXPECT_EQ(read_u32_le(cop1, 16), 5u);
  EXPECT_EQ(read_u32_le(cop1, 28), 0x02u | (uint32_t(stream.size()) << 16));
  EXPECT_EQ(cop1.size(), 32 + 4 * stream.size());
  auto parsed = parse_driver_payload(cop1);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->format, CopFormat::Cop1);
  EXPECT_TRUE(parsed->has_arch);
  EXPECT_EQ(parsed->arch.macs_per_cycle, 128u);
  EXPECT_EQ(parsed->command_stream_offset, 32u);
  EXPECT_EQ(parsed->command_stream.size(), 4 * stream.size());
  EXPECT_EQ(parsed->summary.words, stream.size());
  EXPECT_EQ(parsed->summary.commands, 8u);  // 4 cmd0 + 3 cmd1 + STOP
  EXPECT_EQ(parsed->summary.operations, 1u);
  EXPECT_EQ(parsed->summary.regions_referenced, 0b11);  // scale region 0, IFM/OFM region 1
}

TEST(DriverPayload, Cop1LongStreamUsesTheHighLengthByte) {
  std::vector<uint32_t> stream(70000, cmd0(0x105, 0));  // IFM_PRECISION repeated
  stream.push_back(op_stop());
  auto cop1 = write_cop1(kConfigU55_128, kIdU55_128, stream);
  EXPECT_EQ((read_u32_le(cop1, 28) >> 8) & 0xFF, 1u);  // 70001 >> 16
  auto parsed = parse_driver_payload(cop1);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->summary.words, 70001u);
}

TEST(DriverPayload, Cop2LayoutAndParse) {
  auto stream = testing::sample_stream(true);
  auto cop2 = write_cop2(kConfigU85_256, kIdU85_256, kCop2FeatureSeparateIo, 4096, stream);
  // Documented offsets: version at 4, length at 8, type 16, entry length 20, metadata length 24,
  // VEUM 28, config 40, id 44, features 48, staging 52, stream at 64.
  EXPECT_EQ(read_u32_le(cop2, 0), 0x32504F43u);
  EXPECT_EQ(read_u16_le(cop2, 4), 1u);
  EXPECT_EQ(read_u64_le(cop2, 8), cop2.size() - 16);
  EXPECT_EQ(read_u32_le(cop2, 16), 1u);
  EXPECT_EQ(read_u32_le(cop2, 20), 36u + 4 + 4 * stream.size());
  EXPECT_EQ(read_u32_le(cop2, 24), 36u);
  EXPECT_EQ(read_u32_le(cop2, 28), 0x4D554556u);
  EXPECT_EQ(read_u32_le(cop2, 36), 20u);
  EXPECT_EQ(read_u32_le(cop2, 40), kConfigU85_256);
  EXPECT_EQ(read_u32_le(cop2, 44), kIdU85_256);
  EXPECT_EQ(read_u32_le(cop2, 48), 2u);
  EXPECT_EQ(read_u64_le(cop2, 52), 4096u);
  EXPECT_EQ(cop2[60], 0xFF);
  EXPECT_EQ(read_u32_le(cop2, 64), stream[0]);
  auto parsed = parse_driver_payload(cop2);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->format, CopFormat::Cop2);
  EXPECT_EQ(parsed->arch.product, NpuProduct::U85);
  EXPECT_EQ(parsed->cop2_features, kCop2FeatureSeparateIo);
  EXPECT_EQ(parsed->staging_bytes, 4096u);
  EXPECT_EQ(parsed->command_stream_offset, 64u);
  EXPECT_EQ(parsed->summary.regions_referenced, 0b11011);  // 0, 1, 3, 4
}

TEST(DriverPayloadErrors, Cop1) {
  auto stream = testing::sample_stream();
  auto good = write_cop1(kConfigU55_128, kIdU55_128, stream);
  EXPECT_STATUS(parse_driver_payload(std::vector<uint8_t>{}), InvalidProgram, "non-empty multiple of 4");
  auto odd = good;
  odd.push_back(0);
  EXPECT_STATUS(parse_driver_payload(odd), InvalidProgram, "multiple of 4");
  auto magic = good;
  magic[3] = '9';
  EXPECT_STATUS(parse_driver_payload(magic), InvalidProgram, "expected 'COP1' or 'COP2'");
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x31504F43, 0x05})), InvalidProgram, "no COMMAND_STREAM");
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x31504F43, 0x00100001, kConfigU55_128})), InvalidProgram,
                "OPTIMIZER_CONFIG at byte 4 truncated");
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x31504F43, 0x00100001, 0x70000000, 0})), InvalidProgram,
                "unknown NPU product code 7");
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x31504F43, 0x09})), InvalidProgram,
                "unknown driver action 0x00000009 at byte 4");
  auto long_len = good;
  long_len[30] = 0xFF;  // length param
  EXPECT_STATUS(parse_driver_payload(long_len), InvalidProgram, "declares");
  // Stream starting at byte 8: not 16-byte aligned.
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x31504F43, 0x00010002, op_stop()})), InvalidProgram,
                "not 16-byte aligned");
  auto twice = words_to_bytes({0x31504F43, 0x05, 0x05, 0x00010002, op_stop(), 0x05, 0x05, 0x00010002, op_stop()});
  EXPECT_STATUS(parse_driver_payload(twice), NotSupported, "second COMMAND_STREAM");
}

TEST(DriverPayloadErrors, Cop2) {
  auto stream = testing::sample_stream(true);
  auto good = write_cop2(kConfigU85_256, kIdU85_256, 2, 0, stream);
  EXPECT_STATUS(parse_driver_payload(words_to_bytes({0x32504F43, 1})), InvalidProgram,
                "shorter than the 16-byte header");
  auto version = good;
  version[4] = 2;
  EXPECT_STATUS(parse_driver_payload(version), NotSupported, "version 2.0");
  auto length = good;
  length[8] += 4;
  EXPECT_STATUS(parse_driver_payload(length), InvalidProgram, "entry bytes");
  auto type = good;
  type[16] = 7;
  EXPECT_STATUS(parse_driver_payload(type), NotSupported, "entry type 7");
  auto entry_len = good;
  entry_len[21] = 0x10;
  EXPECT_STATUS(parse_driver_payload(entry_len), InvalidProgram, "declares");
  auto meta_len = good;
  meta_len[24] = 8;
  EXPECT_STATUS(parse_driver_payload(meta_len), InvalidProgram, "metadata length 8");
  auto veum = good;
  veum[28] = 'X';
  EXPECT_STATUS(parse_driver_payload(veum), InvalidProgram, "does not start with VEUM");
  auto fields = good;
  fields[36] = 4;
  EXPECT_STATUS(parse_driver_payload(fields), InvalidProgram, "VEUM field size 4");
  auto config = good;
  config[43] = 0x50;
  EXPECT_STATUS(parse_driver_payload(config), InvalidProgram, "unknown NPU product code 5");
  // Metadata 4 bytes longer: the stream would start at 68.
  auto unaligned = good;
  unaligned[24] = 40;
  EXPECT_STATUS(parse_driver_payload(unaligned), InvalidProgram, "not 16-byte aligned");
}

TEST(CommandStreamErrors, Walk) {
  EXPECT_STATUS(scan_command_stream(words_to_bytes({cmd0(0x105, 0)})), InvalidProgram, "does not end with OP_STOP");
  EXPECT_STATUS(scan_command_stream(words_to_bytes({op_stop(), cmd0(0x105, 0)})), InvalidProgram,
                "word 1 follows OP_STOP");
  EXPECT_STATUS(scan_command_stream(words_to_bytes({0x4000})), InvalidProgram, "two-word command at word 0");
  EXPECT_STATUS(scan_command_stream(words_to_bytes({0x8000, op_stop()})), InvalidProgram,
                "word 0 has command-type bits 2");
  std::vector<uint8_t> partial = {0, 0, 0};
  EXPECT_STATUS(scan_command_stream(partial), InvalidProgram, "not whole words");
  // A cmd1 payload that looks like OP_STOP is data, not a stop.
  std::vector<uint32_t> w;
  append_cmd1(w, 0x000, 0, 0x0000);
  w.push_back(op_stop());
  auto s = scan_command_stream(words_to_bytes(w));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->commands, 2u);
  // The DMA destination "internal memory" bit is not a region.
  auto dma = scan_command_stream(words_to_bytes({cmd0(0x131, 0x100 | 5), op_stop()}));
  ASSERT_TRUE(dma.ok());
  EXPECT_EQ(dma->regions_referenced, 0);
}

}  // namespace
}  // namespace vkrt::ethosu
