// For vgf_fuzzer: runs a graph the readers accepted on the CPU executor, so that every TOSA
// kernel (cpu_fallback/tosa, the vectorised int8 paths included) sees the shapes, attributes and
// constants an untrusted file can carry, under ASan/UBSan. prepare() must refuse what the
// kernels cannot take; run() must then return a value or an error, never read out of bounds.
//
// Only small graphs run, so that one input costs milliseconds: static shapes, at most
// kMaxTensorBytes in all tensors together, and an estimate of the work (below) under kMaxWork.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"
#include "vkrt/tensor.h"

namespace vkrt::vgf::fuzzing {

inline constexpr int64_t kMaxTensorBytes = int64_t(16) << 20;
inline constexpr double kMaxWork = 2e7;

// An upper bound on an op's inner-loop iterations: each output element may read every input
// element (convolutions, MATMUL, reductions) and, for pools, every tap of its window; padding
// and dilation only skip taps. -1 when a tensor is not static.
inline double op_work_bound(const Graph& graph, const Op& op) {
  double in = 0, out = 0;
  for (TensorId t : op.inputs) {
    if (t == kNoTensor) continue;
    const int64_t n = graph.tensor(t).element_count();
    if (n < 0) return -1;
    in += double(n);
  }
  for (TensorId t : op.outputs) {
    const int64_t n = graph.tensor(t).element_count();
    if (n < 0) return -1;
    out += double(n);
  }
  double window = 0;
  if (const auto* pool = std::get_if<PoolAttr>(&op.attr))
    window = double(std::max(pool->kernel[0], 1)) * double(std::max(pool->kernel[1], 1));
  return out * (in + window + 1) + in;
}

// A valid static graph within kMaxTensorBytes and kMaxWork: one that costs milliseconds.
inline bool small_static_graph(const Graph& graph) {
  if (!validate_graph(graph).is_ok() || !graph_is_static(graph)) return false;
  double tensor_bytes = 0, work = 0;
  for (const TensorInfo& t : graph.tensors) {
    const int64_t n = t.element_count();
    if (n < 0) return false;
    tensor_bytes += double(n) * double(dtype_storage_bytes(t.dtype));
  }
  for (const Op& op : graph.ops) {
    const double w = op_work_bound(graph, op);
    if (w < 0) return false;
    work += w;
  }
  return tensor_bytes <= double(kMaxTensorBytes) && work <= kMaxWork;
}

// Fills input i with the fuzz bytes, cycled (varied values, NaNs and extremes included).
inline void execute_on_cpu(const Graph& graph, std::span<const uint8_t> fuzz_bytes) {
  if (!small_static_graph(graph)) return;

  auto executor = make_cpu_executor();
  if (!executor->prepare(graph, ExecutorOptions{}).is_ok()) return;

  std::vector<std::vector<uint8_t>> buffers;
  std::vector<std::vector<int32_t>> sizes;
  std::vector<Tensor> tensors;
  auto add = [&](TensorId id, bool fill) -> bool {
    const TensorInfo& info = graph.tensor(id);
    std::vector<int32_t> dims;
    for (int64_t d : info.shape) {
      if (d > INT32_MAX) return false;
      dims.push_back(int32_t(d));
    }
    std::vector<uint8_t> bytes(size_t(info.element_count()) * dtype_storage_bytes(info.dtype));
    for (size_t i = 0; fill && !fuzz_bytes.empty() && i < bytes.size(); ++i) bytes[i] = fuzz_bytes[i % fuzz_bytes.size()];
    buffers.push_back(std::move(bytes));
    sizes.push_back(std::move(dims));
    auto t = Tensor::make(dtype_to_scalar_type(info.dtype), sizes.back(), buffers.back().data());
    if (!t.ok()) return false;
    tensors.push_back(*t);
    return true;
  };
  buffers.reserve(graph.inputs.size() + graph.outputs.size());  // Tensors point into them
  sizes.reserve(buffers.capacity());
  tensors.reserve(buffers.capacity());
  for (const auto& io : graph.inputs)
    if (!add(io.tensor, true)) return;
  for (const auto& io : graph.outputs)
    if (!add(io.tensor, false)) return;
  std::vector<const Tensor*> inputs;
  std::vector<Tensor*> outputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i) inputs.push_back(&tensors[i]);
  for (size_t i = 0; i < graph.outputs.size(); ++i) outputs.push_back(&tensors[graph.inputs.size() + i]);
  (void)executor->run(inputs, outputs, nullptr);
}

}  // namespace vkrt::vgf::fuzzing
