// THE CONTRACT between VgfBackend and BOTH graph executors (vgf/cpu "cpu", vgf/vulkan "vulkan"):
// one interface, so that a GPU-vs-CPU comparison is the same Graph (vgf/ir/graph.h) run by two
// implementations. Keep it stable; change it only together with both executors.
//
// Life cycle (matches the delegate's): create (factory) -> prepare(graph) once at delegate init
// (validate every op, report unsupported ones by name, plan memory, upload constants, build
// pipelines) -> run(inputs, outputs) per execute (no heap allocation for static graphs) ->
// destroy. The Graph passed to prepare() must outlive the executor (the backend owns both;
// constant bytes may point into the delegate payload).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vgf/ir/graph.h"
#include "vkrt/backend.h"
#include "vkrt/error.h"
#include "vkrt/kernel.h"
#include "vkrt/memory_budget.h"
#include "vkrt/tensor.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {

struct ExecutorOptions {
  // The load's options, parsed once (parse_vgf_options) by VgfBackend or given to VgfSession;
  // null = VgfOptions{} (the defaults, no environment). Read during prepare() only.
  const VgfOptions* options = nullptr;
  // The load's memory budget (vkrt/memory_budget.h): an executor reserves there every buffer
  // whose size the graph sets before it makes it: the arena of its intermediate tensors, placed
  // by lifetime (vgf/ir/arena_plan.h; the Vulkan executor's is device memory), and the cpu
  // executor's weights packed at prepare and kernel scratch. ModelRunner passes the method's
  // (VgfBackend) or the session's (VgfSession). Null: nothing is counted (a direct user of an
  // executor). Must outlive the executor: what a run needs past what prepare sized (other
  // threads, dynamic shapes) is reserved when it grows.
  MemoryBudget* memory_budget = nullptr;
  // The threads run()'s KernelContext will offer: the cpu executor sizes its kernel scratch for
  // them at prepare (static shapes), so that a run allocates nothing.
  int num_threads = 1;

  const VgfOptions& vgf() const { return options ? *options : default_vgf_options(); }
  static const VgfOptions& default_vgf_options();
};

class GraphExecutor {
 public:
  virtual ~GraphExecutor() = default;

  // "cpu", "vulkan".
  virtual std::string_view name() const = 0;

  // The device the executor runs on, for the line that says where a segment ran: the Vulkan
  // device's name, or "" for the host CPU.
  virtual std::string device_name() const { return {}; }
  // True where that device is a CPU implementation of Vulkan (lavapipe): "auto" prefers the CPU
  // executor then, which runs the same graph faster on the same cores.
  virtual bool software_device() const { return false; }

  // Prepares `graph` for repeated runs. Errors: NotSupported naming the first unsupported op
  // ("op 3 (FFT2D): not supported by the cpu executor"; an executor should list all of them),
  // InvalidProgram for graphs that break TOSA rules, MemoryAllocationFailed.
  virtual Status prepare(const Graph& graph, const ExecutorOptions& options) = 0;

  // Runs the prepared graph. inputs[i] is bound to graph.inputs[i] and outputs[j] to
  // graph.outputs[j] (host memory, contiguous row-major, element type
  // dtype_to_scalar_type(tensor dtype) or, for byte-sized integer types, any 1-byte integer
  // type). Input shapes resolve the graph's dynamic dimensions; output tensors are resized to
  // the inferred shapes when their dynamism allows it, and must otherwise already have them.
  // `ctx` (may be null) provides temp memory and threads.
  virtual Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs,
                     KernelContext* ctx) = 0;

  // Per-step times of the last run when the executor profiles (the Vulkan one with
  // VgfOptions::profile: one entry per dispatch); empty otherwise.
  virtual std::vector<DelegateProfileEntry> op_profile() const { return {}; }
};

// True when a host tensor of `host` type may hold data of the TOSA type `dtype`: the exact
// dtype_to_scalar_type(), or any integer type of the same byte width (uint8/int8/QInt8/QUInt8
// for Int8, Int/QInt32/UInt32 for Int32, ...), since TOSA integers are signless.
bool host_type_compatible(DType dtype, ScalarType host);

// ---- Executor factories (the Vulkan executor registers itself from its own library). ----

// Creates an executor for the load's options (the Vulkan one opens the device VgfOptions::device
// selects, with the validation layer per VgfOptions::validation); may fail (e.g. NotFound when no
// Vulkan device is usable).
using ExecutorFactory = Result<std::unique_ptr<GraphExecutor>> (*)(const VgfOptions& options);

// AlreadyRegistered when `name` is taken. Thread-compatible (call from static initialisers).
Status register_executor_factory(std::string_view name, ExecutorFactory factory);
// NotFound naming the registered executors when `name` is unknown; else the factory's result.
Result<std::unique_ptr<GraphExecutor>> create_executor(
    std::string_view name, const VgfOptions& options = ExecutorOptions::default_vgf_options());
bool has_executor_factory(std::string_view name);
std::vector<std::string> executor_factory_names();

namespace detail {
struct ExecutorRegistrar {
  ExecutorRegistrar(const char* name, ExecutorFactory factory);
};
}  // namespace detail

}  // namespace vkrt::vgf

// VKRT_REGISTER_GRAPH_EXECUTOR("vulkan", &make_vulkan_executor);
// The library holding it must be linked whole (vkrt_link_whole) so the registrar is kept.
#define VKRT_REGISTER_GRAPH_EXECUTOR(name, factory)                                         \
  static ::vkrt::vgf::detail::ExecutorRegistrar VKRT_CONCAT(vkrt_executor_registrar_, __LINE__)( \
      name, factory)
