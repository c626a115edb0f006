// requantize_row_s8: the Highway rows (requantize_row_hwy.cpp) at avx2 and above, else the
// portable loop.
#include "compute/requantize_row.h"

#include "arith/fixed_point.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"

namespace vkrt::compute {
namespace {

void requantize_row_portable(const RequantizeRow& spec, const int32_t* acc, int first_channel,
                             int count, int8_t* out) {
  for (int i = 0; i < count; ++i) {
    const int c = spec.per_channel ? first_channel + i : 0;
    const int32_t v = requantize_value(spec, acc[i], c);
    out[i] = int8_t(arith::clamp_activation(arith::wrap_add(v, spec.output_offset),
                                            spec.activation_min, spec.activation_max));
  }
}

}  // namespace

void requantize_row_s8(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out) {
#if defined(__x86_64__)
  // The vector rows narrow with saturation: the int8 cast's bytes only for bounds within int8.
  const bool int8_bounds = spec.activation_min >= -128 && spec.activation_max <= 127;
  if (int8_bounds && has(Isa::Avx512bw)) return N_AVX3::requantize_row_s8(spec, acc, first_channel, count, out);
  if (int8_bounds && has(Isa::Avx2)) return N_AVX2::requantize_row_s8(spec, acc, first_channel, count, out);
#endif
  requantize_row_portable(spec, acc, first_channel, count, out);
}

}  // namespace vkrt::compute
