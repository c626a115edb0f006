// THE CONTRACT between graph readers and BOTH executors (vgf/cpu and vgf/vulkan): a TOSA 1.0
// graph as one segment of a VGF file (or a .tosa file) describes it. Keep it stable; change it
// only together with both executors.
//
// Model:
//  * Tensors are numbered (TensorId = index into Graph::tensors). Each has a TOSA element type,
//    a shape (outermost first; kDynamicDim for a dimension unknown until execute; `ranked` false
//    when even the rank is unknown) and, for constants, its bytes (packed little-endian elements,
//    row-major; see dtype_storage_bytes for the width of each element).
//  * Ops are in program order (a valid topological order). `inputs` are the *tensor* operands in
//    TOSA order (see the table under OpKind); operands that TOSA requires to be compile-time
//    constants (zero points, RESCALE multiplier/shift, TABLE table, PAD padding/pad_const,
//    RESHAPE shape, SLICE start/size, TILE multiples, RESIZE scale/offset/border, MUL shift,
//    CLAMP bounds) are folded by the readers into the op's typed attribute struct, already
//    sign-extended (vgf-format.md §6.3), so executors never look at them as tensors.
//  * Graph inputs/outputs are bound to the VGF resources they came from (descriptor binding and
//    model-resource-table index) and, for the backend, to positions in the delegate call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cpu_fallback/tosa/vocabulary.h"
#include "vkrt/error.h"
#include "vkrt/scalar_type.h"

