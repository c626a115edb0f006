// The model-sequence runner (see model_runner.h). Executor choice follows vkrt/vgf.h "auto";
// alias groups follow ExecuTorch's VGFSetup.cpp: members share one allocation and must agree
// on their byte size.
#include "vgf/model/model_runner.h"

#include <cstdlib>
#include <map>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/segment_graph.h"

namespace vkrt::vgf {

struct ModelRunner::Segment {
  Graph graph;                                // GRAPH segments
  std::unique_ptr<GraphExecutor> graph_exec;  // GRAPH segments
  std::unique_ptr<ComputeSegmentRunner> compute;  // COMPUTE segments
  std::vector<uint32_t> input_mrt, output_mrt;    // resource of each segment input/output
  std::vector<const Tensor*> inputs;              // bound per run (sized at prepare)
  std::vector<Tensor*> outputs;
};

namespace {

// Bytes of a resource with a static shape; nullopt-like UINT64_MAX when dynamic or overflowing.
uint64_t static_resource_bytes(const ResourceHostType& type) {
  uint64_t bytes = element_size(type.scalar);
  for (int64_t d : type.shape) {
    if (d < 0 || __builtin_mul_overflow(bytes, uint64_t(d), &bytes)) return UINT64_MAX;
  }
  return bytes;
}


std::string segment_label(const VgfSegment& seg, size_t index) {
  return "segment " + std::to_string(index) + " ('" + seg.name + "')";
}

}  // namespace

ModelRunner::ModelRunner() = default;
ModelRunner::~ModelRunner() = default;

Status ModelRunner::choose_graph_executor(const ModelRunnerOptions& options) {
  const VgfFile& f = *file_;
  const VgfSegment* compute = nullptr;
  size_t compute_index = 0;
  for (size_t i = 0; i < f.segments.size() && !compute; ++i) {
    if (f.segments[i].type == ModuleType::Compute) compute = &f.segments[compute_index = i];
  }
  if (options.options->executor == VgfExecutor::Cpu) {
    VKRT_CHECK_OR_RETURN(compute == nullptr, NotSupported, segment_label(*compute, compute_index),
                         " is a COMPUTE segment (a SPIR-V compute shader): the cpu executor cannot run it; use the "
                         "vulkan or auto executor");
    graph_executor_ = "cpu";
    return Status::ok();
  }
  if (options.options->executor == VgfExecutor::Vulkan) {
    graph_executor_ = "vulkan";
    return Status::ok();
  }
  // Auto.
  if (!has_executor_factory("vulkan")) {
    VKRT_CHECK_OR_RETURN(compute == nullptr, NotSupported, segment_label(*compute, compute_index),
                         " is a COMPUTE segment: it runs on Vulkan only, and this build has no Vulkan executor");
    graph_executor_ = "cpu";
    return Status::ok();
  }
  auto probe = create_executor("vulkan", *options.options);
  if (!probe.ok()) {
    if (compute) {
      return Status(probe.status()).with_context(segment_label(*compute, compute_index) +
                                                 " is a COMPUTE segment, which runs on Vulkan only");
    }
    graph_executor_ = "cpu";
    graph_reason_ = "no usable Vulkan device: " + probe.status().message();
    return Status::ok();
  }
  if (compute) {
    graph_executor_ = "vulkan";
    if ((*probe)->software_device()) graph_reason_ = "the VGF has COMPUTE segments, which run on Vulkan only";
  } else if ((*probe)->software_device() && options.options->device.empty()) {
    graph_executor_ = "cpu";
    graph_reason_ = "the Vulkan device, " + (*probe)->device_name() +
                    ", is a CPU implementation: the cpu executor runs the graph faster (--vgf_executor vulkan to use it)";
    return Status::ok();
  } else {
    graph_executor_ = "vulkan";
  }
  first_vulkan_ = std::move(probe).value();
  return Status::ok();
}

Status ModelRunner::prepare_graph_segment(size_t index, const ModelRunnerOptions& options) {
  const VgfSegment& vseg = file_->segments[index];
  Segment& seg = *segments_[index];
  VKRT_ASSIGN_OR_RETURN(seg.graph, build_segment_graph(*file_, index));
  for (const GraphIO& io : seg.graph.inputs) seg.input_mrt.push_back(io.mrt_index);
  for (const GraphIO& io : seg.graph.outputs) seg.output_mrt.push_back(io.mrt_index);
  ExecutorOptions eo;
  eo.options = options.options;
  eo.memory_budget = options.memory_budget;
  eo.num_threads = options.num_threads;
  VgfPlacement placement;
  placement.segment = vseg.name;
  placement.reason = graph_reason_;
  std::unique_ptr<GraphExecutor> exec;
  if (graph_executor_ == "vulkan" && first_vulkan_) {
    exec = std::move(first_vulkan_);
  } else {
    if (graph_executor_ == "cpu") register_cpu_executor();
    VKRT_ASSIGN_OR_RETURN(exec, create_executor(graph_executor_, *options.options));
  }
  Status prepared = exec->prepare(seg.graph, eo);
  if (!prepared.is_ok() && options.options->executor == VgfExecutor::Auto && exec->name() != "cpu") {
    // The GPU executor cannot take this graph; the CPU one runs every op it supports.
    placement.reason = "the " + std::string(exec->name()) + " executor cannot run it: " + prepared.message();
    if (options.notices) {
      options.notices->push_back("VgfBackend: segment '" + vseg.name + "' cannot run on " + std::string(exec->name()) +
                                 " (" + prepared.message() + "); running it on the CPU executor");
    }
    register_cpu_executor();
    VKRT_ASSIGN_OR_RETURN(exec, create_executor("cpu", *options.options));
    prepared = exec->prepare(seg.graph, eo);
  }
  if (!prepared.is_ok()) return std::move(prepared).with_context("VGF segment '" + vseg.name + "'");
  placement.executor = std::string(exec->name());
  placement.device = exec->device_name();
  placements_.push_back(std::move(placement));
  seg.graph_exec = std::move(exec);
  return Status::ok();
}

Status ModelRunner::prepare_compute_segment(size_t index, const ModelRunnerOptions& options) {
  const VgfSegment& vseg = file_->segments[index];
  Segment& seg = *segments_[index];
  ComputeSegmentFactory factory = compute_segment_factory();
  VKRT_CHECK_OR_RETURN(factory != nullptr, NotSupported, segment_label(vseg, index),
                       " is a COMPUTE segment: it runs on Vulkan only, and this build has no Vulkan executor");
  auto runner = factory(*file_, index, *options.options);
  if (!runner.ok()) return Status(runner.status()).with_context("VGF " + segment_label(vseg, index));
  seg.compute = std::move(runner).value();
  for (const VgfBindingSlot& s : vseg.inputs) seg.input_mrt.push_back(s.mrt_index);
  for (const VgfBindingSlot& s : vseg.outputs) seg.output_mrt.push_back(s.mrt_index);
  VgfPlacement placement;
  placement.segment = vseg.name;
  placement.compute = true;
  placement.executor = "vulkan";
  placement.device = seg.compute->device_name();
  placements_.push_back(std::move(placement));
  return Status::ok();
}

Status ModelRunner::allocate_resources(MemoryBudget& budget) {
  const VgfFile& f = *file_;
  const size_t n = f.resources.size();
  resource_tensors_.assign(n, Tensor());
  resource_views_.assign(n, nullptr);
  alias_members_.assign(n, {});
  storage_.clear();
  storage_.resize(n);
  host_types_.assign(n, ResourceHostType{});
  host_sizes_.assign(n, {});
  host_counts_.assign(n, -1);
  for (uint32_t m = 0; m < n; ++m) {
    if (f.resources[m].category == ResourceCategory::Constant) continue;
    VKRT_ASSIGN_OR_RETURN(host_types_[m], resource_host_type(f, m));
    int64_t count = 1;
    for (int64_t d : host_types_[m].shape) {
      host_sizes_[m].push_back(d < 0 || d > INT32_MAX ? 0 : int32_t(d));
      if (count >= 0 && (d < 0 || __builtin_mul_overflow(count, d, &count))) count = -1;
    }
    host_counts_[m] = count;
  }

  std::vector<bool> model_io(n, false);
  for (const VgfBindingSlot& s : f.inputs) model_io[s.mrt_index] = true;
  for (const VgfBindingSlot& s : f.outputs) model_io[s.mrt_index] = true;

  // Alias groups: members share one storage; a group with a model input or output shares the
  // caller's tensor (bound per run), any other group gets one allocation.
  std::map<uint32_t, std::vector<uint32_t>> groups;
  for (uint32_t m = 0; m < n; ++m) {
    const VgfResource& r = f.resources[m];
    if (r.alias_group_id != kNoAliasGroup && r.category != ResourceCategory::Constant) groups[r.alias_group_id].push_back(m);
  }
  std::vector<bool> allocated(n, false);
  for (const auto& [id, members] : groups) {
    uint64_t group_bytes = 0;
    bool has_io = false;
    for (uint32_t m : members) {
      const uint64_t bytes = static_resource_bytes(host_types_[m]);
      VKRT_CHECK_OR_RETURN(bytes != UINT64_MAX, NotSupported, "VGF alias group ", id, ": resource ", m,
                           " needs a static shape");
      VKRT_CHECK_OR_RETURN(group_bytes == 0 || bytes == group_bytes, InvalidProgram, "VGF alias group ", id,
                           ": resource ", m, " has ", bytes, " bytes, the group's other members ", group_bytes);
      group_bytes = bytes;
      has_io = has_io || model_io[m];
      for (uint32_t other : members) {
        if (other != m) alias_members_[m].push_back(other);
      }
    }
    if (has_io) continue;  // views of the caller's tensor, bound per run
    VKRT_RETURN_IF_ERROR(budget.reserve(group_bytes, "VGF alias group " + std::to_string(id)));
    storage_[members[0]].reset(new (std::nothrow) uint8_t[group_bytes ? group_bytes : 1]());
    VKRT_CHECK_OR_RETURN(storage_[members[0]] != nullptr, MemoryAllocationFailed, "VGF alias group ", id, ": ",
                         group_bytes, " bytes");
    for (uint32_t m : members) {
      VKRT_ASSIGN_OR_RETURN(resource_tensors_[m], Tensor::make(host_types_[m].scalar, host_sizes_[m],
                                                               storage_[members[0]].get()));
      resource_views_[m] = &resource_tensors_[m];
      allocated[m] = true;
    }
  }
  // Intermediate resources (between segments): owned storage, static shapes required.
  for (uint32_t m = 0; m < n; ++m) {
    const VgfResource& r = f.resources[m];
    if (r.category != ResourceCategory::Intermediate || allocated[m] || !alias_members_[m].empty()) continue;
    const uint64_t bytes = static_resource_bytes(host_types_[m]);
    VKRT_CHECK_OR_RETURN(bytes != UINT64_MAX && bytes <= uint64_t(INT32_MAX), NotSupported,
                         "VGF intermediate resource ", m, " needs a static shape");
    VKRT_RETURN_IF_ERROR(budget.reserve(bytes, "VGF intermediate resource " + std::to_string(m)));
    storage_[m].reset(new (std::nothrow) uint8_t[bytes ? bytes : 1]());
    VKRT_CHECK_OR_RETURN(storage_[m] != nullptr, MemoryAllocationFailed, "VGF intermediate resource ", m);
    VKRT_ASSIGN_OR_RETURN(resource_tensors_[m], Tensor::make(host_types_[m].scalar, host_sizes_[m], storage_[m].get()));
    resource_views_[m] = &resource_tensors_[m];
  }
  return Status::ok();
}

Status ModelRunner::prepare(const VgfFile& file, const ModelRunnerOptions& options) {
  VKRT_CHECK_OR_RETURN(options.memory_budget != nullptr, InvalidArgument, "ModelRunner: no memory budget");
  VKRT_CHECK_OR_RETURN(options.options != nullptr, InvalidArgument, "ModelRunner: no options");
  file_ = &file;
  segments_.clear();
  placements_.clear();
  first_vulkan_.reset();
  VKRT_CHECK_OR_RETURN(!file.segments.empty(), InvalidProgram, "VGF has no segments");
  VKRT_CHECK_OR_RETURN(file.outputs.size() == file.output_names.size() || file.output_names.empty(), InvalidProgram,
                       "VGF: ", file.outputs.size(), " output bindings but ", file.output_names.size(),
                       " output names");
  VKRT_RETURN_IF_ERROR(choose_graph_executor(options));
  // Resources first: a bad alias group or intermediate is found before any pipeline is built.
  VKRT_RETURN_IF_ERROR(allocate_resources(*options.memory_budget));
  for (size_t i = 0; i < file.segments.size(); ++i) {
    segments_.push_back(std::make_unique<Segment>());
    if (file.segments[i].type == ModuleType::Compute) {
      VKRT_RETURN_IF_ERROR(prepare_compute_segment(i, options));
    } else {
      VKRT_RETURN_IF_ERROR(prepare_graph_segment(i, options));
    }
    segments_.back()->inputs.resize(segments_.back()->input_mrt.size());
    segments_.back()->outputs.resize(segments_.back()->output_mrt.size());
  }
  first_vulkan_.reset();  // a probe no GRAPH segment used
  return Status::ok();
}

void ModelRunner::bind_alias_views(uint32_t mrt, const Tensor& t) {
  for (uint32_t m : alias_members_[mrt]) {
    auto view = Tensor::make(host_types_[m].scalar, host_sizes_[m], t.data());  // static: checked at prepare
    if (!view.ok()) continue;
    resource_tensors_[m] = *view;
    resource_views_[m] = &resource_tensors_[m];
  }
}

// A caller's tensor for a model input or output: the resource's element type (any integer type of
// the same width for integers) and, for static shapes, its element count.
Status ModelRunner::check_model_tensor(uint32_t mrt, const Tensor& t, const char* what, size_t index) const {
  const ResourceHostType& type = host_types_[mrt];
  const bool same_width_integers = is_integral(type.scalar, false) && is_integral(t.dtype(), false) &&
                                   element_size(type.scalar) == element_size(t.dtype());
  VKRT_CHECK_OR_RETURN(t.dtype() == type.scalar || same_width_integers, InvalidArgument, "VGF ", what, " ", index,
                       ": expected ", scalar_type_name(type.scalar), " (resource ", mrt, "), got ",
                       scalar_type_name(t.dtype()));
  // Dynamic shapes: the executors check them against the graph.
  VKRT_CHECK_OR_RETURN(host_counts_[mrt] < 0 || t.numel() == host_counts_[mrt], InvalidArgument, "VGF ", what, " ",
                       index, ": ", t.numel(), " elements, resource ", mrt, " has ", host_counts_[mrt]);
  return Status::ok();
}

Status ModelRunner::run(std::span<Tensor* const> model_inputs, std::span<Tensor* const> model_outputs,
                        KernelContext* ctx) {
  const VgfFile& f = *file_;
  VKRT_CHECK_OR_RETURN(file_ != nullptr, InvalidState, "VGF model runner not prepared");
  VKRT_CHECK_OR_RETURN(model_inputs.size() == f.inputs.size() && model_outputs.size() == f.outputs.size(),
                       InvalidArgument, "VGF: ", model_inputs.size(), " inputs and ", model_outputs.size(),
                       " outputs given, the model has ", f.inputs.size(), " and ", f.outputs.size());
  // Model I/O views point at the caller's tensors for this call only.
  auto unbind = [&] {
    for (const auto* slots : {&f.inputs, &f.outputs}) {
      for (const VgfBindingSlot& s : *slots) {
        resource_views_[s.mrt_index] = nullptr;
        for (uint32_t m : alias_members_[s.mrt_index]) resource_views_[m] = nullptr;
      }
    }
  };
  auto bind = [&](const std::vector<VgfBindingSlot>& slots, std::span<Tensor* const> tensors, const char* what) {
    for (size_t k = 0; k < slots.size(); ++k) {
      VKRT_CHECK_OR_RETURN(tensors[k] != nullptr, InvalidArgument, "VGF ", what, " ", k, " is null");
      VKRT_RETURN_IF_ERROR(check_model_tensor(slots[k].mrt_index, *tensors[k], what, k));
      resource_views_[slots[k].mrt_index] = tensors[k];
      bind_alias_views(slots[k].mrt_index, *tensors[k]);
    }
    return Status::ok();
  };
  Status status = bind(f.inputs, model_inputs, "input");
  if (status.is_ok()) status = bind(f.outputs, model_outputs, "output");
  for (size_t s = 0; s < segments_.size() && status.is_ok(); ++s) {
    Segment& seg = *segments_[s];
    for (size_t i = 0; i < seg.input_mrt.size() && status.is_ok(); ++i) {
      seg.inputs[i] = resource_views_[seg.input_mrt[i]];
      if (!seg.inputs[i]) {
        status = make_error(Error::InvalidProgram, "VGF segment '", f.segments[s].name, "': input resource ",
                            seg.input_mrt[i], " is not a model input, an intermediate or another segment's output");
      }
    }
    for (size_t j = 0; j < seg.output_mrt.size() && status.is_ok(); ++j) {
      seg.outputs[j] = resource_views_[seg.output_mrt[j]];
      if (!seg.outputs[j]) {
        status = make_error(Error::InvalidProgram, "VGF segment '", f.segments[s].name, "': output resource ",
                            seg.output_mrt[j], " is not a model output or an intermediate");
      }
    }
    if (!status.is_ok()) break;
    status = seg.compute ? seg.compute->run(seg.inputs, seg.outputs) : seg.graph_exec->run(seg.inputs, seg.outputs, ctx);
  }
  unbind();
  return status;
}

std::vector<DelegateProfileEntry> ModelRunner::op_profile() const {
  std::vector<DelegateProfileEntry> steps;
  for (const auto& seg : segments_) {
    auto seg_steps = seg->compute ? seg->compute->op_profile() : seg->graph_exec->op_profile();
    steps.insert(steps.end(), seg_steps.begin(), seg_steps.end());
  }
  return steps;
}

}  // namespace vkrt::vgf
