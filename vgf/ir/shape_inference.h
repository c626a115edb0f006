// TOSA shape inference over the graph IR (rules from tosa.md §6-§12).
//
// Two uses:
//  * at build time (readers, executors' prepare): infer_static_shapes() propagates what is
//    known, filling kDynamicDim / unranked tensors where a rule determines them, and rejects
//    graphs whose declared shapes contradict the rules;
//  * at execute for dynamic graphs: infer_shapes() resolves every tensor's concrete shape from
//    the actual input shapes (the VGF resource table's INT64_MIN dims, unshaped SPIR-V tensors).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vgf/ir/graph.h"
#include "vgf/ir/op_descriptor.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

// Concrete shapes of every tensor (indexed by TensorId) given the shapes of the graph inputs
// (input_shapes[i] for graph.inputs[i]). Errors (InvalidArgument / InvalidProgram) name the op
// and the rule: an input shape contradicting a static declared dimension, rank mismatch,
// broadcast mismatch, inexact conv/pool/resize division, a result contradicting the declared
// type of the op's output.
Result<std::vector<Shape>> infer_shapes(const Graph& graph, std::span<const Shape> input_shapes);

// Same rules with the declared graph input shapes (dynamic dims stay dynamic and propagate).
// Writes the inferred shapes into graph.tensors (refining kDynamicDim entries and unranked
// tensors). Errors as above.
Status infer_static_shapes(Graph& graph);

// The shape of one op's outputs from its input shapes (entries may be kDynamicDim, which
// propagates). Exposed for executors that re-infer per op.
Result<std::vector<Shape>> infer_op_shapes(const Graph& graph, const Op& op,
                                           std::span<const Shape* const> input_shapes);

// True when the graph has no dynamic dimension and every tensor is ranked.
bool graph_is_static(const Graph& graph);

}  // namespace vkrt::vgf