namespace vkrt::vgf {

// The TOSA vocabulary (element types, modes, integer ranges) is shared with the CPU kernels:
// one definition in cpu_fallback/tosa/vocabulary.h, re-exported here.
using tosa::AccType;
using tosa::DType;
using tosa::NanMode;
using tosa::ResizeMode;
using tosa::RoundingMode;
using tosa::type_max;
using tosa::type_min;

// Bytes per stored element (Bool 1, Int4 1, Int48 8, Shape 8, ...); 0 for Unknown/invalid.
size_t dtype_storage_bytes(DType t);
using tosa::dtype_name;  // "int8", "fp32", ... (vocabulary.h)
bool dtype_is_float(DType t);  // Fp32, Fp16, Bf16, Fp8*
// The runtime ScalarType a host buffer of this TOSA type has (Int8 -> Char, Int48 -> Long,
// Int4 -> Char, Fp32 -> Float, Bool -> Bool, ...).
ScalarType dtype_to_scalar_type(DType t);

// A dimension not known until execute (the VGF resource table's INT64_MIN, vgf-format.md §4).
inline constexpr int64_t kDynamicDim = std::numeric_limits<int64_t>::min();

// TOSA 1.0 operators, numbered as the TOSA.001000.1 SPIR-V extended instruction set
// (= .tosa serialization `Op` value − 1). Tensor inputs (Op::inputs) per op, in order:
//   ARGMAX: input                      AVG_POOL2D: input           MAX_POOL2D: input
//   CONV2D/CONV3D/DEPTHWISE_CONV2D/TRANSPOSE_CONV2D: input, weight, bias
//   FFT2D: input_real, input_imag (2 outputs)   RFFT2D: input_real (2 outputs)
//   MATMUL: A, B                       CLAMP/ERF/SIGMOID/TANH/unary ops/CAST/RESCALE: input
//   binary elementwise ops (incl. MUL, comparisons): input1, input2
//   TABLE: input                       NEGATE: input    SELECT: condition, on_true, on_false
//   REDUCE_*: input   CONCAT: input1..inputN   PAD/RESHAPE/REVERSE/SLICE/TILE/TRANSPOSE: input
//   GATHER: values, indices            SCATTER: values_in, indices, input    RESIZE: input
// Every op has exactly one output except FFT2D/RFFT2D (real, imaginary).
enum class OpKind : uint16_t {
  ARGMAX = 0,
  AVG_POOL2D = 1,
  CONV2D = 2,
  CONV3D = 3,
  DEPTHWISE_CONV2D = 4,
  FFT2D = 5,
  MATMUL = 6,
  MAX_POOL2D = 7,
  RFFT2D = 8,
  TRANSPOSE_CONV2D = 9,
  CLAMP = 10,
  ERF = 11,
  SIGMOID = 12,
  TANH = 13,
  ADD = 14,
  ARITHMETIC_RIGHT_SHIFT = 15,
  BITWISE_AND = 16,
  BITWISE_OR = 17,
  BITWISE_XOR = 18,
  INTDIV = 19,
  LOGICAL_AND = 20,
  LOGICAL_LEFT_SHIFT = 21,
  LOGICAL_RIGHT_SHIFT = 22,
  LOGICAL_OR = 23,
  LOGICAL_XOR = 24,
  MAXIMUM = 25,
  MINIMUM = 26,
  MUL = 27,
  POW = 28,
  SUB = 29,
  TABLE = 30,
  ABS = 31,
  BITWISE_NOT = 32,
  CEIL = 33,
  CLZ = 34,
  COS = 35,
  EXP = 36,
  FLOOR = 37,
  LOG = 38,
  LOGICAL_NOT = 39,
  NEGATE = 40,
  RECIPROCAL = 41,
  RSQRT = 42,
  SIN = 43,
  SELECT = 44,
  EQUAL = 45,
  GREATER = 46,
  GREATER_EQUAL = 47,
  REDUCE_ALL = 48,
  REDUCE_ANY = 49,
  REDUCE_MAX = 50,
  REDUCE_MIN = 51,
  REDUCE_PRODUCT = 52,
  REDUCE_SUM = 53,
  CONCAT = 54,
  PAD = 55,
  RESHAPE = 56,
  REVERSE = 57,
  SLICE = 58,
  TILE = 59,
  TRANSPOSE = 60,
  GATHER = 61,
  SCATTER = 62,
  RESIZE = 63,
  CAST = 64,
  RESCALE = 65,
};
inline constexpr int kOpKindCount = 66;

// "CONV2D", "RESCALE", ... ; "UNKNOWN_OP" outside the enum.
const char* op_name(OpKind op);
bool is_valid_op_kind(uint32_t value);

// ---- Attributes: one struct per op family. Zero points are sign-extended values. ----
// All compare with == (tests compare graphs after a write/read round trip).

struct NoAttr {
  bool operator==(const NoAttr&) const = default;
};

// Shared with the CPU kernels, which take them as they are (cpu_fallback/tosa/vocabulary.h).
using tosa::ArgmaxAttr;
using tosa::AxisAttr;
using tosa::ClampAttr;
using tosa::ConvAttr;
using tosa::FftAttr;
using tosa::MatmulAttr;
using tosa::MulAttr;
using tosa::NegateAttr;
using tosa::PadAttr;
using tosa::PoolAttr;
using tosa::RescaleAttr;
using tosa::ResizeAttr;
using tosa::SliceAttr;
using tosa::TileAttr;
using tosa::TransposeAttr;
using tosa::TransposeConvAttr;

// IR-only attributes: the CPU executor turns the first two into the binary kernel's
// BinaryAttrs and TABLE's values into a table tensor; RESHAPE's shape is the output's.

// ARITHMETIC_RIGHT_SHIFT.
struct ShiftAttr {
  bool round = false;
  bool operator==(const ShiftAttr&) const = default;
};

// MAXIMUM, MINIMUM.
struct NanModeAttr {
  NanMode nan_mode = NanMode::Propagate;
  bool operator==(const NanModeAttr&) const = default;
};

// TABLE: 256 entries for int8 input (values are int8), 513 for int16 input.
struct TableAttr {
  std::vector<int16_t> table;
  bool operator==(const TableAttr&) const = default;
};

struct ReshapeAttr {
  // Output shape. One entry may be -1 (inferred from the element count), which dynamic
  // graphs need because their RESHAPE shapes are not all known ahead of execute.
  std::vector<int64_t> shape;
  bool operator==(const ReshapeAttr&) const = default;
};

using OpAttributes = std::variant<NoAttr, ArgmaxAttr, PoolAttr, ConvAttr, TransposeConvAttr,
                                  MatmulAttr, FftAttr, ClampAttr, ShiftAttr, NanModeAttr, MulAttr,
                                  TableAttr, NegateAttr, AxisAttr, PadAttr, ReshapeAttr, SliceAttr,
                                  TileAttr, TransposeAttr, ResizeAttr, RescaleAttr>;

using TensorId = uint32_t;
inline constexpr TensorId kNoTensor = std::numeric_limits<TensorId>::max();

struct TensorInfo {
  std::string name;  // debug name ("%42", the .tosa name, ...)
  DType dtype = DType::Unknown;
  bool ranked = true;
  std::vector<int64_t> shape;  // entries may be kDynamicDim; meaningless when !ranked
  // Constant tensors: their bytes. `external` points into the file the graph was read from
  // (kept alive by whoever owns the Graph: the delegate keeps the payload mapped); `owned` is
  // used when the reader had to build the bytes (SPIR-V composites, sign extension).
  bool is_constant = false;
  std::span<const uint8_t> external;
  std::vector<uint8_t> owned;

