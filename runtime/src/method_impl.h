// MethodImpl: a loaded method — its values, planned memory, resolved instructions and
// initialised delegates. Built once by MethodImpl::load; execute() only runs it.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "program.h"
#include "vkrt/thread_pool.h"
#include "vkrt/module.h"

namespace vkrt {

struct InstructionEntry {
  enum class Kind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };
  Kind kind = Kind::Kernel;
  KernelFunction kernel = nullptr;
  const void* kernel_state = nullptr;  // from the kernel's prepare function, if any
  uint32_t delegate = 0;
  std::span<EValue* const> args;  // Kernel and Delegate
  int32_t a = 0;                  // Move: from; JumpFalse: condition value; Free: value
  int32_t b = 0;                  // Move: to; JumpFalse: destination
  std::string name;               // for errors and profiles
};

struct DelegateEntry {
  std::string id;
  Backend* backend = nullptr;
  std::unique_ptr<DelegateHandle> handle;
};

class MethodImpl {
 public:
  static Result<std::unique_ptr<MethodImpl>> load(const Program& program, const fb::ExecutionPlan& plan,
                                                  const LoadOptions& options, ParallelRunner* threads);
  ~MethodImpl();

  Status set_input(size_t index, const EValue& value);
  Status execute();
  Status set_output_data_ptr(size_t index, void* data, size_t nbytes);

  MethodMeta meta;
  MethodLoadStats stats;
  std::vector<EValue> values;
  std::vector<int32_t> inputs;   // value indices
  std::vector<int32_t> outputs;  // value indices
  std::vector<bool> input_is_set;
  TempAllocator temp;
  bool profiling = false;
  EventTracer* tracer = nullptr;  // method_trace.cpp
  std::vector<Method::InstructionProfile> profile;
  std::vector<std::string> notices;  // Method::notices()
  std::vector<std::string> placements;  // Method::placements()

 private:
  Status parse_values(const LoadOptions& options);
  Status parse_tensor(size_t index, const fb::Tensor& t, Tensor& out);
  Status place_tensor_data(size_t index, const fb::Tensor& t, Tensor& out);
  Status check_lists();
  Status plan_buffers();
  Status resolve_instructions();
  Status prepare_kernels();
  void mark_constant(size_t index);
  Status init_delegates(const LoadOptions& options);
  Status run_instruction(InstructionEntry& instr, size_t& pc);
  // run_instruction with its events reported to `tracer` (method_trace.cpp).
  Status run_traced(InstructionEntry& instr, size_t& pc);
  void trace_load(uint64_t start_ns);
  std::span<EValue* const> make_arg_span(const flatbuffers::Vector<int32_t>* indices, const char* what,
                                         size_t instr_index, Status* error);

  const Program* program_ = nullptr;
  const fb::ExecutionPlan* plan_ = nullptr;
  ParallelRunner* threads_ = nullptr;
  std::vector<Tensor> tensors_;                       // sized once; values point into it
  std::vector<std::vector<EValue*>> pointer_lists_;   // list items and instruction args
  std::vector<std::vector<double>> double_lists_;
  std::vector<std::unique_ptr<bool[]>> bool_lists_;
  // Every allocation the file sizes is counted here first (vkrt/memory_budget.h).
  MemoryBudget budget_{0};
  // calloc'd: zero-filled without touching pages until the program uses them.
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> planned_buffers_;
  std::vector<size_t> planned_sizes_;
  std::unique_ptr<uint8_t[]> temp_pool_;
  std::vector<InstructionEntry> instructions_;
  std::vector<DelegateEntry> delegates_;
  // For memory-planned inputs (copied in by set_input).
  std::vector<bool> input_planned_;
  // Values whose tensor data is a program constant (used in place, never written).
  std::vector<bool> constant_values_;
  // Memory owned by kernels' prepared state (KernelPrepareContext::allocate_persistent).
  std::vector<std::unique_ptr<uint8_t[]>> kernel_state_memory_;
};

}  // namespace vkrt
