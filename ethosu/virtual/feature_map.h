// Feature maps as the registers describe them, and the memory the virtual NPU reads and writes.
//
// A feature map is up to four tiles (BASE0..3): tile 0 top-left (HEIGHT0 rows, WIDTH0 columns),
// tile 1 top-right (HEIGHT1 rows), tile 2 bottom-left, tile 3 bottom-right. Each element lives at
//   NHWC:    base + y·stride_y + x·stride_x + c·element size
//   NHCWB16: base + y·stride_y + x·16·element size + (c / 16)·stride_c + (c % 16)·element size
// with (y, x) relative to its tile, as Vela's address model has it: NHWC channels are adjacent
// (stride_c = element size) and NHCWB16 bricks are 16 elements wide per x (stride_x = 16 elements);
// Vela writes those values into the registers anyway. Every access is checked against the region's
// size.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ethosu/format/vela_bin_stream.h"
#include "ethosu/virtual/npu_registers.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

// A region's memory as the driver bound it (base pointer r of the command stream).
struct RegionMemory {
  uint8_t* data = nullptr;
  size_t size = 0;
};

struct NpuMemory {
  std::array<RegionMemory, kMaxRegions> regions{};
  // Internal memory: the top 2 KiB hold the activation LUTs (8 slots of 256 bytes for int8).
  uint8_t* shram = nullptr;
  size_t shram_size = 0;

  // The `bytes` bytes at `address` of `region`, or an error naming both.
  Result<uint8_t*> span(int region, uint64_t address, uint64_t bytes, const char* what) const;
};

enum class FeatureMapRole : uint8_t { Ifm, Ifm2, Ofm };

struct FeatureMap {
  const char* name = "IFM";
  int region = 0;
  std::array<uint64_t, 4> base{};
  int height0 = 1, height1 = 1, width0 = 1;  // tile sizes
  int64_t stride_x = 0, stride_y = 0, stride_c = 0;
  int height = 1, width = 1, depth = 1;      // the extent the operation uses
  int element_bytes = 1;                     // 1, 2 or 4
  bool is_signed = true;
  bool brick16 = false;                      // NHCWB16
  int32_t zero_point = 0;

  int64_t min_value() const;
  int64_t max_value() const;
};

// Reads the IFM, IFM2 or OFM registers. The extent (height, width, depth) is set by the caller
// where the registers do not give it (the IFM of a convolution follows from the OFM and kernel).
FeatureMap read_feature_map(const RegisterFile& regs, FeatureMapRole role);

// Checked element access: resolves every element's address once per operation into a table, so
// an operation's inner loops touch only memory already checked.
class FeatureMapView {
 public:
  static Result<FeatureMapView> bind(const FeatureMap& map, const NpuMemory& memory);
  int64_t read(int y, int x, int c) const;        // raw stored value (no zero point)
  void write(int y, int x, int c, int64_t value) const;  // value already in range
  const FeatureMap& map() const { return map_; }

 private:
  uint8_t* element(int y, int x, int c) const;
  FeatureMap map_;
  std::array<uint8_t*, 4> tile_base_{};
};

}  // namespace vkrt::ethosu::virtual_npu
