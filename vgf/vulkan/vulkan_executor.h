// The "vulkan" GraphExecutor (vgf/executor.h): a TOSA graph compiled just in time into Vulkan
// compute dispatches at prepare(), replayed by run().
//
// prepare(): checks every op against the embedded shaders (all unsupported ops are listed in
// one NotSupported error), fuses CONV2D/DEPTHWISE_CONV2D/MATMUL with the RESCALE/CLAMP that
// follow, plans the intermediates into one arena by liveness, uploads constants once, creates
// pipelines through the on-disk pipeline cache and records the command buffer once.
// run(): copy inputs in, submit, wait, copy outputs out. A graph with dynamic dimensions is
// planned and recorded per distinct set of input shapes (cached).
//
// Options: the typed VgfOptions of ExecutorOptions (vkrt/vgf.h; table in docs/vgf.md "Options"),
// read at prepare(): device, validation, pipeline_cache_dir, profile, zero_copy, fusion,
// fuse_elementwise, variants, coopmat, dump_chains. Nothing here reads strings or the environment.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vgf/executor.h"
#include "vgf/vulkan/buffer.h"
#include "vgf/vulkan/command_program.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/elementwise_fusion.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/pipeline.h"
#include "vgf/vulkan/pipeline_cache.h"

namespace vkrt::vulkan {

struct PendingDispatch;  // op_lowering.h

struct VulkanExecutorStats {
  std::string device;              // Context::describe()
  size_t op_count = 0;             // ops in the graph (RESHAPE included)
  size_t dispatch_count = 0;       // dispatches recorded for the current shapes
  std::vector<std::string> dispatch_shaders;  // their shader variants, in order
  size_t barrier_count = 0;
  size_t pipeline_count = 0;
  uint64_t arena_bytes = 0;        // intermediate arena (inputs and outputs included)
  uint64_t peak_live_bytes = 0;    // largest simultaneously-live tensor set
  uint64_t total_tensor_bytes = 0; // all arena tensors without reuse
  uint64_t constant_bytes = 0;     // uploaded constants (weights, requantization tables)
  // Device memory behind the arenas and constant buffers of every plan held (one per input
  // shape), as allocated (the driver's rounding included), and the host-visible staging
  // buffers next to them (none where the arena is host-visible and coherent).
  uint64_t device_memory_bytes = 0;
  uint64_t staging_memory_bytes = 0;
  double prepare_seconds = 0.0;
  // Part of prepare_seconds spent creating the Vulkan instance and device: 0 when another
  // executor in the process already holds them (Context::shared). No pipeline cache helps here.
  double context_seconds = 0.0;
  double pipeline_seconds = 0.0;   // inside vkCreateComputePipelines
  CacheLoadResult cache = CacheLoadResult::Disabled;
  bool staging = false;            // true when inputs/outputs go through staging copies
  // Fused elementwise chains (elementwise_fusion.h).
  size_t fused_chains = 0;         // chain steps (one generated dispatch each)
  size_t chain_modules = 0;        // distinct generated shaders (cached by source text)
  double chain_compile_seconds = 0.0;  // glslang + SPIRV-Tools at prepare (or disk cache reads)
  size_t chain_compiles = 0;         // modules compiled with glslang
  size_t chain_disk_hits = 0;        // modules read back from the disk cache (warm init)
  std::vector<std::string> chain_failures;  // chains that fell back to one dispatch per op
  // Fast variants the driver could not create a pipeline for, and what replaced them.
  std::vector<std::string> variant_fallbacks;
};

class VulkanExecutor final : public vgf::GraphExecutor {
 public:
  VulkanExecutor();
  ~VulkanExecutor() override;

  std::string_view name() const override { return "vulkan"; }
  std::string device_name() const override { return ctx_ ? ctx_->info().name : std::string(); }
  bool software_device() const override { return ctx_ && ctx_->features().cpu_device; }
  Status prepare(const vgf::Graph& graph, const vgf::ExecutorOptions& options) override;
  Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs,
             KernelContext* ctx) override;

  const VulkanExecutorStats& stats() const { return stats_; }
  // GPU time per dispatch of the last run (empty unless profiling is on).
  std::vector<DispatchTiming> last_profile() const;
  // The same as the executor interface's per-step profile (executor_runner --profile).
  std::vector<DelegateProfileEntry> op_profile() const override;
  const std::shared_ptr<Context>& context() const { return ctx_; }
  // Replaces the GLSL compiler used for generated elementwise-chain shaders at the next
  // prepare() (default: compile_glsl_compute). Tests inject compile failures through it.
  void set_chain_compiler(ChainPipelines::Compiler compiler) { chain_compiler_ = std::move(compiler); }
  // Makes pipeline creation fail where `fault` returns an error, from the next prepare() on.
  // Tests check the fast-variant fallback through it.
  void set_pipeline_fault(PipelineSet::Fault fault) { pipeline_fault_ = std::move(fault); }

 private:
  friend Result<std::unique_ptr<vgf::GraphExecutor>> make_vulkan_executor(const VgfOptions& options);
  struct ShapePlan;
  Result<ShapePlan*> plan_for(std::span<const vgf::Shape> input_shapes);
  Result<std::unique_ptr<ShapePlan>> build_plan(std::span<const vgf::Shape> input_shapes);
  // Creates the pipelines of the fast variants in `pending`; on the first failure drops that
  // variant's feature from lowering_features_ and returns true (lower again).
  bool drop_failing_fast_variant(const std::vector<PendingDispatch>& pending);

  const vgf::Graph* graph_ = nullptr;
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<PipelineCache> cache_;
  std::unique_ptr<PipelineSet> pipelines_;
  std::unique_ptr<ChainPipelines> chains_;  // generated chain shaders (destroyed after plans_)
  ChainPipelines::Compiler chain_compiler_;  // empty: compile_glsl_compute
  PipelineSet::Fault pipeline_fault_;        // empty: none
  // The device features the lowering chooses variants by: the context's, less the fast
  // variants whose pipelines failed (build_plan).
  DeviceFeatures lowering_features_;
  std::unique_ptr<SpirvDiskCache> spirv_disk_;  // next to the pipeline cache file; null when off
  std::vector<FusedStep> steps_;  // fuse_ops; each plan adds its elementwise chains
  std::vector<vgf::TensorId> alias_;
  bool profile_ = false;
  // With profile_: the last run's host steps on the tracer clock (vkrt/event_tracer.h), named as
  // upstream's VgfBackend names its ETDump events.
  struct HostSpan {
    uint64_t start_ns = 0, end_ns = 0;
  };
  HostSpan copy_in_, submit_, copy_out_;
  bool zero_copy_ = true;  // inputs, outputs and constants straight into host-mapped device memory
  VgfVariants variants_ = VgfVariants::Auto;  // VgfOptions::variants, for the lowering
  std::string coopmat_;                       // VgfOptions::coopmat, for the lowering
  bool is_static_ = false;
  // ExecutorOptions::memory_budget (may be null): each plan's arena is counted there.
  MemoryBudget* budget_ = nullptr;
  std::map<std::vector<vgf::Shape>, std::unique_ptr<ShapePlan>> plans_;
  ShapePlan* last_plan_ = nullptr;
  VulkanExecutorStats stats_;
};

// The factory registered as "vulkan": opens the device context_options(options) selects; fails
// with NotFound/NotSupported when no usable Vulkan device exists (so "auto" falls back to the CPU).
Result<std::unique_ptr<vgf::GraphExecutor>> make_vulkan_executor(
    const VgfOptions& options = vgf::ExecutorOptions::default_vgf_options());

}  // namespace vkrt::vulkan