  std::span<const uint8_t> constant_bytes() const {
    return owned.empty() ? external : std::span<const uint8_t>(owned);
  }
  // True when ranked and no dimension is kDynamicDim.
  bool is_static() const;
  // Product of dims; -1 when not static or on overflow.
  int64_t element_count() const;
};

struct Op {
  OpKind kind = OpKind::ADD;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  OpAttributes attr;
  std::string debug_name;  // result id or .tosa output name, for error messages
};

// One graph input or output and where the data comes from / goes to.
struct GraphIO {
  TensorId tensor = kNoTensor;
  std::string name;
  uint32_t binding = 0;    // descriptor binding (SPIR-V Binding decoration / VGF BindingSlot)
  uint32_t mrt_index = 0;  // VGF model-resource-table index (0 when not from a VGF)
};

struct Graph {
  std::string name;  // entry-point name ("graph_partition_0") or .tosa block name
  std::vector<TensorInfo> tensors;
  std::vector<Op> ops;
  std::vector<GraphIO> inputs;   // in graph input order (InputIndex)
  std::vector<GraphIO> outputs;  // in graph output order (OutputIndex)

  TensorId add_tensor(TensorInfo info) {
    tensors.push_back(std::move(info));
    return TensorId(tensors.size() - 1);
  }
  // Appends an op with one output (the graph builders' common case); debug_name is
  // "<KIND>_<op index>", which error messages show.
  Op& add_op(OpKind kind, std::vector<TensorId> op_inputs, TensorId output, OpAttributes attr = NoAttr{}) {
    Op& op = ops.emplace_back();
    op.kind = kind;
    op.inputs = std::move(op_inputs);
    op.outputs = {output};
    op.attr = std::move(attr);
    op.debug_name = std::string(op_name(kind)) + "_" + std::to_string(ops.size() - 1);
    return op;
  }
  const TensorInfo& tensor(TensorId id) const { return tensors[id]; }
};

// Structural checks every executor relies on: tensor ids in range, every non-constant tensor
// read by an op is a graph input or produced by an earlier op, each tensor produced once,
// per-op operand counts and attribute variants as documented above, constants' byte sizes
// match their shapes, and each op's ERROR_IF rules from its descriptor (vgf/ir/op_descriptor.h).
// Every reader calls it, so both executors see only graphs that pass. Error messages name the
// op index and kind.
Status validate_graph(const Graph& graph);

// Expected number of tensor inputs for an op (-1 = variadic, at least 1).
int expected_input_count(OpKind op);
int expected_output_count(OpKind op);

}  // namespace vkrt::vgf
