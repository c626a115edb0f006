// TOSA 1.0 reductions, data-layout, scatter/gather and image operators (tosa.md §10-§12):
// REDUCE_*, CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE, GATHER, SCATTER, RESIZE.
#include "vgf/ir/ops/shape_rules.h"

namespace vkrt::vgf {
namespace {

using namespace shape_rules;

Result<std::vector<Shape>> infer_reduce(const OpContext& c, std::span<const Shape* const> in) {
  VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, c.attr<AxisAttr>().axis, in[0]->size()));
  Shape s = *in[0];
  s[size_t(axis)] = 1;
  return std::vector<Shape>{s};
}

Result<std::vector<Shape>> infer_concat(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& a = *in[0];
  VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, c.attr<AxisAttr>().axis, a.size()));
  Shape s = a;
  for (size_t k = 1; k < in.size(); ++k) {
    const Shape& b = *in[k];
    if (b.size() != a.size()) return c.fail("input ", k, " rank differs");
    for (size_t d = 0; d < a.size(); ++d) {
      if (int(d) == axis) {
        s[d] = (known(s[d]) && known(b[d])) ? s[d] + b[d] : kDynamicDim;
      } else if (known(s[d]) && known(b[d]) && s[d] != b[d]) {
        return c.fail("input ", k, " dimension ", d, " is ", b[d], ", expected ", s[d]);
      } else if (!known(s[d])) {
        s[d] = b[d];
      }
    }
  }
  return std::vector<Shape>{s};
}

