// run_on_cpu: the CPU executor (TOSA reference kernels) as the oracle for Vulkan results. Kept
// out of vkrt_vulkan_test_util so that only the tests that use it link the VGF backend.
#include "vgf/cpu/cpu_executor.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {

Status run_on_cpu(const vgf::Graph& graph, std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs) {
  auto executor = vgf::make_cpu_executor();
  vgf::ExecutorOptions options;
  return run_graph(*executor, graph, options, inputs, outputs);
}

}  // namespace vkrt::vulkan::testing
