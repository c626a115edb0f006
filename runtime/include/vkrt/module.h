// The embedding API: load a program, inspect its methods, run them.
//
//   auto module = vkrt::Module::load("model.pte");          // Result<std::unique_ptr<Module>>
//   if (!module.ok()) { puts(module.status().to_string().c_str()); return 1; }
//   auto method = (*module)->load_method("forward");         // Result<Method*>, cached
//   (*method)->set_input(0, input_tensor_evalue);
//   (*method)->execute();
//   const vkrt::EValue& out = (*method)->output(0);
//
// Load does the work: the file is memory-mapped, verified, every table index and offset is
// checked, memory is planned, delegates are initialised and kernels resolved. Execute trusts
// that work and does not allocate.
//
// No exception leaves this API: running out of memory is Error::MemoryAllocationFailed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/backend.h"
#include "vkrt/error.h"
#include "vkrt/evalue.h"
#include "vkrt/event_tracer.h"
#include "vkrt/tensor.h"

namespace vkrt {

struct LoadOptions {
  // Optional .ptd file holding EXTERNAL tensors and extra named data.
  std::string data_path;
  // Scratch memory for kernels and delegates, reset after every instruction.
  size_t temp_pool_bytes = 1 << 20;
  // Threads for CPU kernels that parallelise (1 = run on the calling thread).
  int num_threads = 1;
  // Memory each loaded method may allocate for what the file asks: planned buffers, the temp
  // pool, kernels' prepared state, delegate and driver buffers (vkrt/memory_budget.h). A file
  // asking for more fails load_method with MemoryAllocationFailed naming the buffer and its
  // size. 0: default_memory_budget_bytes(), half of physical memory.
  uint64_t memory_budget_bytes = 0;
  // Options passed to every backend ("VgfBackend.executor" = "cpu", ...).
  BackendOptions backend_options;
  // Receives load and execute events (vkrt/event_tracer.h; ETDump: vkrt/etdump.h). Not owned;
  // must outlive the methods loaded with it. Delegates report their own steps only when asked
  // to profile (e.g. "VgfBackend.profile" = "1").
  EventTracer* event_tracer = nullptr;
};

// Describes one input or output of a method, before anything is allocated.
struct ValueInfo {
  Tag tag = Tag::None;
  // For tensors:
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;       // upper bound for DYNAMIC_BOUND
  std::vector<uint8_t> dim_order;
  ShapeDynamism dynamism = ShapeDynamism::Static;
  size_t nbytes = 0;                // at the sizes above
  bool memory_planned = false;      // data copied in by set_input (else shared)
};

struct MethodMeta {
  std::string name;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<int64_t> planned_buffer_sizes;  // one per planned buffer (memory_id 1, 2, ...)
  size_t num_instructions = 0;
  std::vector<std::string> operators;         // "aten::add.out", ...
  std::vector<std::string> backends;          // delegate ids, e.g. "VgfBackend"
};

// Wall-clock figures for one load_method call, in milliseconds.
struct MethodLoadStats {
  double total_ms = 0;
  double delegate_init_ms = 0;
  // Kernels' load-time preparation (e.g. constant weights repacked once): instructions
  // prepared, and the memory their state holds.
  size_t prepared_instructions = 0;
  size_t prepared_bytes = 0;
  // Bytes counted against the memory budget, and the budget.
  uint64_t budgeted_bytes = 0;
  uint64_t memory_budget_bytes = 0;
};

class Program;
class MethodImpl;

class Method {
 public:
  ~Method();
  const MethodMeta& meta() const;

  // Sets input i. Tensor inputs must match dtype and dim order; sizes must match exactly
  // (STATIC) or fit the upper bound (DYNAMIC_BOUND). Data of a memory-planned input is
  // copied; otherwise the caller's memory is used in place and must outlive execute().
  // Int/Bool/String inputs must equal the traced value, Double within 1e-4 + 1e-5*|v|.
  Status set_input(size_t index, const EValue& value);
  // The method's own value for input i (its planned tensor, to fill in place).
  EValue& input(size_t index);
  size_t num_inputs() const;

  // Runs the method once. InvalidArgument if an input was never set.
  Status execute();

  size_t num_outputs() const;
  // Valid until the next execute(); tensor data aliases method memory.
  const EValue& output(size_t index) const;
  // For outputs that are not memory-planned: where execute() should write them.
  Status set_output_data_ptr(size_t index, void* data, size_t nbytes);

  const MethodLoadStats& load_stats() const;
  // Things a user must be told about this method's results, one line each, from its delegates
  // (e.g. "EthosUBackend: driver 'recording' does not run the NPU; delegate 0's outputs are not
  // computed"). Empty for a method whose outputs are all computed.
  const std::vector<std::string>& notices() const;
  // Where each delegate placed its work at load, one line each (BackendInitContext::placements),
  // e.g. the executor and device of every VgfBackend segment. executor_runner prints them.
  const std::vector<std::string>& placements() const;
  // Bytes of the temp pool used at most so far.
  size_t temp_high_water() const;

  // Per-instruction wall-clock profiling (off by default; costs two clock reads per instruction).
  void set_profiling(bool enabled);
  struct InstructionProfile {
    std::string name;   // kernel name, "delegate:<BackendId>", "move", "jump_false" or "free"
    uint64_t calls = 0;
    double total_ms = 0;
    // For delegate calls: the backend's own per-step times of the last execution (GPU
    // dispatch timestamps for VgfBackend on Vulkan), when it reports them.
    std::vector<DelegateProfileEntry> delegate_steps;
  };
  // One entry per instruction of the method, accumulated over the executions since enabled.
  const std::vector<InstructionProfile>& profile() const;

  // Replaces the tracer given at load (nullptr: none, the default cost-free path).
  void set_event_tracer(EventTracer* tracer);

 private:
  friend class Module;
  explicit Method(std::unique_ptr<MethodImpl> impl);
  std::unique_ptr<MethodImpl> impl_;
};

class Module {
 public:
  // Maps the file (and options.data_path if set) and parses the program. Methods are loaded
  // on first use.
  static Result<std::unique_ptr<Module>> load(const std::string& path, LoadOptions options = {});
  // Same from memory the caller keeps alive for the Module's lifetime (copied once if it is
  // not 16-byte aligned).
  static Result<std::unique_ptr<Module>> load_from_buffer(std::span<const uint8_t> program,
                                                          LoadOptions options = {},
                                                          std::span<const uint8_t> data_file = {});
  ~Module();

  // Read once at load, so that asking allocates nothing.
  const std::vector<std::string>& method_names() const;
  Result<MethodMeta> method_meta(std::string_view name) const;
  // Loads (once) and returns the method; later calls return the same object.
  Result<Method*> load_method(std::string_view name);

  const LoadOptions& options() const { return options_; }

 private:
  Module(std::unique_ptr<Program> program, LoadOptions options);
  std::unique_ptr<Program> program_;
  LoadOptions options_;
  std::unique_ptr<ParallelRunner> threads_;  // when options_.num_threads > 1
  std::vector<std::pair<std::string, std::unique_ptr<Method>>> methods_;
};

}  // namespace vkrt
