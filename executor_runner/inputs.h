// Input files for executor_runner: raw little-endian bytes, or NumPy .npy arrays (read here, and
// written for a .vgf file's outputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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

// The longest .npy header read (NumPy writes a few hundred bytes; format 1.0 allows 64 KiB).
inline constexpr size_t kMaxNpyHeaderBytes = 1 << 20;

// Reads one input file. Only regular files are read, and only when no larger than the input
// needs (`expected.nbytes`, 8 for scalars, plus kMaxNpyHeaderBytes); the size is checked
// before anything is read. For .npy files checks magic, version, the header dict (descr,
// fortran_order, shape; parsed without throwing), little-endian dtype matching
// `expected.dtype`, C order and that the data holds exactly the shape's elements; the shape is
// returned for dynamic inputs.
Result<InputData> read_input_file(const std::string& path, const ValueInfo& expected, size_t index);

// What read_input_file does with the bytes it read: a .npy file (by its magic) is parsed and
// checked as above, anything else is raw data. `path` only names the file in errors. Also the
// entry point of executor_runner/fuzz/input_fuzzer.cpp.
Result<InputData> parse_input_bytes(std::vector<uint8_t> file, const std::string& path, const ValueInfo& expected,
                                    size_t index);

// The tensor over an input file's element bytes (kept alive by the caller): the .npy shape when
// there is one (the program's sizes when a static input's rank differs), else the program's
// sizes; the bytes must fill it exactly.
Result<Tensor> input_tensor(const std::vector<int32_t>& npy_shape, bool is_npy, std::span<uint8_t> bytes,
                            const ValueInfo& info, const std::string& path, size_t index);

// The dtype descriptor NumPy uses for a scalar type ("<f4", "|i1", "|b1"); "" if none.
std::string npy_descr(ScalarType t);

// A .npy file (format 1.0, C order) holding `t`: what --output_file writes for a .vgf file's
// outputs, and what read_input_file reads back. InvalidArgument for a dtype NumPy has no
// descriptor for.
Result<std::vector<uint8_t>> encode_npy(const Tensor& t);

}  // namespace vkrt::runner