Result<std::vector<Shape>> infer_pad(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<PadAttr>();
  const Shape& a = *in[0];
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

Result<std::vector<Shape>> infer_reshape(const OpContext& c, std::span<const Shape* const> in) {
  Shape s = c.attr<ReshapeAttr>().shape;
  int64_t in_count = 1;
  bool in_known = true;
  for (int64_t d : *in[0]) {
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
      s[size_t(infer_at)] = kDynamicDim;
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

Result<std::vector<Shape>> infer_reverse(const OpContext& c, std::span<const Shape* const> in) {
  VKRT_RETURN_IF_ERROR(check_axis(c, c.attr<AxisAttr>().axis, in[0]->size()).status());
  return std::vector<Shape>{*in[0]};
}

Result<std::vector<Shape>> infer_slice(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<SliceAttr>();
  const Shape& a = *in[0];
  if (p.start.size() != a.size() || p.size.size() != a.size()) return c.fail("start/size need ", a.size(), " values");
  for (size_t d = 0; d < a.size(); ++d) {
    if (p.start[d] < 0 || p.size[d] < 0) return c.fail("negative start or size");
    if (known(a[d]) && p.start[d] + p.size[d] > a[d])
      return c.fail("slice [", p.start[d], ", +", p.size[d], ") exceeds dimension ", d, " (", a[d], ")");
  }
  return std::vector<Shape>{p.size};
}

Result<std::vector<Shape>> infer_tile(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<TileAttr>();
  const Shape& a = *in[0];
  if (p.multiples.size() != a.size()) return c.fail("multiples need ", a.size(), " values");
  Shape s = a;
  for (size_t d = 0; d < a.size(); ++d) {
    if (p.multiples[d] < 1 || p.multiples[d] > INT32_MAX) return c.fail("multiples must be in [1, 2^31)");
    if (known(a[d])) s[d] = a[d] * p.multiples[d];  // both < 2^31: no overflow
  }
  return std::vector<Shape>{s};
}

Result<std::vector<Shape>> infer_transpose(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<TransposeAttr>();
  const Shape& a = *in[0];
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

// Two dimensions that must be equal where both are known; the known one otherwise.
Result<int64_t> same_dim(const OpContext& c, int64_t a, int64_t b, const char* what) {
  if (known(a) && known(b) && a != b) return c.fail(what, ": ", a, " vs ", b);
  return known(a) ? a : b;
}

// values [N,K,C], indices [N,W] -> [N,W,C].
Result<std::vector<Shape>> infer_gather(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& values = *in[0];
  const Shape& idx = *in[1];
  VKRT_RETURN_IF_ERROR(need_rank(c, values, 3, "values"));
  VKRT_RETURN_IF_ERROR(need_rank(c, idx, 2, "indices"));
  VKRT_ASSIGN_OR_RETURN(int64_t n, same_dim(c, values[0], idx[0], "batch N of values and indices"));
  return std::vector<Shape>{{n, idx[1], values[2]}};
}

// values_in [N,K,C], indices [N,W], input [N,W,C] -> [N,K,C].
Result<std::vector<Shape>> infer_scatter(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& values = *in[0];
  const Shape& idx = *in[1];
  const Shape& input = *in[2];
  VKRT_RETURN_IF_ERROR(need_rank(c, values, 3, "values_in"));
  VKRT_RETURN_IF_ERROR(need_rank(c, idx, 2, "indices"));
  VKRT_RETURN_IF_ERROR(need_rank(c, input, 3, "input"));
  VKRT_ASSIGN_OR_RETURN(int64_t n, same_dim(c, values[0], idx[0], "batch N of values_in and indices"));
  VKRT_RETURN_IF_ERROR(same_dim(c, n, input[0], "batch N of values_in and input").status());
  VKRT_RETURN_IF_ERROR(same_dim(c, idx[1], input[1], "W of indices and input").status());
  VKRT_ASSIGN_OR_RETURN(int64_t ch, same_dim(c, values[2], input[2], "channels C of values_in and input"));
  return std::vector<Shape>{{n, values[1], ch}};
}

Result<std::vector<Shape>> infer_resize(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<ResizeAttr>();
  const Shape& a = *in[0];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
  VKRT_ASSIGN_OR_RETURN(int64_t oh, resize_out(c, a[1], p.scale[0], p.scale[1], p.offset[0], p.border[0]));
  VKRT_ASSIGN_OR_RETURN(int64_t ow, resize_out(c, a[2], p.scale[2], p.scale[3], p.offset[1], p.border[1]));
  return std::vector<Shape>{{a[0], oh, ow, a[3]}};
}

// tosa.md §11: scale, offset and border ranges per axis.
Status check_resize(const OpContext& c) {
  const auto& p = c.attr<ResizeAttr>();
  const char* axes[2] = {"y", "x"};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t n = p.scale[2 * i], d = p.scale[2 * i + 1];
    const int64_t offset = p.offset[i], border = p.border[i];
    if (n <= 0 || d <= 0) return c.refuse("scale_", axes[i], " ", n, "/", d, " must be positive");
    if (n > 2048) return c.refuse("scale_", axes[i], "_n ", n, " exceeds 2048");
    if (d >= 16 * n) return c.refuse("scale_", axes[i], " ", n, "/", d, " downscales by 16 or more");
    if (offset < -n || offset >= 16 * n)
      return c.refuse("offset_", axes[i], " ", offset, " outside [", -n, ", ", 16 * n, ")");
    if (border < -16 * n || border >= n)
      return c.refuse("border_", axes[i], " ", border, " outside [", -16 * n, ", ", n, ")");
  }
  return Status::ok();
}

// GATHER: values and output of one type, int32 indices.
Status check_gather(const OpContext& c) {
  if (c.input_type(1) != DType::Int32) return c.refuse("indices are ", dtype_name(c.input_type(1)), ", not int32");
  return same_types(c, {0});
}

// SCATTER: values_in, input and output of one type, int32 indices.
Status check_scatter(const OpContext& c) {
  if (c.input_type(1) != DType::Int32) return c.refuse("indices are ", dtype_name(c.input_type(1)), ", not int32");
  return same_types(c, {0, 2});
}

// PAD: pad_const is a value of the input's integer type (int48 included; type_max is 0 for the
// types without an integer range).
Status check_pad(const OpContext& c) {
  VKRT_RETURN_IF_ERROR(all_same_type(c));
  const DType t = c.input_type(0);
  const int64_t v = c.attr<PadAttr>().pad_const_int;
  if (type_max(t) != 0 && (v < type_min(t) || v > type_max(t)))
    return c.refuse("pad_const ", v, " outside the ", dtype_name(t), " range");
  return Status::ok();
}

OpDescriptor reduce(OpKind kind, const char* name, bool nan_mode = false) {
  OpDescriptor d{.kind = kind, .name = name, .tensor_inputs = {"input"}, .attributes = attribute_index<AxisAttr>(),
                 .spirv_operands = {"axis", "input"}, .infer_shapes = infer_reduce, .check = all_same_type};
  if (nan_mode) d.spirv_operands = {"axis", "nan_mode", "input"};
  return d;
}

OpDescriptor layout(OpKind kind, const char* name, size_t attributes, std::vector<std::string_view> operands,
                    ShapeRule rule) {
  return OpDescriptor{.kind = kind, .name = name, .tensor_inputs = {"input1"}, .attributes = attributes,
                      .spirv_operands = std::move(operands), .infer_shapes = rule, .check = all_same_type};
}

}  // namespace

std::vector<OpDescriptor> data_layout_op_descriptors() {
  OpDescriptor concat = layout(OpKind::CONCAT, "CONCAT", attribute_index<AxisAttr>(), {"axis", "input1"}, infer_concat);
  concat.variadic = true;
  OpDescriptor pad = layout(OpKind::PAD, "PAD", attribute_index<PadAttr>(), {"input1", "padding", "pad_const"}, infer_pad);
  pad.check = check_pad;
  return {
      reduce(OpKind::REDUCE_ALL, "REDUCE_ALL"),
      reduce(OpKind::REDUCE_ANY, "REDUCE_ANY"),
      reduce(OpKind::REDUCE_MAX, "REDUCE_MAX", true),
      reduce(OpKind::REDUCE_MIN, "REDUCE_MIN", true),
      reduce(OpKind::REDUCE_PRODUCT, "REDUCE_PRODUCT"),
      reduce(OpKind::REDUCE_SUM, "REDUCE_SUM"),
      concat,
      pad,
      layout(OpKind::RESHAPE, "RESHAPE", attribute_index<ReshapeAttr>(), {"input1", "shape"}, infer_reshape),
      layout(OpKind::REVERSE, "REVERSE", attribute_index<AxisAttr>(), {"axis", "input1"}, infer_reverse),
      layout(OpKind::SLICE, "SLICE", attribute_index<SliceAttr>(), {"input1", "start", "size"}, infer_slice),
      layout(OpKind::TILE, "TILE", attribute_index<TileAttr>(), {"input1", "multiples"}, infer_tile),
      layout(OpKind::TRANSPOSE, "TRANSPOSE", attribute_index<TransposeAttr>(), {"perms", "input1"}, infer_transpose),
      {.kind = OpKind::GATHER, .name = "GATHER", .tensor_inputs = {"values", "indices"},
       .attributes = attribute_index<NoAttr>(), .spirv_operands = {"values", "indices"}, .infer_shapes = infer_gather,
       .check = check_gather},
      {.kind = OpKind::SCATTER, .name = "SCATTER", .tensor_inputs = {"values_in", "indices", "input"},
       .attributes = attribute_index<NoAttr>(), .spirv_operands = {"values_in", "indices", "input"},
       .infer_shapes = infer_scatter, .check = check_scatter},
      {.kind = OpKind::RESIZE, .name = "RESIZE", .tensor_inputs = {"input"}, .attributes = attribute_index<ResizeAttr>(),
       .spirv_operands = {"mode", "input", "scale", "offset", "border"}, .infer_shapes = infer_resize,
       .check = check_resize},
  };
}

}  // namespace vkrt::vgf
