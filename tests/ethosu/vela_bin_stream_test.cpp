// The vela_bin_stream container: round trips through the writer, the byte layout against the
// documented format (docs/ethos-u.md §2), every accepted variant and every malformed-payload error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "ethosu/format/byte_io.h"
#include "ethosu/format/vela_bin_stream.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "tests/ethosu/test_payloads.h"

namespace vkrt::ethosu {
namespace {

using testing::sample_contents;

// Named data with 16-byte aligned blobs (as the loader provides for segments).
class MapNamedData final : public NamedDataMap {
 public:
  void put(std::string key, const std::vector<uint8_t>& bytes, size_t misalign = 0) {
    auto& slot = blobs_[key];
    slot.storage.assign(bytes.size() + 32, 0);
    uintptr_t base = reinterpret_cast<uintptr_t>(slot.storage.data());
    size_t pad = (16 - base % 16) % 16 + misalign;
    std::memcpy(slot.storage.data() + pad, bytes.data(), bytes.size());
    slot.view = std::span<const uint8_t>(slot.storage.data() + pad, bytes.size());
    keys_.push_back(std::move(key));
  }
  Result<std::span<const uint8_t>> get(std::string_view key) const override {
    auto it = blobs_.find(std::string(key));
    if (it == blobs_.end()) return make_error(Error::NotFound, "no key ", key);
    return it->second.view;
  }
  size_t size() const override { return keys_.size(); }
  std::string_view key_at(size_t i) const override { return keys_[i]; }

 private:
  struct Blob {
    std::vector<uint8_t> storage;
    std::span<const uint8_t> view;
  };
  std::map<std::string, Blob> blobs_;
  std::vector<std::string> keys_;
};

const std::string kKeyA(64, 'a');
const std::string kKeyB = std::string(63, '0') + "F";

// The parser reads through spans; give it a 16-byte aligned copy like the loader does.
struct Aligned {
  explicit Aligned(const std::vector<uint8_t>& bytes) : storage(bytes.size() + 16) {
    size_t pad = (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
    if (!bytes.empty()) std::memcpy(storage.data() + pad, bytes.data(), bytes.size());
    view = std::span<const uint8_t>(storage.data() + pad, bytes.size());
  }
  std::vector<uint8_t> storage;
  std::span<const uint8_t> view;
};

Status parse_error(const std::vector<uint8_t>& bytes, const NamedDataMap* named = nullptr) {
  Aligned a(bytes);
  auto r = parse_vela_bin_stream(a.view, named);
  return r.ok() ? Status::ok() : r.status();
}

#define EXPECT_PARSE_ERROR(bytes, err, fragment)                                             \
  do {                                                                                        \
    Status s_ = parse_error(bytes);                                                           \
    EXPECT_EQ(s_.code(), Error::err) << s_.to_string();                                      \
    EXPECT_NE(s_.message().find(fragment), std::string::npos) << s_.message();                \
  } while (0)

TEST(VelaBinStream, WriterLayoutMatchesTheDocumentedFormat) {
  auto bytes = write_vela_bin_stream(sample_contents());
  // Block 1: "vela_bin_stream", size 0, 32 bytes; block 2: cmd_data at 32.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data())), "vela_bin_stream");
  EXPECT_EQ(read_u32_le(bytes, 16), 0u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 32)), "cmd_data");
  uint32_t cmd_size = read_u32_le(bytes, 32 + 16);
  EXPECT_EQ(cmd_size, sample_contents().cmd_data.size());
  EXPECT_EQ(bytes[32 + 20], 0);  // inline
  // weight_data follows at 32 + 32 + round_up(cmd_size, 16), with 18 bytes padded to 32.
  size_t weights_at = 64 + round_up(cmd_size, 16);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + weights_at)), "weight_data");
  EXPECT_EQ(read_u32_le(bytes, weights_at + 16), 18u);
  EXPECT_EQ(bytes[weights_at + 32 + 18], 0);  // padding is zero
  size_t scratch_at = weights_at + 32 + 32;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + scratch_at)), "scratch_size");
  EXPECT_EQ(read_u32_le(bytes, scratch_at + 32), 64u);
  // inputs: count 2, then (1,1,1,1,2,3), elem 1, offset 32, region 1.
  size_t inputs_at = scratch_at + 48;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + inputs_at)), "inputs");
  EXPECT_EQ(read_u32_le(bytes, inputs_at + 16), 4u + 2 * 36);
  const int32_t expected_io0[] = {2, 1, 1, 1, 1, 2, 3, 1, 32, 1};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(read_i32_le(bytes, inputs_at + 32 + 4 * size_t(i)), expected_io0[i]) << i;
  // The last 32 bytes are the end block.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + bytes.size() - 32)), "vela_end_stream");
  EXPECT_EQ(bytes.size() % 16, 0u);
}

