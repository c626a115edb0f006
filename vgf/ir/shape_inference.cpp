// Shape inference over a graph: each op's rule is its descriptor's (vgf/ir/ops/); this file
// runs them in order, merges them with the declared types and bounds the results.
#include "vgf/ir/shape_inference.h"

#include "vgf/ir/ops/shape_rules.h"

#include <string>

namespace vkrt::vgf {

using shape_rules::known;
using shape_rules::shape_str;

Result<std::vector<Shape>> infer_op_shapes(const Graph& graph, const Op& op,
                                           std::span<const Shape* const> in) {
  size_t index = size_t(&op - graph.ops.data());
  if (index >= graph.ops.size()) index = 0;
  OpContext c{graph, op, index};
  if (!is_valid_op_kind(uint32_t(op.kind))) return c.fail("invalid op kind");
  if (in.size() != op.inputs.size()) return c.fail("input shape count mismatch");
  if (in.empty()) return c.fail("op without inputs");
  return op_descriptor(op.kind).infer_shapes(c, in);
}

namespace {

// Merges an inferred shape with the declared type of a tensor: known facts must agree; the
// declared type fills dimensions the rule left dynamic.
Result<Shape> merge_declared(const Graph& graph, size_t op_index, TensorId id, Shape inferred) {
  const TensorInfo& t = graph.tensors[id];
  if (!t.ranked) return inferred;
  if (t.shape.size() != inferred.size()) {
    return make_error(Error::InvalidProgram, "op ", op_index, " (", op_name(graph.ops[op_index].kind),
                      "): output ", t.name, " declared ", shape_str(t.shape), ", inferred ",
                      shape_str(inferred));
  }
  for (size_t d = 0; d < inferred.size(); ++d) {
    if (known(t.shape[d]) && known(inferred[d]) && t.shape[d] != inferred[d]) {
      return make_error(Error::InvalidProgram, "op ", op_index, " (",
                        op_name(graph.ops[op_index].kind), "): output ", t.name, " declared ",
                        shape_str(t.shape), ", inferred ", shape_str(inferred));
    }
    if (!known(inferred[d])) inferred[d] = t.shape[d];
  }
  return inferred;
}

Result<std::vector<Shape>> run_inference(const Graph& graph, std::span<const Shape> input_shapes) {
  VKRT_RETURN_IF_ERROR(validate_graph(graph));
  std::vector<Shape> shapes(graph.tensors.size());
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    shapes[t] = graph.tensors[t].shape;
    // Dimensions come from files: bound them so the shape rules' arithmetic cannot overflow.
    for (int64_t d : shapes[t]) {
      VKRT_CHECK_OR_RETURN(!known(d) || (d >= 0 && d <= INT32_MAX), InvalidProgram, "tensor ", t,
                           " (", graph.tensors[t].name, "): dimension ", d, " out of range");
    }
  }
  if (input_shapes.size() != graph.inputs.size()) {
    return make_error(Error::InvalidArgument, "graph has ", graph.inputs.size(), " inputs, got ",
                      input_shapes.size(), " shapes");
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const TensorInfo& t = graph.tensors[graph.inputs[i].tensor];
    const Shape& given = input_shapes[i];
    if (t.ranked) {
      if (given.size() != t.shape.size()) {
        return make_error(Error::InvalidArgument, "input ", i, " (", t.name, "): expected rank ",
                          t.shape.size(), " ", shape_str(t.shape), ", got ", shape_str(given));
      }
      for (size_t d = 0; d < given.size(); ++d) {
        if (known(t.shape[d]) && known(given[d]) && t.shape[d] != given[d]) {
          return make_error(Error::InvalidArgument, "input ", i, " (", t.name, "): expected ",
                            shape_str(t.shape), ", got ", shape_str(given));
        }
      }
    }
    Shape merged = given;
    for (size_t d = 0; d < merged.size(); ++d) {
      if (!known(merged[d]) && t.ranked) merged[d] = t.shape[d];
      if (known(merged[d]) && (merged[d] < 0 || merged[d] > INT32_MAX))
        return make_error(Error::InvalidArgument, "input ", i, ": dimension ", merged[d], " out of range");
    }
    shapes[graph.inputs[i].tensor] = std::move(merged);
  }
  std::vector<const Shape*> in_ptrs;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    in_ptrs.clear();
    for (TensorId t : op.inputs) in_ptrs.push_back(&shapes[t]);
    VKRT_ASSIGN_OR_RETURN(std::vector<Shape> outs, infer_op_shapes(graph, op, in_ptrs));
    VKRT_CHECK_OR_RETURN(outs.size() == op.outputs.size(), Internal, "op ", i, ": shape rule count");
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      // Sizes are int32 in the runtime; keep every tensor below 2^40 elements so byte counts
      // computed from these shapes cannot overflow.
      int64_t count = 1;
      for (int64_t d : outs[k]) {
        if (!known(d)) continue;
        VKRT_CHECK_OR_RETURN(d >= 0 && d <= INT32_MAX && (d == 0 || count <= (int64_t(1) << 40) / d),
                             InvalidProgram, "op ", i, " (", op_name(op.kind), "): output shape ",
                             shape_str(outs[k]), " too large");
        count *= d;
      }
      VKRT_ASSIGN_OR_RETURN(shapes[op.outputs[k]], merge_declared(graph, i, op.outputs[k], std::move(outs[k])));
    }
  }
  return shapes;
}

}  // namespace

Result<std::vector<Shape>> infer_shapes(const Graph& graph, std::span<const Shape> input_shapes) {
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    for (int64_t d : input_shapes[i]) {
      if (d < 0) {
        return make_error(Error::InvalidArgument, "input ", i,
                          ": actual shape must be concrete, got ", shape_str(input_shapes[i]));
      }
    }
  }
  VKRT_ASSIGN_OR_RETURN(std::vector<Shape> shapes, run_inference(graph, input_shapes));
  for (size_t t = 0; t < shapes.size(); ++t) {
    for (int64_t d : shapes[t]) {
      if (!known(d)) {
        return make_error(Error::InvalidProgram, "tensor ", t, " (", graph.tensors[t].name,
                          "): shape ", shape_str(shapes[t]), " not resolved by the input shapes");
      }
    }
  }
  return shapes;
}

Status infer_static_shapes(Graph& graph) {
  std::vector<Shape> declared;
  for (const GraphIO& in : graph.inputs) {
    if (in.tensor >= graph.tensors.size()) return validate_graph(graph);
    declared.push_back(graph.tensors[in.tensor].shape);
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (!graph.tensors[graph.inputs[i].tensor].ranked) {
      return make_error(Error::NotSupported, "graph input ", i, " is unranked");
    }
  }
  VKRT_ASSIGN_OR_RETURN(std::vector<Shape> shapes, run_inference(graph, declared));
  // Only tensors a rule or the inputs determined are updated (unused declarations keep theirs).
  auto update = [&](TensorId t) {
    graph.tensors[t].shape = shapes[t];
    graph.tensors[t].ranked = true;
  };
  for (const GraphIO& in : graph.inputs) update(in.tensor);
  for (const Op& op : graph.ops) {
    for (TensorId t : op.outputs) update(t);
  }
  return Status::ok();
}

bool graph_is_static(const Graph& graph) {
  for (const TensorInfo& t : graph.tensors) {
    if (!t.is_static()) return false;
  }
  return true;
}

}  // namespace vkrt::vgf
