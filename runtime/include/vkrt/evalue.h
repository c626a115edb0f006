// EValue: one value of a method (ExecuTorch's boxed value), as kernels and delegates see it.
//
// Lists refer to other values the way the program file does: IntList and TensorList hold
// pointers to the EValues they box (a MoveCall may replace those values between kernels),
// DoubleList and BoolList hold their literals. All storage belongs to the Method.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "vkrt/tensor.h"

namespace vkrt {

enum class Tag : uint8_t {
  None = 0,
  Int,
  Double,
  Bool,
  String,
  Tensor,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

const char* tag_name(Tag tag);

class EValue {
 public:
  EValue() : tag_(Tag::None) { payload_.i = 0; }
  static EValue from_int(int64_t v) { EValue e(Tag::Int); e.payload_.i = v; return e; }
  static EValue from_double(double v) { EValue e(Tag::Double); e.payload_.d = v; return e; }
  static EValue from_bool(bool v) { EValue e(Tag::Bool); e.payload_.b = v; return e; }
  static EValue from_string(std::string_view s) {
    EValue e(Tag::String); e.payload_.str = {s.data(), s.size()}; return e;
  }
  static EValue from_tensor(Tensor* t) { EValue e(Tag::Tensor); e.payload_.tensor = t; return e; }
  // items[i] points to an Int EValue.
  static EValue from_int_list(std::span<EValue* const> items) { return list(Tag::IntList, items.data(), items.size()); }
  static EValue from_double_list(std::span<const double> v) { return list(Tag::DoubleList, v.data(), v.size()); }
  static EValue from_bool_list(std::span<const bool> v) { return list(Tag::BoolList, v.data(), v.size()); }
  // items[i] points to a Tensor EValue.
  static EValue from_tensor_list(std::span<EValue* const> items) { return list(Tag::TensorList, items.data(), items.size()); }
  // items[i] points to a Tensor EValue or is null for None.
  static EValue from_optional_tensor_list(std::span<EValue* const> items) {
    return list(Tag::OptionalTensorList, items.data(), items.size());
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_double_list() const { return tag_ == Tag::DoubleList; }
  bool is_bool_list() const { return tag_ == Tag::BoolList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_optional_tensor_list() const { return tag_ == Tag::OptionalTensorList; }

  // Accessors assume the tag was checked (use the checked helpers in kernel_args.h otherwise).
  int64_t to_int() const { return payload_.i; }
  double to_double() const { return payload_.d; }
  bool to_bool() const { return payload_.b; }
  std::string_view to_string() const { return {payload_.str.data, payload_.str.size}; }
  Tensor& to_tensor() const { return *payload_.tensor; }
  Tensor* tensor_ptr() const { return payload_.tensor; }
  size_t list_size() const { return payload_.list.size; }
  // IntList element i (unboxed).
  int64_t int_list_at(size_t i) const { return static_cast<EValue* const*>(payload_.list.data)[i]->to_int(); }
  std::span<EValue* const> boxed_items() const {
    return {static_cast<EValue* const*>(payload_.list.data), payload_.list.size};
  }
  std::span<const double> double_list() const {
    return {static_cast<const double*>(payload_.list.data), payload_.list.size};
  }
  std::span<const bool> bool_list() const {
    return {static_cast<const bool*>(payload_.list.data), payload_.list.size};
  }

 private:
  explicit EValue(Tag t) : tag_(t) { payload_.i = 0; }
  static EValue list(Tag t, const void* data, size_t size) {
    EValue e(t); e.payload_.list = {data, size}; return e;
  }

  Tag tag_;
  union {
    int64_t i;
    double d;
    bool b;
    Tensor* tensor;
    struct { const char* data; size_t size; } str;
    struct { const void* data; size_t size; } list;
  } payload_;
};

}  // namespace vkrt