TEST(VelaBinStream, RoundTrip6D) {
  auto contents = sample_contents();
  Aligned a(write_vela_bin_stream(contents));
  auto parsed = parse_vela_bin_stream(a.view, nullptr);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(std::vector<uint8_t>(parsed->cmd_data.begin(), parsed->cmd_data.end()), contents.cmd_data);
  EXPECT_EQ(std::vector<uint8_t>(parsed->weight_data.begin(), parsed->weight_data.end()), contents.weight_data);
  EXPECT_EQ(parsed->scratch_size, 64u);
  EXPECT_EQ(parsed->scratch_source, ScratchSource::SizeBlock);
  ASSERT_EQ(parsed->inputs.size(), 2u);
  ASSERT_EQ(parsed->outputs.size(), 1u);
  EXPECT_EQ(parsed->inputs[0].layout, VelaIoLayout::Shape6D);
  EXPECT_EQ(parsed->inputs[0].element_count(), 6);
  EXPECT_EQ(parsed->inputs[0].offset, 32);
  EXPECT_EQ(parsed->inputs[1].byte_size(), 8);
  EXPECT_EQ(parsed->inputs[1].offset, 48);
  EXPECT_EQ(parsed->outputs[0].region, kRegionScratch);
  EXPECT_FALSE(parsed->uses_separate_io());
  EXPECT_FALSE(parsed->cmd_data_external);
}

TEST(VelaBinStream, RoundTrip4DWithTrailingZeroPadding) {
  Aligned a(write_vela_bin_stream(sample_contents(VelaIoLayout::Shape4D)));
  auto parsed = parse_vela_bin_stream(a.view, nullptr);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  ASSERT_EQ(parsed->inputs.size(), 2u);
  EXPECT_EQ(parsed->inputs[0].layout, VelaIoLayout::Shape4D);
  // (2,3,0,0): the trailing zeros are padding, not empty dims.
  EXPECT_EQ(parsed->inputs[0].dims().size(), 2u);
  EXPECT_EQ(parsed->inputs[0].element_count(), 6);
  EXPECT_EQ(parsed->inputs[1].element_count(), 4);
  EXPECT_EQ(parsed->outputs[0].byte_size(), 6);
}

TEST(VelaBinStream, LegacyScratchDataBlock) {
  auto contents = sample_contents();
  contents.legacy_scratch_data = true;
  auto bytes = write_vela_bin_stream(contents);
  Aligned a(bytes);
  auto parsed = parse_vela_bin_stream(a.view, nullptr);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->scratch_size, 64u);
  EXPECT_EQ(parsed->scratch_source, ScratchSource::LegacyDataBlock);
}

TEST(VelaBinStream, ExternalBlocksResolveThroughNamedData) {
  auto contents = sample_contents();
  MapNamedData named;
  named.put(kKeyA, contents.cmd_data);
  named.put(kKeyB, contents.weight_data);
  contents.cmd_data_key = kKeyA;
  contents.weight_data_key = kKeyB;
  Aligned a(write_vela_bin_stream(contents));
  auto parsed = parse_vela_bin_stream(a.view, &named);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_TRUE(parsed->cmd_data_external);
  EXPECT_TRUE(parsed->weight_data_external);
  EXPECT_EQ(std::vector<uint8_t>(parsed->cmd_data.begin(), parsed->cmd_data.end()), contents.cmd_data);
  EXPECT_EQ(std::vector<uint8_t>(parsed->weight_data.begin(), parsed->weight_data.end()), contents.weight_data);
  EXPECT_EQ(parsed->weight_data.data(), named.get(kKeyB)->data());  // used in place
}

TEST(VelaBinStream, ExternalBlockErrors) {
  auto contents = sample_contents();
  contents.weight_data_key = kKeyA;
  auto bytes = write_vela_bin_stream(contents);
  MapNamedData empty;
  Status s = parse_error(bytes, &empty);
  EXPECT_EQ(s.code(), Error::InvalidExternalData);
  EXPECT_NE(s.message().find("not found"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(kKeyA), std::string::npos);

  s = parse_error(bytes, nullptr);
  EXPECT_EQ(s.code(), Error::InvalidExternalData);
  EXPECT_NE(s.message().find("no named data"), std::string::npos) << s.message();

  MapNamedData misaligned;
  misaligned.put(kKeyA, contents.weight_data, 4);
  s = parse_error(bytes, &misaligned);
  EXPECT_EQ(s.code(), Error::InvalidExternalData);
  EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos) << s.message();

  contents.weight_data_key = std::string(63, 'a');  // wrong key length
  EXPECT_PARSE_ERROR(write_vela_bin_stream(contents), InvalidProgram, "64-character key");
  contents.weight_data_key = std::string(63, 'a') + "g";
  EXPECT_PARSE_ERROR(write_vela_bin_stream(contents), InvalidProgram, "not hexadecimal");
}

