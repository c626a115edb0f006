// Fused elementwise chains: compile-at-init with fallback, the pipelines of generated modules,
// and the lowering of a chain step into its single dispatch.
#include "vgf/vulkan/elementwise_fusion.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "vgf/vulkan/glsl_compiler.h"

namespace vkrt::vulkan {

Status lower_elementwise_chain(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  // Written for the inferred shapes the arena was sized from (the plan's): the same source, so
  // the same module, as ChainPipelines::prepare built for this plan.
  VKRT_ASSIGN_OR_RETURN(ChainKernel kernel, generate_chain_kernel(ctx.graph(), step, ctx.shapes()));
  PendingDispatch d;
  d.shader = kernel.name;
  d.binding_count = uint32_t(2 + kernel.inputs.size());
  d.bindings.push_back(ctx.tensor(kernel.output));
  d.bindings.push_back(kernel.constants.empty() ? ctx.dummy() : ctx.add_int32_constant(kernel.constants));
  for (vgf::TensorId t : kernel.inputs) d.bindings.push_back(ctx.tensor(t));
  d.writes.assign(d.bindings.size(), false);
  d.writes[0] = true;
  d.invocations = kernel.count;
  d.label = std::move(kernel.label);
  out->push_back(std::move(d));
  return Status::ok();
}

ChainPipelines::ChainPipelines(std::shared_ptr<Context> ctx, VkPipelineCache cache, Compiler compiler)
    : ctx_(std::move(ctx)), cache_(cache), compiler_(std::move(compiler)) {
  if (!compiler_) compiler_ = &compile_glsl_compute;
}

ChainPipelines::~ChainPipelines() {
  for (auto& [name, module] : modules_) destroy_compute_pipeline(ctx_->device(), &module->pipeline);
}

const ComputePipeline* ChainPipelines::find(std::string_view name) const {
  auto it = modules_.find(name);
  return it == modules_.end() ? nullptr : &it->second->pipeline;
}

Result<const ComputePipeline*> ChainPipelines::get_or_create(const ChainKernel& kernel) {
  if (auto it = modules_.find(kernel.name); it != modules_.end()) {
    // Same name = same 64-bit hash; a different text would be a collision, not a cache hit.
    if (it->second->source != kernel.source) {
      return make_error(Error::Internal, kernel.label, ": source hash collision with an earlier chain");
    }
    return &it->second->pipeline;
  }
  auto t0 = std::chrono::steady_clock::now();
  Result<std::vector<uint32_t>> words = make_error(Error::Internal, "not compiled");
  if (auto stored = disk_ ? disk_->load(kernel.name, kernel.source) : std::nullopt) {
    ++disk_hits_;
    words = std::move(*stored);
  } else {
    ++compile_count_;
    words = compiler_(kernel.source, kernel.name);
    if (words.ok() && disk_) disk_->store(kernel.name, kernel.source, *words);
  }
  compile_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  VKRT_RETURN_IF_ERROR(words.status());

  // Same layout as the embedded variants (pipeline.cpp): N storage buffers, the push range.
  ComputePipeline p;
  p.name = kernel.name;
  p.binding_count = uint32_t(2 + kernel.inputs.size());
  VKRT_RETURN_IF_ERROR(create_compute_pipeline(ctx_->device(), cache_, *words, &p, &pipeline_seconds_));
  auto entry = std::make_unique<Module>();
  entry->source = kernel.source;
  entry->pipeline = p;
  const ComputePipeline* raw = &entry->pipeline;
  modules_.emplace(kernel.name, std::move(entry));
  return raw;
}

std::vector<FusedStep> ChainPipelines::prepare(const vgf::Graph& graph, std::vector<FusedStep> steps,
                                               std::vector<std::string>* failures,
                                               std::span<const vgf::Shape> shapes) {
  std::vector<FusedStep> out;
  out.reserve(steps.size());
  for (FusedStep& step : steps) {
    if (step.chain.empty()) {
      out.push_back(std::move(step));
      continue;
    }
    auto kernel = generate_chain_kernel(graph, step, shapes);
    Status s = kernel.status();
    if (s.is_ok() && dump_sources_) {  // debugging aid: the generated GLSL
      std::fprintf(stderr, "---- %s (%s)\n%s", kernel->name.c_str(), kernel->label.c_str(), kernel->source.c_str());
    }
    if (s.is_ok()) s = get_or_create(*kernel).status();
    if (s.is_ok()) {
      out.push_back(std::move(step));
      continue;
    }
    // Fall back to one dispatch per op: the chain's ops are all supported on their own.
    std::string ops;
    for (size_t m : step.chain) ops += (ops.empty() ? "" : ", ") + std::to_string(m);
    if (failures) {
      failures->push_back("fused elementwise chain " + (kernel.ok() ? kernel->label : std::string("(ops ") + ops + ")") +
                          " of ops " + ops + " could not be built, running its ops unfused: " + s.message());
    }
    for (FusedStep& single : split_chain(graph, step)) out.push_back(std::move(single));
  }
  return out;
}

}  // namespace vkrt::vulkan
