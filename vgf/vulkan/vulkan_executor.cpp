#include "vgf/vulkan/vulkan_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "vgf/vulkan/op_lowering.h"
#include "vkrt/event_tracer.h"

namespace vkrt::vulkan {

// Where a graph input/output lives for one plan.
struct IoLocation {
  bool constant = false;                 // output that is a graph constant: copied from the host
  std::span<const uint8_t> constant_bytes;
  uint64_t arena_offset = 0;
  uint64_t staging_offset = 0;
  uint64_t bytes = 0;
};

struct VulkanExecutor::ShapePlan {
  std::vector<vgf::Shape> shapes;
  MemoryPlan memory;
  Buffer arena;
  Buffer constants;
  Buffer staging;  // only when the arena is not host-visible and coherent
  std::vector<IoLocation> inputs, outputs;
  std::unique_ptr<CommandProgram> program;
  std::vector<std::string> shaders;  // the shader variant of each dispatch, in order
  std::vector<FusedStep> steps;      // the executor's steps with this plan's elementwise chains
  size_t fused_chains = 0;
};

namespace {

// Distinct tensors a generated chain may read: bindings left after output and constants,
// within the device's per-stage storage-buffer limit, at most 8 (register pressure).
size_t chain_input_budget(const DeviceFeatures& f) {
  size_t per_stage = f.max_storage_buffers_per_stage ? f.max_storage_buffers_per_stage : 4;
  return std::clamp<size_t>(per_stage > 2 ? per_stage - 2 : 1, 1, 8);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A host tensor may carry a graph tensor's data when its dtype is the mapped ScalarType, or
// any 1-byte integer type for 1-byte TOSA types (executor.h contract).
bool dtype_compatible(const Tensor& t, vgf::DType d) {
  if (t.dtype() == vgf::dtype_to_scalar_type(d)) return true;
  if (vgf::dtype_storage_bytes(d) == 1 && t.element_size() == 1 && is_integral(t.dtype(), true)) return true;
  return false;
}

}  // namespace

VulkanExecutor::VulkanExecutor() = default;

VulkanExecutor::~VulkanExecutor() {
  plans_.clear();
  if (cache_) {
    // Best effort: a cache that cannot be written only costs the next init time.
    (void)cache_->save();
  }
}

Status VulkanExecutor::prepare(const vgf::Graph& graph, const vgf::ExecutorOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  const VgfOptions& opts = options.vgf();
  budget_ = options.memory_budget;
  // A second prepare() replaces everything; recorded plans go before the pipelines they use.
  plans_.clear();
  last_plan_ = nullptr;
  graph_ = nullptr;
  VKRT_RETURN_IF_ERROR(vgf::validate_graph(graph));

  // Every op must have a shader; list all that do not.
  std::string unsupported;
  size_t unsupported_count = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    Status s = check_op_capability(graph, i);
    if (!s.is_ok()) {
      if (unsupported_count++ < 16) unsupported += (unsupported.empty() ? "" : "; ") + s.message();
    }
  }
  if (unsupported_count) {
    return make_error(Error::NotSupported, unsupported_count, " op(s) not supported by the vulkan executor: ",
                      unsupported);
  }

  const auto t_context = std::chrono::steady_clock::now();
  VKRT_ASSIGN_OR_RETURN(ctx_, Context::shared(context_options(opts)));
  const double context_seconds = seconds_since(t_context);
  chains_.reset();
  pipelines_.reset();
  VKRT_ASSIGN_OR_RETURN(cache_, PipelineCache::open(ctx_, opts.pipeline_cache_dir));
  pipelines_ = std::make_unique<PipelineSet>(ctx_, cache_->handle());
  pipelines_->set_fault(pipeline_fault_);
  lowering_features_ = ctx_->features();
  profile_ = opts.profile;
  zero_copy_ = opts.zero_copy;
  variants_ = opts.variants;
  coopmat_ = opts.coopmat;
  const bool fusion = opts.fusion;
  const bool fuse_elementwise = fusion && opts.fuse_elementwise;

  graph_ = &graph;
  stats_ = {};
  stats_.context_seconds = context_seconds;
  steps_ = fuse_ops(graph, fusion);
  if (fuse_elementwise) {
    // Chains are formed and compiled per plan (build_plan), for its concrete shapes; a chain
    // that fails to compile runs unfused (and is reported).
    chains_ = std::make_unique<ChainPipelines>(ctx_, cache_->handle(), chain_compiler_);
    chains_->set_dump_sources(opts.dump_chains);
    // Compiled chains persist beside the pipeline cache (not with an injected test compiler).
    spirv_disk_.reset();
    if (!cache_->path().empty() && !chain_compiler_) {
      spirv_disk_ = std::make_unique<SpirvDiskCache>(std::filesystem::path(cache_->path()).parent_path().string());
      chains_->set_disk_cache(spirv_disk_.get());
    }
  }
  alias_ = alias_roots(graph);
  is_static_ = vgf::graph_is_static(graph);
  stats_.device = ctx_->describe();
  stats_.op_count = graph.ops.size();
  stats_.cache = cache_->load_result();

