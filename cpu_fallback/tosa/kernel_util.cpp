// Argument checks shared by the TOSA CPU kernels, and the DType table.
#include "cpu_fallback/tosa/kernel_util.h"

namespace vkrt::tosa {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8: return 1;
    case DType::Int16:
    case DType::Fp16:
    case DType::Bf16: return 2;
    case DType::Int32:
    case DType::Fp32: return 4;
    case DType::Int48:
    case DType::Shape: return 8;
    default: return 0;
  }
}

namespace detail {

std::string shape_string(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Status check_tensor(const char* op, const char* what, const TensorRef& t) {
  if (dtype_size(t.dtype) == 0)
    return make_error(Error::NotSupported, op, ": ", what, ": unsupported dtype ", dtype_name(t.dtype));
  if (t.rank() > kMaxRank)
    return make_error(Error::InvalidArgument, op, ": ", what, ": rank ", t.rank(), " exceeds ", kMaxRank);
  int64_t count = 1;
  for (int d = 0; d < t.rank(); ++d) {
    const int64_t dim = t.dim(d);
    if (dim < 0)
      return make_error(Error::InvalidArgument, op, ": ", what, ": negative dim ", d, " in shape ",
                        shape_string(t.shape));
    if (dim != 0 && count > kMaxElements / dim)
      return make_error(Error::InvalidArgument, op, ": ", what, ": shape ", shape_string(t.shape),
                        " has too many elements");
    count *= dim;
  }
  if (count > 0 && t.data == nullptr)
    return make_error(Error::InvalidArgument, op, ": ", what, ": no data");
  return Status::ok();
}

TensorRef chain_intermediate_for_checks(const TensorRef& t) {
  static const uint8_t kStandIn[64] = {};
  TensorRef checked = t;
  if (checked.data == nullptr) checked.data = const_cast<uint8_t*>(kStandIn);
  return checked;
}

Status chain_intermediate_has_bytes(const char* chain, const char* what, const TensorRef& t) {
  if (t.data != nullptr || t.num_elements() == 0) return Status::ok();
  return make_error(Error::InvalidState, chain, ": ", what, " ", shape_string(t.shape),
                    " was given no bytes, as for a chain that runs fused, but these operands and this scratch "
                    "take the ops in turn");
}

Status expect_rank(const char* op, const char* what, const TensorRef& t, int rank) {
  if (t.rank() != rank)
    return make_error(Error::InvalidArgument, op, ": ", what, ": expected rank ", rank, ", got ",
                      t.rank(), " (shape ", shape_string(t.shape), ")");
  return Status::ok();
}

Status expect_dtype(const char* op, const char* what, const TensorRef& t, DType dtype) {
  if (t.dtype != dtype)
    return make_error(Error::InvalidArgument, op, ": ", what, ": expected ", dtype_name(dtype),
                      ", got ", dtype_name(t.dtype));
  return Status::ok();
}

Status expect_shape(const char* op, const char* what, const TensorRef& t,
                    std::span<const int64_t> expected) {
  bool same = t.shape.size() == expected.size();
  for (size_t i = 0; same && i < expected.size(); ++i) same = t.shape[i] == expected[i];
  if (!same)
    return make_error(Error::InvalidArgument, op, ": ", what, ": expected shape ",
                      shape_string(expected), ", got ", shape_string(t.shape));
  return Status::ok();
}

Status expect_same_shape(const char* op, const char* what, const TensorRef& t, const TensorRef& like) {
  return expect_shape(op, what, t, like.shape);
}

Status check_broadcast(const char* op, const char* what, const TensorRef& in, const TensorRef& out) {
  if (in.rank() != out.rank())
    return make_error(Error::InvalidArgument, op, ": ", what, ": rank ", in.rank(),
                      " differs from the output rank ", out.rank(), " (TOSA broadcasts equal ranks only)");
  for (int d = 0; d < in.rank(); ++d)
    if (in.dim(d) != out.dim(d) && in.dim(d) != 1)
      return make_error(Error::InvalidArgument, op, ": ", what, ": shape ", shape_string(in.shape),
                        " does not broadcast to the output shape ", shape_string(out.shape));
  return Status::ok();
}

Status check_broadcast_output(const char* op, const TensorRef& a, const TensorRef& b,
                              const TensorRef& out) {
  if (a.rank() != b.rank())
    return make_error(Error::InvalidArgument, op, ": input ranks differ (", a.rank(), " and ",
                      b.rank(), "); TOSA broadcasts equal ranks only");
  std::array<int64_t, kMaxRank> expected{};
  for (int d = 0; d < a.rank(); ++d) {
    const int64_t da = a.dim(d), db = b.dim(d);
    if (da != db && da != 1 && db != 1)
      return make_error(Error::InvalidArgument, op, ": input shapes ", shape_string(a.shape), " and ",
                        shape_string(b.shape), " do not broadcast (dim ", d, ")");
    expected[size_t(d)] = da == 1 ? db : da;
  }
  return expect_shape(op, "output", out, std::span<const int64_t>(expected.data(), size_t(a.rank())));
}

}  // namespace detail
}  // namespace vkrt::tosa
