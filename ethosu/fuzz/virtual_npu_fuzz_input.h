// The input of virtual_npu_fuzzer (ethosu/fuzz/virtual_npu_fuzzer.cpp), shared with the seed writer
// (runtime/fuzz/make_fuzz_seeds.cpp):
//
//   byte 0       the NPU: bits 0-2 select U55-128, U65-256, U55-32, U55-64, U55-256, U65-512, U55-128,
//                U85-256 (refused; kept so the refusal stays covered)
//   byte 1       the fill pattern of region bytes the input does not give
//   bytes 2-9    the sizes of regions 0-3, u16 LE each in units of 16 bytes (0: not bound; at most
//                kMaxRegionBytes); regions 4-7 are not bound
//   bytes 10-11  the command stream's length in 32-bit words, u16 LE (cut to what follows)
//   bytes 12-15  a weight-stream layout for the direct decoder calls (layout_from below)
//   bytes 16-19  where in the flash bytes the direct decoder calls start, u32 LE (cut to their size)
//   then         the command-stream words, then the first bytes of region 0 (Vela's "flash": weight and
//                scale streams, LUTs)
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/weight_decoder.h"

namespace vkrt::ethosu::fuzzing {

inline constexpr size_t kVirtualNpuHeaderBytes = 20;
inline constexpr size_t kMaxRegionBytes = size_t(1) << 18;
inline constexpr int kFuzzRegions = 4;

// The CONFIG register of each NPU byte 0 selects (product << 28 | SHRAM KiB << 8 | log2 MACs).
inline constexpr uint32_t kArchConfigs[8] = {0x00001807, 0x10003008, 0x00001005, 0x00001006,
                                             0x00003008, 0x10003009, 0x00001807, 0x20003008};
inline constexpr uint32_t kArchId = 0x10066001;

struct VirtualNpuInput {
  uint8_t arch = 0;
  uint8_t fill = 0;
  std::array<size_t, kFuzzRegions> region_bytes{};  // multiples of 16; 0 = not bound
  std::array<uint8_t, 4> layout{};
  std::span<const uint8_t> stream;                  // whole words
  std::span<const uint8_t> flash;                   // the first bytes of region 0
  std::span<const uint8_t> weights;                 // the flash from bytes 16-19's offset on
};

inline std::optional<VirtualNpuInput> parse_virtual_npu_input(std::span<const uint8_t> data) {
  if (data.size() < kVirtualNpuHeaderBytes) return std::nullopt;
  VirtualNpuInput in;
  in.arch = data[0] & 7;
  in.fill = data[1];
  for (int r = 0; r < kFuzzRegions; ++r) {
    const size_t units = size_t(data[2 + 2 * r]) | size_t(data[3 + 2 * r]) << 8;
    in.region_bytes[size_t(r)] = std::min(units * 16, kMaxRegionBytes);
  }
  const size_t words = size_t(data[10]) | size_t(data[11]) << 8;
  std::memcpy(in.layout.data(), data.data() + 12, 4);
  const std::span<const uint8_t> rest = data.subspan(kVirtualNpuHeaderBytes);
  const size_t stream_bytes = std::min(words * 4, rest.size() / 4 * 4);
  in.stream = rest.first(stream_bytes);
  in.flash = rest.subspan(stream_bytes);
  const size_t offset = size_t(data[16]) | size_t(data[17]) << 8 | size_t(data[18]) << 16 | size_t(data[19]) << 24;
  in.weights = in.flash.subspan(std::min(offset, in.flash.size()));
  return in;
}

// The NPU byte for a CONFIG register, or nothing for a configuration the fuzzer does not select.
inline std::optional<uint8_t> arch_byte_for(uint32_t config) {
  for (uint8_t i = 0; i < 8; ++i)
    if (kArchConfigs[i] == config) return i;
  return std::nullopt;
}

// Writes an input; region sizes are rounded up to 16 bytes (nothing when one is too large).
inline std::optional<std::vector<uint8_t>> write_virtual_npu_input(uint8_t arch, uint8_t fill,
                                                                  std::array<size_t, kFuzzRegions> region_bytes,
                                                                  std::array<uint8_t, 4> layout,
                                                                  std::span<const uint8_t> stream,
                                                                  std::span<const uint8_t> flash,
                                                                  uint32_t weights_offset = 0) {
  if (stream.size() % 4 != 0 || stream.size() / 4 > 0xFFFF) return std::nullopt;
  std::vector<uint8_t> out(kVirtualNpuHeaderBytes);
  out[0] = arch;
  out[1] = fill;
  for (int r = 0; r < kFuzzRegions; ++r) {
    const size_t units = (region_bytes[size_t(r)] + 15) / 16;
    if (units * 16 > kMaxRegionBytes) return std::nullopt;
    out[size_t(2 + 2 * r)] = uint8_t(units);
    out[size_t(3 + 2 * r)] = uint8_t(units >> 8);
  }
  out[10] = uint8_t(stream.size() / 4);
  out[11] = uint8_t(stream.size() / 4 >> 8);
  std::memcpy(out.data() + 12, layout.data(), 4);
  for (int i = 0; i < 4; ++i) out[size_t(16 + i)] = uint8_t(weights_offset >> (8 * i));
  out.insert(out.end(), stream.begin(), stream.end());
  out.insert(out.end(), flash.begin(), flash.end());
  return out;
}

// The layout bytes: [0] OFM depth - 1, [1] IFM depth - 1, [2] kernel height - 1 (bits 0-3) and width - 1
// (bits 4-7), [3] bit 0 depthwise, 1 part-kernel-first, 2 16-bit IFM, 3 dilation x 2, 4 dilation y 2,
// bits 5-7 the OFM block depth 8 << n.
inline virtual_npu::WeightStreamLayout layout_from(const std::array<uint8_t, 4>& b, NpuProduct product, int macs) {
  virtual_npu::WeightStreamLayout l;
  l.product = product;
  l.macs = macs;
  l.ofm_depth = b[0] + 1;
  l.depthwise = b[3] & 1;
  l.ifm_depth = l.depthwise ? 1 : b[1] + 1;
  l.kernel_height = (b[2] & 15) + 1;
  l.kernel_width = (b[2] >> 4) + 1;
  l.part_kernel_first = !l.depthwise && (b[3] & 2);
  l.ifm_bits = (b[3] & 4) ? 16 : 8;
  l.dilation_x = (b[3] & 8) ? 2 : 1;
  l.dilation_y = (b[3] & 16) ? 2 : 1;
  l.ofm_block_depth = 8 << (b[3] >> 5);
  return l;
}

// A command-stream writer (../shared/docs/ethos-u.md §6.1) for seeds: cmd0 = opcode | param << 16;
// cmd1 = opcode | 0x4000 | (value >> 32 & 0xFF) << 16, then the low 32 bits.
class StreamWriter {
 public:
  StreamWriter& c0(uint16_t opcode, uint16_t param = 0) {
    put(uint32_t(opcode) | uint32_t(param) << 16);
    return *this;
  }
  StreamWriter& c1(uint16_t opcode, uint64_t value, uint16_t param_high = 0) {
    put(uint32_t(opcode) | 0x4000u | (uint32_t((value >> 32) & 0xFF) | param_high) << 16);
    put(uint32_t(value));
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void put(uint32_t w) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(uint8_t(w >> (8 * i)));
  }
  std::vector<uint8_t> bytes_;
};

}  // namespace vkrt::ethosu::fuzzing
