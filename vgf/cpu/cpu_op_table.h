// Private to vgf/cpu: the CPU executor's op table. For each OpKind the TOSA CPU kernels
// (cpu_fallback/tosa/tosa_kernels.h) implement, one entry holds
//   * plan: translates the IR op's attributes into the kernel's parameters, once, at prepare
//     (null when the kernel takes no attributes), and
//   * run: calls the kernel (or only its check_<op>()) with the planned parameters.
// The entries are registered per op family, next to their binders, in cpu_ops_<family>.cpp;
// adding an op to the CPU executor is one entry there. An op without an entry is NotSupported.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vgf/ir/graph.h"
#include "vkrt/memory_budget.h"

namespace vkrt::vgf::cpu {

// One op's kernel parameters. Most kernels take the IR's attribute struct as it is (the shared
// ones of cpu_fallback/tosa/vocabulary.h) and read it through `ir`; the binary ops get
// BinaryAttrs and TABLE its table tensor from their plan functions.
struct PlannedOp {
  const OpAttributes* ir = nullptr;  // the op's attributes (the graph outlives its plans)
  tosa::BinaryAttrs binary;
  // The TABLE operand, narrowed to the input type.
  std::vector<uint8_t> table_bytes;
  int64_t table_len = 0;
  tosa::DType table_dtype = tosa::DType::Unknown;
  // A CONV2D's constant weights, packed once for the GEMM (tosa::conv2d_pack_weights), counted
  // in the budget (PlanContext::reserve) before they are allocated.
  std::vector<uint8_t> packed_weights_memory;
  const void* packed_weights = nullptr;
  // A CONV2D or DEPTHWISE_CONV2D fused with a RESCALE that is the CMSIS requantize
  // (tosa::conv_requantize): its output stage, which a CONV2D's weights above were packed with.
  std::optional<tosa::ConvRequantize> requantize;

  template <typename T>
  const T& ir_attr() const { return std::get<T>(*ir); }

  PlannedOp() = default;
  PlannedOp(const PlannedOp&) = delete;  // plans stay where the executor made them
  PlannedOp& operator=(const PlannedOp&) = delete;
  PlannedOp(PlannedOp&&) = delete;
  PlannedOp& operator=(PlannedOp&&) = delete;
};

// What a run function gets besides the plan. `in`/`out` follow the IR operand order;
// `runner` (the method's threads; null: the calling thread) is offered to the kernels that split
// their work over threads, and
// `scratch` (the executor's, sized by the entries' scratch functions) to those that take it.
struct KernelArgs {
  std::span<const tosa::TensorRef> in;
  std::span<const tosa::TensorRef> out;
  bool check_only = false;
  ParallelRunner* runner = nullptr;
  std::span<uint8_t> scratch;
};

// What a plan function gets: the op, and where to count the memory it allocates.
struct PlanContext {
  const Graph& graph;
  const Op& op;
  size_t index = 0;                     // the op's index in the graph, for names
  MemoryBudget* budget = nullptr;       // null: nothing counted
  // A convolution's fused RESCALE and CLAMP (FusedConvChain; null: none), planned with it.
  const Op* rescale_after = nullptr;
  const Op* clamp_after = nullptr;
  // Counts `bytes` the plan is about to allocate for `what` ("packed weights") in the budget as
  // "VGF cpu executor: op 3 (CONV2D) packed weights", or fails with MemoryAllocationFailed
  // naming it (vkrt/memory_budget.h). Call before allocating.
  Status reserve(uint64_t bytes, std::string_view what) const;
};

using PlanFn = Status (*)(const PlanContext& ctx, PlannedOp& plan);
using RunFn = Status (*)(const PlannedOp& plan, const KernelArgs& args);
// Scratch bytes the kernel wants for these operands (their shapes; data may be null) on `threads`.
using ScratchFn = size_t (*)(const PlannedOp& plan, const KernelArgs& args, int threads);

struct CpuOpImpl {
  OpKind kind = OpKind::ADD;
  PlanFn plan = nullptr;  // null: the kernel takes no attributes, or the IR's as they are
  RunFn run = nullptr;    // null: no entry (the op is not supported)
  ScratchFn scratch = nullptr;  // null: the kernel needs no scratch
};

// The registration lists, one per family file.
std::span<const CpuOpImpl> conv_pool_ops();    // cpu_ops_conv_pool.cpp
std::span<const CpuOpImpl> elementwise_ops();  // cpu_ops_elementwise.cpp
std::span<const CpuOpImpl> data_layout_ops();  // cpu_ops_data_layout.cpp
std::span<const CpuOpImpl> reduction_ops();    // cpu_ops_reduction.cpp

// Runs `check` (check_only) or `compute` with the same arguments: every kernel comes as such a
// pair (tosa_kernels.h).
template <typename Check, typename Compute, typename... Args>
Status check_or_compute(const KernelArgs& a, Check check, Compute compute, const Args&... args) {
  return a.check_only ? check(args...) : compute(args...);
}

// Fills `plan` from `ctx.op` through the table (NotSupported naming the op for ops without an
// entry; MemoryAllocationFailed, naming what, where the budget or the heap runs out).
Status plan_op(const PlanContext& ctx, PlannedOp& plan);

// Runs the kernel of a planned op (check_only: only its check_<op>()).
Status call_kernel(OpKind kind, const PlannedOp& plan, const KernelArgs& args);
// The scratch a planned op's kernel wants (0 for most).
size_t kernel_scratch_bytes(OpKind kind, const PlannedOp& plan, const KernelArgs& args, int threads);

// A convolution fused with the ops after it, run as one kernel (cpu_ops_conv_pool.cpp):
//   * an integer CONV2D or DEPTHWISE_CONV2D whose output only a RESCALE reads, and optionally
//     that RESCALE's output only a CLAMP: tosa::conv2d_rescale or tosa::depthwise_conv2d_rescale
//     in place of the two or three kernels;
//   * an fp32 one whose output only a CLAMP reads (no RESCALE): tosa::conv2d_clamp or
//     tosa::depthwise_conv2d_clamp.
// `conv_in` are the convolution's operands; `sums`, `rescaled` and `clamped` the ops' outputs.
// run_fused_conv runs it; fused_conv_scratch is the scratch it takes on `threads`;
// fused_conv_writes_only_output whether, given that scratch, it writes `clamped` (or, without a
// CLAMP, `rescaled`) alone, so that `sums` (and `rescaled` before a CLAMP) need no bytes (their
// data are then null; the checks never read them).
struct FusedConvChain {
  OpKind kind = OpKind::CONV2D;  // or DEPTHWISE_CONV2D
  const PlannedOp* conv = nullptr;
  std::span<const tosa::TensorRef> conv_in;
  tosa::TensorRef sums;
  const PlannedOp* rescale = nullptr;  // null: an fp32 convolution and its CLAMP
  tosa::TensorRef rescaled;
  const PlannedOp* clamp = nullptr;  // null: no CLAMP in the chain
  tosa::TensorRef clamped;
};
Status run_fused_conv(const FusedConvChain& chain, ParallelRunner* runner, std::span<uint8_t> scratch);
size_t fused_conv_scratch(const FusedConvChain& chain, int threads);
bool fused_conv_writes_only_output(const FusedConvChain& chain);

}  // namespace vkrt::vgf::cpu
