#include "ethosu/virtual/feature_map.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace vkrt::ethosu::virtual_npu {

Result<uint8_t*> NpuMemory::span(int region, uint64_t address, uint64_t bytes,
                                 const char* what) const {
  if (region < 0 || region >= kMaxRegions || regions[region].data == nullptr) {
    return make_error(Error::InvalidProgram, what, " uses region ", region,
                      ", which the driver did not bind");
  }
  const RegionMemory& r = regions[region];
  if (address > r.size || bytes > r.size - address) {
    return make_error(Error::InvalidProgram, what, " reads or writes bytes ", address, "..",
                      address + bytes, " outside region ", region, " (", r.size, " bytes)");
  }
  return r.data + address;
}

int64_t FeatureMap::min_value() const {
  if (!is_signed) return 0;
  return -(int64_t(1) << (8 * element_bytes - 1));
}

int64_t FeatureMap::max_value() const {
  if (!is_signed) return (int64_t(1) << (8 * element_bytes)) - 1;
  return (int64_t(1) << (8 * element_bytes - 1)) - 1;
}

namespace {

int element_bytes_from(uint16_t precision, int size_shift) {
  switch ((precision >> size_shift) & 3) {
    case 0: return 1;
    case 1: return 2;
    default: return 4;
  }
}

// The registers that describe each feature map (the IFM2 has no depth or extent of its own; the
// OFM's precision keeps its size one bit lower).
struct FeatureMapRegisters {
  const char* name;
  Cmd0 region, height0, height1, width0, zero_point, precision;
  Cmd1 base0, stride_x, stride_y, stride_c;
  int size_shift;  // of the size field in the precision register
};
constexpr FeatureMapRegisters kIfmRegisters{
    "IFM", Cmd0::IfmRegion, Cmd0::IfmHeight0M1, Cmd0::IfmHeight1M1, Cmd0::IfmWidth0M1, Cmd0::IfmZeroPoint,
    Cmd0::IfmPrecision, Cmd1::IfmBase0, Cmd1::IfmStrideX, Cmd1::IfmStrideY, Cmd1::IfmStrideC, 2};
constexpr FeatureMapRegisters kIfm2Registers{
    "IFM2", Cmd0::Ifm2Region, Cmd0::Ifm2Height0M1, Cmd0::Ifm2Height1M1, Cmd0::Ifm2Width0M1, Cmd0::Ifm2ZeroPoint,
    Cmd0::Ifm2Precision, Cmd1::Ifm2Base0, Cmd1::Ifm2StrideX, Cmd1::Ifm2StrideY, Cmd1::Ifm2StrideC, 2};
constexpr FeatureMapRegisters kOfmRegisters{
    "OFM", Cmd0::OfmRegion, Cmd0::OfmHeight0M1, Cmd0::OfmHeight1M1, Cmd0::OfmWidth0M1, Cmd0::OfmZeroPoint,
    Cmd0::OfmPrecision, Cmd1::OfmBase0, Cmd1::OfmStrideX, Cmd1::OfmStrideY, Cmd1::OfmStrideC, 1};

}  // namespace

FeatureMap read_feature_map(const RegisterFile& regs, FeatureMapRole role) {
  const FeatureMapRegisters& r = role == FeatureMapRole::Ifm    ? kIfmRegisters
                                 : role == FeatureMapRole::Ifm2 ? kIfm2Registers
                                                                : kOfmRegisters;
  FeatureMap m;
  m.name = r.name;
  m.region = regs.get(r.region) & 7;
  for (int t = 0; t < 4; ++t) m.base[t] = regs.address(Cmd1(uint16_t(r.base0) + t));
  m.height0 = regs.get(r.height0) + 1;
  m.height1 = regs.get(r.height1) + 1;
  m.width0 = regs.get(r.width0) + 1;
  m.stride_x = int64_t(regs.address(r.stride_x));
  m.stride_y = int64_t(regs.address(r.stride_y));
  m.stride_c = int64_t(regs.address(r.stride_c));
  m.zero_point = regs.get_signed(r.zero_point);
  const uint16_t precision = regs.get(r.precision);
  m.element_bytes = element_bytes_from(precision, r.size_shift);
  m.is_signed = (precision & 1) != 0;
  m.brick16 = (precision >> 6) & 1;
  if (role == FeatureMapRole::Ifm) m.depth = regs.get(Cmd0::IfmDepthM1) + 1;
  if (role == FeatureMapRole::Ofm) {
    m.height = regs.get(Cmd0::OfmHeightM1) + 1;
    m.width = regs.get(Cmd0::OfmWidthM1) + 1;
    m.depth = regs.get(Cmd0::OfmDepthM1) + 1;
  }
  return m;
}

