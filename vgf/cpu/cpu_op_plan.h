// Private to vgf/cpu: one IR op translated into the TOSA kernels' parameter structs, and the
// call that runs (or only checks) it.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vgf/ir/graph.h"

namespace vkrt::vgf::cpu {

struct PlannedOp {
  OpKind kind = OpKind::ADD;
  std::variant<std::monostate, tosa::Conv2dAttrs, tosa::TransposeConv2dAttrs, tosa::MatmulAttrs,
               tosa::AvgPool2dAttrs, tosa::MaxPool2dAttrs, tosa::BinaryAttrs, tosa::MulAttrs,
               tosa::NegateAttrs, tosa::ClampAttrs, tosa::RescaleAttrs, tosa::ConcatAttrs,
               tosa::PadAttrs, tosa::SliceAttrs, tosa::TileAttrs, tosa::TransposeAttrs,
               tosa::ReverseAttrs, tosa::ResizeAttrs, tosa::ArgmaxAttrs, tosa::ReduceAttrs>
      attrs;
  // Storage the attrs point into (RESCALE spans) and the TABLE operand.
  std::vector<int32_t> multiplier;
  std::vector<int32_t> shift;
  std::vector<uint8_t> table_bytes;
  int64_t table_len = 0;
  tosa::DType table_dtype = tosa::DType::Unknown;

  PlannedOp() = default;
  PlannedOp(const PlannedOp&) = delete;  // RescaleAttrs spans point into this object
  PlannedOp& operator=(const PlannedOp&) = delete;
  PlannedOp(PlannedOp&&) = delete;
  PlannedOp& operator=(PlannedOp&&) = delete;
};

// Fills `plan` from `op` (NotSupported naming the op for ops the CPU kernels lack).
Status plan_op(const Graph& graph, const Op& op, PlannedOp& plan);

// Runs the kernel (check_only: only its check_<op>()). `inputs`/`outputs` follow the IR order.
// `parallel` (may be null) is offered to the kernels that split their work over threads.
Status call_kernel(const PlannedOp& plan, std::span<const tosa::TensorRef> inputs,
                   std::span<const tosa::TensorRef> outputs, bool check_only,
                   const tosa::Parallel* parallel = nullptr);

}  // namespace vkrt::vgf::cpu
