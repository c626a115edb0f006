#include "ethosu/virtual/feature_map.h"

#include <algorithm>
#include <cstring>

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

}  // namespace

FeatureMap read_feature_map(const RegisterFile& regs, FeatureMapRole role) {
  FeatureMap m;
  uint16_t precision = 0;
  switch (role) {
    case FeatureMapRole::Ifm:
      m.name = "IFM";
      m.region = regs.get(Cmd0::IfmRegion) & 7;
      for (int t = 0; t < 4; ++t) m.base[t] = regs.address(Cmd1(uint16_t(Cmd1::IfmBase0) + t));
      m.height0 = regs.get(Cmd0::IfmHeight0M1) + 1;
      m.height1 = regs.get(Cmd0::IfmHeight1M1) + 1;
      m.width0 = regs.get(Cmd0::IfmWidth0M1) + 1;
      m.stride_x = int64_t(regs.address(Cmd1::IfmStrideX));
      m.stride_y = int64_t(regs.address(Cmd1::IfmStrideY));
      m.stride_c = int64_t(regs.address(Cmd1::IfmStrideC));
      m.depth = regs.get(Cmd0::IfmDepthM1) + 1;
      m.zero_point = regs.get_signed(Cmd0::IfmZeroPoint);
      precision = regs.get(Cmd0::IfmPrecision);
      m.element_bytes = element_bytes_from(precision, 2);
      break;
    case FeatureMapRole::Ifm2:
      m.name = "IFM2";
      m.region = regs.get(Cmd0::Ifm2Region) & 7;
      for (int t = 0; t < 4; ++t) m.base[t] = regs.address(Cmd1(uint16_t(Cmd1::Ifm2Base0) + t));
      m.height0 = regs.get(Cmd0::Ifm2Height0M1) + 1;
      m.height1 = regs.get(Cmd0::Ifm2Height1M1) + 1;
      m.width0 = regs.get(Cmd0::Ifm2Width0M1) + 1;
      m.stride_x = int64_t(regs.address(Cmd1::Ifm2StrideX));
      m.stride_y = int64_t(regs.address(Cmd1::Ifm2StrideY));
      m.stride_c = int64_t(regs.address(Cmd1::Ifm2StrideC));
      m.zero_point = regs.get_signed(Cmd0::Ifm2ZeroPoint);
      precision = regs.get(Cmd0::Ifm2Precision);
      m.element_bytes = element_bytes_from(precision, 2);
      break;
    case FeatureMapRole::Ofm:
      m.name = "OFM";
      m.region = regs.get(Cmd0::OfmRegion) & 7;
      for (int t = 0; t < 4; ++t) m.base[t] = regs.address(Cmd1(uint16_t(Cmd1::OfmBase0) + t));
      m.height0 = regs.get(Cmd0::OfmHeight0M1) + 1;
      m.height1 = regs.get(Cmd0::OfmHeight1M1) + 1;
      m.width0 = regs.get(Cmd0::OfmWidth0M1) + 1;
      m.stride_x = int64_t(regs.address(Cmd1::OfmStrideX));
      m.stride_y = int64_t(regs.address(Cmd1::OfmStrideY));
      m.stride_c = int64_t(regs.address(Cmd1::OfmStrideC));
      m.height = regs.get(Cmd0::OfmHeightM1) + 1;
      m.width = regs.get(Cmd0::OfmWidthM1) + 1;
      m.depth = regs.get(Cmd0::OfmDepthM1) + 1;
      m.zero_point = regs.get_signed(Cmd0::OfmZeroPoint);
      precision = regs.get(Cmd0::OfmPrecision);
      m.element_bytes = element_bytes_from(precision, 1);
      break;
  }
  m.is_signed = (precision & 1) != 0;
  m.brick16 = (precision >> 6) & 1;
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
  // The last channel's offset: NHCWB16 puts channel c at (c / 16)·stride_c + (c % 16)·e.
  const int c_last = map.depth - 1;
  const int64_t channel_end =
      map.brick16 ? (c_last / 16) * map.stride_c + std::min(c_last, 15) * e + e
                  : c_last * map.stride_c + e;
  for (int t = 0; t < 4; ++t) {
    if (rows[t] <= 0 || cols[t] <= 0) continue;
    const int64_t extent = (rows[t] - 1) * map.stride_y + (cols[t] - 1) * map.stride_x + channel_end;
    static const char* kTileNames[4][3] = {{"IFM tile 0", "IFM2 tile 0", "OFM tile 0"},
                                           {"IFM tile 1", "IFM2 tile 1", "OFM tile 1"},
                                           {"IFM tile 2", "IFM2 tile 2", "OFM tile 2"},
                                           {"IFM tile 3", "IFM2 tile 3", "OFM tile 3"}};
    const int role = map.name[0] == 'O' ? 2 : (map.name[3] == '2' ? 1 : 0);
    auto p = memory.span(map.region, map.base[t], uint64_t(extent), kTileNames[t][role]);
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
  int64_t offset = y * map_.stride_y + x * map_.stride_x;
  offset += map_.brick16 ? (c / 16) * map_.stride_c + (c % 16) * map_.element_bytes
                         : c * map_.stride_c;
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
