// Sample programs built with the writer (vkrt/pte_writer.h): the same programs the
// make_sample_programs tool writes, available to tests so they can run what the demo runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::samples {

// out = x * 2 + y for float x, y of sizes [2, 3] (aten::mul.out with a constant [2, 3] tensor of
// 2.0, then aten::add.out with alpha 1). All tensors memory-planned in one buffer.
Result<std::vector<uint8_t>> add_mul_program();

// A BundledProgram of add_mul with test cases (ones -> 3; a ramp).
Result<std::vector<uint8_t>> add_mul_bundled();

// out = w * x + b, x float [2, 2]; w (3.0) and b (2.0) are EXTERNAL tensors named "w" and "b"
// whose bytes live in the .ptd from linear_external_data(). Ones -> 5.
Result<std::vector<uint8_t>> linear_external_program();
Result<std::vector<uint8_t>> linear_external_data();

// Methods without instructions returning constants: get_int -> 128, get_double -> 2.5,
// get_bool -> true, get_string -> "vkrt", get_tensor -> int64 [3] {1, 2, 3}; plus "forward"
// = add_mul's method first.
Result<std::vector<uint8_t>> const_methods_program();

// add_mul written as files from before 2024-09 were: constants in the deprecated inline
// constant_buffer, no extended header.
Result<std::vector<uint8_t>> add_mul_legacy_program();

struct SampleFile {
  std::string name;  // file name, e.g. "add_mul.pte"
  std::string what;  // one line for humans
  Result<std::vector<uint8_t>> (*build)();
};
// Every sample, in the order the tool writes them.
const std::vector<SampleFile>& all_samples();

}  // namespace vkrt::samples
