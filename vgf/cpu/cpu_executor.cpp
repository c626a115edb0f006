// The "cpu" GraphExecutor (see cpu_executor.h).
#include "vgf/cpu/cpu_executor.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "cpu_fallback/compute/context_runner.h"
#include "vgf/cpu/cpu_op_table.h"
#include "vgf/ir/arena_plan.h"
#include "vgf/ir/shape_inference.h"
#include "vkrt/event_tracer.h"

namespace vkrt::vgf {
namespace {

using cpu::call_kernel;
using cpu::KernelArgs;
using cpu::plan_op;
using cpu::PlannedOp;

// What ref() gives graph I/O before it is bound; never read.
alignas(16) uint8_t unbound_io_placeholder[16];

class CpuExecutor final : public GraphExecutor {
 public:
  std::string_view name() const override { return "cpu"; }
  Status prepare(const Graph& graph, const ExecutorOptions& options) override;
  Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs,
             KernelContext* ctx) override;
  std::vector<DelegateProfileEntry> op_profile() const override;

 private:
  // Where a tensor's bytes live during a run.
  enum class Storage : uint8_t { Constant, GraphInput, GraphOutput, Intermediate };

  // The op at whose turn op i runs: itself, or the CONV2D or residual ADD that runs it fused.
  std::vector<size_t> run_turns() const;
  // Places the intermediates in the arena by their lifetimes at the current shapes (growing the
  // arena, and counting the growth in the budget, where it must).
  Status allocate_intermediates();
  // Per tensor: whether it is an intermediate of a fused chain that, at the current shapes, never
  // writes it (cpu::fused_conv_writes_only_output): it gets no bytes.
  std::vector<bool> unwritten_intermediates();
  Status check_ops_with_shapes();
  // The operands of op i (outputs written into `outs`, at least 2) with the run's threads and scratch.
  // `unbound_io`: see ref().
  KernelArgs args_of(size_t i, tosa::TensorRef* outs, ParallelRunner* runner, bool unbound_io = false);
  // Sizes the scratch for the ops' current shapes and `threads` (allocates only when it grows,
  // counting the growth in the budget).
  Status size_scratch(int threads);
  Status run_ops(ParallelRunner* runner);
  // Finds the (DEPTHWISE_)CONV2D → RESCALE (→ CLAMP) and fp32 (DEPTHWISE_)CONV2D → CLAMP chains run
  // as one kernel (cpu::FusedConvChain), and the int8 residual adds (ResidualFusion).
  void plan_fusions(bool enabled);
  void plan_residual_adds(const std::vector<int>& readers, const std::vector<size_t>& reader);
  // The residual add that op i (an ADD) heads, as one kernel.
  Status run_residual_add(size_t i, ParallelRunner* runner);
  // The chain that op i (a fused CONV2D) heads, its operands bound for this run.
  cpu::FusedConvChain chain_of(size_t i, bool unbound_io = false);
  // Tensor t as the kernels see it. `unbound_io`: graph I/O not bound yet (at prepare) gets a
  // placeholder that is never read: the checks and the scratch sizes look at dtypes and shapes
  // only, but refuse null data.
  tosa::TensorRef ref(TensorId t, bool unbound_io = false) const {
    void* data = data_[t] == nullptr && unbound_io ? unbound_io_placeholder : data_[t];
    return tosa::TensorRef{graph_->tensors[t].dtype, shapes_[t], data};
  }

