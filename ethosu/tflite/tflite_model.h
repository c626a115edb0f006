// A reader of TensorFlow Lite model files (.tflite, the "TFL3" flatbuffer), for the virtual Ethos-U
// NPU's tests and bench: the model's first subgraph as plain structs (tensors with their shapes,
// quantisation and constant data; operators with their codes, tensor indices and options).
//
// Every byte is untrusted: the flatbuffer is verified, every tensor, buffer and operator-code index is
// range-checked, constant data sizes are checked against the tensor shapes, and anything malformed
// gives an InvalidProgram error (NotSupported for valid features vkrt does not read: sparse tensors,
// custom quantisation) naming what was wrong and where.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::ethosu::tflite {

// schema.fbs TensorType.
enum class TensorType : int8_t {
  Float32 = 0,
  Float16 = 1,
  Int32 = 2,
  UInt8 = 3,
  Int64 = 4,
  String = 5,
  Bool = 6,
  Int16 = 7,
  Complex64 = 8,
  Int8 = 9,
  Float64 = 10,
  Complex128 = 11,
  UInt64 = 12,
  Resource = 13,
  Variant = 14,
  UInt32 = 15,
  UInt16 = 16,
  Int4 = 17,
};

// Bytes per element; 0 for types with no fixed element size (String, Resource, Variant, Int4).
size_t element_size(TensorType type);
// "INT8", "UINT8", ... ("TYPE_<n>" for values outside the enum).
const char* tensor_type_name(TensorType type);

// schema.fbs BuiltinOperator: the codes vkrt names (any int32 code can appear in Operator).
enum class BuiltinOperator : int32_t {
  Add = 0,
  AveragePool2d = 1,
  Concatenation = 2,
  Conv2d = 3,
  DepthwiseConv2d = 4,
  Dequantize = 6,
  FullyConnected = 9,
  Logistic = 14,
  MaxPool2d = 17,
  Mul = 18,
  Relu = 19,
  ReluN1To1 = 20,
  Relu6 = 21,
  Reshape = 22,
  ResizeBilinear = 23,
  Softmax = 25,
  Tanh = 28,
  Custom = 32,
  Pad = 34,
  Mean = 40,
  Sub = 41,
  Squeeze = 43,
  StridedSlice = 45,
  Split = 49,
  Maximum = 55,
  Minimum = 57,
  Slice = 65,
  TransposeConv = 67,
  Shape = 77,
  Pack = 83,
  Unpack = 88,
  ResizeNearestNeighbor = 97,
  LeakyRelu = 98,
  Abs = 101,
  SplitV = 102,
  Quantize = 114,
  HardSwish = 117,
};

// "CONV_2D", ... as in schema.fbs ("BUILTIN_<n>" for codes vkrt does not name).
std::string builtin_operator_name(int32_t code);

enum class Padding : uint8_t { Same = 0, Valid = 1 };

// schema.fbs ActivationFunctionType.
enum class Activation : uint8_t { None = 0, Relu = 1, ReluN1To1 = 2, Relu6 = 3, Tanh = 4, SignBit = 5 };

