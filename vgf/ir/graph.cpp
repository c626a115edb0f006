#include "vgf/ir/graph.h"

#include "vgf/ir/attribute_rules.h"

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

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int4: return "int4";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int48: return "int48";
    case DType::Fp32: return "fp32";
    case DType::Fp16: return "fp16";
    case DType::Bf16: return "bf16";
    case DType::Shape: return "shape";
    case DType::Fp8E4M3: return "fp8e4m3";
    case DType::Fp8E5M2: return "fp8e5m2";
    case DType::Unknown: break;
  }
  return "unknown";
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

namespace {
constexpr const char* kOpNames[kOpKindCount] = {
    "ARGMAX", "AVG_POOL2D", "CONV2D", "CONV3D", "DEPTHWISE_CONV2D", "FFT2D", "MATMUL",
    "MAX_POOL2D", "RFFT2D", "TRANSPOSE_CONV2D", "CLAMP", "ERF", "SIGMOID", "TANH", "ADD",
    "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV",
    "LOGICAL_AND", "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR",
    "MAXIMUM", "MINIMUM", "MUL", "POW", "SUB", "TABLE", "ABS", "BITWISE_NOT", "CEIL", "CLZ", "COS",
    "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "NEGATE", "RECIPROCAL", "RSQRT", "SIN", "SELECT",
    "EQUAL", "GREATER", "GREATER_EQUAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN",
    "REDUCE_PRODUCT", "REDUCE_SUM", "CONCAT", "PAD", "RESHAPE", "REVERSE", "SLICE", "TILE",
    "TRANSPOSE", "GATHER", "SCATTER", "RESIZE", "CAST", "RESCALE"};

// Which attribute alternative each op carries (index into OpAttributes).
template <typename T>
constexpr size_t attr_index() {
  OpAttributes v = T{};
  return v.index();
}
}  // namespace

const char* op_name(OpKind op) {
  auto i = uint32_t(op);
  return i < uint32_t(kOpKindCount) ? kOpNames[i] : "UNKNOWN_OP";
}

bool is_valid_op_kind(uint32_t value) { return value < uint32_t(kOpKindCount); }

int expected_input_count(OpKind op) {
  switch (op) {
    case OpKind::CONV2D:
    case OpKind::CONV3D:
    case OpKind::DEPTHWISE_CONV2D:
    case OpKind::TRANSPOSE_CONV2D:
    case OpKind::SELECT:
    case OpKind::SCATTER:
      return 3;
    case OpKind::FFT2D:
    case OpKind::MATMUL:
    case OpKind::ADD:
    case OpKind::ARITHMETIC_RIGHT_SHIFT:
    case OpKind::BITWISE_AND:
    case OpKind::BITWISE_OR:
    case OpKind::BITWISE_XOR:
    case OpKind::INTDIV:
    case OpKind::LOGICAL_AND:
    case OpKind::LOGICAL_LEFT_SHIFT:
    case OpKind::LOGICAL_RIGHT_SHIFT:
    case OpKind::LOGICAL_OR:
    case OpKind::LOGICAL_XOR:
    case OpKind::MAXIMUM:
    case OpKind::MINIMUM:
    case OpKind::MUL:
    case OpKind::POW:
    case OpKind::SUB:
    case OpKind::EQUAL:
    case OpKind::GREATER:
    case OpKind::GREATER_EQUAL:
    case OpKind::GATHER:
      return 2;
    case OpKind::CONCAT:
      return -1;
    default:
      return 1;
  }
}

int expected_output_count(OpKind op) {
  return (op == OpKind::FFT2D || op == OpKind::RFFT2D) ? 2 : 1;
}

// The attribute struct each op must carry.
static size_t expected_attr_index(OpKind op) {
  switch (op) {
    case OpKind::ARGMAX: return attr_index<ArgmaxAttr>();
    case OpKind::AVG_POOL2D:
    case OpKind::MAX_POOL2D: return attr_index<PoolAttr>();
    case OpKind::CONV2D:
    case OpKind::CONV3D:
    case OpKind::DEPTHWISE_CONV2D: return attr_index<ConvAttr>();
    case OpKind::TRANSPOSE_CONV2D: return attr_index<TransposeConvAttr>();
    case OpKind::MATMUL: return attr_index<MatmulAttr>();
    case OpKind::FFT2D:
    case OpKind::RFFT2D: return attr_index<FftAttr>();
    case OpKind::CLAMP: return attr_index<ClampAttr>();
    case OpKind::ARITHMETIC_RIGHT_SHIFT: return attr_index<ShiftAttr>();
    case OpKind::MAXIMUM:
    case OpKind::MINIMUM: return attr_index<NanModeAttr>();
    case OpKind::MUL: return attr_index<MulAttr>();
    case OpKind::TABLE: return attr_index<TableAttr>();
    case OpKind::NEGATE: return attr_index<NegateAttr>();
    case OpKind::REDUCE_ALL:
    case OpKind::REDUCE_ANY:
    case OpKind::REDUCE_MAX:
    case OpKind::REDUCE_MIN:
    case OpKind::REDUCE_PRODUCT:
    case OpKind::REDUCE_SUM:
    case OpKind::CONCAT:
    case OpKind::REVERSE: return attr_index<AxisAttr>();
    case OpKind::PAD: return attr_index<PadAttr>();
    case OpKind::RESHAPE: return attr_index<ReshapeAttr>();
    case OpKind::SLICE: return attr_index<SliceAttr>();
    case OpKind::TILE: return attr_index<TileAttr>();
    case OpKind::TRANSPOSE: return attr_index<TransposeAttr>();
    case OpKind::RESIZE: return attr_index<ResizeAttr>();
    case OpKind::RESCALE: return attr_index<RescaleAttr>();
    default: return attr_index<NoAttr>();
  }
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
    VKRT_CHECK_OR_RETURN(op.attr.index() == expected_attr_index(op.kind), InvalidProgram, "op ",
                         i, " (", name, "): wrong attribute kind");
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
    VKRT_RETURN_IF_ERROR(check_op_attributes(graph, i));
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    VKRT_CHECK_OR_RETURN(available[graph.outputs[i].tensor] != 0, InvalidProgram,
                         "graph output ", i, " (", graph.outputs[i].name,
                         ") is never produced");
  }
  return Status::ok();
}

}  // namespace vkrt::vgf
