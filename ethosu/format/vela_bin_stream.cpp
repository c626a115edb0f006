// Reader of the vela_bin_stream container (docs/ethos-u.md §2).
#include "ethosu/format/vela_bin_stream.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ethosu/format/byte_io.h"

namespace vkrt::ethosu {
namespace {

constexpr std::string_view kFirstBlock = "vela_bin_stream";
constexpr std::string_view kLastBlock = "vela_end_stream";
// Upper bound on one descriptor's byte size: regions are addressed with 32-bit offsets.
constexpr int64_t kMaxRegionBytes = int64_t(std::numeric_limits<uint32_t>::max());

std::string where(const VelaBlock& block) {
  return "vela_bin_stream block '" + std::string(block.name) + "' at offset " +
         std::to_string(block.header_offset);
}

bool is_hex_key(std::span<const uint8_t> key) {
  for (uint8_t c : key) {
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) return false;
  }
  return true;
}

// Resolves an external block through the named data (ExecuTorch main since 2026-08-21:
// external == 1 requires size 64, the payload a hex SHA-256 key, the blob 16-byte aligned).
Result<std::span<const uint8_t>> resolve_block(const VelaBlock& block,
                                               const NamedDataMap* named_data) {
  if (!block.external) return block.payload;
  VKRT_CHECK_OR_RETURN(block.payload.size() == kVelaExternalKeyBytes, InvalidProgram, where(block),
                       ": external block must hold a 64-character key, size is ",
                       block.payload.size());
  VKRT_CHECK_OR_RETURN(is_hex_key(block.payload), InvalidProgram, where(block),
                       ": external key is not hexadecimal");
  std::string_view key(reinterpret_cast<const char*>(block.payload.data()), block.payload.size());
  VKRT_CHECK_OR_RETURN(named_data != nullptr, InvalidExternalData, where(block),
                       ": external block '", key, "' but the program has no named data");
  auto blob = named_data->get(key);
  if (!blob.ok()) {
    return make_error(Error::InvalidExternalData, where(block), ": external key ", key,
                      " not found in the program's named data (",
                      blob.status().message(), ")");
  }
  VKRT_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(blob->data()) % kVelaBlockAlignment == 0,
                       InvalidExternalData, where(block), ": named data for key ", key,
                       " is not 16-byte aligned");
  return *blob;
}