  const Graph* graph_ = nullptr;
  bool static_graph_ = true;
  std::vector<std::unique_ptr<PlannedOp>> plans_;
  std::vector<Shape> shapes_;        // per tensor, concrete after prepare (static) or bind (dynamic)
  std::vector<Storage> storage_;     // per tensor
  std::vector<void*> data_;          // per tensor, for the current run
  // The intermediates' arena: tensors whose lifetimes do not meet share bytes. A tensor lives
  // from the first to the last turn at which an op reads or writes it, a fused op's turn being
  // its chain's (run_turns). The tensors a fused chain never writes (a CONV2D's int32 sums; the
  // chain says so for its operands and the scratch it asked for, which it always gets) have no
  // bytes; where a chain would run its ops in turn (an output stage its fused forms do not take),
  // its intermediates have theirs, live for that one turn.
  std::vector<int64_t> first_turn_, last_turn_;  // per tensor (intermediates only; -1: unused)
  std::vector<uint64_t> planned_bytes_;          // per intermediate, the bytes placed last
  std::unique_ptr<uint8_t[]> arena_;  // arena_bytes_ from the first 64-byte boundary in it
  uint64_t arena_bytes_ = 0;
  // Graph outputs whose tensor is an input, a constant or another output: copied after the run.
  std::vector<std::pair<size_t, TensorId>> copy_outputs_;
  // Scratch for op operands (sized at prepare so run does not allocate).
  std::vector<tosa::TensorRef> in_refs_;
  std::vector<Shape> input_shapes_;
  // Scratch shared by the ops that take it (they run one at a time): the largest any needs.
  // Sized at prepare for static graphs and ExecutorOptions::num_threads; a run with more threads
  // or, for dynamic graphs, larger shapes grows it.
  std::unique_ptr<uint8_t[]> scratch_;
  size_t scratch_bytes_ = 0;
  // ExecutorOptions::memory_budget (may be null): packed weights and scratch are counted there.
  MemoryBudget* budget_ = nullptr;
  // Per op: the RESCALE and CLAMP ops a convolution runs fused with (kNoOp: none), and whether the op
  // is run by the CONV2D before it.
  static constexpr size_t kNoOp = SIZE_MAX;
  struct Fusion {
    size_t rescale = kNoOp, clamp = kNoOp;
    bool fused() const { return rescale != kNoOp || clamp != kNoOp; }
  };
  std::vector<Fusion> fusions_;
  // Per op: for an ADD that heads RESCALE, RESCALE → ADD → RESCALE (→ CLAMP), run as one kernel
  // (tosa::rescale_add_rescale), the RESCALEs of its inputs (in input order) and of its output,
  // the CLAMP (kNoOp: none) and the plan.
  struct ResidualFusion {
    size_t rescale_a = kNoOp, rescale_b = kNoOp, rescale_out = kNoOp, clamp = kNoOp;
    tosa::ResidualAdd plan;
  };
  std::vector<std::optional<ResidualFusion>> residuals_;
  std::vector<bool> fused_away_;
  // VgfOptions::profile: each op's span in the last run, on the tracer clock (sized at prepare).
  bool profile_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> op_ns_;
};

// SIZE_MAX where it would pass it (an allocation of that fails with a clear error).
size_t tensor_bytes(const Graph& g, TensorId t, const Shape& shape) {
  size_t n = dtype_storage_bytes(g.tensors[t].dtype);
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, size_t(d), &n)) return SIZE_MAX;
  return n;
}

