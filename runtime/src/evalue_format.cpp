#include "vkrt/evalue_format.h"

#include "vkrt/half.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace vkrt {

namespace {
constexpr int64_t kEdgeItems = 100;    // the reference runner's setting
constexpr int64_t kItemsPerLine = 10;

std::string format_double(double v) {
  std::ostringstream os;
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16) {
    os << static_cast<long long>(v) << ".";  // integral floats keep a trailing dot, like PyTorch
    if (v == 0 && std::signbit(v)) return "-0.";
  } else {
    os << v;
  }
  return os.str();
}

template <typename T>
T load(const void* base, int64_t i) {
  T v;
  memcpy(&v, static_cast<const uint8_t*>(base) + i * int64_t(sizeof(T)), sizeof(T));
  return v;
}

// Items of a list-like value, with eliding and wrapping as upstream does.
template <typename Fn>
std::string format_items(int64_t count, Fn item) {
  std::string s = "[";
  bool elide = count > 2 * kEdgeItems;
  const int64_t printed = elide ? 2 * kEdgeItems + 1 : count;  // "..." counts as an item
  const bool wrap = printed > kItemsPerLine;
  int64_t on_line = 0;
  auto emit = [&](const std::string& text, bool last) {
    if (wrap && on_line % kItemsPerLine == 0) s += "\n  ";
    s += text;
    if (!last || wrap) s += ", ";
    ++on_line;
  };
  for (int64_t i = 0; i < count; ++i) {
    if (elide && i == kEdgeItems) {
      emit("...", false);
      i = count - kEdgeItems - 1;
      continue;
    }
    emit(item(i), i == count - 1);
  }
  if (wrap) s += "\n";
  return s + "]";
}
}  // namespace

std::string format_element(const Tensor& t, int64_t i) {
  const void* d = t.data();
  switch (t.dtype()) {
    case ScalarType::Float: return format_double(load<float>(d, i));
    case ScalarType::Double: return format_double(load<double>(d, i));
    case ScalarType::Half: return format_double(half_to_float(load<uint16_t>(d, i)));
    case ScalarType::BFloat16: return format_double(bfloat16_to_float(load<uint16_t>(d, i)));
    case ScalarType::Bool: return load<uint8_t>(d, i) ? "True" : "False";
    case ScalarType::Byte: case ScalarType::QUInt8: return std::to_string(load<uint8_t>(d, i));
    case ScalarType::Char: case ScalarType::QInt8: return std::to_string(load<int8_t>(d, i));
    case ScalarType::Short: return std::to_string(load<int16_t>(d, i));
    case ScalarType::UInt16: case ScalarType::Bits16: return std::to_string(load<uint16_t>(d, i));
    case ScalarType::Int: case ScalarType::QInt32: return std::to_string(load<int32_t>(d, i));
    case ScalarType::UInt32: return std::to_string(load<uint32_t>(d, i));
    case ScalarType::Long: return std::to_string(load<int64_t>(d, i));
    case ScalarType::UInt64: return std::to_string(load<uint64_t>(d, i));
    // Complex values print as (real, imaginary) pairs.
    case ScalarType::ComplexHalf:
      return "(" + format_double(half_to_float(load<uint16_t>(d, 2 * i))) + ", " +
             format_double(half_to_float(load<uint16_t>(d, 2 * i + 1))) + ")";
    case ScalarType::ComplexFloat:
      return "(" + format_double(load<float>(d, 2 * i)) + ", " + format_double(load<float>(d, 2 * i + 1)) + ")";
    case ScalarType::ComplexDouble:
      return "(" + format_double(load<double>(d, 2 * i)) + ", " + format_double(load<double>(d, 2 * i + 1)) + ")";
    default: return "?";
  }
}

static std::string format_tensor(const Tensor& t) {
  std::string s = "tensor(sizes=[";
  for (int d = 0; d < t.rank(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  s += "], ";
  if (!t.data() && t.numel() > 0) return s + "<no data>)";
  // Elements are printed in memory order, as upstream prints data_ptr flat.
  return s + format_items(t.numel(), [&](int64_t i) { return format_element(t, i); }) + ")";
}

std::string format_evalue(const EValue& v) {
  switch (v.tag()) {
    case Tag::None: return "None";
    case Tag::Int: return std::to_string(v.to_int());
    case Tag::Double: return format_double(v.to_double());
    case Tag::Bool: return v.to_bool() ? "True" : "False";
    case Tag::String: return "\"" + std::string(v.to_string()) + "\"";
    case Tag::Tensor: return format_tensor(v.to_tensor());
    case Tag::IntList:
      return "(len=" + std::to_string(v.list_size()) + ")" +
             format_items(int64_t(v.list_size()), [&](int64_t i) { return std::to_string(v.int_list_at(size_t(i))); });
    case Tag::DoubleList:
      return "(len=" + std::to_string(v.list_size()) + ")" +
             format_items(int64_t(v.list_size()), [&](int64_t i) { return format_double(v.double_list()[size_t(i)]); });
    case Tag::BoolList:
      return "(len=" + std::to_string(v.list_size()) + ")" +
             format_items(int64_t(v.list_size()),
                          [&](int64_t i) { return std::string(v.bool_list()[size_t(i)] ? "True" : "False"); });
    case Tag::TensorList:
    case Tag::OptionalTensorList: {
      std::string s = "(len=" + std::to_string(v.list_size()) + ")[\n";
      for (EValue* item : v.boxed_items()) s += "  " + (item ? format_evalue(*item) : std::string("None")) + ",\n";
      return s + "]";
    }
  }
  return "?";
}

}  // namespace vkrt
