// Comparisons (EQUAL, GREATER, GREATER_EQUAL -> bool) and SELECT, with TOSA broadcasting
// (tosa.md §9). Bool tensors are bytes: any nonzero byte is true, results are 0 or 1.
#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

template <typename T>
void compare_impl(CompareOp op, const TensorRef& in1, const TensorRef& in2, const TensorRef& out) {
  const T* a = in1.as<const T>();
  const T* b = in2.as<const T>();
  uint8_t* o = out.as<uint8_t>();
  const std::array<const TensorRef*, 2> inputs = {&in1, &in2};
  broadcast_loop(out, inputs, [&](int64_t oi, const std::array<int64_t, 2>& ii) {
    const T x = a[ii[0]], y = b[ii[1]];
    bool r = false;  // IEEE comparisons: anything with NaN is false
    switch (op) {
      case CompareOp::Equal: r = x == y; break;
      case CompareOp::Greater: r = x > y; break;
      case CompareOp::GreaterEqual: r = x >= y; break;
    }
    o[oi] = r ? 1 : 0;
  });
}

template <typename T>
void select_impl(const TensorRef& cond, const TensorRef& on_true, const TensorRef& on_false,
                 const TensorRef& out) {
  const uint8_t* c = cond.as<const uint8_t>();
  const T* t = on_true.as<const T>();
  const T* f = on_false.as<const T>();
  T* o = out.as<T>();
  const std::array<const TensorRef*, 3> inputs = {&cond, &on_true, &on_false};
  broadcast_loop(out, inputs, [&](int64_t oi, const std::array<int64_t, 3>& ii) {
    o[oi] = c[ii[0]] != 0 ? t[ii[1]] : f[ii[2]];
  });
}

}  // namespace

const char* compare_op_name(CompareOp op) {
  switch (op) {
    case CompareOp::Equal: return "EQUAL";
    case CompareOp::Greater: return "GREATER";
    case CompareOp::GreaterEqual: return "GREATER_EQUAL";
  }
  return "UNKNOWN_COMPARE_OP";
}

Status check_compare(CompareOp op, const TensorRef& input1, const TensorRef& input2,
                     const TensorRef& output) {
  const char* name = compare_op_name(op);
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input1", input1));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "input2", input2));
  VKRT_RETURN_IF_ERROR(check_tensor(name, "output", output));
  const DType t = input1.dtype;
  if (t != DType::Int8 && t != DType::Int16 && t != DType::Int32 && t != DType::Fp32)
    return make_error(Error::NotSupported, name, ": dtype ", dtype_name(t), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "input2", input2, t));
  VKRT_RETURN_IF_ERROR(expect_dtype(name, "output", output, DType::Bool));
  return check_broadcast_output(name, input1, input2, output);
}

Status compare(CompareOp op, const TensorRef& input1, const TensorRef& input2,
               const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_compare(op, input1, input2, output));
  dispatch_numeric(input1.dtype, [&](auto tag) { compare_impl<decltype(tag)>(op, input1, input2, output); });
  return Status::ok();
}

Status check_select(const TensorRef& cond, const TensorRef& on_true, const TensorRef& on_false,
                    const TensorRef& output) {
  constexpr const char* op = "SELECT";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input1", cond));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input2", on_true));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input3", on_false));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "input1", cond, DType::Bool));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "input3", on_false, on_true.dtype));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, on_true.dtype));
  // The output shape is the broadcast of all three inputs; each must broadcast to it and every
  // output dim must come from some input.
  VKRT_RETURN_IF_ERROR(check_broadcast(op, "input1", cond, output));
  VKRT_RETURN_IF_ERROR(check_broadcast(op, "input2", on_true, output));
  VKRT_RETURN_IF_ERROR(check_broadcast(op, "input3", on_false, output));
  for (int d = 0; d < output.rank(); ++d) {
    int64_t want = 1;  // the non-1 input dim if there is one (check_broadcast made them agree)
    for (const TensorRef* t : {&cond, &on_true, &on_false})
      if (t->dim(d) != 1) want = t->dim(d);
    if (output.dim(d) != want)
      return make_error(Error::InvalidArgument, op, ": output shape ", shape_string(output.shape),
                        " is not the broadcast of the input shapes (dim ", d, ")");
  }
  return Status::ok();
}

Status select(const TensorRef& cond, const TensorRef& on_true, const TensorRef& on_false,
              const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_select(cond, on_true, on_false, output));
  // Values are only copied, so any element type of the same size will do.
  dispatch_by_size(on_true.dtype, [&](auto tag) { select_impl<decltype(tag)>(cond, on_true, on_false, output); });
  return Status::ok();
}

}  // namespace vkrt::tosa