Status CpuExecutor::prepare(const Graph& graph, const ExecutorOptions& options) {
  graph_ = &graph;
  budget_ = options.memory_budget;
  VKRT_RETURN_IF_ERROR(validate_graph(graph));
  profile_ = options.vgf().profile;
  op_ns_.assign(profile_ ? graph.ops.size() : 0, {0, 0});
  // VKRT_CPU_FUSION=0 runs every op on its own (to compare, or to time each op alone).
  const char* fusion = std::getenv("VKRT_CPU_FUSION");
  VKRT_CHECK_OR_RETURN(fusion == nullptr || std::strcmp(fusion, "0") == 0 || std::strcmp(fusion, "1") == 0,
                       InvalidArgument, "VKRT_CPU_FUSION must be 0 or 1, not '", fusion ? fusion : "", "'");
  plan_fusions(fusion == nullptr || fusion[0] == '1');
  // Every op must map to a kernel; report all that do not, at once. A convolution is planned
  // with the RESCALE and CLAMP it runs fused with.
  std::string unsupported;
  size_t max_inputs = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    auto plan = std::make_unique<PlannedOp>();
    cpu::PlanContext ctx{graph, graph.ops[i], i, budget_};
    if (fusions_[i].rescale != kNoOp) ctx.rescale_after = &graph.ops[fusions_[i].rescale];
    if (fusions_[i].clamp != kNoOp) ctx.clamp_after = &graph.ops[fusions_[i].clamp];
    Status s = plan_op(ctx, *plan);
    if (!s.is_ok()) {
      // Memory errors name the op already ("VGF cpu executor: op 3 (CONV2D) packed weights").
      if (s.code() == Error::MemoryAllocationFailed) return s;
      if (s.code() != Error::NotSupported) return std::move(s).with_context("op " + std::to_string(i));
      unsupported += (unsupported.empty() ? "" : "; ") + std::string("op ") + std::to_string(i) +
                     " (" + op_name(graph.ops[i].kind) + ")";
    }
    plans_.push_back(std::move(plan));
    max_inputs = std::max(max_inputs, graph.ops[i].inputs.size());
  }
  VKRT_CHECK_OR_RETURN(unsupported.empty(), NotSupported,
                       "cpu executor: unsupported TOSA ops: ", unsupported);
  in_refs_.resize(max_inputs);

  storage_.assign(graph.tensors.size(), Storage::Intermediate);
  data_.assign(graph.tensors.size(), nullptr);
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    if (graph.tensors[t].is_constant) {
      storage_[t] = Storage::Constant;
      // Kernels never write inputs; TensorRef is non-const only to serve both directions.
      data_[t] = const_cast<uint8_t*>(graph.tensors[t].constant_bytes().data());
    }
  }
  for (const GraphIO& in : graph.inputs) storage_[in.tensor] = Storage::GraphInput;
  for (size_t j = 0; j < graph.outputs.size(); ++j) {
    TensorId t = graph.outputs[j].tensor;
    if (storage_[t] == Storage::Intermediate) {
      storage_[t] = Storage::GraphOutput;
    } else {
      copy_outputs_.emplace_back(j, t);
    }
  }
  input_shapes_.resize(graph.inputs.size());
  first_turn_.assign(graph.tensors.size(), -1);
  last_turn_.assign(graph.tensors.size(), -1);
  const std::vector<size_t> turn = run_turns();
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    for (const std::vector<TensorId>* tensors : {&op.inputs, &op.outputs})
      for (TensorId t : *tensors) {
        if (storage_[t] != Storage::Intermediate) continue;
        const int64_t at = int64_t(turn[i]);
        first_turn_[t] = first_turn_[t] < 0 ? at : std::min(first_turn_[t], at);
        last_turn_[t] = std::max(last_turn_[t], at);
      }
  }

  static_graph_ = graph_is_static(graph);
  if (static_graph_) {
    for (size_t i = 0; i < graph.inputs.size(); ++i) input_shapes_[i] = graph.tensors[graph.inputs[i].tensor].shape;
    VKRT_ASSIGN_OR_RETURN(shapes_, infer_shapes(graph, input_shapes_));
    VKRT_RETURN_IF_ERROR(allocate_intermediates());
    VKRT_RETURN_IF_ERROR(check_ops_with_shapes());
    // The scratch for the threads the runs will have (a run with others sizes it again).
    VKRT_RETURN_IF_ERROR(size_scratch(std::max(1, options.num_threads)));
  }
  return Status::ok();
}