  if (is_static_) {
    std::vector<vgf::Shape> input_shapes;
    for (const auto& io : graph.inputs) input_shapes.push_back(graph.tensor(io.tensor).shape);
    VKRT_ASSIGN_OR_RETURN(last_plan_, plan_for(input_shapes));
  }
  (void)cache_->save();
  stats_.pipeline_count = pipelines_->size();
  stats_.pipeline_seconds = pipelines_->creation_seconds() + (chains_ ? chains_->pipeline_seconds() : 0.0);
  stats_.prepare_seconds = seconds_since(t0);
  return Status::ok();
}

Result<VulkanExecutor::ShapePlan*> VulkanExecutor::plan_for(std::span<const vgf::Shape> input_shapes) {
  std::vector<vgf::Shape> key(input_shapes.begin(), input_shapes.end());
  if (auto it = plans_.find(key); it != plans_.end()) return it->second.get();
  VKRT_ASSIGN_OR_RETURN(auto plan, build_plan(input_shapes));
  ShapePlan* raw = plan.get();
  plans_.emplace(std::move(key), std::move(plan));
  stats_.pipeline_count = pipelines_->size();
  stats_.device_memory_bytes = stats_.staging_memory_bytes = 0;
  for (const auto& [shapes, held] : plans_) {
    stats_.device_memory_bytes += held->arena.allocated_bytes() + held->constants.allocated_bytes();
    stats_.staging_memory_bytes += held->staging.allocated_bytes();
  }
  return raw;
}

Result<std::unique_ptr<VulkanExecutor::ShapePlan>> VulkanExecutor::build_plan(
    std::span<const vgf::Shape> input_shapes) {
  const vgf::Graph& g = *graph_;
  const DeviceFeatures& f = ctx_->features();
  auto plan = std::make_unique<ShapePlan>();
  VKRT_ASSIGN_OR_RETURN(plan->shapes, vgf::infer_shapes(g, input_shapes));
  // Before anything is planned or allocated, rather than indexed out of bounds on the device.
  VKRT_RETURN_IF_ERROR(check_shape_capability(plan->shapes));
  const uint64_t alignment = std::max<uint64_t>(64, f.min_storage_buffer_offset_alignment);
  plan->steps = steps_;
  if (chains_) {
    // Elementwise chains for this plan's shapes: literal sizes, so each new shape of a graph
    // with dynamic dimensions gets (and caches) its own chain shaders.
    std::vector<std::string> failures;
    plan->steps = chains_->prepare(
        g, fuse_elementwise_chains(g, std::move(plan->steps), chain_input_budget(f), plan->shapes), &failures,
        plan->shapes);
    for (std::string& failure : failures) {
      std::fprintf(stderr, "vkrt: vulkan: %s\n", failure.c_str());
      stats_.chain_failures.push_back(std::move(failure));
    }
    stats_.chain_compiles = chains_->compile_count();
    stats_.chain_disk_hits = chains_->disk_hits();
    stats_.chain_modules = chains_->module_count();
    stats_.chain_compile_seconds = chains_->compile_seconds();
  }
  for (const FusedStep& step : plan->steps) plan->fused_chains += step.chain.empty() ? 0 : 1;
  VKRT_ASSIGN_OR_RETURN(plan->memory, plan_memory(g, plan->shapes, plan->steps, alias_, alignment));

  // Lower every step (symbolic slots), then create the buffers.
  // Lowered again (same steps, same memory plan) each time a fast variant is dropped.
  std::optional<LoweringContext> lowering;
  std::vector<PendingDispatch> pending;
  do {
    lowering.emplace(g, plan->shapes, alias_, plan->memory, lowering_features_, alignment);
    lowering->set_variants(variants_, coopmat_);
    pending.clear();
    for (const FusedStep& step : plan->steps) VKRT_RETURN_IF_ERROR(lower_step(step, *lowering, &pending));
  } while (drop_failing_fast_variant(pending));
  for (const PendingDispatch& d : pending) {
    for (const Slot& s : d.bindings) {
      if (s.size > f.max_storage_buffer_range) {
        return make_error(Error::NotSupported, d.label, ": a ", s.size,
                          "-byte tensor exceeds the device's maxStorageBufferRange (",
                          f.max_storage_buffer_range, ")");
      }
    }
  }

  // The arena holds the intermediates, inputs and outputs, placed by lifetime (plan_memory).
  if (budget_ != nullptr)
    VKRT_RETURN_IF_ERROR(budget_->reserve(plan->memory.arena_bytes, "VGF vulkan executor: intermediate tensors"));
  VKRT_ASSIGN_OR_RETURN(plan->arena, Buffer::create(ctx_, plan->memory.arena_bytes, MemoryKind::DeviceLocal));
  const std::vector<uint8_t>& constant_bytes = lowering->constants();
  VKRT_ASSIGN_OR_RETURN(plan->constants, Buffer::create(ctx_, constant_bytes.size(), MemoryKind::DeviceLocal));
  if (!constant_bytes.empty()) {
    if (zero_copy_ && plan->constants.mapped() && plan->constants.host_coherent()) {
      std::memcpy(plan->constants.mapped(), constant_bytes.data(), constant_bytes.size());
    } else {
      VKRT_ASSIGN_OR_RETURN(Buffer upload, Buffer::create(ctx_, constant_bytes.size(), MemoryKind::HostStaging));
      std::memcpy(upload.mapped(), constant_bytes.data(), constant_bytes.size());
      Copy c{upload.handle(), plan->constants.handle(), 0, 0, constant_bytes.size()};
      VKRT_ASSIGN_OR_RETURN(auto once, CommandProgram::record(ctx_, {}, {c}, {}, false));
      VKRT_RETURN_IF_ERROR(once->submit_and_wait());
    }
  }

  // Inputs and outputs: in the arena; through staging when the host cannot map it coherently
  // (Buffer puts device-local buffers in host-mapped memory first only where the host reads it
  // cached, unified memory; elsewhere only when VRAM is full, see memory_type_candidates).
  const bool direct = zero_copy_ && plan->arena.mapped() && plan->arena.host_coherent();
  uint64_t staging_bytes = 0;
  auto locate = [&](vgf::TensorId t) {
    IoLocation loc;
    vgf::TensorId root = alias_[t];
    loc.bytes = tensor_bytes(g.tensor(t).dtype, plan->shapes[t]);
    if (g.tensor(root).is_constant) {
      loc.constant = true;
      loc.constant_bytes = g.tensor(root).constant_bytes();
    } else {
      loc.arena_offset = plan->memory.placement[root].offset;
      loc.staging_offset = staging_bytes;
      staging_bytes += (loc.bytes + 15) / 16 * 16;
    }
    return loc;
  };
  for (const auto& io : g.inputs) plan->inputs.push_back(locate(io.tensor));
  for (const auto& io : g.outputs) plan->outputs.push_back(locate(io.tensor));
  std::vector<Copy> copies_in, copies_out;
  if (!direct) {
    VKRT_ASSIGN_OR_RETURN(plan->staging, Buffer::create(ctx_, staging_bytes, MemoryKind::HostStaging));
    for (const IoLocation& l : plan->inputs) {
      if (!l.constant && l.bytes) {
        copies_in.push_back({plan->staging.handle(), plan->arena.handle(), l.staging_offset, l.arena_offset, l.bytes});
      }
    }
    for (const IoLocation& l : plan->outputs) {
      if (!l.constant && l.bytes) {
        copies_out.push_back({plan->arena.handle(), plan->staging.handle(), l.arena_offset, l.staging_offset, l.bytes});
      }
    }
  }

  std::vector<Dispatch> dispatches;
  dispatches.reserve(pending.size());
  for (PendingDispatch& p : pending) {
    plan->shaders.push_back(p.shader);
    Dispatch d;
    if (is_chain_shader_name(p.shader)) {
      d.pipeline = chains_ ? chains_->find(p.shader) : nullptr;
      if (!d.pipeline) return make_error(Error::Internal, p.label, ": generated shader ", p.shader, " was not built");
    } else {
      VKRT_ASSIGN_OR_RETURN(d.pipeline, pipelines_->get(p.shader, p.binding_count));
    }
    for (const Slot& s : p.bindings) {
      VkBuffer b = s.kind == SlotKind::Arena ? plan->arena.handle() : plan->constants.handle();
      d.bindings.push_back({b, s.offset, s.size});
    }
    d.writes = std::move(p.writes);
    d.push = p.push;
    grid_for(p.invocations, p.workgroup_size, ctx_->features(), &d.groups_x, &d.groups_y);
    d.label = std::move(p.label);
    dispatches.push_back(std::move(d));
  }
  VKRT_ASSIGN_OR_RETURN(plan->program, CommandProgram::record(ctx_, std::move(dispatches), std::move(copies_in),
                                                              std::move(copies_out), profile_));
  stats_.dispatch_count = plan->program->dispatch_count();
  stats_.dispatch_shaders = plan->shaders;
  stats_.fused_chains = plan->fused_chains;
  stats_.barrier_count = plan->program->barrier_count();
  stats_.arena_bytes = plan->memory.arena_bytes;
  stats_.peak_live_bytes = plan->memory.peak_live_bytes;
  stats_.total_tensor_bytes = plan->memory.total_tensor_bytes;
  stats_.constant_bytes = constant_bytes.size();
  stats_.staging = !direct;
  return plan;
}

Status VulkanExecutor::run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs,
                           KernelContext* /*ctx*/) {
  if (!graph_) return make_error(Error::InvalidState, "vulkan executor: run() before prepare()");
  const vgf::Graph& g = *graph_;
  VKRT_CHECK_OR_RETURN(inputs.size() == g.inputs.size(), InvalidArgument, "vulkan executor: ",
                       inputs.size(), " inputs given, graph has ", g.inputs.size());
  VKRT_CHECK_OR_RETURN(outputs.size() == g.outputs.size(), InvalidArgument, "vulkan executor: ",
                       outputs.size(), " outputs given, graph has ", g.outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    vgf::DType d = g.tensor(g.inputs[i].tensor).dtype;
    VKRT_CHECK_OR_RETURN(t && t->data(), InvalidArgument, "input[", i, "]: no data");
    VKRT_CHECK_OR_RETURN(dtype_compatible(*t, d), InvalidArgument, "input[", i, "]: expected ",
                         vgf::dtype_name(d), ", got ", scalar_type_name(t->dtype()));
    VKRT_CHECK_OR_RETURN(t->is_default_dim_order(), InvalidArgument, "input[", i,
                         "]: must be contiguous (default dim order)");
  }

  ShapePlan* plan = last_plan_;
  bool same_shapes = plan != nullptr;
  for (size_t i = 0; same_shapes && i < inputs.size(); ++i) {
    const vgf::Shape& s = plan->shapes[g.inputs[i].tensor];
    auto sizes = inputs[i]->sizes();
    same_shapes = sizes.size() == s.size() && std::equal(sizes.begin(), sizes.end(), s.begin());
  }
  if (!same_shapes) {
    // A new set of input shapes: re-plan and re-record (cached per shape set).
    std::vector<vgf::Shape> shapes;
    for (const Tensor* t : inputs) shapes.emplace_back(t->sizes().begin(), t->sizes().end());
    VKRT_ASSIGN_OR_RETURN(plan, plan_for(shapes));
    last_plan_ = plan;
    stats_.dispatch_count = plan->program->dispatch_count();
    stats_.dispatch_shaders = plan->shaders;
    stats_.fused_chains = plan->fused_chains;
  }

  // Copy in.
  if (profile_) copy_in_.start_ns = trace_now_ns();
  uint8_t* io_base = plan->staging.mapped() ? plan->staging.mapped() : plan->arena.mapped();
  const bool via_staging = plan->staging.mapped() != nullptr;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoLocation& l = plan->inputs[i];
    VKRT_CHECK_OR_RETURN(inputs[i]->nbytes() == l.bytes, InvalidArgument, "input[", i, "]: ",
                         inputs[i]->nbytes(), " bytes, expected ", l.bytes);
    if (l.constant || l.bytes == 0) continue;
    std::memcpy(io_base + (via_staging ? l.staging_offset : l.arena_offset), inputs[i]->data(), l.bytes);
  }
  if (profile_) submit_.start_ns = copy_in_.end_ns = trace_now_ns();
  VKRT_RETURN_IF_ERROR(plan->program->submit_and_wait());
  if (profile_) copy_out_.start_ns = submit_.end_ns = trace_now_ns();
  // Copy out.
  for (size_t j = 0; j < outputs.size(); ++j) {
    Tensor* t = outputs[j];
    const IoLocation& l = plan->outputs[j];
    const vgf::Shape& s = plan->shapes[g.outputs[j].tensor];
    VKRT_CHECK_OR_RETURN(t != nullptr, InvalidArgument, "output[", j, "]: null tensor");
    vgf::DType d = g.tensor(g.outputs[j].tensor).dtype;
    VKRT_CHECK_OR_RETURN(dtype_compatible(*t, d), InvalidArgument, "output[", j, "]: expected ",
                         vgf::dtype_name(d), ", got ", scalar_type_name(t->dtype()));
    auto sizes = t->sizes();
    if (!(sizes.size() == s.size() && std::equal(sizes.begin(), sizes.end(), s.begin()))) {
      std::vector<int32_t> new_sizes(s.begin(), s.end());
      VKRT_RETURN_IF_ERROR(t->resize(new_sizes));
    }
    VKRT_CHECK_OR_RETURN(t->nbytes() == l.bytes && t->data(), InvalidArgument, "output[", j, "]: ",
                         t->nbytes(), " bytes, expected ", l.bytes);
    if (l.bytes == 0) continue;
    if (l.constant) {
      std::memcpy(t->data(), l.constant_bytes.data(), l.bytes);
    } else {
      std::memcpy(t->data(), io_base + (via_staging ? l.staging_offset : l.arena_offset), l.bytes);
    }
  }
  if (profile_) copy_out_.end_ns = trace_now_ns();
  return Status::ok();
}

