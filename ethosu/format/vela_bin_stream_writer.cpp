// Writer of the vela_bin_stream container (docs/ethos-u.md §2).
#include "ethosu/format/vela_bin_stream_writer.h"

#include <algorithm>
#include <cstring>

#include "ethosu/format/byte_io.h"

namespace vkrt::ethosu {

VelaBlockWriter& VelaBlockWriter::add(std::string_view name, std::span<const uint8_t> payload,
                                      bool external) {
  uint8_t header[kVelaBlockHeaderBytes] = {};
  std::memcpy(header, name.data(), std::min(name.size(), kVelaBlockNameBytes - 1));
  uint32_t size = uint32_t(payload.size());
  for (int i = 0; i < 4; ++i) header[16 + i] = uint8_t(size >> (8 * i));
  header[20] = external ? 1 : 0;
  bytes_.insert(bytes_.end(), header, header + sizeof(header));
  bytes_.insert(bytes_.end(), payload.begin(), payload.end());
  bytes_.resize(round_up(bytes_.size(), kVelaBlockAlignment), 0);
  return *this;
}

VelaBlockWriter& VelaBlockWriter::add_u32(std::string_view name, uint32_t value) {
  std::vector<uint8_t> v;
  append_u32_le(v, value);
  return add(name, v);
}

std::vector<uint8_t> encode_vela_io_block(std::span<const VelaIo> ios) {
  std::vector<uint8_t> out;
  append_i32_le(out, int32_t(ios.size()));
  for (const VelaIo& io : ios) {
    for (int d = 0; d < int(io.layout); ++d) append_i32_le(out, io.shape[size_t(d)]);
    append_i32_le(out, io.elem_size);
    append_i32_le(out, io.offset);
    append_i32_le(out, io.region);
  }
  return out;
}

std::vector<uint8_t> write_vela_bin_stream(const VelaBinStreamContents& c) {
  VelaBlockWriter w;
  w.add_empty("vela_bin_stream");
  auto add_maybe_external = [&w](std::string_view name, const std::vector<uint8_t>& data,
                                 const std::optional<std::string>& key) {
    if (key) {
      w.add(name, std::span(reinterpret_cast<const uint8_t*>(key->data()), key->size()), true);
    } else {
      w.add(name, data);
    }
  };
  add_maybe_external("cmd_data", c.cmd_data, c.cmd_data_key);
  add_maybe_external("weight_data", c.weight_data, c.weight_data_key);
  if (c.legacy_scratch_data) {
    std::vector<uint8_t> zeros(c.scratch_size, 0);
    w.add("scratch_data", zeros);
  } else {
    w.add_u32("scratch_size", c.scratch_size);
  }
  w.add("inputs", encode_vela_io_block(c.inputs));
  w.add("outputs", encode_vela_io_block(c.outputs));
  w.add_empty("vela_end_stream");
  return w.take();
}

VelaIo make_vela_io_6d(std::span<const int32_t> shape, int32_t elem_size, int32_t offset,
                       int32_t region) {
  VelaIo io;
  io.layout = VelaIoLayout::Shape6D;
  io.shape.fill(1);
  size_t n = std::min<size_t>(shape.size(), 6);
  for (size_t i = 0; i < n; ++i) io.shape[6 - n + i] = shape[shape.size() - n + i];
  io.elem_size = elem_size;
  io.offset = offset;
  io.region = region;
  return io;
}

VelaIo make_vela_io_4d(std::span<const int32_t> shape, int32_t elem_size, int32_t offset,
                       int32_t region) {
  VelaIo io;
  io.layout = VelaIoLayout::Shape4D;
  io.shape.fill(0);
  for (size_t i = 0; i < std::min<size_t>(shape.size(), 4); ++i) io.shape[i] = shape[i];
  io.elem_size = elem_size;
  io.offset = offset;
  io.region = region;
  return io;
}

}  // namespace vkrt::ethosu