// Builds a payload from explicit blocks (names and bytes), for the malformed cases.
struct Blocks {
  VelaBlockWriter w;
  Blocks& add(std::string_view name, std::vector<uint8_t> bytes = {}, bool external = false) {
    w.add(name, bytes, external);
    return *this;
  }
  std::vector<uint8_t> bytes() const { return w.bytes(); }
};

std::vector<uint8_t> u32(uint32_t v) {
  std::vector<uint8_t> b;
  append_u32_le(b, v);
  return b;
}

std::vector<uint8_t> io_block(std::vector<int32_t> words) {
  std::vector<uint8_t> b;
  for (int32_t w : words) append_i32_le(b, w);
  return b;
}

// A valid payload with the io blocks replaced.
std::vector<uint8_t> with_io(std::vector<uint8_t> inputs, std::vector<uint8_t> outputs,
                             uint32_t scratch = 64) {
  auto c = sample_contents();
  return Blocks()
      .add("vela_bin_stream")
      .add("cmd_data", c.cmd_data)
      .add("weight_data", c.weight_data)
      .add("scratch_size", u32(scratch))
      .add("inputs", std::move(inputs))
      .add("outputs", std::move(outputs))
      .add("vela_end_stream")
      .bytes();
}

std::vector<uint8_t> one_io(int32_t region, int32_t offset, int32_t elem = 1) {
  return io_block({1, 1, 1, 1, 1, 2, 3, elem, offset, region});
}

TEST(VelaBinStreamErrors, Framing) {
  auto good = write_vela_bin_stream(sample_contents());
  EXPECT_PARSE_ERROR(std::vector<uint8_t>{}, InvalidProgram, "empty payload");

  auto truncated = good;
  truncated.resize(good.size() - 16);
  EXPECT_PARSE_ERROR(truncated, InvalidProgram, "truncated block header");

  auto no_nul = good;
  std::memset(no_nul.data() + 32, 'x', 16);
  EXPECT_PARSE_ERROR(no_nul, InvalidProgram, "not NUL-terminated");

  auto empty_name = good;
  std::memset(empty_name.data() + 32, 0, 16);
  EXPECT_PARSE_ERROR(empty_name, InvalidProgram, "empty block name at offset 32");

  auto nonprintable = good;
  nonprintable[33] = 0x01;
  EXPECT_PARSE_ERROR(nonprintable, InvalidProgram, "non-printable");

  auto after_nul = good;
  after_nul[32 + 14] = 'z';
  EXPECT_PARSE_ERROR(after_nul, InvalidProgram, "after its terminating NUL");

  auto bad_flag = good;
  bad_flag[32 + 20] = 2;
  EXPECT_PARSE_ERROR(bad_flag, InvalidProgram, "external flag 2");

  auto reserved = good;
  reserved[32 + 27] = 1;
  EXPECT_PARSE_ERROR(reserved, InvalidProgram, "reserved header byte 27");

  auto too_big = good;
  too_big[32 + 16] = 0xFF;
  too_big[32 + 17] = 0xFF;
  EXPECT_PARSE_ERROR(too_big, InvalidProgram, "runs past the payload end");
}

TEST(VelaBinStreamErrors, BlockOrderAndNames) {
  auto c = sample_contents();
  EXPECT_PARSE_ERROR(Blocks().add("cmd_data", c.cmd_data).add("vela_end_stream").bytes(), InvalidProgram,
                     "first block is 'cmd_data'");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").add("cmd_data", c.cmd_data).bytes(), InvalidProgram,
                     "expected 'vela_end_stream'");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").bytes(), InvalidProgram, "last block");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream", {1}).add("vela_end_stream").bytes(), InvalidProgram,
                     "must be empty");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").add("vela_end_stream", {1}).bytes(), InvalidProgram,
                     "must be empty");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").add("mystery", {1}).add("vela_end_stream").bytes(),
                     InvalidProgram, "'mystery' at offset 32: unknown block name");
  EXPECT_PARSE_ERROR(Blocks()
                         .add("vela_bin_stream")
                         .add("cmd_data", c.cmd_data)
                         .add("cmd_data", c.cmd_data)
                         .add("vela_end_stream")
                         .bytes(),
                     InvalidProgram, "duplicate of block 'cmd_data' at offset 32");
  EXPECT_PARSE_ERROR(Blocks()
                         .add("vela_bin_stream")
                         .add("scratch_size", u32(4))
                         .add("scratch_data", {0, 0})
                         .add("vela_end_stream")
                         .bytes(),
                     InvalidProgram, "duplicate");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").add("vela_bin_stream").add("vela_end_stream").bytes(),
                     InvalidProgram, "only allowed first/last");
  EXPECT_PARSE_ERROR(Blocks().add("vela_bin_stream").add("inputs", u32(0), true).add("vela_end_stream").bytes(),
                     InvalidProgram, "only cmd_data and weight_data may be external");
}

