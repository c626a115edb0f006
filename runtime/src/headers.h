// The fixed headers that precede the FlatBuffers of program and data files.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "vkrt/error.h"

namespace vkrt {

// `eh00` extended header of a .pte (shared/docs/pte-format.md §2). present=false when absent.
struct ProgramHeader {
  bool present = false;
  uint32_t length = 0;
  uint64_t program_size = 0;         // bytes of FlatBuffers data from offset 0
  uint64_t segment_base_offset = 0;  // 0 = no segments
  uint64_t segment_data_size = 0;    // 0 in the 24-byte form
};

// Checks the `ET12` identifier and parses/validates the optional eh00 header against the file size.
Result<ProgramHeader> parse_program_header(std::span<const uint8_t> file, const std::string& name);

// `FH01` header of a .ptd (shared/docs/pte-format.md §7.5).
struct FlatTensorHeader {
  uint64_t flatbuffer_end = 0;  // flatbuffer_offset + flatbuffer_size, <= file size
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

Result<FlatTensorHeader> parse_flat_tensor_header(std::span<const uint8_t> file, const std::string& name);

uint32_t read_le32(const uint8_t* p);
uint64_t read_le64(const uint8_t* p);

}  // namespace vkrt
