// Validate once (issue 17): every graph reaches both executors through validate_graph and the
// op descriptors' shape rules, so the CPU and Vulkan executors must accept exactly the same
// graphs, less their declared capability limits (NotSupported: an op, type or size one of them
// has no kernel or shader for). vgf_fuzzer aborts on a graph one executor refuses as invalid
// while the other accepts it; tests/vgf/model/executors_agree_test.cpp runs the same check over
// the corpus and the conformance files.
#pragma once

#include <string>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/fuzz/execute_on_cpu.h"
#include "vgf/vulkan/fuzz/lower_for_fuzzing.h"

namespace vkrt::vgf::fuzzing {

struct ExecutorVerdicts {
  bool compared = false;  // false: not a small static graph (nothing prepared)
  Status cpu;
  Status vulkan;
};

// Both executors' verdicts on a graph a reader accepted: the CPU executor's prepare, the Vulkan
// executor's JIT short of the device. Only small static graphs (the CPU executor checks the
// shapes of a dynamic graph at execute, when it has them).
inline ExecutorVerdicts executor_verdicts(const Graph& graph) {
  ExecutorVerdicts v;
  if (!small_static_graph(graph)) return v;
  v.compared = true;
  v.cpu = make_cpu_executor()->prepare(graph, ExecutorOptions{});
  v.vulkan = vulkan::fuzzing::lower_for_vulkan(graph);
  return v;
}

// What is wrong when the verdicts disagree; empty when they agree. A capability limit
// (NotSupported) on either side excuses any verdict of the other.
inline std::string disagreement(const ExecutorVerdicts& v) {
  if (!v.compared) return {};
  auto refuses_graph = [](const Status& s) { return !s.is_ok() && s.code() != Error::NotSupported; };
  if (refuses_graph(v.cpu) && v.vulkan.is_ok()) return "the cpu executor refuses (" + v.cpu.to_string() + "), vulkan accepts";
  if (refuses_graph(v.vulkan) && v.cpu.is_ok()) return "the vulkan executor refuses (" + v.vulkan.to_string() + "), cpu accepts";
  return {};
}

}  // namespace vkrt::vgf::fuzzing