// A CONV2D's or DEPTHWISE_CONV2D's int32 output is read only by a RESCALE, whose output may be
// read only by a CLAMP: the chain runs as one kernel that never writes the int32 tensor. An fp32
// convolution's output read only by a CLAMP runs with it the same way. Graph outputs are never
// fused away (their bytes must be written).
void CpuExecutor::plan_fusions(bool enabled) {
  const Graph& g = *graph_;
  std::vector<int> readers(g.tensors.size(), 0);
  std::vector<size_t> reader(g.tensors.size(), kNoOp);
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (TensorId t : g.ops[i].inputs) ++readers[t], reader[t] = i;
  for (const GraphIO& out : g.outputs) readers[out.tensor] += 2;
  // The op reading tensor t as its first input, when it is t's only reader and of this kind.
  auto sole_reader = [&](TensorId t, OpKind kind) {
    const size_t r = readers[t] == 1 ? reader[t] : kNoOp;
    return r != kNoOp && g.ops[r].kind == kind && g.ops[r].inputs[0] == t && g.ops[r].outputs.size() == 1 ? r : kNoOp;
  };
  fusions_.assign(g.ops.size(), Fusion{});
  fused_away_.assign(g.ops.size(), false);
  for (size_t i = 0; enabled && i < g.ops.size(); ++i) {
    const OpKind kind = g.ops[i].kind;
    if ((kind != OpKind::CONV2D && kind != OpKind::DEPTHWISE_CONV2D) || g.ops[i].inputs.size() < 3 ||
        g.ops[i].outputs.size() != 1)
      continue;
    if (g.tensors[g.ops[i].outputs[0]].dtype == tosa::DType::Fp32) {
      const size_t clamp = sole_reader(g.ops[i].outputs[0], OpKind::CLAMP);
      if (clamp == kNoOp) continue;
      fusions_[i].clamp = clamp;
      fused_away_[clamp] = true;
      continue;
    }
    const size_t rescale = sole_reader(g.ops[i].outputs[0], OpKind::RESCALE);
    if (rescale == kNoOp) continue;
    fusions_[i].rescale = rescale;
    fused_away_[rescale] = true;
    const size_t clamp = sole_reader(g.ops[rescale].outputs[0], OpKind::CLAMP);
    if (clamp == kNoOp) continue;
    fusions_[i].clamp = clamp;
    fused_away_[clamp] = true;
  }
  residuals_.assign(g.ops.size(), std::nullopt);
  if (enabled) plan_residual_adds(readers, reader);
}

