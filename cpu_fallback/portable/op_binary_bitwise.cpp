// Bitwise and logical binary ops with broadcasting (binary_util.h):
//   bitwise_{and,or,xor}.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)          -> 4 args
//   bitwise_{and,or,xor}.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)          -> 4 args
//   bitwise_{left,right}_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)   -> 4 args
//   bitwise_{left,right}_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, out)        -> 4 args
//   logical_{and,or,xor}.out(Tensor self, Tensor other, *, Tensor(a!) out)                 -> 4 args
// (each + the trailing return slot). Bitwise ops need integral or bool operands (promoted;
// castable to out). Shifts by a negative amount or by the bit width or more follow PyTorch
// (left: 0; right: the sign fill), where ExecuTorch's kernel shifts in C++ (undefined). Bool
// shifts (PyTorch refuses them) follow upstream's C++: x << y is x, x >> y is x && !y.
// Logical ops read any dtype as "!= 0" and write 0/1 in out's dtype.
#include "binary_util.h"

namespace vkrt::portable {
namespace {

using binary::OpState;
using binary::Rule;

struct AndFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(a & b);
    return C{};  // not reached: floating operands are refused
  }
};
struct OrFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(a | b);
    return C{};
  }
};
struct XorFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(a ^ b);
    return C{};
  }
};

struct ShlFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_same_v<C, bool>) {
      return a;
    } else if constexpr (std::is_integral_v<C>) {
      constexpr int64_t bits = int64_t(sizeof(C)) * 8;
      const int64_t shift = int64_t(std::make_signed_t<C>(b));
      if (shift < 0 || shift >= bits) return 0;
      using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
      return static_cast<C>(static_cast<U>(static_cast<U>(a) << shift));
    } else {
      return C{};
    }
  }
};
struct ShrFn {
  template <typename C>
  C operator()(C a, C b, OpState&) const {
    if constexpr (std::is_same_v<C, bool>) {
      return a && !b;
    } else if constexpr (std::is_integral_v<C>) {
      // Signed: shifting by width - 1 already fills with the sign bit.
      constexpr int64_t max_shift = int64_t(sizeof(C)) * 8 - (std::is_signed_v<C> ? 1 : 0);
      const int64_t shift = int64_t(std::make_signed_t<C>(b));
      if (shift < 0 || shift >= max_shift) {
        if constexpr (std::is_signed_v<C>) return a < 0 ? C(-1) : C(0);
        return C(0);
      }
      return static_cast<C>(a >> shift);
    } else {
      return C{};
    }
  }
};

struct LogicalAndFn {
  template <typename C>
  bool operator()(C a, C b, OpState&) const { return bool(a) && bool(b); }
};
struct LogicalOrFn {
  template <typename C>
  bool operator()(C a, C b, OpState&) const { return bool(a) || bool(b); }
};
struct LogicalXorFn {
  template <typename C>
  bool operator()(C a, C b, OpState&) const { return bool(a) != bool(b); }
};

#define VKRT_BITWISE_KERNELS(op, scalar_overload, FN)                                     \
  Status op##_tensor_out(KernelContext&, std::span<EValue* const> args) {                 \
    return binary::tensor_kernel("aten::" #op ".Tensor_out", args, Rule::Bitwise, FN{});   \
  }                                                                                       \
  Status op##_scalar_out(KernelContext&, std::span<EValue* const> args) {                 \
    return binary::scalar_kernel("aten::" #op "." #scalar_overload, args, Rule::Bitwise, FN{}); \
  }
VKRT_BITWISE_KERNELS(bitwise_and, Scalar_out, AndFn)
VKRT_BITWISE_KERNELS(bitwise_or, Scalar_out, OrFn)
VKRT_BITWISE_KERNELS(bitwise_xor, Scalar_out, XorFn)
VKRT_BITWISE_KERNELS(bitwise_left_shift, Tensor_Scalar_out, ShlFn)
VKRT_BITWISE_KERNELS(bitwise_right_shift, Tensor_Scalar_out, ShrFn)
#undef VKRT_BITWISE_KERNELS

Status logical_and_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::logical_and.out", args, Rule::Logical, LogicalAndFn{});
}
Status logical_or_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::logical_or.out", args, Rule::Logical, LogicalOrFn{});
}
Status logical_xor_out(KernelContext&, std::span<EValue* const> args) {
  return binary::tensor_kernel("aten::logical_xor.out", args, Rule::Logical, LogicalXorFn{});
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::bitwise_and.Tensor_out", bitwise_and_tensor_out);
VKRT_REGISTER_KERNEL("aten::bitwise_and.Scalar_out", bitwise_and_scalar_out);
VKRT_REGISTER_KERNEL("aten::bitwise_or.Tensor_out", bitwise_or_tensor_out);
VKRT_REGISTER_KERNEL("aten::bitwise_or.Scalar_out", bitwise_or_scalar_out);
VKRT_REGISTER_KERNEL("aten::bitwise_xor.Tensor_out", bitwise_xor_tensor_out);
VKRT_REGISTER_KERNEL("aten::bitwise_xor.Scalar_out", bitwise_xor_scalar_out);
VKRT_REGISTER_KERNEL("aten::bitwise_left_shift.Tensor_out", bitwise_left_shift_tensor_out);
VKRT_REGISTER_KERNEL("aten::bitwise_left_shift.Tensor_Scalar_out", bitwise_left_shift_scalar_out);
VKRT_REGISTER_KERNEL("aten::bitwise_right_shift.Tensor_out", bitwise_right_shift_tensor_out);
VKRT_REGISTER_KERNEL("aten::bitwise_right_shift.Tensor_Scalar_out", bitwise_right_shift_scalar_out);
VKRT_REGISTER_KERNEL("aten::logical_and.out", logical_and_out);
VKRT_REGISTER_KERNEL("aten::logical_or.out", logical_or_out);
VKRT_REGISTER_KERNEL("aten::logical_xor.out", logical_xor_out);

}  // namespace vkrt::portable
