// Moving delegate inputs and outputs between tensors and the NPU regions (ExecuTorch
// EthosUBackend.cpp semantics, docs/ethos-u.md §3.1). No allocation: these run on execute.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ethosu/format/vela_bin_stream.h"
#include "vkrt/tensor.h"

namespace vkrt::ethosu {

// How a tensor's bytes map onto a Vela descriptor.
enum class IoMapping : uint8_t {
  Direct,          // same bytes in the same order
  NchwToNhwc,      // ≤ v0.7 4-D int8/bool I/O: the tensor is NCHW, Vela's buffer NHWC
  RowPadded,       // output rows padded by Vela: copy `chunk` of every `vela_chunk` bytes
  Unpack4Bit,      // int8 output packed two 4-bit values per byte (low nibble first)
};

// Checks a tensor against its descriptor (dtype/element size pair Int/4, Char/1, Byte/1, Short/2,
// Bool/1; element count; default dim order) and says how to copy. `what` names it ("input[1]").
// Outputs may differ in size from the descriptor (row padding, 4-bit packing); inputs may not.
Result<IoMapping> plan_io(const VelaIo& io, const Tensor& tensor, bool is_output, std::string_view what);

// Copies a tensor into `region` (the region's bytes) at io.offset.
void copy_input(const VelaIo& io, IoMapping mapping, const Tensor& tensor, std::span<uint8_t> region);
// Copies io's bytes from `region` into the tensor.
void copy_output(const VelaIo& io, IoMapping mapping, std::span<const uint8_t> region, Tensor& tensor);

}  // namespace vkrt::ethosu
