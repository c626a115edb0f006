// libFuzzer target for programs (.pte) and bundled programs (.bpte): parse, build method
// metadata, load every method and run it, with every kernel library and backend linked
// (run_program.h: VgfBackend on its CPU executor, EthosUBackend on the recording driver), and
// check a bundled program's test cases. Any crash, sanitizer report or leak is a bug; minimised
// inputs become regression tests in tests/runtime/loader_robustness_test.cpp.
#include <cstddef>
#include <cstdint>

#include "run_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt;
  fuzzing::reset_backends();
  std::span<const uint8_t> bytes(data, size);
  std::unique_ptr<BundledProgram> bundled;
  if (BundledProgram::is_bundled(bytes)) {
    auto b = BundledProgram::parse(bytes);
    if (!b.ok()) return 0;
    bundled = std::move(b).value();
    bytes = bundled->program();
  }
  auto module = Module::load_from_buffer(bytes, fuzzing::fuzz_load_options());
  if (!module.ok()) return 0;
  fuzzing::run_every_method(**module, bundled.get());
  return 0;
}
