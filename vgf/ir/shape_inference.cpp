// TOSA output-shape rules (tosa.md §6-§12). kDynamicDim propagates through every rule; a rule
// only fails on facts that are known.
#include "vgf/ir/shape_inference.h"

#include <string>

namespace vkrt::vgf {
namespace {

constexpr int64_t kDyn = kDynamicDim;
bool known(int64_t d) { return d != kDyn; }

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += known(s[i]) ? std::to_string(s[i]) : std::string("?");
  }
  return out + "]";
}

// Context for error messages: "op 3 (CONV2D): ...".
struct OpCtx {
  size_t index;
  const Op& op;
  template <typename... Parts>
  Status fail(const Parts&... parts) const {
    return make_error(Error::InvalidProgram, "op ", index, " (", op_name(op.kind), " ",
                      op.debug_name, "): ", parts...);
  }
};

Result<int64_t> broadcast_dim(const OpCtx& c, int64_t a, int64_t b) {
  if (known(a) && known(b)) {
    if (a == b || b == 1) return a;
    if (a == 1) return b;
    return c.fail("cannot broadcast dimension ", a, " with ", b);
  }
  int64_t k = known(a) ? a : b;  // the known one, if any
  if (known(k) && k != 1) return k;
  return kDyn;
}

Result<Shape> broadcast(const OpCtx& c, const Shape& a, const Shape& b) {
  if (a.size() != b.size())
    return c.fail("broadcast needs equal ranks, got ", shape_str(a), " and ", shape_str(b));
  Shape out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    VKRT_ASSIGN_OR_RETURN(out[i], broadcast_dim(c, a[i], b[i]));
  }
  return out;
}

Status need_rank(const OpCtx& c, const Shape& s, size_t rank, const char* what) {
  if (s.size() != rank) return c.fail(what, " must have rank ", rank, ", got ", shape_str(s));
  return Status::ok();
}

// (in - 1 + pad_a + pad_b - (k - 1) * dil) / stride + 1, exact division required.
Result<int64_t> conv_out(const OpCtx& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride, int64_t dil) {
  if (stride < 1 || dil < 1) return c.fail("stride and dilation must be >= 1");
  if (pad_a < 0 || pad_b < 0) return c.fail("padding must be >= 0");
  if (!known(in) || !known(k)) return kDyn;
  int64_t span = in - 1 + pad_a + pad_b - (k - 1) * dil;
  if (span < 0) return c.fail("kernel larger than padded input (", in, " vs kernel ", k, ")");
  if (span % stride != 0)
    return c.fail("output size not exact: (", span, ") not divisible by stride ", stride);
  return span / stride + 1;
}

Result<int64_t> pool_out(const OpCtx& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride) {
  if (stride < 1 || k < 1) return c.fail("kernel and stride must be >= 1");
  if (pad_a < 0 || pad_b < 0 || pad_a >= k || pad_b >= k)
    return c.fail("pool padding must be in [0, kernel)");
  if (!known(in)) return kDyn;
  int64_t span = in + pad_a + pad_b - k;
  if (span < 0) return c.fail("pool kernel larger than padded input");
  if (span % stride != 0) return c.fail("pool output size not exact for stride ", stride);
  return span / stride + 1;
}

Result<int64_t> resize_out(const OpCtx& c, int64_t in, int64_t n, int64_t d, int64_t offset,
                           int64_t border) {
  if (n <= 0 || d <= 0) return c.fail("resize scale must be positive");
  if (!known(in)) return kDyn;
  int64_t span = (in - 1) * n - offset + border;
  if (span < 0 || span % d != 0) return c.fail("resize output size not exact");
  return span / d + 1;
}

Result<int> check_axis(const OpCtx& c, int32_t axis, size_t rank) {
  if (axis < 0 || size_t(axis) >= rank) return c.fail("axis ", axis, " out of range for rank ", rank);
  return int(axis);
}

}  // namespace