// An int8 residual add as TOSA carries it: each int8 input RESCALEd to int32, the ADD, the sum
// RESCALEd to int8 and optionally CLAMPed, where nothing else reads the int32 tensors (or, with
// the CLAMP, the RESCALE's output) and tosa::plan_residual_add finds the one-pass form. The ADD
// runs the chain: its input RESCALEs come before it and the rest after.
void CpuExecutor::plan_residual_adds(const std::vector<int>& readers, const std::vector<size_t>& reader) {
  const Graph& g = *graph_;
  std::vector<size_t> producer(g.tensors.size(), kNoOp);
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (TensorId t : g.ops[i].outputs) producer[t] = i;
  // The RESCALE op writing t (with one input and one output) when op `user` is t's only reader.
  auto rescale_into = [&](TensorId t, size_t user) {
    const size_t p = producer[t];
    const bool ok = p != kNoOp && readers[t] == 1 && reader[t] == user && !fused_away_[p] &&
                    g.ops[p].kind == OpKind::RESCALE && g.ops[p].inputs.size() == 1 && g.ops[p].outputs.size() == 1;
    return ok ? p : kNoOp;
  };
  auto sole_reader = [&](TensorId t, OpKind kind) {
    const size_t r = readers[t] == 1 ? reader[t] : kNoOp;
    return r != kNoOp && g.ops[r].kind == kind && g.ops[r].inputs[0] == t && g.ops[r].outputs.size() == 1 ? r : kNoOp;
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& add = g.ops[i];
    if (add.kind != OpKind::ADD || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    ResidualFusion f;
    f.rescale_a = rescale_into(add.inputs[0], i);
    f.rescale_b = rescale_into(add.inputs[1], i);
    f.rescale_out = sole_reader(add.outputs[0], OpKind::RESCALE);
    if (f.rescale_a == kNoOp || f.rescale_b == kNoOp || f.rescale_a == f.rescale_b || f.rescale_out == kNoOp) continue;
    f.clamp = sole_reader(g.ops[f.rescale_out].outputs[0], OpKind::CLAMP);
    const auto* ra = std::get_if<RescaleAttr>(&g.ops[f.rescale_a].attr);
    const auto* rb = std::get_if<RescaleAttr>(&g.ops[f.rescale_b].attr);
    const auto* rout = std::get_if<RescaleAttr>(&g.ops[f.rescale_out].attr);
    const auto* clamp = f.clamp == kNoOp ? nullptr : std::get_if<ClampAttr>(&g.ops[f.clamp].attr);
    if (!ra || !rb || !rout || (f.clamp != kNoOp && !clamp)) continue;
    std::optional<tosa::ResidualAdd> plan = tosa::plan_residual_add(*ra, *rb, *rout, clamp);
    if (!plan) continue;
    f.plan = *plan;
    for (size_t op : {f.rescale_a, f.rescale_b, f.rescale_out, f.clamp})
      if (op != kNoOp) fused_away_[op] = true;
    residuals_[i] = f;
  }
}

Status CpuExecutor::run_residual_add(size_t i, ParallelRunner* runner) {
  const ResidualFusion& f = *residuals_[i];
  const Graph& g = *graph_;
  const Op &a = g.ops[f.rescale_a], &b = g.ops[f.rescale_b], &out = g.ops[f.rescale_out];
  const tosa::TensorRef clamped = f.clamp == kNoOp ? tosa::TensorRef{} : ref(g.ops[f.clamp].outputs[0]);
  return tosa::rescale_add_rescale(ref(a.inputs[0]), *f.plan.rescale_a, ref(a.outputs[0]), ref(b.inputs[0]),
                                   *f.plan.rescale_b, ref(b.outputs[0]), ref(g.ops[i].outputs[0]),
                                   *f.plan.rescale_out, ref(out.outputs[0]), f.plan.clamp, clamped, runner, &f.plan);
}

cpu::FusedConvChain CpuExecutor::chain_of(size_t i, bool unbound_io) {
  const Op& conv = graph_->ops[i];
  const Fusion& f = fusions_[i];
  cpu::FusedConvChain c;
  c.kind = conv.kind;
  for (size_t k = 0; k < 3; ++k) in_refs_[k] = ref(conv.inputs[k], unbound_io);
  c.conv = plans_[i].get();
  c.conv_in = std::span(in_refs_.data(), 3);
  c.sums = ref(conv.outputs[0], unbound_io);
  if (f.rescale != kNoOp) {
    c.rescale = plans_[f.rescale].get();
    c.rescaled = ref(graph_->ops[f.rescale].outputs[0], unbound_io);
  }
  if (f.clamp != kNoOp) {
    c.clamp = plans_[f.clamp].get();
    c.clamped = ref(graph_->ops[f.clamp].outputs[0], unbound_io);
  }
  return c;
}

std::vector<size_t> CpuExecutor::run_turns() const {
  std::vector<size_t> turn(graph_->ops.size());
  for (size_t i = 0; i < turn.size(); ++i) turn[i] = i;
  for (size_t i = 0; i < turn.size(); ++i) {
    for (size_t op : {fusions_[i].rescale, fusions_[i].clamp})
      if (op != kNoOp) turn[op] = i;
    if (const auto& r = residuals_[i])
      for (size_t op : {r->rescale_a, r->rescale_b, r->rescale_out, r->clamp})
        if (op != kNoOp) turn[op] = i;
  }
  return turn;
}

std::vector<bool> CpuExecutor::unwritten_intermediates() {
  const Graph& g = *graph_;
  std::vector<bool> unwritten(g.tensors.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Fusion& f = fusions_[i];
    if (!f.fused() || !cpu::fused_conv_writes_only_output(chain_of(i, true))) continue;
    unwritten[g.ops[i].outputs[0]] = true;
    if (f.rescale != kNoOp && f.clamp != kNoOp) unwritten[g.ops[f.rescale].outputs[0]] = true;
  }
  return unwritten;
}

Status CpuExecutor::allocate_intermediates() {
  const std::vector<bool> unwritten = unwritten_intermediates();
  std::vector<TensorId> placed;
  std::vector<ArenaBlock> blocks;
  std::vector<uint64_t> bytes_now;  // per intermediate: 0 for those without bytes
  for (size_t t = 0; t < graph_->tensors.size(); ++t) {
    if (storage_[t] != Storage::Intermediate || first_turn_[t] < 0) continue;
    if (unwritten[t]) {
      data_[t] = nullptr;
      bytes_now.push_back(0);
      continue;
    }
    placed.push_back(TensorId(t));
    blocks.push_back({tensor_bytes(*graph_, TensorId(t), shapes_[t]), first_turn_[t], last_turn_[t]});
    bytes_now.push_back(blocks.back().bytes);
  }
  // A dynamic graph run again with the shapes of the last placement keeps it.
  if (arena_ != nullptr && bytes_now == planned_bytes_) return Status::ok();
  // 64: every tensor starts on a cache line, as the kernels' vector loads like.
  const ArenaLayout layout = place_in_arena(blocks, 64);
  if (layout.arena_bytes > arena_bytes_ || arena_ == nullptr) {
    const uint64_t need = std::max<uint64_t>(layout.arena_bytes, 1);
    // At prepare the budget counts it all; at run (a dynamic graph's larger shapes) the growth.
    const uint64_t growth = need > arena_bytes_ ? need - arena_bytes_ : 0;  // none after a failed allocation
    if (budget_ != nullptr) VKRT_RETURN_IF_ERROR(budget_->reserve(growth, "VGF cpu executor: intermediate tensors"));
    VKRT_CHECK_OR_RETURN(need <= SIZE_MAX - 63, MemoryAllocationFailed, "cpu executor: ", need,
                         " bytes of intermediate tensors");
    arena_.reset(new (std::nothrow) uint8_t[size_t(need) + 63]);
    VKRT_CHECK_OR_RETURN(arena_ != nullptr, MemoryAllocationFailed, "cpu executor: ", need,
                         " bytes of intermediate tensors (", placed.size(), " tensors, ", layout.total_bytes,
                         " bytes without sharing)");
    arena_bytes_ = need;
  }
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(arena_.get()) + 63) & ~uintptr_t(63));
  for (size_t i = 0; i < placed.size(); ++i) data_[placed[i]] = base + layout.offsets[i];
  planned_bytes_ = std::move(bytes_now);
  return Status::ok();
}

