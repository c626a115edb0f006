// Test helpers: owning tensors that hand out TensorRefs.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "compute/isa.h"
#include "cpu_fallback/tosa/reference_loops.h"
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

#define ASSERT_TOSA_OK(expr)                          \
  do {                                                \
    ::vkrt::Status s_ = (expr);                       \
    ASSERT_TRUE(s_.is_ok()) << s_.message();          \
  } while (0)

// CONV2D through every path: without scratch (int8: the reference loops; int16: the compute
// core's portable loop), then, for int8 and int16, the compute core (int8: its GEMM, with B
// packed per call and packed ahead; int16: its A16W8 convolution) at every ISA level this CPU
// has. Returns the first run's status; the test fails where a path's output differs from the
// reference loops', which `output` ends with.
inline Status conv2d_every_path(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner = nullptr) {
  // Without scratch: the reference loops for int8, the compute core's portable loop for int16.
  Status s = conv2d(input, weight, bias, attrs, output, runner);
  if (!s.is_ok() || (input.dtype != DType::Int8 && input.dtype != DType::Int16)) return s;
  const size_t bytes = size_t(output.num_elements()) * (input.dtype == DType::Int16 ? sizeof(int64_t) : sizeof(int32_t));
  const std::vector<uint8_t> unpacked(output.as<uint8_t>(), output.as<uint8_t>() + bytes);
  detail::conv2d_reference(input, weight, bias, attrs, output);
  const std::vector<uint8_t> reference(output.as<uint8_t>(), output.as<uint8_t>() + bytes);
  EXPECT_EQ(unpacked, reference) << "CONV2D without scratch differs from the reference loops";
  const int threads = runner ? runner->num_threads() : 1;
  for (compute::Isa isa : compute::available_isas()) {
    compute::ScopedIsa pin(isa);
    for (bool pack : {false, true}) {
      std::vector<uint8_t> packed(pack ? conv2d_packed_weights_bytes(weight, bias, attrs) : 0);
      const void* packed_weights = packed.empty() ? nullptr : conv2d_pack_weights(weight, bias, attrs, packed);
      std::vector<uint8_t> scratch(conv2d_scratch_bytes(input, weight, bias, attrs, output, threads, packed_weights),
                                   0xA5);
      std::memset(output.data, 0x5A, bytes);
      EXPECT_TRUE(conv2d(input, weight, bias, attrs, output, runner, ConvResources{scratch, packed_weights}).is_ok());
      EXPECT_EQ(std::memcmp(output.data, reference.data(), bytes), 0)
          << "CONV2D on the compute core differs from the reference loops at ISA level " << compute::isa_name(isa)
          << (packed_weights ? ", weights packed ahead" : "");
    }
  }
  std::memcpy(output.data, reference.data(), bytes);
  return s;
}

// DEPTHWISE_CONV2D through every path: the reference loops (int8 with a weight zero point; fp32)
// or, for int8 and int16, the compute core's depthwise at every ISA level this CPU has, without
// scratch and with depthwise_conv2d_scratch_bytes of it. Returns the first run's
// status; the test fails where a path's output differs from the reference loops', which
// `output` ends with.
inline Status depthwise_conv2d_every_path(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                          const ConvAttr& attrs, const TensorRef& output,
                                          ParallelRunner* runner = nullptr) {
  Status s = depthwise_conv2d(input, weight, bias, attrs, output, runner);
  if (!s.is_ok() || (input.dtype != DType::Int8 && input.dtype != DType::Int16)) return s;
  const size_t bytes = size_t(output.num_elements()) * (input.dtype == DType::Int16 ? sizeof(int64_t) : sizeof(int32_t));
  detail::depthwise_conv2d_reference(input, weight, bias, attrs, output);
  const std::vector<uint8_t> reference(output.as<uint8_t>(), output.as<uint8_t>() + bytes);
  const int threads = runner ? runner->num_threads() : 1;
  for (compute::Isa isa : compute::available_isas()) {
    compute::ScopedIsa pin(isa);
    for (bool with_scratch : {false, true}) {
      std::vector<uint8_t> scratch(
          with_scratch ? depthwise_conv2d_scratch_bytes(input, weight, bias, attrs, output, threads) : 0, 0xA5);
      std::memset(output.data, 0x5A, bytes);
      EXPECT_TRUE(depthwise_conv2d(input, weight, bias, attrs, output, runner, scratch).is_ok());
      EXPECT_EQ(std::memcmp(output.data, reference.data(), bytes), 0)
          << "DEPTHWISE_CONV2D differs from the reference loops at ISA level " << compute::isa_name(isa)
          << (with_scratch ? ", with scratch" : ", no scratch");
    }
  }
  std::memcpy(output.data, reference.data(), bytes);
  return s;
}

// A ParallelRunner whose tasks run on real threads, one thread per task, started last task
// first; it counts the tasks it was given and the run() calls (dispatches).
class CountingThreads final : public ParallelRunner {
 public:
  explicit CountingThreads(int threads) : threads_(threads) {}
  int num_threads() const override { return threads_; }
  void run(int count, const std::function<void(int)>& task) override {
    ++dispatches;
    tasks += count;
    std::vector<std::thread> pool;
    for (int i = count - 1; i >= 0; --i) pool.emplace_back(task, i);
    for (auto& t : pool) t.join();
  }

  std::atomic<int> tasks{0};
  std::atomic<int> dispatches{0};

 private:
  int threads_;
};

}  // namespace vkrt::tosa::test