// Parses an `inputs`/`outputs` block: int32 count, then count descriptors of 28 or 36 bytes.
Result<std::vector<VelaIo>> parse_io_block(const VelaBlock& block) {
  auto bytes = block.payload;
  VKRT_CHECK_OR_RETURN(bytes.size() >= 4, InvalidProgram, where(block), ": ", bytes.size(),
                       " bytes, too short for the descriptor count");
  int32_t count = read_i32_le(bytes, 0);
  VKRT_CHECK_OR_RETURN(count >= 0, InvalidProgram, where(block), ": negative count ", count);
  size_t body = bytes.size() - 4;
  std::vector<VelaIo> ios;
  if (count == 0) {
    VKRT_CHECK_OR_RETURN(body == 0, InvalidProgram, where(block), ": count 0 but ", body,
                         " descriptor bytes");
    return ios;
  }
  VKRT_CHECK_OR_RETURN(body % size_t(count) == 0, InvalidProgram, where(block), ": ", body,
                       " descriptor bytes do not divide into ", count, " descriptors");
  size_t entry_bytes = body / size_t(count);
  VelaIoLayout layout;
  if (entry_bytes == 36) {
    layout = VelaIoLayout::Shape6D;
  } else if (entry_bytes == 28) {
    layout = VelaIoLayout::Shape4D;
  } else {
    return make_error(Error::InvalidProgram, where(block), ": descriptor size ", entry_bytes,
                      " bytes; expected 36 (6-D) or 28 (4-D)");
  }
  int rank = int(layout);
  ios.reserve(size_t(count));
  for (int32_t i = 0; i < count; ++i) {
    size_t at = 4 + size_t(i) * entry_bytes;
    VelaIo io;
    io.layout = layout;
    for (int d = 0; d < rank; ++d) io.shape[size_t(d)] = read_i32_le(bytes, at + 4 * size_t(d));
    io.elem_size = read_i32_le(bytes, at + 4 * size_t(rank));
    io.offset = read_i32_le(bytes, at + 4 * size_t(rank) + 4);
    io.region = read_i32_le(bytes, at + 4 * size_t(rank) + 8);
    std::string item = where(block) + " [" + std::to_string(i) + "]";
    for (int d = 0; d < rank; ++d) {
      VKRT_CHECK_OR_RETURN(io.shape[size_t(d)] >= 0, InvalidProgram, item, ": negative dim ", d,
                           " (", io.shape[size_t(d)], ")");
    }
    VKRT_CHECK_OR_RETURN(io.elem_size == 1 || io.elem_size == 2 || io.elem_size == 4,
                         InvalidProgram, item, ": element size ", io.elem_size,
                         " (expected 1, 2 or 4)");
    VKRT_CHECK_OR_RETURN(io.offset >= 0, InvalidProgram, item, ": negative offset ", io.offset);
    VKRT_CHECK_OR_RETURN(io.region >= 0 && io.region < kMaxRegions, InvalidProgram, item,
                         ": region ", io.region, " out of range 0..7");
    // Element count of up to six non-negative int32 dims can overflow int64: bound each step.
    int64_t numel = 1;
    for (int32_t dim : io.dims()) {
      if (dim != 0 && numel > kMaxRegionBytes / dim) {
        return make_error(Error::InvalidProgram, item, ": tensor larger than 4 GiB");
      }
      numel *= dim;
    }
    VKRT_CHECK_OR_RETURN(numel * io.elem_size <= kMaxRegionBytes, InvalidProgram, item,
                         ": tensor larger than 4 GiB");
    ios.push_back(io);
  }
  return ios;
}

Status check_io_placement(const std::vector<VelaIo>& ios, const char* kind, uint32_t scratch_size,
                          int own_region) {
  for (size_t i = 0; i < ios.size(); ++i) {
    const VelaIo& io = ios[i];
    std::string item = std::string(kind) + "[" + std::to_string(i) + "]";
    if (io.region == kRegionScratch) {
      VKRT_CHECK_OR_RETURN(uint64_t(io.offset) + uint64_t(io.byte_size()) <= scratch_size,
                           InvalidProgram, "vela_bin_stream ", item, ": bytes [", io.offset, ", ",
                           int64_t(io.offset) + io.byte_size(), ") exceed the scratch region (",
                           scratch_size, " bytes)");
    } else if (io.region != own_region) {
      return make_error(Error::InvalidProgram, "vela_bin_stream ", item, ": region ", io.region,
                        " is not where ", kind, " can live (1 = scratch or ", own_region,
                        " = separate IO region)");
    }
  }
  return Status::ok();
}

}  // namespace

std::span<const int32_t> VelaIo::dims() const {
  if (layout == VelaIoLayout::Shape6D) return {shape.data(), 6};
  // 4-D descriptors pad short shapes with trailing zeros.
  size_t rank = 4;
  while (rank > 0 && shape[rank - 1] == 0) --rank;
  return {shape.data(), rank};
}

int64_t VelaIo::element_count() const {
  int64_t n = 1;
  for (int32_t d : dims()) n *= d;
  return n;
}

bool VelaBinStream::uses_separate_io() const {
  for (const auto& io : inputs) if (io.region == kRegionInputs) return true;
  for (const auto& io : outputs) if (io.region == kRegionOutputs) return true;
  return false;
}

uint64_t VelaBinStream::region_extent(int region) const {
  uint64_t extent = 0;
  for (const auto* list : {&inputs, &outputs}) {
    for (const auto& io : *list) {
      if (io.region == region) extent = std::max(extent, uint64_t(io.offset) + uint64_t(io.byte_size()));
    }
  }
  return extent;
}

