// libFuzzer target for the program loader: parse, build method metadata, load every method and
// run it. Any crash, sanitizer report or leak is a bug; minimised inputs become regression tests
// in tests/runtime/loader_robustness_test.cpp.
#include <cstddef>
#include <cstdint>

#include "vkrt/bundled_program.h"
#include "vkrt/module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt;
  LoadOptions opts;
  opts.memory_budget_bytes = 16 << 20;
  opts.temp_pool_bytes = 1 << 16;
  std::span<const uint8_t> bytes(data, size);
  std::unique_ptr<BundledProgram> bundled;
  if (BundledProgram::is_bundled(bytes)) {
    auto b = BundledProgram::parse(bytes);
    if (!b.ok()) return 0;
    bundled = std::move(b).value();
    bytes = bundled->program();
  }
  auto module = Module::load_from_buffer(bytes, opts);
  if (!module.ok()) return 0;
  for (const auto& name : (*module)->method_names()) {
    (void)(*module)->method_meta(name);
    auto method = (*module)->load_method(name);
    if (!method.ok()) continue;
    Method& m = **method;
    for (size_t i = 0; i < m.num_inputs(); ++i) {
      EValue& in = m.input(i);
      if (in.is_tensor() && in.to_tensor().data()) (void)m.set_input(i, in);
    }
    (void)m.execute();
  }
  return 0;
}
