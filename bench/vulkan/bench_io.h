// Host-side helpers shared by the Vulkan benchmarks: random input/output buffers for a graph's
// tensors and comma-separated flag values.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "vgf/ir/graph.h"
#include "vkrt/tensor.h"

namespace vkrt::bench {

// Host-side buffers for one graph input or output.
struct HostBuffer {
  std::vector<uint8_t> bytes;
  std::vector<int32_t> sizes;
  Tensor tensor;
};

// Random bytes for integer types; finite values in [-1, 1] for fp32 and fp16.
HostBuffer host_buffer(const vgf::Graph& g, vgf::TensorId id, std::mt19937& rng);

// "1,16,32" -> {1, 16, 32}; empty items are skipped.
std::vector<int64_t> parse_list(const char* text);

}  // namespace vkrt::bench
