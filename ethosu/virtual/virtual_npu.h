// The virtual Ethos-U NPU: runs a U55/U65 command stream functionally on the host CPU.
//
// It walks the stream as the hardware would: register writes update the register file, and each
// operation (OP_CONV, OP_DEPTHWISE, OP_POOL, OP_ELEMENTWISE, OP_DMA_START) runs to completion with
// the registers as they are, reading and writing the regions the driver bound. Every access is
// checked against its region; a malformed stream ends the inference with an error naming the
// command, its byte offset in the stream and what was wrong.
//
// It also estimates the cycles the inference takes on the hardware (performance_model.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/feature_map.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

class WeightCache;  // weight_cache.h

// What ran, and the cycle estimate of the performance model (performance_model.h), summed over
// the operations and DMAs.
struct RunCounters {
  uint64_t commands = 0;
  uint64_t operations = 0;      // NPU operations (not DMA)
  uint64_t dma_transfers = 0;
  uint64_t dma_bytes = 0;
  uint64_t macs = 0;            // multiply-accumulates of CONV/DEPTHWISE
  uint64_t ofm_elements = 0;    // elements written by every operation
  uint64_t estimated_cycles = 0;      // total: compute or memory, whichever is longer, plus latencies
  uint64_t estimated_npu_cycles = 0;  // the compute part alone (Vela's "NPU cycles")
};

struct RunLimits {
  // Work allowed per inference (MACs plus elements), so that a hostile stream cannot keep the
  // host busy for hours: 2^36 is about a minute of host time and far beyond any program Vela
  // compiles for these NPUs.
  uint64_t max_work = uint64_t(1) << 36;
};

// Runs `command_stream` (bare words, as DriverPayload::command_stream) for an NPU of `arch` on
// `memory` (the region table plus internal memory for LUTs, at least arch's SHRAM size).
// U85 streams are refused (NotSupported).
// `weight_cache` (may be null) keeps decoded weight streams from one inference to the next.
Status run_command_stream(std::span<const uint8_t> command_stream, const NpuArch& arch,
                          NpuMemory& memory, RunCounters* counters,
                          const RunLimits& limits = {}, WeightCache* weight_cache = nullptr);

// The internal memory (SHRAM) size of `arch` in bytes: CONFIG[15:8] KiB.
size_t shram_bytes(const NpuArch& arch);

// One line per command ("0x0040 OFM_SCALE scale=1107638284 shift=50"), for the disassembler in
// tests and for error reports; stops at the first malformed word.
std::string disassemble(std::span<const uint8_t> command_stream);

}  // namespace vkrt::ethosu::virtual_npu
