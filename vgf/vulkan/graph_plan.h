// What the Vulkan executor's JIT decides before it touches the device: which ops fuse into one
// dispatch, which tensors alias (RESHAPE), and where every intermediate lives in the one
// device-local arena (liveness-based first-fit). Pure functions over the graph IR, so they are
// tested without a device.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

// One dispatch-producing step: a main op plus the RESCALE/CLAMP folded into its epilogue, or a
// fused elementwise chain (`chain` non-empty; see fuse_elementwise_chains).
struct FusedStep {
  size_t op = 0;           // index into graph.ops (a chain: its last op, whose output it writes)
  int rescale = -1;        // fused RESCALE op index, or -1
  int clamp = -1;          // fused CLAMP op index, or -1
  int table = -1;          // fused int8 TABLE op index (after the RESCALE/CLAMP), or -1
  vgf::TensorId output = vgf::kNoTensor;  // the tensor this step writes
  std::vector<size_t> chain;  // elementwise chain: every op of it in program order, else empty
};

// Fusion rules (docs/vulkan-executor.md "Fusion"):
//  * CONV2D / DEPTHWISE_CONV2D / MATMUL with int8 inputs whose int32 result is read only by one
//    RESCALE (scale32 or not, no unsigned flags, input_zp 0, int8/int16 output, not INEXACT)
//    and is not a graph output: the RESCALE becomes the epilogue;
//  * then a CLAMP that is the only reader of the RESCALE result (not a graph output) and whose
//    bounds overlap the output type's range: folded into the epilogue's saturation bounds;
//  * int16 CONV2D / DEPTHWISE_CONV2D / MATMUL (int48 result): the same with a RESCALE that is not
//    scale32 (apply_scale_16, the only form TOSA allows for int48) and the CLAMP after it;
//  * then an int8 TABLE that is the only reader of that int8 result (not a graph output): looked
//    up in the epilogue (the 256 entries travel with the shifts);
//  * fp32 CONV2D / DEPTHWISE_CONV2D / MATMUL followed by a sole-reader CLAMP: folded likewise.
// RESHAPE produces no step (its output aliases its input, see alias_roots).
std::vector<FusedStep> fuse_ops(const vgf::Graph& graph, bool enable_fusion);

// Elementwise chain fusion (docs/vulkan-executor.md "Fused elementwise chains"), applied to the
// steps of fuse_ops: single-op steps of elementwise ops (unary/binary arithmetic, comparisons,
// RESCALE, CLAMP, TABLE, CAST, SELECT; see is_chainable_elementwise) are grouped so that every
// intermediate tensor is read only by ops of its own group (it never reaches memory), is not
// a graph output, and has the group's output shape (inputs from outside the group may
// broadcast). Shapes are `shapes` (one per tensor: the inferred shapes of one plan, so a graph
// with dynamic dimensions fuses per input shape), or the declared ones when `shapes` is empty,
// and then only static shapes fuse. A group of two or more ops
// becomes one step placed at its last op; a group reads at most `max_inputs` distinct tensors
// from outside (descriptor-binding budget) and holds at most kMaxChainOps ops.
inline constexpr size_t kMaxChainOps = 32;
std::vector<FusedStep> fuse_elementwise_chains(const vgf::Graph& graph, std::vector<FusedStep> steps,
                                               size_t max_inputs, std::span<const vgf::Shape> shapes = {});
// True when op `op_index` can be part of a generated elementwise chain shader (shapes as above).
bool is_chainable_elementwise(const vgf::Graph& graph, size_t op_index, std::span<const vgf::Shape> shapes = {});
// The single-op steps a chain step came from (program order): the fallback when a chain's
// shader cannot be compiled.
std::vector<FusedStep> split_chain(const vgf::Graph& graph, const FusedStep& chain_step);

// alias[t] = the tensor whose storage t uses (t itself unless t is a RESHAPE output, followed
// transitively).
std::vector<vgf::TensorId> alias_roots(const vgf::Graph& graph);

struct TensorPlacement {
  bool in_arena = false;  // intermediates and graph inputs/outputs
  uint64_t offset = 0;    // in the arena
  uint64_t bytes = 0;
};

struct MemoryPlan {
  std::vector<TensorPlacement> placement;  // per TensorId (meaningful for alias roots)
  uint64_t arena_bytes = 0;                // arena size (aligned offsets included)
  uint64_t peak_live_bytes = 0;            // largest set of simultaneously live tensors
  uint64_t total_tensor_bytes = 0;         // sum over all arena tensors (no reuse)
};

// Places every non-constant alias root that steps read or write, or that is a graph
// input/output, so that tensors live at the same time never overlap. `alignment` is the
// offset alignment (>= minStorageBufferOffsetAlignment).
Result<MemoryPlan> plan_memory(const vgf::Graph& graph, std::span<const vgf::Shape> shapes,
                               std::span<const FusedStep> steps,
                               std::span<const vgf::TensorId> alias, uint64_t alignment);

// Bytes of a tensor with the given shape (element count * storage bytes); 0 for zero elements.
uint64_t tensor_bytes(vgf::DType dtype, const vgf::Shape& shape);
// Product of the dimensions of a concrete shape.
uint64_t element_count(const vgf::Shape& shape);

}  // namespace vkrt::vulkan