// Runs every kernel's check with the planned shapes (graph outputs and inputs have no data yet:
// placeholders, which checks never read; they only look at dtypes, shapes and attributes).
Status CpuExecutor::check_ops_with_shapes() {
  for (size_t i = 0; i < graph_->ops.size(); ++i) {
    const Op& op = graph_->ops[i];
    for (size_t k = 0; k < op.inputs.size(); ++k) in_refs_[k] = ref(op.inputs[k], true);
    std::vector<tosa::TensorRef> outs;
    for (TensorId t : op.outputs) outs.push_back(ref(t, true));
    Status s = call_kernel(op.kind, *plans_[i], KernelArgs{std::span(in_refs_.data(), op.inputs.size()), outs, true, nullptr, {}});
    if (!s.is_ok()) {
      return make_error(s.code(), "op ", i, " (", op_name(op.kind), " ", op.debug_name, "): ", s.message());
    }
  }
  return Status::ok();
}

Status CpuExecutor::run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs,
                        KernelContext* ctx) {
  VKRT_CHECK_OR_RETURN(graph_ != nullptr, InvalidState, "cpu executor: run before prepare");
  const Graph& g = *graph_;
  VKRT_CHECK_OR_RETURN(inputs.size() == g.inputs.size() && outputs.size() == g.outputs.size(),
                       InvalidArgument, "cpu executor: graph has ", g.inputs.size(), " inputs and ",
                       g.outputs.size(), " outputs, got ", inputs.size(), " and ", outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* x = inputs[i];
    const TensorInfo& info = g.tensors[g.inputs[i].tensor];
    VKRT_CHECK_OR_RETURN(x != nullptr && x->data() != nullptr, InvalidArgument, "input ", i, ": no data");
    VKRT_CHECK_OR_RETURN(host_type_compatible(info.dtype, x->dtype()), InvalidArgument, "input ", i,
                         " (", info.name, "): expected ", vgf::dtype_name(info.dtype), ", got ",
                         scalar_type_name(x->dtype()));
    VKRT_CHECK_OR_RETURN(x->is_default_dim_order(), NotSupported, "input ", i, ": non-contiguous dim order");
    if (!static_graph_) {
      input_shapes_[i].assign(x->sizes().begin(), x->sizes().end());
    } else {
      const Shape& want = shapes_[g.inputs[i].tensor];
      bool same = x->rank() == int(want.size());
      for (size_t d = 0; same && d < want.size(); ++d) same = x->size(int(d)) == want[d];
      VKRT_CHECK_OR_RETURN(same, InvalidArgument, "input ", i, " (", info.name,
                           "): shape does not match the graph's static shape");
    }
    data_[g.inputs[i].tensor] = x->data();
  }
  if (!static_graph_) {
    // Dynamic dimensions: resolve every shape from the bound inputs.
    VKRT_ASSIGN_OR_RETURN(shapes_, infer_shapes(g, input_shapes_));
    VKRT_RETURN_IF_ERROR(allocate_intermediates());
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    Tensor* y = outputs[j];
    TensorId t = g.outputs[j].tensor;
    const TensorInfo& info = g.tensors[t];
    VKRT_CHECK_OR_RETURN(y != nullptr && y->data() != nullptr, InvalidArgument, "output ", j, ": no data");
    VKRT_CHECK_OR_RETURN(host_type_compatible(info.dtype, y->dtype()), InvalidArgument, "output ", j,
                         " (", info.name, "): expected ", vgf::dtype_name(info.dtype), ", got ",
                         scalar_type_name(y->dtype()));
    const Shape& want = shapes_[t];
    bool same = y->rank() == int(want.size());
    for (size_t d = 0; same && d < want.size(); ++d) same = y->size(int(d)) == want[d];
    if (!same) {
      VKRT_CHECK_OR_RETURN(y->rank() == int(want.size()), InvalidArgument, "output ", j,
                           ": rank ", y->rank(), ", graph produces rank ", want.size());
      int32_t sizes[kMaxRank];
      for (size_t d = 0; d < want.size(); ++d) sizes[d] = int32_t(want[d]);
      VKRT_RETURN_IF_ERROR(y->resize(std::span<const int32_t>(sizes, want.size())));
    }
    VKRT_CHECK_OR_RETURN(y->nbytes() == tensor_bytes(g, t, want), InvalidArgument, "output ", j,
                         ": ", y->nbytes(), " bytes, graph produces ", tensor_bytes(g, t, want));
  }
  // Outputs bound fresh each run: the first output slot of a tensor owns its buffer.
  for (size_t j = 0; j < outputs.size(); ++j) {
    TensorId t = g.outputs[j].tensor;
    if (storage_[t] == Storage::GraphOutput) data_[t] = nullptr;
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    TensorId t = g.outputs[j].tensor;
    if (storage_[t] == Storage::GraphOutput && data_[t] == nullptr) data_[t] = outputs[j]->data();
  }
  // The method's threads (LoadOptions::num_threads), for the kernels that split their work;
  // none (the calling thread) when it has one.
  std::optional<compute::ContextRunner> context_runner;
  if (ctx != nullptr && ctx->num_threads() > 1) context_runner.emplace(*ctx);
  ParallelRunner* runner = context_runner ? &*context_runner : nullptr;
  VKRT_RETURN_IF_ERROR(size_scratch(runner ? runner->num_threads() : 1));
  VKRT_RETURN_IF_ERROR(run_ops(runner));
  // Outputs that are graph inputs, constants, or a tensor already written to another output.
  for (size_t j = 0; j < outputs.size(); ++j) {
    TensorId t = g.outputs[j].tensor;
    if (data_[t] != outputs[j]->data()) std::memmove(outputs[j]->data(), data_[t], outputs[j]->nbytes());
  }
  return Status::ok();
}

