// libFuzzer target for .ptd files (FlatTensor: named tensors and blobs outside the program): the
// input is the data file of a fixed program whose weights are EXTERNAL (the sample
// linear_external program), loaded through Module::load_from_buffer's data_file and run. Any
// crash, sanitizer report or leak is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "run_program.h"
#include "sample_programs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt;
  static const std::vector<uint8_t> program = *samples::linear_external_program();
  fuzzing::reset_backends();
  auto module = Module::load_from_buffer(program, fuzzing::fuzz_load_options(), std::span<const uint8_t>(data, size));
  if (!module.ok()) return 0;
  fuzzing::run_every_method(**module, nullptr);
  return 0;
}
