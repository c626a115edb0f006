// Reads a TOSA 1.0 FlatBuffers file (.tosa, identifier "TOSA", tosa.md §3) into the graph IR, so
// TOSA test vectors run through the same executors as VGF graphs.
//
// The "main" region's "main" block (else the first) becomes the graph: block inputs/outputs
// become graph I/O (binding = position), CONST/CONST_SHAPE outputs become constants (folded into
// op attributes where TOSA requires compile-time operands), IDENTITY is elided, and every other
// op maps to OpKind = Op - 1 with its attributes converted (acc_type from DType numbers to
// AccType). Control flow, variables and CUSTOM give NotSupported naming the op.
#pragma once

#include <cstdint>
#include <span>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

// Constant tensors reference `bytes` when aligned (keep it alive with the Graph), else copy.
Result<Graph> read_tosa_graph(std::span<const uint8_t> bytes);

}  // namespace vkrt::vgf