Result<std::vector<VelaBlock>> split_vela_blocks(std::span<const uint8_t> payload) {
  std::vector<VelaBlock> blocks;
  size_t pos = 0;
  while (pos < payload.size()) {
    VKRT_CHECK_OR_RETURN(payload.size() - pos >= kVelaBlockHeaderBytes, InvalidProgram,
                         "vela_bin_stream: truncated block header at offset ", pos, " (",
                         payload.size() - pos, " bytes left, need 32)");
    VelaBlock block;
    block.header_offset = pos;
    const uint8_t* name = payload.data() + pos;
    size_t name_len = 0;
    while (name_len < kVelaBlockNameBytes && name[name_len] != 0) ++name_len;
    VKRT_CHECK_OR_RETURN(name_len < kVelaBlockNameBytes, InvalidProgram,
                         "vela_bin_stream: block name at offset ", pos, " is not NUL-terminated");
    VKRT_CHECK_OR_RETURN(name_len > 0, InvalidProgram, "vela_bin_stream: empty block name at offset ",
                         pos);
    for (size_t i = 0; i < name_len; ++i) {
      VKRT_CHECK_OR_RETURN(name[i] >= 0x20 && name[i] < 0x7f, InvalidProgram,
                           "vela_bin_stream: block name at offset ", pos,
                           " has a non-printable byte");
    }
    for (size_t i = name_len; i < kVelaBlockNameBytes; ++i) {
      VKRT_CHECK_OR_RETURN(name[i] == 0, InvalidProgram, "vela_bin_stream: block name at offset ",
                           pos, " has bytes after its terminating NUL");
    }
    block.name = std::string_view(reinterpret_cast<const char*>(name), name_len);
    uint32_t size = read_u32_le(payload, pos + 16);
    uint8_t external = payload[pos + 20];
    VKRT_CHECK_OR_RETURN(external <= 1, InvalidProgram, where(block), ": external flag ",
                         int(external), " (expected 0 or 1)");
    block.external = external == 1;
    for (size_t i = 21; i < kVelaBlockHeaderBytes; ++i) {
      VKRT_CHECK_OR_RETURN(payload[pos + i] == 0, InvalidProgram, where(block),
                           ": reserved header byte ", i, " is not zero");
    }
    size_t data_at = pos + kVelaBlockHeaderBytes;
    size_t padded = round_up(size, kVelaBlockAlignment);
    VKRT_CHECK_OR_RETURN(padded <= payload.size() - data_at, InvalidProgram, where(block),
                         ": size ", size, " (padded ", padded, ") runs past the payload end (",
                         payload.size() - data_at, " bytes left)");
    block.payload = payload.subspan(data_at, size);
    blocks.push_back(block);
    pos = data_at + padded;
  }
  VKRT_CHECK_OR_RETURN(!blocks.empty(), InvalidProgram, "vela_bin_stream: empty payload");
  VKRT_CHECK_OR_RETURN(blocks.front().name == kFirstBlock, InvalidProgram,
                       "vela_bin_stream: first block is '", blocks.front().name,
                       "', expected 'vela_bin_stream'");
  VKRT_CHECK_OR_RETURN(blocks.size() >= 2 && blocks.back().name == kLastBlock, InvalidProgram,
                       "vela_bin_stream: last block is '", blocks.back().name,
                       "', expected 'vela_end_stream' ending the payload");
  VKRT_CHECK_OR_RETURN(blocks.front().payload.empty() && !blocks.front().external, InvalidProgram,
                       where(blocks.front()), ": must be empty");
  VKRT_CHECK_OR_RETURN(blocks.back().payload.empty() && !blocks.back().external, InvalidProgram,
                       where(blocks.back()), ": must be empty");
  return blocks;
}

