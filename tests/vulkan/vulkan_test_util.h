// Helpers for the Vulkan executor tests: a tiny graph builder over the IR, host tensors, random
// data, the CPU-kernel oracle glue, and device/validation handling.
//
// Every test binary runs with the Khronos validation layer on (VKRT_VULKAN_VALIDATION=1 is set
// before the first context is created, unless the caller set it to 0) and fails at exit if the
// layer reported anything. Tests skip with a clear message when no Vulkan device exists.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vgf/ir/graph.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/vulkan_executor.h"
#include "vkrt/backend.h"
#include "vkrt/tensor.h"

namespace vkrt::vulkan::testing {

using vgf::DType;
using vgf::OpKind;
using vgf::Shape;
using vgf::TensorId;

// Bytes plus a TOSA type and shape; convertible to vkrt::Tensor and tosa::TensorRef.
struct HostTensor {
  DType dtype = DType::Int8;
  Shape shape;
  std::vector<uint8_t> bytes;
  std::vector<int32_t> sizes32;  // storage for Tensor::make

  HostTensor() = default;
  HostTensor(DType t, Shape s);
  int64_t count() const;
  template <typename T>
  T* as() { return reinterpret_cast<T*>(bytes.data()); }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(bytes.data()); }
  tosa::TensorRef ref() const;
  Tensor tensor();
};

// Fills with uniform random values of the type in [lo, hi] (floats: uniform reals).
void fill_random(HostTensor& t, std::mt19937& rng, double lo, double hi);

struct GraphBuilder {
  vgf::Graph graph;
  TensorId input(DType t, Shape s);
  TensorId constant(const HostTensor& value);
  TensorId tensor(DType t, Shape s);
  void op(OpKind kind, std::vector<TensorId> inputs, std::vector<TensorId> outputs,
          vgf::OpAttributes attr = vgf::NoAttr{});
  void output(TensorId t);
};

// The shared context, or nullptr (and the test should GTEST_SKIP) when no device exists. Opened
// with the context options of vgf_options({}) (the environment: validation, device, variants).
std::shared_ptr<Context> device_or_null(std::string* why);

// parse_vgf_options(options): the keys given, the VKRT_VULKAN_* environment for the others (the
// validation layer, VKRT_VULKAN_ZERO_COPY=0 of the staging test run, a test's ScopedEnv). A parse
// error is a test failure (and the defaults are returned).
VgfOptions vgf_options(const BackendOptions& options);

#define VKRT_REQUIRE_VULKAN()                                                        \
  do {                                                                               \
    std::string vkrt_why_;                                                           \
    if (!::vkrt::vulkan::testing::device_or_null(&vkrt_why_)) {                      \
      GTEST_SKIP() << "no usable Vulkan device (" << vkrt_why_                       \
                   << "); install mesa-vulkan-drivers for lavapipe";                 \
    }                                                                                \
  } while (0)

// Prepares `graph` on `executor` and runs it. Outputs are shaped per the graph.
Status run_graph(vgf::GraphExecutor& executor, const vgf::Graph& graph, const vgf::ExecutorOptions& options,
                 std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs);

// The same on the CPU executor, the oracle (cpu_oracle.cpp: tests that use it link vkrt_vgf_backend).
Status run_on_cpu(const vgf::Graph& graph, std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs);

// Prepares `graph` on a fresh Vulkan executor and runs it. Outputs are shaped per the graph.
// `options` are parsed (parse_vgf_options, so the environment applies; a parse error is returned);
// null = only "VgfBackend.pipeline_cache_dir" = "off".
Status run_on_vulkan(const vgf::Graph& graph, std::vector<HostTensor>& inputs,
                     std::vector<HostTensor>& outputs, const BackendOptions* options = nullptr,
                     VulkanExecutorStats* stats = nullptr);

// Byte equality with a readable first mismatch.
::testing::AssertionResult bytes_equal(const HostTensor& expected, const HostTensor& actual);
// fp32 closeness: |a - e| <= atol + rtol * |e| for every element.
::testing::AssertionResult floats_close(const HostTensor& expected, const HostTensor& actual,
                                        float atol, float rtol);

// One fp16 MATMUL graph A [sa] x B [sb] on random inputs in [-1, 1] (both graph inputs), and
// the fp32 CPU result on the same fp16-rounded values: what an fp16-storage, fp32-accumulation
// GEMM must come close to.
struct Fp16Matmul {
  vgf::Graph graph;
  std::vector<HostTensor> inputs;  // fp16
  HostTensor expected;             // fp32
};
Fp16Matmul fp16_matmul(Shape sa, Shape sb, std::mt19937& rng);
// An fp16 tensor widened to fp32.
HostTensor fp16_to_fp32(const HostTensor& half);

}  // namespace vkrt::vulkan::testing
