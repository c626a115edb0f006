#include "element.h"

namespace vkrt::portable {

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  const bool af = is_float_dtype(a), bf = is_float_dtype(b);
  if (af && bf) {
    auto rank = [](ScalarType t) {
      return t == ScalarType::Double ? 3 : t == ScalarType::Float ? 2 : 1;  // Half, BFloat16: 1
    };
    if (rank(a) == 1 && rank(b) == 1) return ScalarType::Float;  // Half with BFloat16
    return rank(a) >= rank(b) ? a : b;
  }
  if (af) return a;
  if (bf) return b;
  // Both integral. Widths: int8/uint8 1, int16 2, int32 4, int64 8.
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    const ScalarType other = a == ScalarType::Byte ? b : a;
    return other == ScalarType::Char ? ScalarType::Short : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_float_dtype(from) && !is_float_dtype(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

}  // namespace vkrt::portable
