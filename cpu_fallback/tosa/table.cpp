// TABLE (tosa.md §8): int8 lookup, and int16 lookup with linear interpolation to 16.7 fixed point.
#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {

using namespace detail;

Status check_table(const TensorRef& input, const TensorRef& table, const TensorRef& output) {
  constexpr const char* op = "TABLE";
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "table", table));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_same_shape(op, "output", output, input));
  VKRT_RETURN_IF_ERROR(expect_rank(op, "table", table, 1));
  if (input.dtype == DType::Int8) {
    VKRT_RETURN_IF_ERROR(expect_dtype(op, "table", table, DType::Int8));
    VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, DType::Int8));
    if (table.dim(0) != 256)
      return make_error(Error::InvalidArgument, op, ": int8 table has ", table.dim(0), " entries, expected 256");
  } else if (input.dtype == DType::Int16) {
    VKRT_RETURN_IF_ERROR(expect_dtype(op, "table", table, DType::Int16));
    VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, DType::Int32));
    if (table.dim(0) != 513)
      return make_error(Error::InvalidArgument, op, ": int16 table has ", table.dim(0), " entries, expected 513");
  } else {
    return make_error(Error::NotSupported, op, ": input dtype ", dtype_name(input.dtype),
                      " not supported (int8, int16)");
  }
  return Status::ok();
}

Status table(const TensorRef& input, const TensorRef& table, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_table(input, table, output));
  const int64_t n = input.num_elements();
  if (input.dtype == DType::Int8) {
    const int8_t* in = input.as<const int8_t>();
    const int8_t* t = table.as<const int8_t>();
    int8_t* out = output.as<int8_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = t[int(in[i]) + 128];
    return Status::ok();
  }
  const int16_t* in = input.as<const int16_t>();
  const int16_t* t = table.as<const int16_t>();
  int32_t* out = output.as<int32_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = in[i];
    const int32_t index = std::clamp((x >> 7) + 256, 0, 511);  // always in range for int16 x
    const int32_t frac = x & 0x7F;
    const int32_t base = t[index], next = t[index + 1];
    // TOSA REQUIREs next - base to fit in i16; computed in i32 it is exact either way.
    out[i] = base * 128 + (next - base) * frac;
  }
  return Status::ok();
}

}  // namespace vkrt::tosa
