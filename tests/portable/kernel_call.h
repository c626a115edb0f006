// Test helper: builds the values of one kernel call by hand and runs a registered kernel the
// way the executor does (argument pointers in schema order plus a trailing return slot).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/allocation_counter.h"
#include "vkrt/evalue.h"
#include "vkrt/kernel.h"
#include "vkrt/tensor.h"

namespace vkrt::portable::testing {

using vkrt::test_heap::g_heap_allocations;

class KernelCall {
  // bool storage for BoolList values (std::vector<bool> has no contiguous bools).
  struct BoolArray {
    explicit BoolArray(size_t n) : items(new bool[n > 0 ? n : 1]()) {}
    bool* get() const { return items.get(); }
    bool& operator[](size_t i) { return items[i]; }
    std::unique_ptr<bool[]> items;
  };

 public:
  explicit KernelCall(std::string name) : name_(std::move(name)) {}

  // A tensor holding `values` (given in memory order, i.e. along dim_order).
  template <typename T>
  EValue* tensor(ScalarType dtype, std::vector<int32_t> sizes, const std::vector<T>& values,
                 std::vector<uint8_t> dim_order = {}, ShapeDynamism dynamism = ShapeDynamism::Static) {
    if (dim_order.empty()) {
      for (size_t d = 0; d < sizes.size(); ++d) dim_order.push_back(uint8_t(d));
    }
    auto made = Tensor::make(dtype, sizes, dim_order, nullptr, dynamism);
    EXPECT_TRUE(made.ok()) << made.status().to_string();
    if (!made.ok()) return none();
    Tensor t = made.value();
    EXPECT_EQ(values.size() * sizeof(T), t.nbytes()) << "test data does not fill the tensor";
    auto& storage = storage_.emplace_back((t.nbytes() + 7) / 8 + 1, 0);  // 8-byte aligned
    if (!values.empty()) std::memcpy(storage.data(), values.data(), values.size() * sizeof(T));
    t.set_data(storage.data());
    tensors_.push_back(t);
    return value(EValue::from_tensor(&tensors_.back()));
  }
  // An output tensor of the given shape, filled with a sentinel byte pattern.
  EValue* out(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order = {},
              ShapeDynamism dynamism = ShapeDynamism::Static) {
    int64_t numel = 1;
    for (int32_t s : sizes) numel *= s;
    std::vector<uint8_t> fill(size_t(numel) * element_size(dtype), 0xA5);
    return tensor<uint8_t>(dtype, sizes, fill, dim_order, dynamism);
  }
  EValue* integer(int64_t v) { return value(EValue::from_int(v)); }
  EValue* real(double v) { return value(EValue::from_double(v)); }
  EValue* boolean(bool v) { return value(EValue::from_bool(v)); }
  EValue* none() { return value(EValue()); }
  EValue* int_list(const std::vector<int64_t>& items) {
    auto& boxed = lists_.emplace_back();
    for (int64_t v : items) boxed.push_back(integer(v));
    return value(EValue::from_int_list(boxed));
  }
  EValue* tensor_list(const std::vector<EValue*>& items) {
    auto& boxed = lists_.emplace_back(items);
    return value(EValue::from_tensor_list(boxed));
  }
  // A Tensor?[] value: null items are None.
  EValue* optional_tensor_list(const std::vector<EValue*>& items) {
    auto& boxed = lists_.emplace_back(items);
    return value(EValue::from_optional_tensor_list(boxed));
  }
  EValue* string(const std::string& s) { return value(EValue::from_string(strings_.emplace_back(s))); }
  EValue* double_list(const std::vector<double>& items) {
    return value(EValue::from_double_list(double_lists_.emplace_back(items)));
  }
  EValue* bool_list(const std::vector<bool>& items) {
    auto& stored = bool_lists_.emplace_back(items.size());
    for (size_t i = 0; i < items.size(); ++i) stored[i] = items[i];
    return value(EValue::from_bool_list(std::span<const bool>(stored.get(), items.size())));
  }

  // Runs the kernel on `args` (schema order, out last) plus a return slot repeating out.
  Status run(std::vector<EValue*> args) {
    if (!args.empty()) args.push_back(args.back());
    return run_raw(args);
  }
  // Gives the calls a temp pool of `bytes` (KernelContext::allocate_temp; none by default), as
  // a method's LoadOptions::temp_pool_bytes does: the cortex_m kernels take their workspace
  // from it (and a failed allocate_temp builds an error message on the heap).
  void set_temp_pool(size_t bytes) {
    temp_pool_.reset(new uint8_t[bytes > 0 ? bytes : 1]);
    temp_pool_bytes_ = bytes;
  }

  // Runs the kernel on exactly `args`. A successful call must not touch the heap (errors
  // may: their messages are strings).
  Status run_raw(const std::vector<EValue*>& args) {
    KernelFunction fn = KernelRegistry::global().find(name_);
    if (fn == nullptr) return Status(Error::OperatorMissing, "kernel " + name_ + " is not registered");
    TempAllocator temp(temp_pool_.get(), temp_pool_bytes_);
    KernelContext ctx(&temp, nullptr);
    const long before = g_heap_allocations.load();
    Status status = fn(ctx, std::span<EValue* const>(args.data(), args.size()));
    const long allocations = g_heap_allocations.load() - before;
    if (status.is_ok()) {
      EXPECT_EQ(allocations, 0) << name_ << " allocated on the heap";
    }
    return status;
  }

 private:
  EValue* value(EValue v) { return &values_.emplace_back(v); }

  std::string name_;
  std::deque<std::vector<uint64_t>> storage_;
  std::deque<Tensor> tensors_;
  std::deque<EValue> values_;
  std::deque<std::vector<EValue*>> lists_;
  std::deque<std::string> strings_;
  std::deque<std::vector<double>> double_lists_;
  std::deque<BoolArray> bool_lists_;
  std::unique_ptr<uint8_t[]> temp_pool_;
  size_t temp_pool_bytes_ = 0;
};

// The elements of a tensor value in memory order.
template <typename T>
std::vector<T> data_of(const EValue* v) {
  const Tensor& t = v->to_tensor();
  std::vector<T> out(size_t(t.numel()));
  if (!out.empty()) std::memcpy(out.data(), t.data(), out.size() * sizeof(T));
  return out;
}

inline std::vector<int32_t> sizes_of(const EValue* v) {
  auto s = v->to_tensor().sizes();
  return {s.begin(), s.end()};
}

}  // namespace vkrt::portable::testing

// Asserts that `status` failed with `code` and that its message contains every fragment.
#define EXPECT_ERROR(status_expr, code_value, ...)                                          \
  do {                                                                                      \
    ::vkrt::Status st_ = (status_expr);                                                     \
    EXPECT_EQ(st_.code(), ::vkrt::Error::code_value) << st_.to_string();                    \
    for (const char* fragment_ : {__VA_ARGS__}) {                                           \
      EXPECT_NE(st_.message().find(fragment_), std::string::npos)                           \
          << "message lacks \"" << fragment_ << "\": " << st_.message();                    \
    }                                                                                       \
  } while (0)
