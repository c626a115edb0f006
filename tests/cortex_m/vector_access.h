// Typed access to one CMSIS-NN vector's symbols (prefix = folder name) with errors collected
// instead of thrown, and the comparison used by the conformance suite.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cortex_m/cmsis_vectors.h"

namespace vkrt::testing::cmsis {

class VectorAccess {
 public:
  VectorAccess(const VectorData& data, const std::string& folder) : data_(data), lower_(folder), upper_(folder) {
    for (char& c : upper_) c = char(std::toupper(static_cast<unsigned char>(c)));
  }

  // Macro <FOLDER>_<key> as int32; records an error when missing (first of `keys` that exists).
  int32_t need(std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (auto v = data_.define_int(upper_ + "_" + k)) return checked(*v, k);
    fail(std::string("missing macro ") + upper_ + "_" + *keys.begin());
    return 0;
  }
  int32_t need(const char* key) { return need({key}); }
  int32_t optional(const char* key, int32_t fallback) {
    if (auto v = data_.define_int(upper_ + "_" + key)) return checked(*v, key);
    return fallback;
  }
  std::string text(const char* key) { return data_.define_text(upper_ + "_" + key).value_or(""); }
  std::vector<int64_t> list(const char* key) {
    auto v = data_.define_list(upper_ + "_" + key);
    if (!v) fail(std::string("missing list macro ") + upper_ + "_" + key);
    return v.value_or(std::vector<int64_t>{});
  }

  const CArray* find(std::initializer_list<const char*> suffixes) const {
    for (const char* s : suffixes)
      if (const CArray* a = data_.array(lower_ + "_" + s)) return a;
    return nullptr;
  }
  // Array <folder>_<suffix> converted to T (first suffix that exists); empty + error when missing,
  // when its values do not fit T, or when it has fewer than `min_count` elements.
  template <typename T>
  std::vector<T> array(std::initializer_list<const char*> suffixes, int64_t min_count = 0) {
    const CArray* a = find(suffixes);
    if (!a) {
      fail(std::string("missing array ") + lower_ + "_" + *suffixes.begin());
      return {};
    }
    return convert<T>(*a, *suffixes.begin(), min_count);
  }
  // Like array() but an absent or NULL array is fine (returns empty).
  template <typename T>
  std::vector<T> optional_array(std::initializer_list<const char*> suffixes, int64_t min_count = 0) {
    const CArray* a = find(suffixes);
    return a ? convert<T>(*a, *suffixes.begin(), min_count) : std::vector<T>{};
  }

  const VectorData& data() const { return data_; }
  const std::string& folder() const { return lower_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(const std::string& e) {
    if (error_.empty()) error_ = e;
  }

 private:
  int32_t checked(int64_t v, const char* key) {
    if (v < INT32_MIN || v > INT32_MAX) fail(std::string(key) + " out of int32 range");
    return int32_t(v);
  }
  template <typename T>
  std::vector<T> convert(const CArray& a, const char* name, int64_t min_count) {
    std::vector<T> out;
    out.reserve(a.values.size());
    for (int64_t v : a.values) {
      if (v < int64_t(std::numeric_limits<T>::min()) || v > int64_t(std::numeric_limits<T>::max())) {
        fail(std::string("array ") + name + " holds " + std::to_string(v) + ", outside its element type");
        return {};
      }
      out.push_back(T(v));
    }
    if (int64_t(out.size()) < min_count) {
      fail(std::string("array ") + name + " has " + std::to_string(out.size()) + " elements, expected at least " +
           std::to_string(min_count));
      return {};
    }
    return out;
  }

  const VectorData& data_;
  std::string lower_, upper_, error_;
};

// "" when equal, else a description of the first difference.
template <typename T>
std::string compare_outputs(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
  int64_t mismatches = 0, first = -1;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      if (first < 0) first = int64_t(i);
      ++mismatches;
    }
  if (mismatches == 0) return "";
  return what + ": " + std::to_string(mismatches) + " of " + std::to_string(got.size()) + " outputs differ; first at " +
         std::to_string(first) + ": got " + std::to_string(int64_t(got[first])) + ", expected " +
         std::to_string(int64_t(want[first]));
}

}  // namespace vkrt::testing::cmsis
