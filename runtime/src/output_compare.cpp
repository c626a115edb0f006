#include "vkrt/output_compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "api_boundary.h"
#include "vkrt/half.h"
#include "vkrt/module.h"

namespace vkrt {
namespace {

template <typename T> double load_as_double(const uint8_t* p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return double(v);
}

// An element as a double, for the tolerance and the error figures (integers beyond 2^53 round,
// which only blurs the figures: exact types are judged by their bits). NaN where the dtype has
// no numeric reading here (quantized and float8 types, compared by bits only).
double element_as_double(ScalarType t, const uint8_t* p) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::QUInt8: return load_as_double<uint8_t>(p);
    case ScalarType::Char: case ScalarType::QInt8: return load_as_double<int8_t>(p);
    case ScalarType::Short: return load_as_double<int16_t>(p);
    case ScalarType::Int: case ScalarType::QInt32: return load_as_double<int32_t>(p);
    case ScalarType::Long: return load_as_double<int64_t>(p);
    case ScalarType::UInt16: return load_as_double<uint16_t>(p);
    case ScalarType::UInt32: return load_as_double<uint32_t>(p);
    case ScalarType::UInt64: return load_as_double<uint64_t>(p);
    case ScalarType::Bool: return p[0] != 0 ? 1.0 : 0.0;
    case ScalarType::Float: return load_as_double<float>(p);
    case ScalarType::Double: return load_as_double<double>(p);
    case ScalarType::Half: { uint16_t h; memcpy(&h, p, 2); return half_to_float(h); }
    case ScalarType::BFloat16: { uint16_t b; memcpy(&b, p, 2); return bfloat16_to_float(b); }
    default: return NAN;
  }
}

bool is_toleranced(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16;
}

std::string number_text(double v, bool exact_type) {
  char text[48];
  snprintf(text, sizeof(text), exact_type ? "%.17g" : "%.9g", v);
  return text;
}

}  // namespace

void OutputComparer::fail(const std::string& message) {
  if (r_.pass) r_.message = message;
  r_.pass = false;
}

void OutputComparer::compare_element(const std::string& name, int64_t index, double got, double expected,
                                     bool exact_type, bool bits_equal) {
  bool ok;
  if (exact_type) ok = bits_equal;
  else if (std::isnan(got) || std::isnan(expected)) ok = std::isnan(got) && std::isnan(expected);
  else if (std::isinf(got) || std::isinf(expected)) ok = got == expected;
  else ok = std::fabs(got - expected) <= atol_ + rtol_ * std::fabs(expected);
  const double abs_err = std::isfinite(got - expected) ? std::fabs(got - expected) : 0;
  const double rel_err = expected != 0 && std::isfinite(expected) ? abs_err / std::fabs(expected) : 0;
  ++r_.elements;
  sum_abs_ += abs_err, sum_rel_ += rel_err;
  r_.max_abs_error = std::max(r_.max_abs_error, abs_err);
  r_.max_rel_error = std::max(r_.max_rel_error, rel_err);
  if (ok) return;
  ++r_.mismatched;
  const std::string where = index < 0 ? name : name + "[" + std::to_string(index) + "]";
  fail(where + ": got " + number_text(got, exact_type) + ", expected " + number_text(expected, exact_type));
}

void OutputComparer::compare_tensor(const std::string& name, ScalarType dtype, int64_t numel, const void* got,
                                    const void* expected) {
  // A complex tensor compares as its real and imaginary parts, interleaved.
  if (is_complex(dtype)) {
    dtype = complex_part_type(dtype);
    numel *= 2;
  }
  const size_t es = element_size(dtype);
  const auto* a = static_cast<const uint8_t*>(got);
  const auto* b = static_cast<const uint8_t*>(expected);
  const bool exact_type = !is_toleranced(dtype);
  for (int64_t i = 0; i < numel; ++i) {
    const uint8_t* pa = a + size_t(i) * es;
    const uint8_t* pb = b + size_t(i) * es;
    compare_element(name, i, element_as_double(dtype, pa), element_as_double(dtype, pb), exact_type,
                    memcmp(pa, pb, es) == 0);
  }
}

void OutputComparer::compare_scalar(const std::string& name, const EValue& got, const EValue& expected) {
  if (got.tag() != expected.tag()) {
    fail(name + ": expected " + tag_name(expected.tag()) + ", got " + tag_name(got.tag()));
    return;
  }
  switch (got.tag()) {
    case Tag::Int:
      compare_element(name, -1, double(got.to_int()), double(expected.to_int()), true,
                      got.to_int() == expected.to_int());
      break;
    case Tag::Bool:
      compare_element(name, -1, got.to_bool(), expected.to_bool(), true, got.to_bool() == expected.to_bool());
      break;
    case Tag::Double: compare_element(name, -1, got.to_double(), expected.to_double(), false, false); break;
    default: break;  // None and lists carry nothing to compare here
  }
}

OutputComparison OutputComparer::result() const {
  OutputComparison r = r_;
  if (r.elements) r.mean_abs_error = sum_abs_ / double(r.elements), r.mean_rel_error = sum_rel_ / double(r.elements);
  return r;
}

Result<std::vector<OutputComparison>> compare_method_outputs(const Method& got, const Method& expected, double rtol,
                                                             double atol) {
  return detail::guard_api("compare_method_outputs", [&]() -> Result<std::vector<OutputComparison>> {
    if (got.num_outputs() != expected.num_outputs())
      return make_error(Error::InvalidArgument, "the methods have ", got.num_outputs(), " and ", expected.num_outputs(),
                        " outputs");
    std::vector<OutputComparison> results;
    for (size_t o = 0; o < got.num_outputs(); ++o) {
      OutputComparer comparer(rtol, atol);
      const std::string name = "output " + std::to_string(o);
      const EValue& a = got.output(o);
      const EValue& b = expected.output(o);
      if (a.is_tensor() && b.is_tensor()) {
        const Tensor& ta = a.to_tensor();
        const Tensor& tb = b.to_tensor();
        bool same_sizes = ta.rank() == tb.rank();
        for (int d = 0; same_sizes && d < ta.rank(); ++d) same_sizes = ta.size(d) == tb.size(d);
        if (ta.dtype() != tb.dtype() || !same_sizes)
          comparer.fail(name + ": dtype or sizes differ");
        else
          comparer.compare_tensor(name, ta.dtype(), ta.numel(), ta.data(), tb.data());
      } else {
        comparer.compare_scalar(name, a, b);
      }
      results.push_back(comparer.result());
    }
    return results;
  });
}

}  // namespace vkrt
