// Runs a whole VGF model sequence (vgf-format.md §4-§5): every segment in order, GRAPH segments
// on a graph executor (vgf/executor.h), COMPUTE segments on the registered compute-segment
// runner (vgf/compute_segment.h), with one host tensor per resource between them. Intermediate
// resources are owned here; resources of one alias group share one storage. VgfBackend (inside
// programs) and VgfSession (a .vgf run directly) are both this class plus their own I/O mapping.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vgf/compute_segment.h"
#include "vgf/executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/ir/graph.h"
#include "vkrt/backend.h"
#include "vkrt/kernel.h"
#include "vkrt/memory_budget.h"
#include "vkrt/tensor.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {

struct ModelRunnerOptions {
  // The load's options, parsed once (VgfBackend::init) or given (VgfSession::create): the
  // executor choice and what the executors read. Required; read during prepare() only.
  const VgfOptions* options = nullptr;
  MemoryBudget* memory_budget = nullptr;            // required; must outlive the runner
  // The threads run()'s KernelContext will offer (ExecutorOptions::num_threads).
  int num_threads = 1;
  // Lines for the user about choices made against the request (a segment auto moved to the
  // CPU); may be null.
  std::vector<std::string>* notices = nullptr;
};

class ModelRunner {
 public:
  ModelRunner();
  ~ModelRunner();
  ModelRunner(const ModelRunner&) = delete;
  ModelRunner& operator=(const ModelRunner&) = delete;

  // Builds each segment's graph, chooses and prepares its executor, allocates intermediate and
  // alias-group storage. `file` (and the bytes it was decoded from) must outlive the runner.
  Status prepare(const VgfFile& file, const ModelRunnerOptions& options);

  // model_inputs[k] holds file.inputs[k]'s resource, model_outputs[j] file.outputs[j]'s (host
  // tensors; types and element counts are checked against the resources).
  Status run(std::span<Tensor* const> model_inputs, std::span<Tensor* const> model_outputs, KernelContext* ctx);

  const std::vector<VgfPlacement>& placements() const { return placements_; }
  std::vector<DelegateProfileEntry> op_profile() const;

 private:
  struct Segment;
  Status choose_graph_executor(const ModelRunnerOptions& options);
  Status prepare_graph_segment(size_t index, const ModelRunnerOptions& options);
  Status prepare_compute_segment(size_t index, const ModelRunnerOptions& options);
  Status allocate_resources(MemoryBudget& budget);
  Status check_model_tensor(uint32_t mrt, const Tensor& t, const char* what, size_t index) const;
  void bind_alias_views(uint32_t mrt, const Tensor& t);

  const VgfFile* file_ = nullptr;
  std::vector<std::unique_ptr<Segment>> segments_;
  std::vector<VgfPlacement> placements_;
  // The graph executor auto chose for every GRAPH segment ("vulkan" or "cpu"), and the reason.
  std::string graph_executor_, graph_reason_;
  std::unique_ptr<GraphExecutor> first_vulkan_;  // the probe auto opened, used by segment 0
  // Per resource: the tensor segments read and write (intermediates: owned storage; model I/O:
  // the caller's tensors for one run; alias-group members: views of the group's storage).
  std::vector<Tensor> resource_tensors_;
  std::vector<Tensor*> resource_views_;
  std::vector<std::vector<uint32_t>> alias_members_;  // per resource: the other members of its group
  // Per non-constant resource, found at prepare so that run() allocates nothing: its host type,
  // its sizes as a Tensor takes them, and its element count (-1 when a dimension is dynamic).
  std::vector<ResourceHostType> host_types_;
  std::vector<std::vector<int32_t>> host_sizes_;
  std::vector<int64_t> host_counts_;
  std::vector<std::unique_ptr<uint8_t[]>> storage_;
};

}  // namespace vkrt::vgf