bool VulkanExecutor::drop_failing_fast_variant(const std::vector<PendingDispatch>& pending) {
  // A device may list a feature yet fail to compile a shader using it: the first fast variant
  // whose pipeline cannot be created loses its feature for this executor (cooperative matrices
  // give way to the dot variants, dot products to the portable ones), with a notice. Each call
  // that returns true removes a feature, so a plan is lowered at most three times.
  for (const PendingDispatch& d : pending) {
    const bool coopmat = d.shader.find("_coopmat") != std::string::npos;
    if (!coopmat && d.shader.find("_dot_") == std::string::npos) continue;
    Result<const ComputePipeline*> created = pipelines_->get(d.shader, d.binding_count);
    if (created.ok()) continue;
    std::string notice = d.label + " (" + d.shader + "): " + created.status().message() + "; using " +
                         (coopmat ? "the variants without cooperative matrices" : "the portable variants") +
                         " from now on";
    std::fprintf(stderr, "vkrt: vulkan: %s\n", notice.c_str());
    stats_.variant_fallbacks.push_back(std::move(notice));
    (coopmat ? lowering_features_.cooperative_matrix_khr : lowering_features_.integer_dot_product) = false;
    return true;
  }
  return false;
}

std::vector<DelegateProfileEntry> VulkanExecutor::op_profile() const {
  // "<fused ops> [<shader variant>]": which variant ran (portable, dot, which coopmat layout)
  // is half of what a per-dispatch time means.
  std::vector<DelegateProfileEntry> out;
  const std::vector<DispatchTiming> timings = last_profile();
  if (timings.empty() && copy_in_.end_ns == 0) return out;
  auto host = [](const char* name, HostSpan s) {
    return DelegateProfileEntry{name, double(s.end_ns - s.start_ns) * 1e-6, s.start_ns, s.end_ns, {}};
  };
  out.push_back(host("VGF_COPY_INPUTS", copy_in_));
  // The timestamps are written between consecutive dispatches, so on the GPU they ran back to
  // back; on the tracer clock they are placed from the submit (the GPU's clock is another one).
  uint64_t t = submit_.start_ns;
  for (size_t i = 0; i < timings.size(); ++i) {
    const bool named = i < last_plan_->shaders.size();
    const uint64_t dur = uint64_t(timings[i].gpu_ns);
    out.push_back({named ? timings[i].label + " [" + last_plan_->shaders[i] + "]" : timings[i].label,
                   timings[i].gpu_ns * 1e-6, t, t + dur, {}});
    t += dur;
  }
  out.push_back(host("VGF_QUEUE_SUBMIT_AND_WAIT_FENCE", submit_));
  out.push_back(host("VGF_COPY_OUTPUTS", copy_out_));
  return out;
}

std::vector<DispatchTiming> VulkanExecutor::last_profile() const {
  if (!last_plan_) return {};
  return last_plan_->program->last_timings();
}

Result<std::unique_ptr<vgf::GraphExecutor>> make_vulkan_executor(const VgfOptions& options) {
  // Open the device the options select here (not at prepare), so that "auto" knows which device
  // it would get (or that there is none) before any graph is lowered.
  VKRT_ASSIGN_OR_RETURN(auto ctx, Context::shared(context_options(options)));
  auto executor = std::make_unique<VulkanExecutor>();
  executor->ctx_ = std::move(ctx);
  return std::unique_ptr<vgf::GraphExecutor>(std::move(executor));
}

VKRT_REGISTER_GRAPH_EXECUTOR("vulkan", &make_vulkan_executor);

}  // namespace vkrt::vulkan
