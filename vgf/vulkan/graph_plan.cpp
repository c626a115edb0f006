#include "vgf/vulkan/graph_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>

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

int64_t type_min(DType t) { return t == DType::Int8 ? -128 : t == DType::Int16 ? -32768 : INT32_MIN; }
int64_t type_max(DType t) { return t == DType::Int8 ? 127 : t == DType::Int16 ? 32767 : INT32_MAX; }

// The sole reader of t (when t is not a graph output), or -1.
int sole_reader(const Graph& g, TensorId t) {
  if (is_graph_output(g, t)) return -1;
  auto r = readers(g, t);
  return r.size() == 1 ? int(r[0]) : -1;
}

bool fusable_rescale(const Graph& g, const vgf::Op& op) {
  const auto* a = std::get_if<vgf::RescaleAttr>(&op.attr);
  if (!a || op.inputs.size() != 1 || op.outputs.size() != 1) return false;
  DType out = g.tensor(op.outputs[0]).dtype;
  return !a->input_unsigned && !a->output_unsigned && a->input_zp == 0 &&
         a->rounding_mode != vgf::RoundingMode::InexactRound &&
         (a->scale32 || a->rounding_mode != vgf::RoundingMode::DoubleRound) &&
         (out == DType::Int8 || out == DType::Int16) && !a->multiplier.empty() &&
         a->multiplier.size() == a->shift.size();
}

}  // namespace

uint64_t tensor_bytes(vgf::DType dtype, const vgf::Shape& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= uint64_t(std::max<int64_t>(d, 0));
  return n * vgf::dtype_storage_bytes(dtype);
}

std::vector<TensorId> alias_roots(const Graph& g) {
  std::vector<TensorId> alias(g.tensors.size());
  std::iota(alias.begin(), alias.end(), TensorId(0));
  for (const auto& op : g.ops) {  // program order: an input's root is already final
    if (op.kind == OpKind::RESHAPE && op.inputs.size() == 1 && op.outputs.size() == 1) {
      alias[op.outputs[0]] = alias[op.inputs[0]];
    }
  }
  return alias;
}

std::vector<FusedStep> fuse_ops(const Graph& g, bool enable_fusion) {
  std::vector<FusedStep> steps;
  std::vector<bool> absorbed(g.ops.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (absorbed[i]) continue;
    const auto& op = g.ops[i];
    if (op.kind == OpKind::RESHAPE) continue;
    FusedStep step;
    step.op = i;
    step.output = op.outputs.empty() ? vgf::kNoTensor : op.outputs[0];
    bool producer = op.kind == OpKind::CONV2D || op.kind == OpKind::DEPTHWISE_CONV2D ||
                    op.kind == OpKind::MATMUL;
    if (enable_fusion && producer && !op.inputs.empty() && op.outputs.size() == 1) {
      DType in = g.tensor(op.inputs[0]).dtype;
      DType acc = g.tensor(op.outputs[0]).dtype;
      if (in == DType::Int8 && acc == DType::Int32) {
        int r = sole_reader(g, op.outputs[0]);
        if (r > int(i) && g.ops[r].kind == OpKind::RESCALE && fusable_rescale(g, g.ops[r])) {
          step.rescale = r;
          absorbed[r] = true;
          step.output = g.ops[r].outputs[0];
          DType out = g.tensor(step.output).dtype;
          int c = sole_reader(g, step.output);
          if (c > r && g.ops[c].kind == OpKind::CLAMP) {
            const auto* ca = std::get_if<vgf::ClampAttr>(&g.ops[c].attr);
            if (ca && ca->min_int <= ca->max_int && ca->min_int <= type_max(out) &&
                ca->max_int >= type_min(out) && g.tensor(g.ops[c].outputs[0]).dtype == out) {
              step.clamp = c;
              absorbed[c] = true;
              step.output = g.ops[c].outputs[0];
            }
          }
        }
      } else if (in == DType::Fp32 && acc == DType::Fp32) {
        int c = sole_reader(g, op.outputs[0]);
        if (c > int(i) && g.ops[c].kind == OpKind::CLAMP &&
            std::holds_alternative<vgf::ClampAttr>(g.ops[c].attr)) {
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
  struct Item { TensorId t; uint64_t bytes; };
  std::vector<Item> items;
  for (TensorId t = 0; t < n; ++t) {
    if (first[t] == kUnused) continue;
    uint64_t bytes = tensor_bytes(g.tensor(t).dtype, shapes[t]);
    plan.placement[t].in_arena = true;
    plan.placement[t].bytes = bytes;
    plan.total_tensor_bytes += bytes;
    items.push_back({t, bytes});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.bytes > b.bytes; });
  struct Placed { uint64_t begin, end; int64_t first, last; };
  std::vector<Placed> placed;
  for (const Item& item : items) {
    uint64_t size = std::max<uint64_t>(item.bytes, 16);
    uint64_t offset = 0;
    bool moved = true;
    while (moved) {  // first fit: bump past every live-overlapping block we collide with
      moved = false;
      for (const Placed& p : placed) {
        bool live_overlap = !(p.last < first[item.t] || last[item.t] < p.first);
        if (live_overlap && offset < p.end && p.begin < offset + size) {
          offset = (p.end + alignment - 1) / alignment * alignment;
          moved = true;
        }
      }
    }
    plan.placement[item.t].offset = offset;
    placed.push_back({offset, offset + size, first[item.t], last[item.t]});
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
  }
  // Peak live bytes, for the memory report.
  for (int64_t s = -1; s <= int64_t(steps.size()); ++s) {
    uint64_t live = 0;
    for (const Item& item : items) {
      if (first[item.t] <= s && s <= last[item.t]) live += item.bytes;
    }
    plan.peak_live_bytes = std::max(plan.peak_live_bytes, live);
  }
  return plan;
}

}  // namespace vkrt::vulkan
