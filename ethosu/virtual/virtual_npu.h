// The virtual Ethos-U NPU: runs a U55/U65 command stream functionally on the host CPU.
//
// It walks the stream as the hardware would: register writes update the register file, and each
// operation (OP_CONV, OP_DEPTHWISE, OP_POOL, OP_ELEMENTWISE, OP_DMA_START) runs to completion with
// the registers as they are, reading and writing the regions the driver bound. Every access is
// checked against its region; a malformed stream ends the inference with an error naming the
// command, its byte offset in the stream and what was wrong.
//
// It also counts what a simple performance model needs (MACs, elements, bytes moved) and turns that
// into a cycle estimate (estimate_cycles).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/feature_map.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

// What ran, for the performance model and --profile.
struct RunCounters {
  uint64_t commands = 0;
  uint64_t operations = 0;      // NPU operations (not DMA)
  uint64_t dma_transfers = 0;
  uint64_t dma_bytes = 0;
  uint64_t macs = 0;            // multiply-accumulates of CONV/DEPTHWISE (kernel elements · IFM depth)
  uint64_t ofm_elements = 0;    // elements written by every operation
  uint64_t ifm_bytes = 0;       // feature-map bytes read (IFM and IFM2)
  uint64_t weight_bytes = 0;    // compressed weight and scale stream bytes read
  // The operations' own cycle estimates, summed (see estimate_cycles).
  uint64_t compute_cycles = 0;
};

// The estimate of a run: the larger of compute and memory time per operation, summed.
//   compute: MACs / MACs-per-cycle for convolutions, elements / (MACs per cycle / 8) for the rest
//            (the elementwise and pooling units handle 8 lanes a cycle per 64 MACs);
//   memory:  bytes / 16 per cycle (a 128-bit AXI port), DMA included.
// A first-order model, not Vela's: the comparison is in docs/ethos-u.md.
uint64_t estimate_cycles(const RunCounters& counters, const NpuArch& arch);

struct RunLimits {
  // Work allowed per inference (MACs plus elements), so that a hostile stream cannot keep the
  // host busy for hours: 2^36 is about a minute of host time and far beyond any program Vela
  // compiles for these NPUs.
  uint64_t max_work = uint64_t(1) << 36;
};

// Runs `command_stream` (bare words, as DriverPayload::command_stream) for an NPU of `arch` on
// `memory` (the region table plus internal memory for LUTs, at least arch's SHRAM size).
// U85 streams are refused (NotSupported).
Status run_command_stream(std::span<const uint8_t> command_stream, const NpuArch& arch,
                          NpuMemory& memory, RunCounters* counters,
                          const RunLimits& limits = {});

// The internal memory (SHRAM) size of `arch` in bytes: CONFIG[15:8] KiB.
size_t shram_bytes(const NpuArch& arch);

// One line per command ("0x0040 OFM_SCALE scale=1107638284 shift=50"), for the disassembler in
// tests and for error reports; stops at the first malformed word.
std::string disassemble(std::span<const uint8_t> command_stream);

}  // namespace vkrt::ethosu::virtual_npu
