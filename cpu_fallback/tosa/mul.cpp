// MUL (tosa.md §9): i8*i8 and i16*i16 -> i32 product (shift 0); i32*i32 -> i32 with an optional
// rounding right shift; fp32.
#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "MUL";

template <typename TIn>
void mul_int(const TensorRef& in1, const TensorRef& in2, int shift, const TensorRef& out) {
  const TIn* a = in1.as<const TIn>();
  const TIn* b = in2.as<const TIn>();
  int32_t* o = out.as<int32_t>();
  const std::array<const TensorRef*, 2> inputs = {&in1, &in2};
  broadcast_loop(out, inputs, [&](int64_t oi, const std::array<int64_t, 2>& ii) {
    const int64_t product = int64_t(a[ii[0]]) * int64_t(b[ii[1]]);  // |product| <= 2^62
    if (shift > 0) {
      // r = (p + 2^(shift-1)) >> shift, computed as (p >> shift) + bit (shift-1) of p so that
      // shift 63 cannot overflow; TOSA REQUIREs r to fit in i32, we saturate.
      const int64_t r = (product >> shift) + ((product >> (shift - 1)) & 1);
      o[oi] = r > INT32_MAX ? INT32_MAX : (r < INT32_MIN ? INT32_MIN : int32_t(r));
    } else {
      o[oi] = wrap32(product);  // shift 0: the low 32 bits of the product
    }
  });
}

void mul_float(const TensorRef& in1, const TensorRef& in2, const TensorRef& out) {
  const float* a = in1.as<const float>();
  const float* b = in2.as<const float>();
  float* o = out.as<float>();
  const std::array<const TensorRef*, 2> inputs = {&in1, &in2};
  broadcast_loop(out, inputs,
                 [&](int64_t oi, const std::array<int64_t, 2>& ii) { o[oi] = a[ii[0]] * b[ii[1]]; });
}

}  // namespace

Status check_mul(const TensorRef& input1, const TensorRef& input2, const MulAttr& attrs,
                 const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input1", input1));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "input2", input2));
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "output", output));
  const DType t = input1.dtype;
  if (t != DType::Int8 && t != DType::Int16 && t != DType::Int32 && t != DType::Fp32)
    return make_error(Error::NotSupported, kOp, ": dtype ", dtype_name(t), " not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "input2", input2, t));
  VKRT_RETURN_IF_ERROR(expect_dtype(kOp, "output", output, t == DType::Fp32 ? DType::Fp32 : DType::Int32));
  if (t == DType::Int32) {
    if (attrs.shift < 0 || attrs.shift > 63)
      return make_error(Error::InvalidArgument, kOp, ": shift ", attrs.shift, " outside [0, 63]");
  } else if (attrs.shift != 0) {
    return make_error(Error::InvalidArgument, kOp, ": shift must be 0 for ", dtype_name(t), " inputs, got ",
                      attrs.shift);
  }
  return check_broadcast_output(kOp, input1, input2, output);
}

Status mul(const TensorRef& input1, const TensorRef& input2, const MulAttr& attrs,
           const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_mul(input1, input2, attrs, output));
  switch (input1.dtype) {
    case DType::Int8: mul_int<int8_t>(input1, input2, 0, output); break;
    case DType::Int16: mul_int<int16_t>(input1, input2, 0, output); break;
    case DType::Int32: mul_int<int32_t>(input1, input2, attrs.shift, output); break;
    default: mul_float(input1, input2, output); break;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
