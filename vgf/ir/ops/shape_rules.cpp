#include "vgf/ir/ops/shape_rules.h"

namespace vkrt::vgf::shape_rules {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += known(s[i]) ? std::to_string(s[i]) : std::string("?");
  }
  return out + "]";
}

static Result<int64_t> broadcast_dim(const OpContext& c, int64_t a, int64_t b) {
  if (known(a) && known(b)) {
    if (a == b || b == 1) return a;
    if (a == 1) return b;
    return c.fail("cannot broadcast dimension ", a, " with ", b);
  }
  int64_t k = known(a) ? a : b;  // the known one, if any
  if (known(k) && k != 1) return k;
  return kDynamicDim;
}

Result<Shape> broadcast(const OpContext& c, const Shape& a, const Shape& b) {
  if (a.size() != b.size())
    return c.fail("broadcast needs equal ranks, got ", shape_str(a), " and ", shape_str(b));
  Shape out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    VKRT_ASSIGN_OR_RETURN(out[i], broadcast_dim(c, a[i], b[i]));
  }
  return out;
}

Status need_rank(const OpContext& c, const Shape& s, size_t rank, const char* what) {
  if (s.size() != rank) return c.fail(what, " must have rank ", rank, ", got ", shape_str(s));
  return Status::ok();
}

Result<int> check_axis(const OpContext& c, int32_t axis, size_t rank) {
  if (axis < 0 || size_t(axis) >= rank) return c.fail("axis ", axis, " out of range for rank ", rank);
  return int(axis);
}

Result<int64_t> conv_out(const OpContext& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride, int64_t dil) {
  if (stride < 1 || dil < 1) return c.fail("stride and dilation must be >= 1");
  if (pad_a < 0 || pad_b < 0) return c.fail("padding must be >= 0");
  if (!known(in) || !known(k)) return kDynamicDim;
  int64_t span = in - 1 + pad_a + pad_b - (k - 1) * dil;
  if (span < 0) return c.fail("kernel larger than padded input (", in, " vs kernel ", k, ")");
  if (span % stride != 0)
    return c.fail("output size not exact: (", span, ") not divisible by stride ", stride);
  return span / stride + 1;
}

Result<int64_t> pool_out(const OpContext& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride) {
  if (stride < 1 || k < 1) return c.fail("kernel and stride must be >= 1");
  if (pad_a < 0 || pad_b < 0 || pad_a >= k || pad_b >= k)
    return c.fail("pool padding must be in [0, kernel)");
  if (!known(in)) return kDynamicDim;
  int64_t span = in + pad_a + pad_b - k;
  if (span < 0) return c.fail("pool kernel larger than padded input");
  if (span % stride != 0) return c.fail("pool output size not exact for stride ", stride);
  return span / stride + 1;
}

Result<int64_t> resize_out(const OpContext& c, int64_t in, int64_t n, int64_t d, int64_t offset,
                           int64_t border) {
  if (n <= 0 || d <= 0) return c.fail("resize scale must be positive");
  if (!known(in)) return kDynamicDim;
  int64_t span = (in - 1) * n - offset + border;
  if (span < 0 || span % d != 0) return c.fail("resize output size not exact");
  return span / d + 1;
}

Status same_types(const OpContext& c, std::initializer_list<size_t> operands) {
  const DType out = c.output_type(0);
  for (size_t k : operands) {
    if (c.input_type(k) != out)
      return c.refuse("input ", k, " is ", dtype_name(c.input_type(k)), " but the output is ", dtype_name(out),
                      " (TOSA: one element type)");
  }
  return Status::ok();
}

Status all_same_type(const OpContext& c) {
  const DType out = c.output_type(0);
  for (size_t k = 0; k < c.op.inputs.size(); ++k) {
    if (c.input_type(k) != out)
      return c.refuse("input ", k, " is ", dtype_name(c.input_type(k)), " but the output is ", dtype_name(out),
                      " (TOSA: one element type)");
  }
  return Status::ok();
}

Result<std::vector<Shape>> same_as_first_input(const OpContext&, std::span<const Shape* const> in) {
  return std::vector<Shape>{*in[0]};
}

Result<std::vector<Shape>> broadcast_inputs(const OpContext& c, std::span<const Shape* const> in) {
  Shape s = *in[0];
  for (size_t k = 1; k < in.size(); ++k) {
    VKRT_ASSIGN_OR_RETURN(s, broadcast(c, s, *in[k]));
  }
  return std::vector<Shape>{s};
}

}  // namespace vkrt::vgf::shape_rules