Result<std::vector<Shape>> infer_op_shapes(const Graph& graph, const Op& op,
                                           std::span<const Shape* const> in) {
  size_t index = size_t(&op - graph.ops.data());
  if (index >= graph.ops.size()) index = 0;
  OpCtx c{index, op};
  if (in.size() != op.inputs.size()) return c.fail("input shape count mismatch");
  if (in.empty()) return c.fail("op without inputs");
  const Shape& a = *in[0];
  switch (op.kind) {
    case OpKind::ADD: case OpKind::SUB: case OpKind::MUL: case OpKind::POW:
    case OpKind::ARITHMETIC_RIGHT_SHIFT: case OpKind::BITWISE_AND: case OpKind::BITWISE_OR:
    case OpKind::BITWISE_XOR: case OpKind::INTDIV: case OpKind::LOGICAL_AND:
    case OpKind::LOGICAL_LEFT_SHIFT: case OpKind::LOGICAL_RIGHT_SHIFT: case OpKind::LOGICAL_OR:
    case OpKind::LOGICAL_XOR: case OpKind::MAXIMUM: case OpKind::MINIMUM: case OpKind::EQUAL:
    case OpKind::GREATER: case OpKind::GREATER_EQUAL: {
      VKRT_ASSIGN_OR_RETURN(Shape s, broadcast(c, a, *in[1]));
      return std::vector<Shape>{s};
    }
    case OpKind::SELECT: {
      VKRT_ASSIGN_OR_RETURN(Shape s, broadcast(c, a, *in[1]));
      VKRT_ASSIGN_OR_RETURN(Shape t, broadcast(c, s, *in[2]));
      return std::vector<Shape>{t};
    }
    case OpKind::CLAMP: case OpKind::ERF: case OpKind::SIGMOID: case OpKind::TANH:
    case OpKind::TABLE: case OpKind::ABS: case OpKind::BITWISE_NOT: case OpKind::CEIL:
    case OpKind::CLZ: case OpKind::COS: case OpKind::EXP: case OpKind::FLOOR: case OpKind::LOG:
    case OpKind::LOGICAL_NOT: case OpKind::NEGATE: case OpKind::RECIPROCAL: case OpKind::RSQRT:
    case OpKind::SIN: case OpKind::CAST: case OpKind::RESCALE: case OpKind::REVERSE:
      if (op.kind == OpKind::REVERSE) {
        auto axis = check_axis(c, std::get<AxisAttr>(op.attr).axis, a.size());
        if (!axis.ok()) return axis.status();
      }
      if (op.kind == OpKind::RESCALE) {
        const auto& r = std::get<RescaleAttr>(op.attr);
        size_t nc = r.per_channel ? (a.empty() ? 0 : size_t(a.back())) : 1;
        if ((!r.per_channel || known(a.empty() ? 0 : a.back())) &&
            (r.multiplier.size() != nc || r.shift.size() != nc))
          return c.fail("multiplier/shift have ", r.multiplier.size(), "/", r.shift.size(),
                        " values, expected ", nc);
      }
      return std::vector<Shape>{a};
    case OpKind::ARGMAX: {
      VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, std::get<ArgmaxAttr>(op.attr).axis, a.size()));
      Shape s = a;
      s.erase(s.begin() + axis);
      return std::vector<Shape>{s};
    }
    case OpKind::REDUCE_ALL: case OpKind::REDUCE_ANY: case OpKind::REDUCE_MAX:
    case OpKind::REDUCE_MIN: case OpKind::REDUCE_PRODUCT: case OpKind::REDUCE_SUM: {
      VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, std::get<AxisAttr>(op.attr).axis, a.size()));
      Shape s = a;
      s[size_t(axis)] = 1;
      return std::vector<Shape>{s};
    }
    case OpKind::CONV2D: case OpKind::DEPTHWISE_CONV2D: {
      const auto& p = std::get<ConvAttr>(op.attr);
      const Shape& w = *in[1];
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
      VKRT_RETURN_IF_ERROR(need_rank(c, w, 4, "weight"));
      bool depthwise = op.kind == OpKind::DEPTHWISE_CONV2D;
      int64_t kh = depthwise ? w[0] : w[1], kw = depthwise ? w[1] : w[2];
      int64_t wc = depthwise ? w[2] : w[3];
      if (known(wc) && known(a[3]) && wc != a[3])
        return c.fail("weight channels ", wc, " != input channels ", a[3]);
      VKRT_ASSIGN_OR_RETURN(int64_t oh, conv_out(c, a[1], kh, p.pad[0], p.pad[1], p.stride[0], p.dilation[0]));
      VKRT_ASSIGN_OR_RETURN(int64_t ow, conv_out(c, a[2], kw, p.pad[2], p.pad[3], p.stride[1], p.dilation[1]));
      int64_t oc = depthwise ? ((known(w[2]) && known(w[3])) ? w[2] * w[3] : kDyn) : w[0];
      return std::vector<Shape>{{a[0], oh, ow, oc}};
    }
    case OpKind::CONV3D: {
      const auto& p = std::get<ConvAttr>(op.attr);
      const Shape& w = *in[1];
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 5, "input"));
      VKRT_RETURN_IF_ERROR(need_rank(c, w, 5, "weight"));
      Shape s{a[0], 0, 0, 0, w[0]};
      for (int d = 0; d < 3; ++d) {
        VKRT_ASSIGN_OR_RETURN(s[size_t(d + 1)], conv_out(c, a[size_t(d + 1)], w[size_t(d + 1)], p.pad[size_t(2 * d)],
                                                        p.pad[size_t(2 * d + 1)], p.stride[size_t(d)], p.dilation[size_t(d)]));
      }
      return std::vector<Shape>{s};
    }
    case OpKind::TRANSPOSE_CONV2D: {
      const auto& p = std::get<TransposeConvAttr>(op.attr);
      const Shape& w = *in[1];
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
      VKRT_RETURN_IF_ERROR(need_rank(c, w, 4, "weight"));
      if (p.stride[0] < 1 || p.stride[1] < 1) return c.fail("stride must be >= 1");
      auto out_dim = [&](int64_t i, int64_t k, int64_t pa, int64_t pb, int64_t s) -> int64_t {
        return (known(i) && known(k)) ? (i - 1) * s + pa + pb + k : kDyn;
      };
      int64_t oh = out_dim(a[1], w[1], p.out_pad[0], p.out_pad[1], p.stride[0]);
      int64_t ow = out_dim(a[2], w[2], p.out_pad[2], p.out_pad[3], p.stride[1]);
      if ((known(oh) && oh < 1) || (known(ow) && ow < 1)) return c.fail("empty output");
      return std::vector<Shape>{{a[0], oh, ow, w[0]}};
    }
    case OpKind::AVG_POOL2D: case OpKind::MAX_POOL2D: {
      const auto& p = std::get<PoolAttr>(op.attr);
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
      VKRT_ASSIGN_OR_RETURN(int64_t oh, pool_out(c, a[1], p.kernel[0], p.pad[0], p.pad[1], p.stride[0]));
      VKRT_ASSIGN_OR_RETURN(int64_t ow, pool_out(c, a[2], p.kernel[1], p.pad[2], p.pad[3], p.stride[1]));
      return std::vector<Shape>{{a[0], oh, ow, a[3]}};
    }
    case OpKind::MATMUL: {
      const Shape& b = *in[1];
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "A"));
      VKRT_RETURN_IF_ERROR(need_rank(c, b, 3, "B"));
      if (known(a[2]) && known(b[1]) && a[2] != b[1]) return c.fail("A columns ", a[2], " != B rows ", b[1]);
      return std::vector<Shape>{{a[0], a[1], b[2]}};
    }
    case OpKind::FFT2D:
      return std::vector<Shape>{a, a};
    case OpKind::RFFT2D: {
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "input"));
      Shape s{a[0], a[1], known(a[2]) ? a[2] / 2 + 1 : kDyn};
      return std::vector<Shape>{s, s};
    }
    case OpKind::CONCAT: {
      VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, std::get<AxisAttr>(op.attr).axis, a.size()));
      Shape s = a;
      for (size_t k = 1; k < in.size(); ++k) {
        const Shape& b = *in[k];
        if (b.size() != a.size()) return c.fail("input ", k, " rank differs");
        for (size_t d = 0; d < a.size(); ++d) {
          if (int(d) == axis) {
            s[d] = (known(s[d]) && known(b[d])) ? s[d] + b[d] : kDyn;
          } else if (known(s[d]) && known(b[d]) && s[d] != b[d]) {
            return c.fail("input ", k, " dimension ", d, " is ", b[d], ", expected ", s[d]);
          } else if (!known(s[d])) {
            s[d] = b[d];
          }
        }
      }
      return std::vector<Shape>{s};
    }
    case OpKind::PAD: {
      const auto& p = std::get<PadAttr>(op.attr);
      if (p.padding.size() != 2 * a.size()) return c.fail("padding needs ", 2 * a.size(), " values");
      Shape s = a;
      for (size_t d = 0; d < a.size(); ++d) {
        if (p.padding[2 * d] < 0 || p.padding[2 * d + 1] < 0 || p.padding[2 * d] > INT32_MAX ||
            p.padding[2 * d + 1] > INT32_MAX)
          return c.fail("padding must be in [0, 2^31)");
        if (known(a[d])) s[d] = a[d] + p.padding[2 * d] + p.padding[2 * d + 1];
      }
      return std::vector<Shape>{s};
    }
    case OpKind::RESHAPE: {
      Shape s = std::get<ReshapeAttr>(op.attr).shape;
      int64_t in_count = 1;
      bool in_known = true;
      for (int64_t d : a) {
        if (!known(d)) in_known = false; else in_count *= d;
      }
      int64_t product = 1;
      int infer_at = -1;
      for (size_t d = 0; d < s.size(); ++d) {
        if (s[d] == -1 && infer_at < 0) {
          infer_at = int(d);
        } else if (s[d] < 0) {
          return c.fail("invalid shape entry ", s[d]);
        } else {
          if (s[d] > INT32_MAX || (s[d] != 0 && product > (int64_t(1) << 40) / s[d]))
            return c.fail("shape ", shape_str(s), " too large");
          product *= s[d];
        }
      }
      if (infer_at >= 0) {
        if (!in_known) {
          s[size_t(infer_at)] = kDyn;
        } else if (product == 0 || in_count % product != 0) {
          return c.fail("cannot infer -1 in ", shape_str(s), " from ", in_count, " elements");
        } else {
          s[size_t(infer_at)] = in_count / product;
        }
      } else if (in_known && product != in_count) {
        return c.fail("shape ", shape_str(s), " has ", product, " elements, input has ", in_count);
      }
      return std::vector<Shape>{s};
    }
    case OpKind::SLICE: {
      const auto& p = std::get<SliceAttr>(op.attr);
      if (p.start.size() != a.size() || p.size.size() != a.size())
        return c.fail("start/size need ", a.size(), " values");
      for (size_t d = 0; d < a.size(); ++d) {
        if (p.start[d] < 0 || p.size[d] < 0) return c.fail("negative start or size");
        if (known(a[d]) && p.start[d] + p.size[d] > a[d])
          return c.fail("slice [", p.start[d], ", +", p.size[d], ") exceeds dimension ", d, " (", a[d], ")");
      }
      return std::vector<Shape>{p.size};
    }
    case OpKind::TILE: {
      const auto& p = std::get<TileAttr>(op.attr);
      if (p.multiples.size() != a.size()) return c.fail("multiples need ", a.size(), " values");
      Shape s = a;
      for (size_t d = 0; d < a.size(); ++d) {
        if (p.multiples[d] < 1 || p.multiples[d] > INT32_MAX) return c.fail("multiples must be in [1, 2^31)");
        if (known(a[d])) s[d] = a[d] * p.multiples[d];  // both < 2^31: no overflow
      }
      return std::vector<Shape>{s};
    }
    case OpKind::TRANSPOSE: {
      const auto& p = std::get<TransposeAttr>(op.attr);
      if (p.perms.size() != a.size()) return c.fail("perms need ", a.size(), " values");
      Shape s(a.size());
      std::vector<bool> seen(a.size(), false);
      for (size_t d = 0; d < a.size(); ++d) {
        int32_t src = p.perms[d];
        if (src < 0 || size_t(src) >= a.size() || seen[size_t(src)]) return c.fail("perms is not a permutation");
        seen[size_t(src)] = true;
        s[d] = a[size_t(src)];
      }
      return std::vector<Shape>{s};
    }
    case OpKind::GATHER: {
      const Shape& idx = *in[1];
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "values"));
      VKRT_RETURN_IF_ERROR(need_rank(c, idx, 2, "indices"));
      return std::vector<Shape>{{a[0], idx[1], a[2]}};
    }
    case OpKind::SCATTER:
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "values_in"));
      return std::vector<Shape>{a};
    case OpKind::RESIZE: {
      const auto& p = std::get<ResizeAttr>(op.attr);
      VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
      VKRT_ASSIGN_OR_RETURN(int64_t oh, resize_out(c, a[1], p.scale[0], p.scale[1], p.offset[0], p.border[0]));
      VKRT_ASSIGN_OR_RETURN(int64_t ow, resize_out(c, a[2], p.scale[2], p.scale[3], p.offset[1], p.border[1]));
      return std::vector<Shape>{{a[0], oh, ow, a[3]}};
    }
  }
  return c.fail("no shape rule");
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