Result<FeatureMapView> FeatureMapView::bind(const FeatureMap& map, const NpuMemory& memory) {
  FeatureMapView view;
  view.map_ = map;
  // The rows and columns of each tile the extent reaches: tile 0 [0, h0) x [0, w0), tile 1
  // [0, h1) x [w0, w), tile 2 [h0, h) x [0, w0), tile 3 [h1, h) x [w0, w).
  const int w0 = std::min(map.width0, map.width);
  const int rows[4] = {std::min(map.height0, map.height), std::min(map.height1, map.height),
                       std::max(map.height - map.height0, 0), std::max(map.height - map.height1, 0)};
  const int cols[4] = {w0, map.width - w0, w0, map.width - w0};
  const int64_t e = map.element_bytes;
  // The largest channel offset (see element()): NHWC c·e; NHCWB16 (c / 16)·stride_c + (c % 16)·e,
  // largest at the last channel or at the end of the brick before it.
  const int64_t c_last = map.depth - 1;
  int64_t channel_end = c_last * e + e;
  if (map.brick16) {
    channel_end = (c_last / 16) * map.stride_c + (c_last % 16) * e + e;
    if (c_last >= 16) channel_end = std::max(channel_end, (c_last / 16 - 1) * map.stride_c + 16 * e);
  }
  const int64_t x_step = map.brick16 ? 16 * e : map.stride_x;
  for (int t = 0; t < 4; ++t) {
    if (rows[t] <= 0 || cols[t] <= 0) continue;
    const int64_t extent = (rows[t] - 1) * map.stride_y + (cols[t] - 1) * x_step + channel_end;
    const std::string what = std::string(map.name) + " tile " + std::to_string(t);
    auto p = memory.span(map.region, map.base[t], uint64_t(extent), what.c_str());
    if (!p.ok()) return p.status();
    view.tile_base_[t] = *p;
  }
  return view;
}

uint8_t* FeatureMapView::element(int y, int x, int c) const {
  int tile = 0;
  if (x >= map_.width0) {
    x -= map_.width0;
    tile = y < map_.height1 ? 1 : 3;
    if (tile == 3) y -= map_.height1;
  } else if (y >= map_.height0) {
    tile = 2;
    y -= map_.height0;
  }
  // Vela's address model (get_address in its register_command_stream_generator.py): NHWC ignores
  // STRIDE_C (channels are adjacent), NHCWB16 ignores STRIDE_X (16 channels of a brick per x).
  const int64_t e = map_.element_bytes;
  const int64_t offset = map_.brick16
                             ? y * map_.stride_y + x * 16 * e + (c / 16) * map_.stride_c + (c % 16) * e
                             : y * map_.stride_y + x * map_.stride_x + c * e;
  return tile_base_[tile] + offset;
}

int64_t FeatureMapView::read(int y, int x, int c) const {
  const uint8_t* p = element(y, x, c);
  switch (map_.element_bytes) {
    case 1: return map_.is_signed ? int64_t(int8_t(p[0])) : int64_t(p[0]);
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return map_.is_signed ? int64_t(int16_t(v)) : int64_t(v);
    }
    default: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return map_.is_signed ? int64_t(int32_t(v)) : int64_t(v);
    }
  }
}

void FeatureMapView::write(int y, int x, int c, int64_t value) const {
  uint8_t* p = element(y, x, c);
  const uint32_t v = uint32_t(value);
  std::memcpy(p, &v, size_t(map_.element_bytes));  // little-endian host
}

}  // namespace vkrt::ethosu::virtual_npu
