#include "cortex_m/elementwise.h"

namespace vkrt::cortex_m {

bool contiguous_broadcast(const std::array<int32_t, 4>& a, const std::array<int32_t, 4>& b, Broadcast4* out) {
  Broadcast4 r;
  for (int d = 0; d < 4; ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) return false;
    r.sizes[d] = a[d] == 1 ? b[d] : a[d];
  }
  int64_t so = 1, sa = 1, sb = 1;
  for (int d = 3; d >= 0; --d) {
    r.out_strides[d] = so;
    r.a_strides[d] = a[d] == 1 ? 0 : sa;
    r.b_strides[d] = b[d] == 1 ? 0 : sb;
    so *= r.sizes[d];
    sa *= a[d];
    sb *= b[d];
  }
  *out = r;
  return true;
}

}  // namespace vkrt::cortex_m
