#include "vgf/vulkan/graph_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "vgf/ir/arena_plan.h"
#include "vgf/vulkan/op_table.h"

namespace vkrt::vulkan {

namespace {

using vgf::DType;
using vgf::Graph;
using vgf::OpKind;
using vgf::TensorId;

bool is_graph_output(const Graph& g, TensorId t) {
  for (const auto& io : g.outputs) {
    if (io.tensor == t) return true;
  }
  return false;
}

// Op indices that read tensor t.
std::vector<size_t> readers(const Graph& g, TensorId t) {
  std::vector<size_t> out;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (TensorId in : g.ops[i].inputs) {
      if (in == t) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

// The sole reader of t (when t is not a graph output), or -1.
int sole_reader(const Graph& g, TensorId t) {
  if (is_graph_output(g, t)) return -1;
  auto r = readers(g, t);
  return r.size() == 1 ? int(r[0]) : -1;
}

// The RESCALEs the convolution epilogues implement (validate_graph already guarantees TOSA's
// rules, e.g. DOUBLE_ROUND only with scale32, matching multiplier and shift counts).
bool fusable_rescale(const Graph& g, const vgf::Op& op) {
  const auto& a = std::get<vgf::RescaleAttr>(op.attr);
  DType out = g.tensor(op.outputs[0]).dtype;
  return !a.input_unsigned && !a.output_unsigned && a.input_zp == 0 &&
         a.rounding_mode != vgf::RoundingMode::InexactRound && (out == DType::Int8 || out == DType::Int16);
}

// For every tensor: the distinct ops that read it, in program order.
std::vector<std::vector<size_t>> readers_of_all(const Graph& g) {
  std::vector<std::vector<size_t>> readers(g.tensors.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (TensorId t : g.ops[i].inputs) {
      if (t < g.tensors.size() && (readers[t].empty() || readers[t].back() != i)) readers[t].push_back(i);
    }
  }
  return readers;
}

bool chain_value_type(DType t) {
  return t == DType::Bool || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Fp32;
}

// The shape of `t`: from `shapes` when given (inferred, concrete), else as declared.
const vgf::Shape& shape_of(const Graph& g, std::span<const vgf::Shape> shapes, TensorId t) {
  return shapes.empty() ? g.tensor(t).shape : shapes[t];
}

bool is_concrete(const vgf::Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

int64_t element_count_of(const vgf::Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return -1;
  }
  return count;
}

}  // namespace

bool is_chainable_elementwise(const Graph& g, size_t index, std::span<const vgf::Shape> shapes) {
  // The graph passed validate_graph (operand counts, tensor ids, attribute kinds, RESCALE's
  // multiplier/shift counts and ranges); what is checked here is what the generator supports.
  const vgf::Op& op = g.ops[index];
  if (!vulkan_op(op.kind).chainable() || !check_op_capability(g, index).is_ok()) return false;
  // One index space: the output's. Inputs have its rank and each dim equal or 1 (TOSA
  // broadcasting, tosa.md §9); only concrete shapes, so the generated code has literal sizes.
  if (!shapes.empty() && shapes.size() != g.tensors.size()) return false;
  const vgf::TensorInfo& out = g.tensor(op.outputs[0]);
  const vgf::Shape& out_shape = shape_of(g, shapes, op.outputs[0]);
  int64_t count = element_count_of(out_shape);
  if (!is_concrete(out_shape) || count <= 0 || count > INT32_MAX || !chain_value_type(out.dtype)) return false;
  for (TensorId t : op.inputs) {
    const vgf::Shape& in_shape = shape_of(g, shapes, t);
    if (!is_concrete(in_shape) || in_shape.size() != out_shape.size() || !chain_value_type(g.tensor(t).dtype)) {
      return false;
    }
    for (size_t d = 0; d < out_shape.size(); ++d) {
      if (in_shape[d] != out_shape[d] && in_shape[d] != 1) return false;
    }
  }
  if (const auto* m = std::get_if<vgf::MulAttr>(&op.attr); m && (m->shift < 0 || m->shift > 62)) return false;
  if (const auto* t = std::get_if<vgf::TableAttr>(&op.attr)) {
    size_t entries = g.tensor(op.inputs[0]).dtype == DType::Int8 ? 256 : 513;
    if (t->table.size() != entries) return false;
  }
  return true;
}

std::vector<FusedStep> fuse_elementwise_chains(const Graph& g, std::vector<FusedStep> steps, size_t max_inputs,
                                               std::span<const vgf::Shape> shapes) {
  const size_t n = g.ops.size();
  // Ops that form a step on their own (not absorbed into a convolution epilogue).
  std::vector<bool> single(n, false);
  for (const FusedStep& s : steps) {
    if (s.rescale < 0 && s.clamp < 0 && s.chain.empty() && s.op < n) single[s.op] = true;
  }
  const std::vector<std::vector<size_t>> readers = readers_of_all(g);
  // Groups are grown backwards from their last op: op k joins the group that all readers of its
  // output belong to (its value then never leaves registers) when that keeps the group within
  // its budgets.
  std::vector<int> root(n, -1);
  std::vector<std::vector<TensorId>> external(n);  // per root: distinct tensors read from outside
  std::vector<size_t> members(n, 0);               // per root
  for (size_t k = n; k-- > 0;) {
    if (!single[k] || !is_chainable_elementwise(g, k, shapes)) continue;
    const vgf::Op& op = g.ops[k];
    const TensorId out = op.outputs[0];
    int group_of_readers = -1;
    if (!is_graph_output(g, out) && !readers[out].empty()) {
      group_of_readers = root[readers[out].front()];
      for (size_t r : readers[out]) {
        if (r <= k || root[r] != group_of_readers) group_of_readers = -1;
      }
    }
    if (group_of_readers >= 0) {
      const size_t group = size_t(group_of_readers);
      if (members[group] < kMaxChainOps &&
          shape_of(g, shapes, out) == shape_of(g, shapes, g.ops[group].outputs[0])) {
        std::vector<TensorId> ext = external[group];
        ext.erase(std::remove(ext.begin(), ext.end(), out), ext.end());
        for (TensorId t : op.inputs) {
          if (std::find(ext.begin(), ext.end(), t) == ext.end()) ext.push_back(t);
        }
        if (ext.size() <= max_inputs) {
          external[group] = std::move(ext);
          root[k] = int(group);
          ++members[group];
          continue;
        }
      }
    }
    root[k] = int(k);
    members[k] = 1;
    for (TensorId t : op.inputs) {
      if (std::find(external[k].begin(), external[k].end(), t) == external[k].end()) external[k].push_back(t);
    }
    if (external[k].size() > max_inputs) {  // cannot be bound as a chain at all
      root[k] = -1;
      members[k] = 0;
    }
  }
  std::vector<std::vector<size_t>> chain_ops(n);
  for (size_t k = 0; k < n; ++k) {
    if (root[k] >= 0 && members[size_t(root[k])] >= 2) chain_ops[size_t(root[k])].push_back(k);
  }
  std::vector<FusedStep> out;
  out.reserve(steps.size());
  for (FusedStep& s : steps) {
    const bool grouped = single[s.op] && s.chain.empty() && root[s.op] >= 0 && members[size_t(root[s.op])] >= 2;
    if (!grouped) {
      out.push_back(std::move(s));
    } else if (root[s.op] == int(s.op)) {  // the group's last op: the chain runs here
      FusedStep chain;
      chain.op = s.op;
      chain.output = g.ops[s.op].outputs[0];
      chain.chain = std::move(chain_ops[s.op]);
      out.push_back(std::move(chain));
    }  // other members are computed inside their group's step
  }
  return out;
}

std::vector<FusedStep> split_chain(const Graph& g, const FusedStep& chain_step) {
  std::vector<FusedStep> out;
  for (size_t m : chain_step.chain) {
    FusedStep s;
    s.op = m;
    s.output = g.ops[m].outputs.empty() ? vgf::kNoTensor : g.ops[m].outputs[0];
    out.push_back(s);
  }
  return out;
}

uint64_t element_count(const vgf::Shape& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= uint64_t(std::max<int64_t>(d, 0));
  return n;
}

uint64_t tensor_bytes(vgf::DType dtype, const vgf::Shape& shape) {
  return element_count(shape) * vgf::dtype_storage_bytes(dtype);
}

std::vector<TensorId> alias_roots(const Graph& g) {
  std::vector<TensorId> alias(g.tensors.size());
  std::iota(alias.begin(), alias.end(), TensorId(0));
  for (const auto& op : g.ops) {  // program order: an input's root is already final
    if (op.kind == OpKind::RESHAPE) {
      alias[op.outputs[0]] = alias[op.inputs[0]];
    }
  }
  return alias;
}

std::vector<FusedStep> fuse_ops(const Graph& g, bool enable_fusion) {
  std::vector<FusedStep> steps;
  std::vector<bool> absorbed(g.ops.size(), false);
  // A CLAMP that is the sole reader of a fused RESCALE's result and overlaps its type's range.
  auto fuse_clamp = [&](FusedStep& step) {
    const DType out = g.tensor(step.output).dtype;
    const int c = sole_reader(g, step.output);
    if (c <= step.rescale || g.ops[c].kind != OpKind::CLAMP) return;
    const auto& ca = std::get<vgf::ClampAttr>(g.ops[c].attr);
    if (ca.min_int <= ca.max_int && ca.min_int <= type_max(out) && ca.max_int >= type_min(out) &&
        g.tensor(g.ops[c].outputs[0]).dtype == out) {
      step.clamp = c;
      absorbed[c] = true;
      step.output = g.ops[c].outputs[0];
    }
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (absorbed[i]) continue;
    const auto& op = g.ops[i];
    if (op.kind == OpKind::RESHAPE) continue;
    FusedStep step;
    step.op = i;
    step.output = op.outputs.empty() ? vgf::kNoTensor : op.outputs[0];
    if (enable_fusion && vulkan_op(op.kind).fuses_epilogue) {
      DType in = g.tensor(op.inputs[0]).dtype;
      DType acc = g.tensor(op.outputs[0]).dtype;
      if (in == DType::Int8 && acc == DType::Int32) {
        int r = sole_reader(g, op.outputs[0]);
        if (r > int(i) && g.ops[r].kind == OpKind::RESCALE && fusable_rescale(g, g.ops[r])) {
          step.rescale = r;
          absorbed[r] = true;
          step.output = g.ops[r].outputs[0];
          fuse_clamp(step);
          // An int8 TABLE after it (a LUT activation, e.g. sigmoid or hard-swish): one lookup
          // in the epilogue instead of a dispatch and a round trip of the tensor.
          const int last = step.clamp >= 0 ? step.clamp : r;
          const int t = g.tensor(step.output).dtype == DType::Int8 ? sole_reader(g, step.output) : -1;
          if (t > last && g.ops[t].kind == OpKind::TABLE && g.tensor(g.ops[t].outputs[0]).dtype == DType::Int8) {
            if (std::get<vgf::TableAttr>(g.ops[t].attr).table.size() == 256) {
              step.table = t;
              absorbed[t] = true;
              step.output = g.ops[t].outputs[0];
            }
          }
        }
      } else if (in == DType::Int16 && acc == DType::Int48) {
        // int16 activations: the int48 result's RESCALE (apply_scale_16 only: TOSA forbids
        // scale32 with an int48 input) and a following CLAMP, as for int8.
        int r = sole_reader(g, op.outputs[0]);
        if (r > int(i) && g.ops[r].kind == OpKind::RESCALE && fusable_rescale(g, g.ops[r]) &&
            !std::get<vgf::RescaleAttr>(g.ops[r].attr).scale32) {
          step.rescale = r;
          absorbed[r] = true;
          step.output = g.ops[r].outputs[0];
          fuse_clamp(step);
        }
      } else if (in == DType::Fp32 && acc == DType::Fp32) {
        int c = sole_reader(g, op.outputs[0]);
        if (c > int(i) && g.ops[c].kind == OpKind::CLAMP) {
          step.clamp = c;
          absorbed[c] = true;
          step.output = g.ops[c].outputs[0];
        }
      }
    }
    steps.push_back(step);
  }
  return steps;
}

Result<MemoryPlan> plan_memory(const Graph& g, std::span<const vgf::Shape> shapes,
                               std::span<const FusedStep> steps, std::span<const TensorId> alias,
                               uint64_t alignment) {
  const size_t n = g.tensors.size();
  constexpr int64_t kUnused = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> first(n, kUnused), last(n, kUnused);
  auto touch = [&](TensorId t, int64_t when) {
    TensorId r = alias[t];
    if (g.tensor(r).is_constant) return;
    if (first[r] == kUnused || when < first[r]) first[r] = when;
    if (last[r] == kUnused || when > last[r]) last[r] = when;
  };
  for (const auto& io : g.inputs) touch(io.tensor, -1);
  for (size_t s = 0; s < steps.size(); ++s) {
    const auto& op = g.ops[steps[s].op];
    if (!steps[s].chain.empty()) {
      // A fused chain reads what its ops read from outside it and stores only its last output;
      // its intermediates live in registers.
      const auto& chain = steps[s].chain;
      auto produced_inside = [&](TensorId t) {
        for (size_t m : chain) {
          if (g.ops[m].outputs[0] == t) return true;
        }
        return false;
      };
      for (size_t m : chain) {
        for (TensorId t : g.ops[m].inputs) {
          if (!produced_inside(t)) touch(t, int64_t(s));
        }
      }
      touch(steps[s].output, int64_t(s));
      continue;
    }
    for (TensorId t : op.inputs) touch(t, int64_t(s));
    // A fused step stores only its final tensor (the int32 accumulator and the RESCALE result
    // before a fused CLAMP never reach memory).
    if (steps[s].rescale < 0 && steps[s].clamp < 0) {
      for (TensorId t : op.outputs) touch(t, int64_t(s));
    } else {
      touch(steps[s].output, int64_t(s));
    }
  }
  for (const auto& io : g.outputs) touch(io.tensor, int64_t(steps.size()));

  MemoryPlan plan;
  plan.placement.resize(n);
  std::vector<TensorId> placed;
  std::vector<vgf::ArenaBlock> blocks;
  for (TensorId t = 0; t < n; ++t) {
    if (first[t] == kUnused) continue;
    const uint64_t bytes = tensor_bytes(g.tensor(t).dtype, shapes[t]);
    plan.placement[t].in_arena = true;
    plan.placement[t].bytes = bytes;
    placed.push_back(t);
    blocks.push_back({bytes, first[t], last[t]});
  }
  const vgf::ArenaLayout layout = vgf::place_in_arena(blocks, alignment);
  for (size_t i = 0; i < placed.size(); ++i) plan.placement[placed[i]].offset = layout.offsets[i];
  plan.arena_bytes = layout.arena_bytes;
  plan.peak_live_bytes = layout.peak_live_bytes;
  plan.total_tensor_bytes = layout.total_bytes;
  return plan;
}

}  // namespace vkrt::vulkan
