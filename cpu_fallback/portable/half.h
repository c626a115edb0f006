// Half and bfloat16 conversions for the portable kernels: the shared ones in vkrt/half.h.
#pragma once

#include "vkrt/half.h"

namespace vkrt::portable {
using vkrt::bfloat16_to_float;
using vkrt::float_to_bfloat16;
using vkrt::float_to_half;
using vkrt::half_to_float;
}  // namespace vkrt::portable
