// Input files for executor_runner: raw little-endian bytes, or NumPy .npy arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/module.h"

namespace vkrt::runner {

struct InputData {
  std::vector<uint8_t> bytes;      // element data (npy header stripped)
  std::vector<int32_t> npy_shape;  // set for .npy files
  bool is_npy = false;
};

// Reads one input file. For .npy files checks magic, version, little-endian dtype matching
// `expected.dtype` and C order; the shape is returned for dynamic inputs.
Result<InputData> read_input_file(const std::string& path, const ValueInfo& expected, size_t index);

// The dtype descriptor NumPy uses for a scalar type ("<f4", "|i1", "|b1"); "" if none.
std::string npy_descr(ScalarType t);

}  // namespace vkrt::runner
