#include "ethosu/virtual/performance_model.h"

#include <algorithm>
#include <cmath>

namespace vkrt::ethosu::virtual_npu {
namespace {

// Pipeline fill and drain of one NPU operation: a kernel operation (CONV, DEPTHWISE, POOL) works
// through at least one OFM block; an elementwise one streams.
constexpr uint64_t kKernelOperationLatency = 32;
constexpr uint64_t kElementwiseLatency = 4;

}  // namespace

MemoryModel default_memory_model(const NpuArch& arch) {
  MemoryModel m;
  const RegionMemoryModel sram_u55{8.0, 32}, flash{1.0, 64};
  const RegionMemoryModel sram_u65{16.0, 32}, dram{12.0, 250};
  const RegionMemoryModel shram{16.0, 1};
  for (int r = 0; r < kMaxRegions; ++r) {
    if (arch.product == NpuProduct::U65) {
      m.regions[r] = r == kRegionFastScratch ? sram_u65 : dram;
    } else {
      m.regions[r] = r == kRegionWeights ? flash : sram_u55;
    }
  }
  m.regions[kMaxRegions] = shram;
  return m;
}

OperationCycles operation_cycles(const OperationCost& cost, const NpuArch& arch, const MemoryModel& memory) {
  const double macs_per_cycle = std::max<uint32_t>(arch.macs_per_cycle, 16);
  double memory_cycles = 0;
  uint32_t latency = 0;
  for (int r = 0; r <= kMaxRegions; ++r) {
    const RegionMemoryModel& m = memory.regions[r];
    const uint64_t bytes = cost.read_bytes[r] + cost.write_bytes[r];
    if (bytes == 0) continue;
    memory_cycles += double(bytes) / m.bytes_per_cycle;
    if (cost.read_bytes[r] > 0) latency = std::max(latency, m.latency_cycles);
  }
  if (cost.is_dma) return {0, uint64_t(std::ceil(memory_cycles)) + latency};
  double compute_cycles;
  if (cost.macs > 0) {
    compute_cycles = double(cost.macs) / (cost.depthwise ? macs_per_cycle / 4 : macs_per_cycle);
  } else {
    compute_cycles = double(cost.elements) / (macs_per_cycle / 16);
  }
  const uint64_t fill = cost.elementwise ? kElementwiseLatency : kKernelOperationLatency;
  return {uint64_t(std::ceil(compute_cycles)) + fill,
          uint64_t(std::ceil(std::max(compute_cycles, memory_cycles))) + fill + latency};
}

}  // namespace vkrt::ethosu::virtual_npu
