// The EthosUBackend delegate payload: ExecuTorch's "vela_bin_stream" block container.
//
// Layout (docs/ethos-u.md §2, ExecuTorch backends/arm/runtime/VelaBinStream.{h,cpp}): a sequence of
// blocks, each a 32-byte header {name[16] NUL-padded, u32 size, u8 external, 11 zero bytes} followed
// by `size` payload bytes zero-padded to a multiple of 16. The first block is `vela_bin_stream`
// (empty), the last `vela_end_stream` (empty, ending exactly at the end of the payload). Between
// them: cmd_data, weight_data, scratch_size (or the legacy scratch_data), inputs, outputs.
//
// Variants accepted (all seen in real files):
//   * scratch as `scratch_size` (u32) or legacy `scratch_data` (size bytes of zeros, ≤ v0.6.0);
//   * input/output descriptors of 36 bytes (6-D shape, ExecuTorch ≥ 1.0) or 28 bytes (4-D, ≤ 0.7),
//     told apart by (block size − 4) / count since there is no version field;
//   * external blocks (external == 1): the payload is a 64-character hex SHA-256 key into the
//     program's named data; only cmd_data and weight_data may be external.
// Every malformed payload gives InvalidProgram (or InvalidExternalData / NotFound for external
// blocks) with a message naming the block and its byte offset.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vkrt/backend.h"
#include "vkrt/error.h"

namespace vkrt::ethosu {

inline constexpr size_t kVelaBlockHeaderBytes = 32;
inline constexpr size_t kVelaBlockAlignment = 16;
inline constexpr size_t kVelaBlockNameBytes = 16;
// External blocks hold a hex SHA-256 key.
inline constexpr size_t kVelaExternalKeyBytes = 64;
// Vela base-pointer indices (docs/ethos-u.md §3.2, §5.3).
inline constexpr int kRegionWeights = 0;
inline constexpr int kRegionScratch = 1;
inline constexpr int kRegionFastScratch = 2;
inline constexpr int kRegionInputs = 3;   // --separate-io-regions only
inline constexpr int kRegionOutputs = 4;  // --separate-io-regions only
inline constexpr int kMaxRegions = 8;

// "weights", "scratch", "fast scratch", "inputs", "outputs", or "unused" for 5..7 (messages).
inline constexpr const char* region_name(int region) {
  constexpr const char* kNames[] = {"weights", "scratch", "fast scratch", "inputs", "outputs"};
  return region >= 0 && region <= kRegionOutputs ? kNames[region] : "unused";
}

// One block as framed in the payload (before external keys are resolved).
struct VelaBlock {
  std::string_view name;              // points into the payload
  std::span<const uint8_t> payload;   // `size` bytes, padding excluded
  bool external = false;
  size_t header_offset = 0;           // byte offset of the block header in the payload
};

// Splits the payload into blocks and checks the framing: header bounds, NUL-terminated printable
// names, zero reserved bytes, external flag 0/1, padded sizes, first/last block names. Does not
// interpret block contents.
Result<std::vector<VelaBlock>> split_vela_blocks(std::span<const uint8_t> payload);

enum class VelaIoLayout : uint8_t {
  Shape4D = 4,  // 28-byte descriptor: shape[4] (short shapes padded with trailing 0s), ≤ v0.7
  Shape6D = 6,  // 36-byte descriptor: shape[6] (padded with leading 1s), ≥ v1.0
};

// One input or output as Vela placed it.
struct VelaIo {
  VelaIoLayout layout = VelaIoLayout::Shape6D;
  std::array<int32_t, 6> shape{};  // as stored; only the first 4 used for Shape4D
  int32_t elem_size = 0;           // bytes per element: 1, 2 or 4
  int32_t offset = 0;              // byte offset inside `region`
  int32_t region = kRegionScratch;

  // Dims that carry the shape: Shape6D all 6; Shape4D the entries before the trailing zeros.
  std::span<const int32_t> dims() const;
  int64_t element_count() const;
  int64_t byte_size() const { return element_count() * elem_size; }
};

enum class ScratchSource : uint8_t {
  SizeBlock,         // `scratch_size` block (current)
  LegacyDataBlock,   // `scratch_data` block of zeros (≤ v0.6.0)
};

// The parsed and validated payload. Spans point into the payload or into named data; both live
// as long as the Program.
struct VelaBinStream {
  std::span<const uint8_t> cmd_data;
  std::span<const uint8_t> weight_data;
  bool cmd_data_external = false;
  bool weight_data_external = false;
  uint32_t scratch_size = 0;
  ScratchSource scratch_source = ScratchSource::SizeBlock;
  std::vector<VelaIo> inputs;
  std::vector<VelaIo> outputs;

  // True when any input or output lives in regions 3/4 (compiled with --separate-io-regions).
  bool uses_separate_io() const;
  // Bytes of region 3 (inputs) / 4 (outputs) the descriptors reach; 0 when none live there.
  uint64_t region_extent(int region) const;
};

// Parses and validates a payload. `named_data` resolves external blocks; it may be null, in which
// case an external block is an InvalidExternalData error.
Result<VelaBinStream> parse_vela_bin_stream(std::span<const uint8_t> payload,
                                            const NamedDataMap* named_data);

}  // namespace vkrt::ethosu
