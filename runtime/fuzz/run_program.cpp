#include "run_program.h"

#include <algorithm>

#ifdef VKRT_FUZZ_WITH_VGF_BACKEND
#include "vkrt/vgf.h"
#endif
#ifdef VKRT_FUZZ_WITH_ETHOSU
#include "ethosu/drivers/recording_driver.h"
#include "vkrt/ethosu.h"
#endif

namespace vkrt::fuzzing {
namespace {
// Test cases checked per method: enough to reach every comparison path, few enough to keep an
// input fast (a bundled file may hold thousands).
constexpr size_t kMaxTestCases = 4;
}  // namespace

LoadOptions fuzz_load_options() {
  LoadOptions opts;
  opts.memory_budget_bytes = 16 << 20;  // mutated sizes must not exhaust the machine
  opts.temp_pool_bytes = 1 << 16;
#ifdef VKRT_FUZZ_WITH_VGF_BACKEND
  opts.backend_options.set(std::string(kVgfExecutorOption), "cpu");
#endif
#ifdef VKRT_FUZZ_WITH_ETHOSU
  opts.backend_options.set(ethosu::kOptionDriver, ethosu::kRecordingDriverName);
#endif
  return opts;
}

void reset_backends() {
#ifdef VKRT_FUZZ_WITH_ETHOSU
  ethosu::recording_driver_state().reset();
#endif
}

void run_every_method(Module& module, const BundledProgram* bundled) {
  for (const auto& name : module.method_names()) {
    (void)module.method_meta(name);
    auto method = module.load_method(name);
    if (!method.ok()) continue;
    Method& m = **method;
    for (size_t i = 0; i < m.num_inputs(); ++i) {
      EValue& in = m.input(i);
      if (in.is_tensor() && in.to_tensor().data()) (void)m.set_input(i, in);
    }
    (void)m.execute();
    const BundledTestSuite* suite = bundled ? bundled->find_suite(name) : nullptr;
    if (!suite) continue;
    const size_t cases = std::min(suite->test_cases.size(), kMaxTestCases);
    for (size_t c = 0; c < cases; ++c) {
      const BundledTestCase& test_case = suite->test_cases[c];
      if (!load_bundled_inputs(m, test_case).is_ok() || !m.execute().is_ok()) continue;
      (void)verify_bundled_outputs(m, test_case);
    }
  }
}

}  // namespace vkrt::fuzzing
