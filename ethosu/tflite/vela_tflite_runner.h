// Runs a Vela-compiled .tflite file (its "ethos-u" custom operator) on the virtual NPU, as TFLite
// Micro's Ethos-U kernel would hand it to the NPU: base pointer 0 = the operator's "flash" tensor
// (weights, biases, LUTs), 1 = the scratch tensor, 2 = the fast scratch tensor; the IFMs and OFMs
// live inside the scratch tensor at the arena offsets Vela planned ("OfflineMemoryAllocation").
//
// For the virtual NPU's tests and bench: the same command streams an ExecuTorch program carries,
// from files Vela wrote (../shared/conformance/ethos-u/).
#pragma once

#include <cstdint>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "ethosu/tflite/tflite_model.h"
#include "ethosu/virtual/virtual_npu.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::tflite {

// The pieces of a Vela model the NPU needs, checked: one "ethos-u" operator and nothing else.
struct VelaNpuProgram {
  DriverPayload payload;                 // command_stream points into the model's bytes
  std::vector<uint8_t> flash;            // region 0
  size_t scratch_bytes = 0;              // region 1
  size_t fast_scratch_bytes = 0;         // region 2
  std::vector<int32_t> input_tensors;    // the operator's IFM tensors (= the model's inputs)
  std::vector<int32_t> output_tensors;   // its OFM tensors (= the model's outputs)
  std::vector<size_t> input_offsets;     // where each lives in the scratch region
  std::vector<size_t> output_offsets;
};

// NotSupported when the model has operators besides the one "ethos-u" operator (the parts Vela
// left on the CPU); InvalidProgram for a malformed payload or offsets outside the scratch tensor.
// The inputs and outputs are in the model's order.
Result<VelaNpuProgram> read_vela_npu_program(const Model& model);

// One "ethos-u" operator of a model that has CPU operators too (operators[op_index]); the inputs and
// outputs are the operator's IFMs and OFMs in its order.
Result<VelaNpuProgram> read_vela_npu_operator(const Model& model, size_t op_index);

// Runs it once: inputs[i] are the bytes of tensor program.input_tensors[i]; returns the bytes of
// program.output_tensors.
// `weight_cache` (may be null) keeps the decoded weights for the next run.
Result<std::vector<std::vector<uint8_t>>> run_vela_npu_program(const Model& model, const VelaNpuProgram& program,
                                                               const std::vector<std::vector<uint8_t>>& inputs,
                                                               virtual_npu::RunCounters* counters = nullptr,
                                                               virtual_npu::WeightCache* weight_cache = nullptr);

}  // namespace vkrt::ethosu::tflite
