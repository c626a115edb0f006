// Test helpers: owning tensors that hand out TensorRefs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa::test {

// A tensor owning its dims and elements. Bool tensors use uint8_t elements.
template <typename T>
struct Tensor {
  DType dtype = DType::Unknown;
  std::vector<int64_t> shape;
  std::vector<T> data;

  Tensor() = default;
  Tensor(DType t, std::vector<int64_t> s, std::vector<T> values = {}) : dtype(t), shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data = values.empty() ? std::vector<T>(size_t(n)) : std::move(values);
    EXPECT_EQ(int64_t(data.size()), n) << "test tensor: values do not match the shape";
  }
  TensorRef ref() { return TensorRef{dtype, shape, data.data()}; }
  operator TensorRef() { return ref(); }  // NOLINT: lets tests pass tensors directly
};

inline Tensor<int8_t> i8(std::vector<int64_t> s, std::vector<int8_t> v = {}) { return {DType::Int8, std::move(s), std::move(v)}; }
inline Tensor<int16_t> i16(std::vector<int64_t> s, std::vector<int16_t> v = {}) { return {DType::Int16, std::move(s), std::move(v)}; }
inline Tensor<int32_t> i32(std::vector<int64_t> s, std::vector<int32_t> v = {}) { return {DType::Int32, std::move(s), std::move(v)}; }
inline Tensor<int64_t> i48(std::vector<int64_t> s, std::vector<int64_t> v = {}) { return {DType::Int48, std::move(s), std::move(v)}; }
inline Tensor<float> f32(std::vector<int64_t> s, std::vector<float> v = {}) { return {DType::Fp32, std::move(s), std::move(v)}; }
inline Tensor<uint8_t> boolean(std::vector<int64_t> s, std::vector<uint8_t> v = {}) { return {DType::Bool, std::move(s), std::move(v)}; }

// Asserts an error whose code is Error::`err` and whose message contains `needle`.
#define EXPECT_TOSA_ERROR(expr, err, needle)                                        \
  do {                                                                              \
    ::vkrt::Status s_ = (expr);                                                     \
    EXPECT_EQ(s_.code(), ::vkrt::Error::err) << s_.message();                       \
    EXPECT_NE(s_.message().find(needle), std::string::npos) << s_.message();        \
  } while (0)

#define EXPECT_TOSA_OK(expr)                          \
  do {                                                \
    ::vkrt::Status s_ = (expr);                       \
    EXPECT_TRUE(s_.is_ok()) << s_.message();          \
  } while (0)

}  // namespace vkrt::tosa::test