KernelArgs CpuExecutor::args_of(size_t i, tosa::TensorRef* outs, ParallelRunner* runner, bool unbound_io) {
  const Op& op = graph_->ops[i];
  for (size_t k = 0; k < op.inputs.size(); ++k) in_refs_[k] = ref(op.inputs[k], unbound_io);
  for (size_t k = 0; k < op.outputs.size() && k < 2; ++k) outs[k] = ref(op.outputs[k], unbound_io);
  return KernelArgs{std::span(in_refs_.data(), op.inputs.size()), std::span(outs, std::min<size_t>(op.outputs.size(), 2)),
                    false, runner, std::span(scratch_.get(), scratch_bytes_)};
}

Status CpuExecutor::size_scratch(int threads) {
  size_t need = 0;
  tosa::TensorRef outs[2];
  for (size_t i = 0; i < graph_->ops.size(); ++i) {
    if (fused_away_[i]) continue;
    const size_t bytes = fusions_[i].fused()
                             ? cpu::fused_conv_scratch(chain_of(i, true), threads)
                             : cpu::kernel_scratch_bytes(graph_->ops[i].kind, *plans_[i],
                                                         args_of(i, outs, nullptr, true), threads);
    need = std::max(need, bytes);
  }
  if (need <= scratch_bytes_) return Status::ok();
  // What the budget has counted so far is scratch_bytes_: count the growth. At prepare that is
  // all of it; at run (more threads than prepare was told of, a dynamic graph's larger shapes)
  // the budget may refuse it, and the run fails with MemoryAllocationFailed.
  if (budget_ != nullptr)
    VKRT_RETURN_IF_ERROR(budget_->reserve(need - scratch_bytes_, "VGF cpu executor: kernel scratch (" +
                                                                     std::to_string(threads) +
                                                                     (threads == 1 ? " thread)" : " threads)")));
  scratch_.reset(new (std::nothrow) uint8_t[need]);
  const size_t had = scratch_bytes_;
  scratch_bytes_ = scratch_ ? need : 0;
  VKRT_CHECK_OR_RETURN(scratch_ != nullptr, MemoryAllocationFailed, "VGF cpu executor: ", need,
                       " bytes of kernel scratch (", had, " before)");
  return Status::ok();
}

