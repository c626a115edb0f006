// VgfBackend (see vgf_backend.h). Model I/O mapping follows ExecuTorch's VGFBackend.cpp as
// described in vgf-format.md §4-§5.
#include "vgf/backend/vgf_backend.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/segment_graph.h"
#include "vkrt/backend.h"

namespace vkrt::vgf {
namespace {

struct SegmentRun {
  Graph graph;
  std::unique_ptr<GraphExecutor> executor;
  std::vector<uint32_t> input_mrt, output_mrt;    // resource of each graph input/output
  std::vector<const Tensor*> inputs;              // bound per execute (sized at init)
  std::vector<Tensor*> outputs;
};

struct VgfDelegate final : DelegateHandle {
  VgfFile file;
  // Graphs reference `file`; segments must be destroyed first (declared after).
  std::vector<std::unique_ptr<SegmentRun>> segments;
  std::vector<Tensor*> resource_views;                    // per MRT entry, bound per execute
  std::vector<Tensor> intermediate_tensors;               // per MRT entry (INTERMEDIATE only)
  std::vector<std::unique_ptr<uint8_t[]>> intermediate_buffers;
  size_t num_outputs = 0;
};

Result<std::unique_ptr<GraphExecutor>> prepare_executor(const Graph& graph, std::string_view option,
                                                        const BackendOptions* backend_options,
                                                        const std::string& segment) {
  register_cpu_executor();
  ExecutorOptions eo;
  eo.backend_options = backend_options;
  VKRT_ASSIGN_OR_RETURN(std::unique_ptr<GraphExecutor> exec, create_executor_for_option(option));
  Status s = exec->prepare(graph, eo);
  if (s.is_ok()) return exec;
  bool automatic = option.empty() || option == "auto";
  if (!automatic || exec->name() == "cpu") return s;
  // "auto": the GPU could not take this graph; the CPU always can run what it supports.
  std::fprintf(stderr, "vkrt: VgfBackend: segment '%s' cannot run on %s (%s); running it on the CPU executor\n",
               segment.c_str(), std::string(exec->name()).c_str(), s.message().c_str());
  VKRT_ASSIGN_OR_RETURN(exec, create_executor("cpu"));
  VKRT_RETURN_IF_ERROR(exec->prepare(graph, eo));
  return exec;
}

// Bytes of the graph's intermediate tensors at their declared shapes: what an executor
// allocates for them at prepare, at most (both executors size intermediates by these shapes;
// dynamic ones are sized at run, from inputs the caller sized). Saturates on overflow.
uint64_t intermediate_bytes(const Graph& graph) {
  std::vector<bool> io(graph.tensors.size(), false);
  for (const GraphIO& x : graph.inputs) io[x.tensor] = true;
  for (const GraphIO& x : graph.outputs) io[x.tensor] = true;
  uint64_t total = 0;
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const TensorInfo& info = graph.tensors[t];
    if (info.is_constant || io[t] || !info.is_static()) continue;
    const int64_t count = info.element_count();
    uint64_t bytes = 0;
    if (count < 0 || __builtin_mul_overflow(uint64_t(count), uint64_t(dtype_storage_bytes(info.dtype)), &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      return UINT64_MAX;
  }
  return total;
}

Status check_arg(const VgfFile& file, uint32_t mrt, const Tensor& t, const char* what, size_t index) {
  const VgfResource& r = file.resources[mrt];
  DType dt = dtype_from_vk_format(r.vk_format);
  VKRT_CHECK_OR_RETURN(host_type_compatible(dt, t.dtype()), InvalidArgument, "VgfBackend: ", what,
                       " ", index, ": expected ", dtype_name(dt), " (resource ", mrt, "), got ",
                       scalar_type_name(t.dtype()));
  int64_t count = 1;
  bool dynamic = false;
  for (int64_t d : r.shape) {
    if (d == kDynamicDim) dynamic = true; else count *= d;
  }
  if (!dynamic) {
    VKRT_CHECK_OR_RETURN(t.numel() == count, InvalidArgument, "VgfBackend: ", what, " ", index,
                         ": ", t.numel(), " elements, resource ", mrt, " has ", count);
  }
  return Status::ok();
}

class VgfBackend final : public Backend {
 public:
  std::string_view name() const override { return kVgfBackendName; }

  Result<std::unique_ptr<DelegateHandle>> init(BackendInitContext& ctx,
                                               std::span<const uint8_t> processed,
                                               std::span<const CompileSpec>) override {
    auto d = std::make_unique<VgfDelegate>();
    auto decoded = decode_vgf(processed);
    if (!decoded.ok()) return Status(decoded.status()).with_context("VgfBackend init");
    d->file = std::move(decoded).value();
    const VgfFile& f = d->file;
    std::string_view option = ctx.options ? ctx.options->get(kVgfExecutorOption) : std::string_view();

    VKRT_CHECK_OR_RETURN(!f.segments.empty(), InvalidProgram, "VgfBackend: VGF has no segments");
    VKRT_CHECK_OR_RETURN(f.outputs.size() == f.output_names.size() || f.output_names.empty(),
                         InvalidProgram, "VgfBackend: ", f.outputs.size(), " output bindings but ",
                         f.output_names.size(), " output names");
    for (size_t i = 0; i < f.segments.size(); ++i) {
      const VgfSegment& seg = f.segments[i];
      VKRT_CHECK_OR_RETURN(seg.type == ModuleType::Graph, NotSupported, "VgfBackend: segment ", i,
                           " ('", seg.name, "') is a COMPUTE segment (SPIR-V compute shader); the ",
                           "graph executors cannot run compute shaders");
      auto run = std::make_unique<SegmentRun>();
      VKRT_ASSIGN_OR_RETURN(run->graph, build_segment_graph(f, i));
      for (const GraphIO& io : run->graph.inputs) run->input_mrt.push_back(io.mrt_index);
      for (const GraphIO& io : run->graph.outputs) run->output_mrt.push_back(io.mrt_index);
      run->inputs.resize(run->input_mrt.size());
      run->outputs.resize(run->output_mrt.size());
      VKRT_RETURN_IF_ERROR(ctx.memory_budget->reserve(intermediate_bytes(run->graph),
                                                      "VgfBackend segment '" + seg.name + "' intermediate tensors"));
      auto exec = prepare_executor(run->graph, option, ctx.options, seg.name);
      if (!exec.ok()) return Status(exec.status()).with_context("VgfBackend segment '" + seg.name + "'");
      run->executor = std::move(exec).value();
      d->segments.push_back(std::move(run));
    }
    // Intermediate resources (between segments): owned buffers, static shapes required.
    d->resource_views.assign(f.resources.size(), nullptr);
    d->intermediate_tensors.resize(f.resources.size());
    d->intermediate_buffers.resize(f.resources.size());
    for (size_t m = 0; m < f.resources.size(); ++m) {
      const VgfResource& r = f.resources[m];
      if (r.category != ResourceCategory::Intermediate) continue;
      std::vector<int32_t> sizes;
      for (int64_t dim : r.shape) {
        VKRT_CHECK_OR_RETURN(dim >= 0 && dim <= INT32_MAX, NotSupported, "VgfBackend: intermediate resource ",
                             m, " needs a static shape");
        sizes.push_back(int32_t(dim));
      }
      if (sizes.empty()) sizes.push_back(1);
      DType dt = dtype_from_vk_format(r.vk_format);
      uint64_t bytes = dtype_storage_bytes(dt);
      for (int32_t s : sizes)
        if (__builtin_mul_overflow(bytes, uint64_t(s), &bytes)) bytes = UINT64_MAX;
      VKRT_RETURN_IF_ERROR(ctx.memory_budget->reserve(bytes, "VgfBackend intermediate resource " + std::to_string(m)));
      d->intermediate_buffers[m].reset(new (std::nothrow) uint8_t[bytes ? bytes : 1]);
      VKRT_CHECK_OR_RETURN(d->intermediate_buffers[m] != nullptr, MemoryAllocationFailed,
                           "VgfBackend: intermediate resource ", m);
      VKRT_ASSIGN_OR_RETURN(d->intermediate_tensors[m],
                            Tensor::make(dtype_to_scalar_type(dt), sizes, d->intermediate_buffers[m].get()));
      d->resource_views[m] = &d->intermediate_tensors[m];
    }
    d->num_outputs = f.outputs.size();
    return std::unique_ptr<DelegateHandle>(std::move(d));
  }

  Status execute(BackendExecuteContext& ctx, DelegateHandle& handle, std::span<EValue* const> args) override {
    auto& d = static_cast<VgfDelegate&>(handle);
    const VgfFile& f = d.file;
    VKRT_CHECK_OR_RETURN(args.size() >= d.num_outputs, InvalidArgument, "VgfBackend: ", args.size(),
                         " arguments, the VGF has ", d.num_outputs, " outputs");
    const size_t num_inputs = args.size() - d.num_outputs;
    for (size_t k = 0; k < args.size(); ++k) {
      VKRT_CHECK_OR_RETURN(args[k] != nullptr && args[k]->is_tensor(), InvalidArgument,
                           "VgfBackend: argument ", k, " is not a tensor");
    }
    // Model inputs: BindingSlot.binding = original model input index (dropped inputs skipped).
    for (size_t k = 0; k < f.inputs.size(); ++k) {
      uint32_t arg = f.inputs[k].binding;
      VKRT_CHECK_OR_RETURN(arg < num_inputs, InvalidArgument, "VgfBackend: model input ", k,
                           " refers to argument ", arg, ", only ", num_inputs, " inputs given");
      Tensor& t = args[arg]->to_tensor();
      VKRT_RETURN_IF_ERROR(check_arg(f, f.inputs[k].mrt_index, t, "input", arg));
      d.resource_views[f.inputs[k].mrt_index] = &t;
    }
    // Model outputs: by position.
    for (size_t j = 0; j < f.outputs.size(); ++j) {
      Tensor& t = args[num_inputs + j]->to_tensor();
      VKRT_RETURN_IF_ERROR(check_arg(f, f.outputs[j].mrt_index, t, "output", j));
      d.resource_views[f.outputs[j].mrt_index] = &t;
    }
    for (auto& seg : d.segments) {
      for (size_t i = 0; i < seg->input_mrt.size(); ++i) {
        seg->inputs[i] = d.resource_views[seg->input_mrt[i]];
        VKRT_CHECK_OR_RETURN(seg->inputs[i] != nullptr, InvalidProgram, "VgfBackend: segment input resource ",
                             seg->input_mrt[i], " is not bound to a model input or intermediate");
      }
      for (size_t j = 0; j < seg->output_mrt.size(); ++j) {
        seg->outputs[j] = d.resource_views[seg->output_mrt[j]];
        VKRT_CHECK_OR_RETURN(seg->outputs[j] != nullptr, InvalidProgram, "VgfBackend: segment output resource ",
                             seg->output_mrt[j], " is not bound to a model output or intermediate");
      }
      VKRT_RETURN_IF_ERROR(seg->executor->run(seg->inputs, seg->outputs, ctx.kernel_context));
    }
    // Model I/O views point at caller tensors only for this call.
    for (const VgfBindingSlot& s : f.inputs) d.resource_views[s.mrt_index] = nullptr;
    for (const VgfBindingSlot& s : f.outputs) d.resource_views[s.mrt_index] = nullptr;
    return Status::ok();
  }

  std::vector<DelegateProfileEntry> profile(const DelegateHandle& handle) const override {
    std::vector<DelegateProfileEntry> steps;
    for (const auto& seg : static_cast<const VgfDelegate&>(handle).segments) {
      auto seg_steps = seg->executor->op_profile();
      steps.insert(steps.end(), seg_steps.begin(), seg_steps.end());
    }
    return steps;
  }
};

}  // namespace

void register_vgf_backend() {
  if (BackendRegistry::global().find(kVgfBackendName) == nullptr) {
    (void)BackendRegistry::global().add(kVgfBackendName, std::make_shared<VgfBackend>());
  }
}

VKRT_REGISTER_BACKEND("VgfBackend", std::make_shared<VgfBackend>());

}  // namespace vkrt::vgf
