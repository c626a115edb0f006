// The virtual NPU's operations: each runs one OP_* command to completion with the registers as
// they are (virtual_npu.cpp walks the stream and calls these).
#pragma once

#include <cstdint>

#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/feature_map.h"
#include "ethosu/virtual/npu_registers.h"
#include "ethosu/virtual/performance_model.h"
#include "ethosu/virtual/weight_cache.h"
#include "ethosu/virtual/virtual_npu.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

struct OperationContext {
  const RegisterFile& regs;
  const NpuMemory& memory;
  const NpuArch& arch;
  RunCounters& counters;
  const MemoryModel& memory_model;
  WeightCache* weight_cache;  // may be null: weights are then decoded at every operation
  uint64_t& work_left;  // RunLimits::max_work minus what ran so far
};

// Takes `work` from the budget, or an error saying the stream asks for more than the limit.
Status charge_work(const OperationContext& ctx, uint64_t work, const char* what);

// OP_CONV (also the vector product of fully connected layers) and OP_DEPTHWISE.
Status run_convolution(const OperationContext& ctx, bool depthwise);
// OP_POOL: max, average, reduce-sum.
Status run_pooling(const OperationContext& ctx, PoolOp op);
// OP_ELEMENTWISE.
Status run_elementwise(const OperationContext& ctx, ElementwiseOp op);

}  // namespace vkrt::ethosu::virtual_npu
