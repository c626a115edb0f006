// Every portable kernel is registered under its ExecuTorch name, and every operator that the
// portable-only conformance programs use is among them.
#include <fstream>
#include <iterator>

#include "kernel_call.h"
#include "common/conformance.h"

namespace vkrt::portable::testing {
namespace {

TEST(PortableRegistry, OperatorsOfRealProgramsAreRegistered) {
  // Names decoded from ../shared/conformance/pte/*.pte (operators table, name "." overload).
  const char* used_by_conformance_programs[] = {
      "aten::add.out", "aten::mul.out", "aten::addmm.out", "aten::permute_copy.out", "aten::mean.out",
      "aten::eq.Scalar_out", "aten::clone.out", "aten::where.self_out",
      "dim_order_ops::_to_dim_order_copy.out",
      "quantized_decomposed::quantize_per_tensor.out", "quantized_decomposed::dequantize_per_tensor.out"};
  for (const char* name : used_by_conformance_programs) {
    EXPECT_NE(KernelRegistry::global().find(name), nullptr) << name;
  }
  const char* common_around_delegates[] = {
      "dim_order_ops::_clone_dim_order.out", "aten::view_copy.out", "aten::expand_copy.out", "aten::relu.out",
      "aten::clamp.out", "aten::_softmax.out", "aten::cat.out", "aten::slice_copy.Tensor_out", "aten::sub.out"};
  for (const char* name : common_around_delegates) {
    EXPECT_NE(KernelRegistry::global().find(name), nullptr) << name;
  }
}

TEST(PortableRegistry, ConformanceProgramsNameOurOperators) {
  // Independent check of the list above: the operator strings appear in the real files.
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch_hist_fbba1cbc54__extension_runner_module_test_resources_model.pte");
  const auto bytes = ::vkrt::testing::read_file(path);
  const std::string text(bytes.begin(), bytes.end());
  for (const char* fragment : {"aten::mean", "aten::eq", "Scalar_out", "aten::clone", "aten::where", "self_out"}) {
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment;
  }
}

TEST(PortableRegistry, AllocationCounterSeesHeapAllocations) {
  // KernelCall::run_raw relies on this counter to prove kernels do not allocate.
  const long before = g_heap_allocations.load();
  void* p = ::operator new(16);  // a direct call is never elided
  ::operator delete(p);
  EXPECT_EQ(g_heap_allocations.load() - before, 1);
}

}  // namespace
}  // namespace vkrt::portable::testing