TEST(VelaBinStreamErrors, MissingBlocks) {
  auto c = sample_contents();
  const char* names[] = {"cmd_data", "weight_data", "scratch_size", "inputs", "outputs"};
  for (const char* missing : names) {
    Blocks b;
    b.add("vela_bin_stream");
    if (std::string(missing) != "cmd_data") b.add("cmd_data", c.cmd_data);
    if (std::string(missing) != "weight_data") b.add("weight_data", c.weight_data);
    if (std::string(missing) != "scratch_size") b.add("scratch_size", u32(64));
    if (std::string(missing) != "inputs") b.add("inputs", u32(0));
    if (std::string(missing) != "outputs") b.add("outputs", u32(0));
    b.add("vela_end_stream");
    EXPECT_PARSE_ERROR(b.bytes(), InvalidProgram, std::string("missing block '") + missing + "'");
  }
  EXPECT_PARSE_ERROR(Blocks()
                         .add("vela_bin_stream")
                         .add("cmd_data")
                         .add("weight_data")
                         .add("scratch_size", u32(0))
                         .add("inputs", u32(0))
                         .add("outputs", u32(0))
                         .add("vela_end_stream")
                         .bytes(),
                     InvalidProgram, "empty command data");
}

TEST(VelaBinStreamErrors, ScratchSizeBlock) {
  auto c = sample_contents();
  EXPECT_PARSE_ERROR(Blocks()
                         .add("vela_bin_stream")
                         .add("cmd_data", c.cmd_data)
                         .add("weight_data")
                         .add("scratch_size", {1, 0})
                         .add("inputs", u32(0))
                         .add("outputs", u32(0))
                         .add("vela_end_stream")
                         .bytes(),
                     InvalidProgram, "size 2, expected 4");
}

TEST(VelaBinStreamErrors, IoDescriptors) {
  auto out = one_io(1, 0);
  EXPECT_PARSE_ERROR(with_io({1, 0}, out), InvalidProgram, "too short for the descriptor count");
  EXPECT_PARSE_ERROR(with_io(io_block({-1}), out), InvalidProgram, "negative count -1");
  EXPECT_PARSE_ERROR(with_io(io_block({0, 5}), out), InvalidProgram, "count 0 but 4 descriptor bytes");
  EXPECT_PARSE_ERROR(with_io(io_block({3, 1, 1, 1, 1, 1, 1, 1, 1}), out), InvalidProgram,
                     "do not divide into 3 descriptors");
  EXPECT_PARSE_ERROR(with_io(io_block({1, 1, 1, 1, 1, 1, 1, 1, 0}), out), InvalidProgram,
                     "descriptor size 32 bytes");
  EXPECT_PARSE_ERROR(with_io(io_block({1, 1, 1, 1, 1, -2, 3, 1, 0, 1}), out), InvalidProgram, "negative dim 4");
  EXPECT_PARSE_ERROR(with_io(one_io(1, 0, 3), out), InvalidProgram, "element size 3");
  EXPECT_PARSE_ERROR(with_io(one_io(1, -16), out), InvalidProgram, "negative offset -16");
  EXPECT_PARSE_ERROR(with_io(one_io(9, 0), out), InvalidProgram, "region 9 out of range");
  EXPECT_PARSE_ERROR(with_io(one_io(1, 60), out), InvalidProgram,
                     "inputs[0]: bytes [60, 66) exceed the scratch region (64 bytes)");
  EXPECT_PARSE_ERROR(with_io(one_io(2, 0), out), InvalidProgram, "inputs[0]: region 2 is not where inputs");
  EXPECT_PARSE_ERROR(with_io(one_io(4, 0), out), InvalidProgram, "inputs[0]: region 4");
  EXPECT_PARSE_ERROR(with_io(one_io(3, 0), one_io(3, 0)), InvalidProgram, "outputs[0]: region 3");
  EXPECT_PARSE_ERROR(with_io(io_block({1, 1, 1, 65536, 65536, 65536, 65536, 1, 0, 1}), out), InvalidProgram,
                     "larger than 4 GiB");
}

TEST(VelaBinStream, SeparateIoRegionsAreAcceptedAndSized) {
  Aligned a(write_vela_bin_stream(testing::sample_contents_separate_io()));
  auto parsed = parse_vela_bin_stream(a.view, nullptr);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_TRUE(parsed->uses_separate_io());
  EXPECT_EQ(parsed->region_extent(kRegionInputs), 24u);   // int16 (4) at 16
  EXPECT_EQ(parsed->region_extent(kRegionOutputs), 6u);
  EXPECT_EQ(parsed->region_extent(kRegionScratch), 0u);
}

}  // namespace
}  // namespace vkrt::ethosu
