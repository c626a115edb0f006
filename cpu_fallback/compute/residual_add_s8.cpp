// residual_add_s8: the Highway loop (residual_add_hwy.cpp) at avx2 and above, else the portable
// one.
#include "compute/residual_add_s8.h"

#include <algorithm>

#include "arith/fixed_point.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"

namespace vkrt::compute {
namespace {

void residual_add_portable(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    // The sum is within int32 (the caller checked); its terms may not be, so they wrap, as the
    // vector lanes do.
    const int32_t sum = arith::wrap_add(arith::wrap_add(arith::wrap_mul(p.a_mult, a[i]), arith::wrap_mul(p.b_mult, b[i])), p.bias);
    const int64_t r = int64_t(arith::apply_scale_32(sum, p.out_mult, p.out_shift, p.double_round)) + p.out_zp;
    out[i] = int8_t(std::clamp<int64_t>(r, p.lo, p.hi));
  }
}

}  // namespace

void residual_add_s8(const ResidualAddS8& p, const int8_t* a, const int8_t* b, int8_t* out, int64_t count) {
#if defined(__x86_64__)
  if (has(Isa::Avx512bw)) return N_AVX3::residual_add_s8(p, a, b, out, count);
  if (has(Isa::Avx2)) return N_AVX2::residual_add_s8(p, a, b, out, count);
#endif
  residual_add_portable(p, a, b, out, count);
}

}  // namespace vkrt::compute
