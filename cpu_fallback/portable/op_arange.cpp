// aten::arange.out and aten::arange.start_out: evenly spaced values in [start, end).
//
// Schemas (each + the trailing return slot, pte-format.md §9.5):
//   arange.out(Scalar end, *, Tensor(a!) out)                                     -> 3 args
//   arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)  -> 5 args
// As ExecuTorch's portable kernel: start, end and step are Int or Double (not Bool) and read
// as double; step must be nonzero with the sign of end - start (or end == start); the length
// is ceil((end - start) / step); element i is start + i * step computed in double and
// converted to out's dtype (any supported dtype but bool; floating to integral truncates).
// out is 1-D.
#include <cmath>
#include <limits>

#include "create_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

Result<double> bound_arg(const KernelArgs& a, size_t i, std::string_view name) {
  VKRT_ASSIGN_OR_RETURN(Scalar s, scalar_arg(a, i, name));
  if (s.is_bool()) return a.error(i, name, "expected an Int or Double, got Bool");
  return s.to_double();
}

Status arange_kernel(const KernelArgs& a, double start, double end, double step, Tensor& out, size_t out_index) {
  if (out.dtype() == ScalarType::Bool) return a.error(out_index, "out", "bool is not supported");
  if (out.rank() != 1) {
    return a.error(out_index, "out", "expected a 1-D tensor, got shape " + shape_string(out.sizes()));
  }
  if (!((step > 0 && end >= start) || (step < 0 && end <= start))) {
    return a.op_error(Error::InvalidArgument,
                      "upper bound and lower bound inconsistent with step sign (start " + std::to_string(start) +
                          ", end " + std::to_string(end) + ", step " + std::to_string(step) + ")");
  }
  const double length = std::ceil((end - start) / step);
  if (!(length >= 0 && length <= double(std::numeric_limits<int32_t>::max()))) {
    return a.op_error(Error::InvalidArgument, "arange length " + std::to_string(length) + " is out of range");
  }
  const int32_t n = int32_t(length);
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", out, std::span<const int32_t>(&n, 1)));
  const int64_t stride = out.strides()[0];
  for (int32_t i = 0; i < n; ++i) {
    store_elem<double>(out.data(), out.dtype(), i * stride, start + double(i) * step);
  }
  return Status::ok();
}

Status arange_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::arange.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 3));
  VKRT_ASSIGN_OR_RETURN(double end, bound_arg(a, 0, "end"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 1, "out"));
  return arange_kernel(a, 0.0, end, 1.0, *out, 1);
}

Status arange_start_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::arange.start_out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(double start, bound_arg(a, 0, "start"));
  VKRT_ASSIGN_OR_RETURN(double end, bound_arg(a, 1, "end"));
  VKRT_ASSIGN_OR_RETURN(double step, bound_arg(a, 2, "step"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 3, "out"));
  return arange_kernel(a, start, end, step, *out, 3);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::arange.out", arange_out);
VKRT_REGISTER_KERNEL("aten::arange.start_out", arange_start_out);

}  // namespace vkrt::portable
