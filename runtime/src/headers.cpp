#include "headers.h"

#include <cstring>

namespace vkrt {

uint32_t read_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t read_le64(const uint8_t* p) { return uint64_t(read_le32(p)) | uint64_t(read_le32(p + 4)) << 32; }

static std::string printable(const uint8_t* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (p[i] >= 32 && p[i] < 127) ? char(p[i]) : '?';
  return s;
}

Result<ProgramHeader> parse_program_header(std::span<const uint8_t> file, const std::string& name) {
  if (file.size() < 8)
    return make_error(Error::InvalidProgram, name, ": file is ", file.size(),
                      " bytes, too short to be a program");
  if (memcmp(file.data() + 4, "ET12", 4) != 0)
    return make_error(Error::InvalidProgram, name, ": program identifier '", printable(file.data() + 4, 4),
                      "' != expected 'ET12' (not an ExecuTorch program, or an incompatible version)");
  ProgramHeader h;
  if (file.size() < 16 || memcmp(file.data() + 8, "eh00", 4) != 0) {
    h.program_size = file.size();
    return h;
  }
  h.present = true;
  h.length = read_le32(file.data() + 12);
  if (h.length < 24)
    return make_error(Error::InvalidProgram, name, ": eh00 header length ", h.length, " < 24");
  if (8 + uint64_t(h.length) > file.size())
    return make_error(Error::InvalidProgram, name, ": eh00 header (", h.length, " bytes) runs past the end of the file");
  h.program_size = read_le64(file.data() + 16);
  h.segment_base_offset = read_le64(file.data() + 24);
  if (h.length >= 32) h.segment_data_size = read_le64(file.data() + 32);
  if (h.program_size < 8 || h.program_size > file.size())
    return make_error(Error::InvalidProgram, name, ": eh00 program_size ", h.program_size,
                      " is outside the file (", file.size(), " bytes)");
  if (h.segment_base_offset != 0 && h.segment_base_offset < h.program_size)
    return make_error(Error::InvalidProgram, name, ": segment_base_offset ", h.segment_base_offset,
                      " lies inside the program data (", h.program_size, " bytes)");
  // Upstream's truncation check (runtime/executor/program.cpp): segment data must be in the file.
  uint64_t expected = h.program_size;
  if (h.segment_base_offset != 0 &&
      __builtin_add_overflow(h.segment_base_offset, h.segment_data_size, &expected))
    return make_error(Error::InvalidProgram, name, ": segment_data_size overflows");
  if (expected > file.size())
    return make_error(Error::InvalidProgram, name, ": file is truncated: header says ", expected,
                      " bytes, file has ", file.size());
  return h;
}

Result<FlatTensorHeader> parse_flat_tensor_header(std::span<const uint8_t> file, const std::string& name) {
  if (file.size() < 48)
    return make_error(Error::InvalidExternalData, name, ": file is ", file.size(),
                      " bytes, too short to be a .ptd file");
  if (memcmp(file.data() + 4, "FT01", 4) != 0 || memcmp(file.data() + 8, "FH01", 4) != 0)
    return make_error(Error::InvalidExternalData, name, ": not a FlatTensor (.ptd) file: identifier '",
                      printable(file.data() + 4, 4), "', header magic '", printable(file.data() + 8, 4),
                      "' (expected 'FT01', 'FH01')");
  uint32_t length = read_le32(file.data() + 12);
  if (length < 40)
    return make_error(Error::InvalidExternalData, name, ": FH01 header length ", length, " < 40");
  uint64_t fb_offset = read_le64(file.data() + 16);
  uint64_t fb_size = read_le64(file.data() + 24);
  FlatTensorHeader h;
  h.segment_base_offset = read_le64(file.data() + 32);
  h.segment_data_size = read_le64(file.data() + 40);
  if (__builtin_add_overflow(fb_offset, fb_size, &h.flatbuffer_end) || h.flatbuffer_end > file.size())
    return make_error(Error::InvalidExternalData, name, ": flatbuffer [", fb_offset, ", +", fb_size,
                      ") lies outside the file (", file.size(), " bytes)");
  uint64_t seg_end = 0;
  if (__builtin_add_overflow(h.segment_base_offset, h.segment_data_size, &seg_end) || seg_end > file.size())
    return make_error(Error::InvalidExternalData, name, ": segment data [", h.segment_base_offset, ", +",
                      h.segment_data_size, ") lies outside the file (", file.size(), " bytes)");
  return h;
}

}  // namespace vkrt
