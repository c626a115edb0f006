// The virtual NPU's cycle estimate: a first-order performance model, operation by operation.
//
// Each NPU operation costs the larger of its compute time and its memory time, plus a fixed
// pipeline latency; each DMA costs its source's latency plus its bytes over the slower of the two
// ports. The memories behind the regions follow Vela's default system configurations (vela.ini):
//   Ethos-U55, "Shared_Sram": region 0 (weights) off-chip flash, 1 B/cycle (a 64-bit AXI port at
//     1/8 of the core clock), 64 cycles latency; regions 1 and 2 SRAM, 8 B/cycle, 32 cycles.
//   Ethos-U65, "Dedicated_Sram": regions 0 and 1 DRAM, 12 B/cycle (128-bit AXI at 3/4 clock), 250
//     cycles latency; region 2 (the fast scratch) SRAM, 16 B/cycle, 32 cycles.
// Compute: CONV/DEPTHWISE do MACs-per-cycle multiply-accumulates a cycle (depthwise a quarter of
// that: one IFM channel per OFM channel leaves most of the MAC array idle), POOL and ELEMENTWISE
// process MACs/16 elements a cycle (8 on the U55-128).
//
// It is not Vela's estimator (which models blocks, SHRAM banks and overlap); docs/ethos-u.md lists
// both per model.
#pragma once

#include <cstdint>

#include "ethosu/format/driver_payload.h"
#include "ethosu/format/vela_bin_stream.h"

namespace vkrt::ethosu::virtual_npu {

struct RegionMemoryModel {
  double bytes_per_cycle = 8.0;
  uint32_t latency_cycles = 32;
};

// The memory behind each region (index = base pointer; index kMaxRegions = internal SHRAM).
struct MemoryModel {
  RegionMemoryModel regions[kMaxRegions + 1];
};

MemoryModel default_memory_model(const NpuArch& arch);

// What one operation moved and computed.
struct OperationCost {
  bool is_dma = false;
  bool depthwise = false;
  bool elementwise = false;
  uint64_t macs = 0;      // CONV/DEPTHWISE
  uint64_t elements = 0;  // OFM elements
  // Bytes read and written per region (index kMaxRegions = internal memory).
  uint64_t read_bytes[kMaxRegions + 1] = {};
  uint64_t write_bytes[kMaxRegions + 1] = {};
};

struct OperationCycles {
  uint64_t compute = 0;  // the NPU's own cycles (0 for a DMA), what Vela reports as "NPU cycles"
  uint64_t total = 0;    // with the memory time and latencies
};
OperationCycles operation_cycles(const OperationCost& cost, const NpuArch& arch, const MemoryModel& memory);

}  // namespace vkrt::ethosu::virtual_npu