Result<VelaBinStream> parse_vela_bin_stream(std::span<const uint8_t> payload,
                                            const NamedDataMap* named_data) {
  VKRT_ASSIGN_OR_RETURN(std::vector<VelaBlock> blocks, split_vela_blocks(payload));
  const VelaBlock* cmd = nullptr;
  const VelaBlock* weights = nullptr;
  const VelaBlock* scratch = nullptr;
  const VelaBlock* inputs = nullptr;
  const VelaBlock* outputs = nullptr;
  // Blocks between the first and the last, by name; duplicates are errors.
  for (size_t i = 1; i + 1 < blocks.size(); ++i) {
    const VelaBlock& b = blocks[i];
    const VelaBlock** slot = nullptr;
    if (b.name == "cmd_data") slot = &cmd;
    else if (b.name == "weight_data") slot = &weights;
    else if (b.name == "scratch_size" || b.name == "scratch_data") slot = &scratch;
    else if (b.name == "inputs") slot = &inputs;
    else if (b.name == "outputs") slot = &outputs;
    else if (b.name == "vela_bin_stream" || b.name == "vela_end_stream")
      return make_error(Error::InvalidProgram, where(b), ": only allowed first/last");
    else
      return make_error(Error::InvalidProgram, where(b), ": unknown block name");
    VKRT_CHECK_OR_RETURN(*slot == nullptr, InvalidProgram, where(b), ": duplicate of block '",
                         (*slot)->name, "' at offset ", (*slot)->header_offset);
    *slot = &b;
    bool may_be_external = b.name == "cmd_data" || b.name == "weight_data";
    VKRT_CHECK_OR_RETURN(!b.external || may_be_external, InvalidProgram, where(b),
                         ": only cmd_data and weight_data may be external");
  }
  VKRT_CHECK_OR_RETURN(cmd != nullptr, InvalidProgram, "vela_bin_stream: missing block 'cmd_data'");
  VKRT_CHECK_OR_RETURN(weights != nullptr, InvalidProgram,
                       "vela_bin_stream: missing block 'weight_data'");
  VKRT_CHECK_OR_RETURN(scratch != nullptr, InvalidProgram,
                       "vela_bin_stream: missing block 'scratch_size' (or legacy 'scratch_data')");
  VKRT_CHECK_OR_RETURN(inputs != nullptr, InvalidProgram, "vela_bin_stream: missing block 'inputs'");
  VKRT_CHECK_OR_RETURN(outputs != nullptr, InvalidProgram,
                       "vela_bin_stream: missing block 'outputs'");

  VelaBinStream out;
  VKRT_ASSIGN_OR_RETURN(out.cmd_data, resolve_block(*cmd, named_data));
  VKRT_ASSIGN_OR_RETURN(out.weight_data, resolve_block(*weights, named_data));
  out.cmd_data_external = cmd->external;
  out.weight_data_external = weights->external;
  VKRT_CHECK_OR_RETURN(!out.cmd_data.empty(), InvalidProgram, where(*cmd), ": empty command data");

  if (scratch->name == "scratch_size") {
    VKRT_CHECK_OR_RETURN(scratch->payload.size() == 4, InvalidProgram, where(*scratch), ": size ",
                         scratch->payload.size(), ", expected 4 (uint32)");
    out.scratch_size = read_u32_le(scratch->payload, 0);
    out.scratch_source = ScratchSource::SizeBlock;
  } else {
    // Legacy: the block itself was the scratch memory; only its size matters to us.
    out.scratch_size = uint32_t(scratch->payload.size());
    out.scratch_source = ScratchSource::LegacyDataBlock;
  }

  VKRT_ASSIGN_OR_RETURN(out.inputs, parse_io_block(*inputs));
  VKRT_ASSIGN_OR_RETURN(out.outputs, parse_io_block(*outputs));
  VKRT_RETURN_IF_ERROR(check_io_placement(out.inputs, "inputs", out.scratch_size, kRegionInputs));
  VKRT_RETURN_IF_ERROR(check_io_placement(out.outputs, "outputs", out.scratch_size, kRegionOutputs));
  return out;
}

}  // namespace vkrt::ethosu