// The builtin options of one operator, flattened: the fields of whichever options table the operator
// carries are set (values as stored, schema defaults where a field is absent); the others keep the
// defaults below. `options_type` is the BuiltinOptions union type (0 = none, or a type vkrt does not read).
struct OperatorOptions {
  uint8_t options_type = 0;
  // Conv2D, DepthwiseConv2D, Pool2D, TransposeConv.
  Padding padding = Padding::Same;
  int32_t stride_w = 0;
  int32_t stride_h = 0;
  int32_t dilation_w = 1;
  int32_t dilation_h = 1;
  int32_t depth_multiplier = 0;
  int32_t filter_w = 0;
  int32_t filter_h = 0;
  // Every options table that has one (conv, pool, fully connected, add, sub, mul, concatenation).
  Activation fused_activation = Activation::None;
  // FullyConnected.
  int8_t weights_format = 0;  // 0 DEFAULT, 1 SHUFFLED4x16INT8
  bool keep_num_dims = false;
  bool asymmetric_quantize_inputs = false;
  // Conv2D, FullyConnected, TransposeConv: 0 (FLOAT32) when unset.
  TensorType quantized_bias_type = TensorType::Float32;
  // Add, Sub.
  bool pot_scale_int16 = true;
  // Concatenation, Pack, Unpack.
  int32_t axis = 0;
  // LeakyRelu.
  float alpha = 0.0f;
  // Softmax.
  float beta = 0.0f;
  // Reducer (Mean).
  bool keep_dims = false;
  // Reshape: new_shape is only meaningful when has_new_shape.
  bool has_new_shape = false;
  std::vector<int32_t> new_shape;
  // Squeeze.
  std::vector<int32_t> squeeze_dims;
  // ResizeBilinear, ResizeNearestNeighbor.
  bool align_corners = false;
  bool half_pixel_centers = false;
  // StridedSlice.
  int32_t begin_mask = 0;
  int32_t end_mask = 0;
  int32_t ellipsis_mask = 0;
  int32_t new_axis_mask = 0;
  int32_t shrink_axis_mask = 0;
  bool offset = false;
  // Split, SplitV.
  int32_t num_splits = 0;
  // Pack.
  int32_t values_count = 0;
  // Unpack.
  int32_t num = 0;
  // Shape.
  TensorType out_type = TensorType::Float32;
};

struct Tensor {
  std::string name;
  TensorType type = TensorType::Float32;
  std::vector<int32_t> shape;        // every entry >= 0 (checked)
  uint32_t buffer = 0;               // index into the model's buffers (0 = none)
  std::span<const uint8_t> data;     // constant data (points into Model::bytes), empty when none;
                                     // not necessarily aligned: read multi-byte values with memcpy
  bool is_variable = false;
  // Quantisation: empty when not quantised; one entry per tensor, or one per slice along
  // quantized_dimension (per-channel). scale and zero_point have the same length (checked).
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;

  size_t element_count() const;
  // element_count() * element_size(type).
  size_t byte_size() const;
  bool is_quantized() const { return !scale.empty(); }
  bool is_constant() const { return !data.empty(); }
};

struct Operator {
  int32_t builtin_code = 0;            // BuiltinOperator value; 32 = CUSTOM
  int32_t version = 1;                 // the operator code's version
  std::string custom_code;             // for CUSTOM (e.g. "ethos-u" in Vela's output)
  std::vector<int32_t> inputs;         // tensor indices; -1 = absent optional input
  std::vector<int32_t> outputs;        // tensor indices
  OperatorOptions options;
  std::span<const uint8_t> custom_options;  // points into Model::bytes

  BuiltinOperator op() const { return static_cast<BuiltinOperator>(builtin_code); }
  bool is(BuiltinOperator o) const { return builtin_code == static_cast<int32_t>(o); }
  // builtin_operator_name(builtin_code), or custom_code for CUSTOM.
  std::string name() const;
};

// A named metadata buffer of the model.
struct Metadata {
  std::string name;
  std::span<const uint8_t> data;  // points into Model::bytes
};

// A model's subgraph 0. The spans in tensors and operators point into `bytes`: a Model is move-only
// (moving the vector keeps its storage, so the spans stay valid).
struct Model {
  std::vector<uint8_t> bytes;
  uint32_t version = 0;  // schema version (3)
  std::string description;
  size_t subgraph_count = 0;
  std::string subgraph_name;
  std::vector<Tensor> tensors;
  std::vector<Operator> operators;
  std::vector<int32_t> inputs;   // tensor indices
  std::vector<int32_t> outputs;  // tensor indices
  std::vector<Metadata> metadata;

  Model() = default;
  Model(Model&&) = default;
  Model& operator=(Model&&) = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
};

// TFLite Micro's "OfflineMemoryAllocation" metadata (written by Vela): the arena offset of each tensor
// of subgraph 0, or -1 where the tensor is not planned offline. Empty when the model has none; an
// error when it is malformed (version, counts, size).
Result<std::vector<int32_t>> offline_memory_offsets(const Model& model);

// Parses and checks a .tflite file held in `bytes` (taken over by the Model).
Result<Model> load_tflite(std::vector<uint8_t> bytes);
// Reads the file, then load_tflite. Errors name the path.
Result<Model> load_tflite_file(const std::string& path);

}  // namespace vkrt::ethosu::tflite
