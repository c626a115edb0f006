#include "vgf/ir/graph.h"

#include "vgf/ir/op_descriptor.h"

#include <string>

namespace vkrt::vgf {

size_t dtype_storage_bytes(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int4:
    case DType::Int8:
    case DType::Fp8E4M3:
    case DType::Fp8E5M2:
      return 1;
    case DType::Int16:
    case DType::Fp16:
    case DType::Bf16:
      return 2;
    case DType::Int32:
    case DType::Fp32:
      return 4;
    case DType::Int48:
    case DType::Shape:
      return 8;
    case DType::Unknown:
      break;
  }
  return 0;
}

bool dtype_is_float(DType t) {
  return t == DType::Fp32 || t == DType::Fp16 || t == DType::Bf16 || t == DType::Fp8E4M3 ||
         t == DType::Fp8E5M2;
}

ScalarType dtype_to_scalar_type(DType t) {
  switch (t) {
    case DType::Bool: return ScalarType::Bool;
    case DType::Int4:
    case DType::Int8: return ScalarType::Char;
    case DType::Int16: return ScalarType::Short;
    case DType::Int32: return ScalarType::Int;
    case DType::Int48:
    case DType::Shape: return ScalarType::Long;
    case DType::Fp32: return ScalarType::Float;
    case DType::Fp16: return ScalarType::Half;
    case DType::Bf16: return ScalarType::BFloat16;
    case DType::Fp8E4M3: return ScalarType::Float8_e4m3fn;
    case DType::Fp8E5M2: return ScalarType::Float8_e5m2;
    case DType::Unknown: break;
  }
  return ScalarType::Byte;
}

bool TensorInfo::is_static() const {
  if (!ranked) return false;
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

int64_t TensorInfo::element_count() const {
  if (!is_static()) return -1;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

Status validate_graph(const Graph& graph) {
  const size_t tensor_count = graph.tensors.size();
  // producer[t]: 0 = none yet, 1 = graph input or constant, 2 = op output.
  std::vector<uint8_t> available(tensor_count, 0);
  for (size_t t = 0; t < tensor_count; ++t) {
    const TensorInfo& info = graph.tensors[t];
    if (info.is_constant) {
      int64_t n = info.element_count();
      VKRT_CHECK_OR_RETURN(n >= 0, InvalidProgram, "tensor ", t, " (", info.name,
                           "): constant without a static shape");
      size_t width = dtype_storage_bytes(info.dtype);
      VKRT_CHECK_OR_RETURN(width != 0, InvalidProgram, "tensor ", t, " (", info.name,
                           "): constant of unsupported type ", dtype_name(info.dtype));
      VKRT_CHECK_OR_RETURN(info.constant_bytes().size() == size_t(n) * width, InvalidProgram,
                           "tensor ", t, " (", info.name, "): constant holds ",
                           info.constant_bytes().size(), " bytes, shape needs ",
                           size_t(n) * width);
      available[t] = 1;
    }
  }
  auto check_io = [&](const std::vector<GraphIO>& ios, const char* what) -> Status {
    for (size_t i = 0; i < ios.size(); ++i) {
      VKRT_CHECK_OR_RETURN(ios[i].tensor < tensor_count, InvalidProgram, "graph ", what, " ", i,
                           ": tensor id ", ios[i].tensor, " out of range (", tensor_count,
                           " tensors)");
    }
    return Status::ok();
  };
  VKRT_RETURN_IF_ERROR(check_io(graph.inputs, "input"));
  VKRT_RETURN_IF_ERROR(check_io(graph.outputs, "output"));
  for (const GraphIO& in : graph.inputs) {
    VKRT_CHECK_OR_RETURN(!graph.tensors[in.tensor].is_constant, InvalidProgram, "graph input ",
                         in.name, " is a constant tensor");
    available[in.tensor] = 1;
  }
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    VKRT_CHECK_OR_RETURN(is_valid_op_kind(uint32_t(op.kind)), InvalidProgram, "op ", i,
                         ": invalid op kind ", uint32_t(op.kind));
    const char* name = op_name(op.kind);
    int want_in = expected_input_count(op.kind);
    if (want_in < 0) {
      VKRT_CHECK_OR_RETURN(!op.inputs.empty(), InvalidProgram, "op ", i, " (", name,
                           "): needs at least one input");
    } else {
      VKRT_CHECK_OR_RETURN(op.inputs.size() == size_t(want_in), InvalidProgram, "op ", i, " (",
                           name, "): expected ", want_in, " tensor inputs, got ",
                           op.inputs.size());
    }
    VKRT_CHECK_OR_RETURN(op.outputs.size() == size_t(expected_output_count(op.kind)),
                         InvalidProgram, "op ", i, " (", name, "): expected ",
                         expected_output_count(op.kind), " outputs, got ", op.outputs.size());
    const OpDescriptor& descriptor = op_descriptor(op.kind);
    VKRT_CHECK_OR_RETURN(op.attr.index() == descriptor.attributes, InvalidProgram, "op ", i, " (", name,
                         "): wrong attribute kind");
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      TensorId t = op.inputs[k];
      VKRT_CHECK_OR_RETURN(t < tensor_count, InvalidProgram, "op ", i, " (", name, "): input ",
                           k, " tensor id ", t, " out of range");
      VKRT_CHECK_OR_RETURN(available[t] != 0, InvalidProgram, "op ", i, " (", name, "): input ",
                           k, " (", graph.tensors[t].name,
                           ") is used before it is produced");
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      TensorId t = op.outputs[k];
      VKRT_CHECK_OR_RETURN(t < tensor_count, InvalidProgram, "op ", i, " (", name, "): output ",
                           k, " tensor id ", t, " out of range");
      VKRT_CHECK_OR_RETURN(available[t] == 0, InvalidProgram, "op ", i, " (", name, "): output ",
                           k, " (", graph.tensors[t].name, ") is already defined");
      VKRT_CHECK_OR_RETURN(graph.tensors[t].dtype != DType::Unknown, InvalidProgram, "op ", i,
                           " (", name, "): output ", k, " has no element type");
      available[t] = 2;
    }
    if (descriptor.check != nullptr) {
      VKRT_RETURN_IF_ERROR(descriptor.check(OpContext{graph, op, i}));
    }
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    VKRT_CHECK_OR_RETURN(available[graph.outputs[i].tensor] != 0, InvalidProgram,
                         "graph output ", i, " (", graph.outputs[i].name,
                         ") is never produced");
  }
  return Status::ok();
}

}  // namespace vkrt::vgf
