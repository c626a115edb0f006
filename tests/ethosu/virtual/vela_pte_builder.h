// ExecuTorch programs built from Vela-compiled .tflite files, the way ExecuTorch's Arm exporter packs a
// Vela command stream (backends/arm/arm_vela.py): one method "forward" whose inputs are the Vela
// operator's IFMs, one EthosUBackend delegate call whose payload is a vela_bin_stream (cmd_data = the
// operator's COP1 payload, weight_data = its "flash" tensor, scratch_size = its scratch tensor's size,
// each input/output described at the scratch-region offset Vela planned), and the OFMs as outputs.
//
// For the virtual NPU's tests: the same streams run through a .pte, the Module API and executor_runner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ethosu/tflite/tflite_model.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::testing {

struct VelaPte {
  std::vector<uint8_t> pte;          // the program
  size_t scratch_bytes = 0;          // region 1: the vela_bin_stream's scratch_size
  size_t fast_scratch_bytes = 0;     // the Vela model's fast-scratch tensor size (region 2)
  bool uses_fast_scratch = false;    // the command stream selects region 2: needs
                                     // EthosUBackend.fast_scratch_size >= fast_scratch_bytes
  std::vector<int32_t> input_offsets;   // each program input's offset in region 1
  std::vector<int32_t> output_offsets;  // each program output's offset in region 1
};

// NotSupported for models read_vela_npu_program refuses (operators left on the CPU) and for IFM/OFM
// types the EthosUBackend cannot carry (anything but int8, uint8, int16, int32).
Result<VelaPte> vela_tflite_to_pte(const tflite::Model& vela);

}  // namespace vkrt::ethosu::testing
