// Fused elementwise chains (docs/vulkan-executor.md "Fused elementwise chains"): a chain step
// (graph_plan.h fuse_elementwise_chains) is turned into one generated GLSL compute shader that
// keeps every intermediate in registers, compiled at delegate init with glslang
// (glsl_compiler.h) and turned into a pipeline through the executor's VkPipelineCache.
//
// Generated shader ABI (set 0): binding 0 the chain's output, binding 1 an int32 constant block
// (per-channel RESCALE multipliers/shifts, TABLE entries), bindings 2.. the distinct tensors the
// chain reads from outside. Shapes, zero points and scalar attributes are literals in the
// source (the shapes of one plan: a graph with dynamic dimensions gets its chains generated per
// input shape), so there are no push constants and one invocation per output element (64-wide
// workgroups over a 2-D grid, common.glsl linear_index()).
// Integer semantics are those of the single-op shaders (and so of cpu_fallback/tosa): every op
// result is truncated to its tensor's element type exactly as storing it would.
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vgf/ir/graph.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/op_lowering.h"
#include "vgf/vulkan/pipeline.h"
#include "vgf/vulkan/spirv_disk_cache.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

// The generated kernel of one chain step.
struct ChainKernel {
  std::string name;    // "fused_ew_<16 hex digits of the source's FNV-1a hash>"
  std::string source;  // the complete GLSL compute shader
  std::string label;   // "CHAIN(RESCALE+ADD+CLAMP)", for profiles and errors
  std::vector<vgf::TensorId> inputs;  // bound at 2, 3, ... (distinct, first-use order)
  std::vector<int32_t> constants;     // bound at 1 (may be empty: a 16-byte dummy is bound)
  vgf::TensorId output = vgf::kNoTensor;  // bound at 0
  uint64_t count = 0;                 // output elements = invocations
};

// Generates the shader for a chain step. NotSupported naming the op when an op/type
// combination has no generator (fuse_elementwise_chains only forms chains of supported ops, so
// this indicates a mismatch and the caller falls back to single-op steps).
// `shapes`: one per tensor, the sizes written into the source (a plan's inferred shapes); empty =
// the declared shapes.
Result<ChainKernel> generate_chain_kernel(const vgf::Graph& graph, const FusedStep& step,
                                          std::span<const vgf::Shape> shapes = {});

// Lowering of a chain step into its one dispatch (called by lower_step).
Status lower_elementwise_chain(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out);

// True for names produced by generate_chain_kernel.
bool is_chain_shader_name(std::string_view shader);

// The generated pipelines of one executor, cached by source text (its hash names the module).
class ChainPipelines {
 public:
  using Compiler = std::function<Result<std::vector<uint32_t>>(std::string_view source, std::string_view name)>;
  // `cache` may be VK_NULL_HANDLE. `compiler` defaults to compile_glsl_compute (tests inject
  // failures through it).
  ChainPipelines(std::shared_ptr<Context> ctx, VkPipelineCache cache, Compiler compiler = {});
  ~ChainPipelines();
  ChainPipelines(const ChainPipelines&) = delete;
  ChainPipelines& operator=(const ChainPipelines&) = delete;

  // Generates, compiles and creates the pipeline of every chain step. A chain whose shader
  // cannot be generated, compiled or turned into a pipeline is replaced by its single-op steps
  // (the unfused path) and a message naming the chain, its ops and the cause is appended to
  // `failures`. Returns the steps to plan. `shapes` as for generate_chain_kernel.
  std::vector<FusedStep> prepare(const vgf::Graph& graph, std::vector<FusedStep> steps,
                                 std::vector<std::string>* failures, std::span<const vgf::Shape> shapes = {});

  // Keeps compiled modules on disk between runs (warm init skips glslang); null = off.
  void set_disk_cache(const SpirvDiskCache* disk) { disk_ = disk; }
  // Prints every generated shader's GLSL to stderr (VgfOptions::dump_chains; a debugging aid).
  void set_dump_sources(bool on) { dump_sources_ = on; }

  // The pipeline of a generated module, or nullptr.
  const ComputePipeline* find(std::string_view name) const;
  size_t module_count() const { return modules_.size(); }
  size_t compile_count() const { return compile_count_; }  // glslang runs (cache misses)
  size_t disk_hits() const { return disk_hits_; }          // modules read from the disk cache
  double compile_seconds() const { return compile_seconds_; }
  double pipeline_seconds() const { return pipeline_seconds_; }

 private:
  struct Module {
    std::string source;
    ComputePipeline pipeline;
  };
  Result<const ComputePipeline*> get_or_create(const ChainKernel& kernel);

  std::shared_ptr<Context> ctx_;
  VkPipelineCache cache_;
  Compiler compiler_;
  const SpirvDiskCache* disk_ = nullptr;
  bool dump_sources_ = false;
  std::map<std::string, std::unique_ptr<Module>, std::less<>> modules_;  // by name
  size_t compile_count_ = 0;
  size_t disk_hits_ = 0;
  double compile_seconds_ = 0.0;
  double pipeline_seconds_ = 0.0;
};

}  // namespace vkrt::vulkan
