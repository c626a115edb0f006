// Elementwise comparisons: aten::{eq,ne,lt,le,gt,ge}.Scalar_out and .Tensor_out.
//
// Schemas:
//   eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)  -> 4 args
//   eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)  -> 4 args  (broadcasting)
// (and the same for ne, lt, le, gt, ge; + the trailing return slot). As ExecuTorch's portable
// kernels: values compare in the common dtype (promote_types; a Scalar promotes only across
// categories and is converted to the common dtype), float32 for a floating common dtype of two
// different operand dtypes, half/bfloat16 in float32. The result (true/false) is written in
// out's dtype, normally bool. Shares the walk of the binary family (binary_util.h).
#include "binary_util.h"

namespace vkrt::portable {
namespace {

using binary::OpState;
using binary::Rule;

struct EqFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x == y; }
};
struct NeFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x != y; }
};
struct LtFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x < y; }
};
struct LeFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x <= y; }
};
struct GtFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x > y; }
};
struct GeFn {
  template <typename C>
  bool operator()(C x, C y, OpState&) const { return x >= y; }
};

#define VKRT_COMPARISON_KERNELS(op, FN)                                              \
  Status op##_scalar_out(KernelContext&, std::span<EValue* const> args) {            \
    return binary::scalar_kernel("aten::" #op ".Scalar_out", args, Rule::Compare, FN{}); \
  }                                                                                  \
  Status op##_tensor_out(KernelContext&, std::span<EValue* const> args) {            \
    return binary::tensor_kernel("aten::" #op ".Tensor_out", args, Rule::Compare, FN{}); \
  }
VKRT_COMPARISON_KERNELS(eq, EqFn)
VKRT_COMPARISON_KERNELS(ne, NeFn)
VKRT_COMPARISON_KERNELS(lt, LtFn)
VKRT_COMPARISON_KERNELS(le, LeFn)
VKRT_COMPARISON_KERNELS(gt, GtFn)
VKRT_COMPARISON_KERNELS(ge, GeFn)
#undef VKRT_COMPARISON_KERNELS

}  // namespace

VKRT_REGISTER_KERNEL("aten::eq.Scalar_out", eq_scalar_out);
VKRT_REGISTER_KERNEL("aten::eq.Tensor_out", eq_tensor_out);
VKRT_REGISTER_KERNEL("aten::ne.Scalar_out", ne_scalar_out);
VKRT_REGISTER_KERNEL("aten::ne.Tensor_out", ne_tensor_out);
VKRT_REGISTER_KERNEL("aten::lt.Scalar_out", lt_scalar_out);
VKRT_REGISTER_KERNEL("aten::lt.Tensor_out", lt_tensor_out);
VKRT_REGISTER_KERNEL("aten::le.Scalar_out", le_scalar_out);
VKRT_REGISTER_KERNEL("aten::le.Tensor_out", le_tensor_out);
VKRT_REGISTER_KERNEL("aten::gt.Scalar_out", gt_scalar_out);
VKRT_REGISTER_KERNEL("aten::gt.Tensor_out", gt_tensor_out);
VKRT_REGISTER_KERNEL("aten::ge.Scalar_out", ge_scalar_out);
VKRT_REGISTER_KERNEL("aten::ge.Tensor_out", ge_tensor_out);

}  // namespace vkrt::portable
