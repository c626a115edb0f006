// Files that tests build and that fuzzers should start from (VGFs with COMPUTE segments need
// shaders compiled by the test build, so make_fuzz_seeds cannot write them): with the
// environment variable VKRT_FUZZ_SEED_DIR set, write_fuzz_seed stores `bytes` there as `name`.
// docs/fuzzing.md says which corpus folder to point it at.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkrt::testing {

void write_fuzz_seed(const std::string& name, const std::vector<uint8_t>& bytes);

}  // namespace vkrt::testing