Status CpuExecutor::run_ops(ParallelRunner* runner) {
  tosa::TensorRef outs[2];
  for (size_t i = 0; i < graph_->ops.size(); ++i) {
    const Op& op = graph_->ops[i];
    if (fused_away_[i]) continue;  // run by the CONV2D before it or the residual ADD near it
    const uint64_t start = profile_ ? trace_now_ns() : 0;
    Status s = residuals_[i] ? run_residual_add(i, runner)
               : fusions_[i].fused()
                   ? cpu::run_fused_conv(chain_of(i), runner, std::span(scratch_.get(), scratch_bytes_))
                   : call_kernel(op.kind, *plans_[i], args_of(i, outs, runner));
    if (profile_) op_ns_[i] = {start, trace_now_ns()};
    if (!s.is_ok()) {
      return make_error(s.code(), "op ", i, " (", op_name(op.kind), " ", op.debug_name, "): ", s.message());
    }
  }
  return Status::ok();
}

// One entry per kernel call, "<OP> [cpu]", or e.g. "CONV2D+RESCALE+CLAMP [cpu]" or
// "RESCALE+RESCALE+ADD+RESCALE [cpu]" for a fused chain
// (the Vulkan executor names its dispatches "<fused ops> [<shader>]"), so that --profile tables
// of the two executors read side by side.
std::vector<DelegateProfileEntry> CpuExecutor::op_profile() const {
  std::vector<DelegateProfileEntry> steps;
  for (size_t i = 0; i < op_ns_.size(); ++i) {
    if (fused_away_[i]) continue;
    const auto [start, end] = op_ns_[i];
    std::string name = op_name(graph_->ops[i].kind);
    if (residuals_[i]) name = "RESCALE+RESCALE+ADD+RESCALE";
    if (fusions_[i].rescale != kNoOp) name += "+RESCALE";
    if (fusions_[i].clamp != kNoOp || (residuals_[i] && residuals_[i]->clamp != kNoOp)) name += "+CLAMP";
    steps.push_back({name + " [cpu]", double(end - start) * 1e-6, start, end, {}});
  }
  return steps;
}

Result<std::unique_ptr<GraphExecutor>> cpu_factory(const VgfOptions&) { return make_cpu_executor(); }

}  // namespace

std::unique_ptr<GraphExecutor> make_cpu_executor() { return std::make_unique<CpuExecutor>(); }

void register_cpu_executor() {
  if (!has_executor_factory("cpu")) (void)register_executor_factory("cpu", &cpu_factory);
}

VKRT_REGISTER_GRAPH_EXECUTOR("cpu", &cpu_factory);

}  // namespace vkrt::vgf
