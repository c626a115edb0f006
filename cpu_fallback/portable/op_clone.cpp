// Copies that keep the shape: aten::clone.out, dim_order_ops::_clone_dim_order.out and
// dim_order_ops::_to_dim_order_copy.out.
//
// Schemas:
//   clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)          -> 4 args
//   _clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                        Tensor(a!) out)                                                  -> 5 args
//   _to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                          Tensor(a!) out)                                                -> 5 args
// The out tensor carries the target layout (its dim order, set by the exporter from
// memory_format / dim_order); the copy reads and writes through strides, so any input dim
// order lands in any output dim order. _to_dim_order_copy also converts the dtype (to out's,
// floating -> integral truncates toward zero and saturates).
#include "copy_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

// c10::MemoryFormat numbering, as the emitter writes it (an Int EValue).
enum MemoryFormat : int64_t { kContiguous = 0, kPreserve = 1, kChannelsLast = 2, kChannelsLast3d = 3 };

bool has_dim_order(const Tensor& t, std::initializer_list<uint8_t> order) {
  if (size_t(t.rank()) != order.size()) return false;
  size_t d = 0;
  for (uint8_t o : order) {
    if (t.dim_order()[d++] != o) return false;
  }
  return true;
}

Status clone_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::clone.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 4));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 2, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "out", *out, self->dtype()));
  if (!a.is_none(1)) {
    VKRT_ASSIGN_OR_RETURN(int64_t format, a.int_value(1, "memory_format"));
    bool ok = true;
    switch (format) {
      case kContiguous: ok = out->is_default_dim_order(); break;
      case kPreserve: break;
      case kChannelsLast: ok = has_dim_order(*out, {0, 2, 3, 1}); break;
      case kChannelsLast3d: ok = has_dim_order(*out, {0, 2, 3, 4, 1}); break;
      default: return a.error(1, "memory_format", "unknown memory format " + std::to_string(format));
    }
    if (!ok) return a.error(2, "out", "dim order does not match memory_format " + std::to_string(format));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 2, "out", *out, self->sizes()));
  copy_same_shape(*self, *out);
  return Status::ok();
}

Status dim_order_copy(const char* name, bool converts_dtype, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 5));
  VKRT_ASSIGN_OR_RETURN(Tensor * self, any_tensor_arg(a, 0, "self"));
  VKRT_ASSIGN_OR_RETURN(bool non_blocking, a.bool_value(1, "non_blocking"));
  (void)non_blocking;  // no asynchronous copies on the CPU
  VKRT_ASSIGN_OR_RETURN(Tensor * out, any_tensor_arg(a, 3, "out"));
  if (!converts_dtype || self->dtype() == out->dtype()) {
    VKRT_RETURN_IF_ERROR(expect_dtype(a, 3, "out", *out, self->dtype()));
  } else {
    if (!is_supported_dtype(self->dtype())) {
      return a.error(0, "self", std::string("cannot convert from dtype ") + scalar_type_name(self->dtype()));
    }
    if (!is_supported_dtype(out->dtype())) {
      return a.error(3, "out", std::string("cannot convert to dtype ") + scalar_type_name(out->dtype()));
    }
  }
  VKRT_RETURN_IF_ERROR(check_dim_order_arg(a, 2, "dim_order", *out));
  VKRT_RETURN_IF_ERROR(resize_output(a, 3, "out", *out, self->sizes()));
  copy_same_shape(*self, *out);
  return Status::ok();
}

Status clone_dim_order_out(KernelContext&, std::span<EValue* const> args) {
  return dim_order_copy("dim_order_ops::_clone_dim_order.out", false, args);
}
Status to_dim_order_copy_out(KernelContext&, std::span<EValue* const> args) {
  return dim_order_copy("dim_order_ops::_to_dim_order_copy.out", true, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::clone.out", clone_out);
VKRT_REGISTER_KERNEL("dim_order_ops::_clone_dim_order.out", clone_dim_order_out);
VKRT_REGISTER_KERNEL("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out);

}  // namespace vkrt::portable
