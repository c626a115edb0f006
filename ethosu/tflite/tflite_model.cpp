#include "ethosu/tflite/tflite_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "tflite_schema_generated.h"

namespace vkrt::ethosu::tflite {

namespace fb = ::vkrt_tflite_fb;

namespace {

// Tensors larger than this are rejected (keeps every element index and byte offset in int32 range
// for the reference kernels, and far above anything the conformance models hold).
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 31;
constexpr uint32_t kSchemaVersion = 3;

struct NamedCode {
  int32_t code;
  const char* name;
};

constexpr NamedCode kOperatorNames[] = {
    {0, "ADD"},
    {1, "AVERAGE_POOL_2D"},
    {2, "CONCATENATION"},
    {3, "CONV_2D"},
    {4, "DEPTHWISE_CONV_2D"},
    {5, "DEPTH_TO_SPACE"},
    {6, "DEQUANTIZE"},
    {7, "EMBEDDING_LOOKUP"},
    {8, "FLOOR"},
    {9, "FULLY_CONNECTED"},
    {10, "HASHTABLE_LOOKUP"},
    {11, "L2_NORMALIZATION"},
    {12, "L2_POOL_2D"},
    {13, "LOCAL_RESPONSE_NORMALIZATION"},
    {14, "LOGISTIC"},
    {15, "LSH_PROJECTION"},
    {16, "LSTM"},
    {17, "MAX_POOL_2D"},
    {18, "MUL"},
    {19, "RELU"},
    {20, "RELU_N1_TO_1"},
    {21, "RELU6"},
    {22, "RESHAPE"},
    {23, "RESIZE_BILINEAR"},
    {24, "RNN"},
    {25, "SOFTMAX"},
    {26, "SPACE_TO_DEPTH"},
    {27, "SVDF"},
    {28, "TANH"},
    {32, "CUSTOM"},
    {34, "PAD"},
    {36, "GATHER"},
    {37, "BATCH_TO_SPACE_ND"},
    {38, "SPACE_TO_BATCH_ND"},
    {39, "TRANSPOSE"},
    {40, "MEAN"},
    {41, "SUB"},
    {42, "DIV"},
    {43, "SQUEEZE"},
    {45, "STRIDED_SLICE"},
    {47, "EXP"},
    {49, "SPLIT"},
    {50, "LOG_SOFTMAX"},
    {53, "CAST"},
    {54, "PRELU"},
    {55, "MAXIMUM"},
    {56, "ARG_MAX"},
    {57, "MINIMUM"},
    {59, "NEG"},
    {60, "PADV2"},
    {65, "SLICE"},
    {67, "TRANSPOSE_CONV"},
    {70, "EXPAND_DIMS"},
    {74, "SUM"},
    {75, "SQRT"},
    {76, "RSQRT"},
    {77, "SHAPE"},
    {82, "REDUCE_MAX"},
    {83, "PACK"},
    {88, "UNPACK"},
    {89, "REDUCE_MIN"},
    {92, "SQUARE"},
    {97, "RESIZE_NEAREST_NEIGHBOR"},
    {98, "LEAKY_RELU"},
    {99, "SQUARED_DIFFERENCE"},
    {100, "MIRROR_PAD"},
    {101, "ABS"},
    {102, "SPLIT_V"},
    {111, "ELU"},
    {114, "QUANTIZE"},
    {117, "HARD_SWISH"},
    {126, "BATCH_MATMUL"},
    {150, "GELU"},
};

template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  if (!v) return {};
  return std::vector<T>(v->begin(), v->end());
}

// Parses one tensor's index list (operator or subgraph inputs/outputs).
Status read_indices(const flatbuffers::Vector<int32_t>* v, size_t tensor_count, bool allow_absent,
                    const std::string& what, std::vector<int32_t>& out) {
  out = to_vector(v);
  for (size_t i = 0; i < out.size(); ++i) {
    int32_t t = out[i];
    if (t == -1 && allow_absent) continue;
    if (t < 0 || size_t(t) >= tensor_count)
      return make_error(Error::InvalidProgram, what, "[", i, "] is tensor ", t, " but the subgraph has ",
                        tensor_count, " tensors");
  }
  return Status::ok();
}

// A region [offset, offset + size) of the file, for data stored outside the flatbuffer.
Result<std::span<const uint8_t>> file_region(const std::vector<uint8_t>& bytes, uint64_t offset,
                                             uint64_t size, const std::string& what) {
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, size, &end) || end > bytes.size())
    return make_error(Error::InvalidProgram, what, " lies outside the file: [", offset, ", ", offset, " + ",
                      size, ") but the file has ", bytes.size(), " bytes");
  return std::span<const uint8_t>(bytes.data() + offset, size_t(size));
}

Status read_options(const fb::Operator* op, OperatorOptions& o) {
  using T = fb::BuiltinOptions;
  o.options_type = static_cast<uint8_t>(op->builtin_options_type());
  auto act = [](fb::ActivationFunctionType a) { return static_cast<Activation>(a); };
  auto pad = [](fb::Padding p) { return static_cast<Padding>(p); };
  switch (op->builtin_options_type()) {
    case T::Conv2DOptions:
      if (const auto* x = op->builtin_options_as_Conv2DOptions()) {
        o.padding = pad(x->padding());
        o.stride_w = x->stride_w();
        o.stride_h = x->stride_h();
        o.fused_activation = act(x->fused_activation_function());
        o.dilation_w = x->dilation_w_factor();
        o.dilation_h = x->dilation_h_factor();
        o.quantized_bias_type = static_cast<TensorType>(x->quantized_bias_type());
      }
      break;
    case T::DepthwiseConv2DOptions:
      if (const auto* x = op->builtin_options_as_DepthwiseConv2DOptions()) {
        o.padding = pad(x->padding());
        o.stride_w = x->stride_w();
        o.stride_h = x->stride_h();
        o.depth_multiplier = x->depth_multiplier();
        o.fused_activation = act(x->fused_activation_function());
        o.dilation_w = x->dilation_w_factor();
        o.dilation_h = x->dilation_h_factor();
      }
      break;
    case T::Pool2DOptions:
      if (const auto* x = op->builtin_options_as_Pool2DOptions()) {
        o.padding = pad(x->padding());
        o.stride_w = x->stride_w();
        o.stride_h = x->stride_h();
        o.filter_w = x->filter_width();
        o.filter_h = x->filter_height();
        o.fused_activation = act(x->fused_activation_function());
      }
      break;
    case T::FullyConnectedOptions:
      if (const auto* x = op->builtin_options_as_FullyConnectedOptions()) {
        o.fused_activation = act(x->fused_activation_function());
        o.weights_format = x->weights_format();
        o.keep_num_dims = x->keep_num_dims();
        o.asymmetric_quantize_inputs = x->asymmetric_quantize_inputs();
        o.quantized_bias_type = static_cast<TensorType>(x->quantized_bias_type());
      }
      break;
    case T::SoftmaxOptions:
      if (const auto* x = op->builtin_options_as_SoftmaxOptions()) o.beta = x->beta();
      break;
    case T::ConcatenationOptions:
      if (const auto* x = op->builtin_options_as_ConcatenationOptions()) {
        o.axis = x->axis();
        o.fused_activation = act(x->fused_activation_function());
      }
      break;
    case T::AddOptions:
      if (const auto* x = op->builtin_options_as_AddOptions()) {
        o.fused_activation = act(x->fused_activation_function());
        o.pot_scale_int16 = x->pot_scale_int16();
      }
      break;
    case T::SubOptions:
      if (const auto* x = op->builtin_options_as_SubOptions()) {
        o.fused_activation = act(x->fused_activation_function());
        o.pot_scale_int16 = x->pot_scale_int16();
      }
      break;
    case T::MulOptions:
      if (const auto* x = op->builtin_options_as_MulOptions())
        o.fused_activation = act(x->fused_activation_function());
      break;
    case T::ResizeBilinearOptions:
      if (const auto* x = op->builtin_options_as_ResizeBilinearOptions()) {
        o.align_corners = x->align_corners();
        o.half_pixel_centers = x->half_pixel_centers();
      }
      break;
    case T::ResizeNearestNeighborOptions:
      if (const auto* x = op->builtin_options_as_ResizeNearestNeighborOptions()) {
        o.align_corners = x->align_corners();
        o.half_pixel_centers = x->half_pixel_centers();
      }
      break;
    case T::ReshapeOptions:
      if (const auto* x = op->builtin_options_as_ReshapeOptions()) {
        o.has_new_shape = x->new_shape() != nullptr;
        o.new_shape = to_vector(x->new_shape());
      }
      break;
    case T::ReducerOptions:
      if (const auto* x = op->builtin_options_as_ReducerOptions()) o.keep_dims = x->keep_dims();
      break;
    case T::SqueezeOptions:
      if (const auto* x = op->builtin_options_as_SqueezeOptions()) o.squeeze_dims = to_vector(x->squeeze_dims());
      break;
    case T::StridedSliceOptions:
      if (const auto* x = op->builtin_options_as_StridedSliceOptions()) {
        o.begin_mask = x->begin_mask();
        o.end_mask = x->end_mask();
        o.ellipsis_mask = x->ellipsis_mask();
        o.new_axis_mask = x->new_axis_mask();
        o.shrink_axis_mask = x->shrink_axis_mask();
        o.offset = x->offset();
      }
      break;
    case T::SplitOptions:
      if (const auto* x = op->builtin_options_as_SplitOptions()) o.num_splits = x->num_splits();
      break;
    case T::SplitVOptions:
      if (const auto* x = op->builtin_options_as_SplitVOptions()) o.num_splits = x->num_splits();
      break;
    case T::TransposeConvOptions:
      if (const auto* x = op->builtin_options_as_TransposeConvOptions()) {
        o.padding = pad(x->padding());
        o.stride_w = x->stride_w();
        o.stride_h = x->stride_h();
        o.fused_activation = act(x->fused_activation_function());
        o.quantized_bias_type = static_cast<TensorType>(x->quantized_bias_type());
      }
      break;
    case T::ShapeOptions:
      if (const auto* x = op->builtin_options_as_ShapeOptions()) o.out_type = static_cast<TensorType>(x->out_type());
      break;
    case T::PackOptions:
      if (const auto* x = op->builtin_options_as_PackOptions()) {
        o.values_count = x->values_count();
        o.axis = x->axis();
      }
      break;
    case T::UnpackOptions:
      if (const auto* x = op->builtin_options_as_UnpackOptions()) {
        o.num = x->num();
        o.axis = x->axis();
      }
      break;
    case T::LeakyReluOptions:
      if (const auto* x = op->builtin_options_as_LeakyReluOptions()) o.alpha = x->alpha();
      break;
    default:  // no options, an options table with no fields, or one vkrt does not read
      break;
  }
  if (uint8_t(o.padding) > 1)
    return make_error(Error::InvalidProgram, "padding ", int(o.padding), " is not SAME (0) or VALID (1)");
  if (uint8_t(o.fused_activation) > 5)
    return make_error(Error::InvalidProgram, "fused activation ", int(o.fused_activation),
                      " is not a TFLite ActivationFunctionType (0..5)");
  return Status::ok();
}

Status read_tensor(const fb::Model* model, const std::vector<uint8_t>& bytes, const fb::Tensor* t,
                   Tensor& out) {
  if (!t) return make_error(Error::InvalidProgram, "null tensor table");
  out.name = t->name() ? t->name()->str() : "";
  out.type = static_cast<TensorType>(t->type());
  if (int8_t(out.type) < 0 || int8_t(out.type) > 17)
    return make_error(Error::InvalidProgram, "type ", int(int8_t(out.type)), " is not a TFLite TensorType");
  out.is_variable = t->is_variable();
  out.shape = to_vector(t->shape());
  if (t->sparsity())
    return make_error(Error::NotSupported, "sparse tensors (SparsityParameters) are not supported");
  uint64_t count = 1;
  for (size_t d = 0; d < out.shape.size(); ++d) {
    if (out.shape[d] < 0)
      return make_error(Error::InvalidProgram, "shape[", d, "] is ", out.shape[d], " (dims must be >= 0)");
    if (__builtin_mul_overflow(count, uint64_t(out.shape[d]), &count) || count > kMaxTensorBytes)
      return make_error(Error::InvalidProgram, "shape has more than 2^31 elements");
  }
  size_t esize = element_size(out.type);
  uint64_t nbytes = count * (esize ? esize : 1);
  if (nbytes > kMaxTensorBytes)
    return make_error(Error::InvalidProgram, "tensor of ", count, " ", tensor_type_name(out.type),
                      " elements is larger than 2 GiB");

  if (const auto* q = t->quantization()) {
    if (q->details_type() != fb::QuantizationDetails::NONE)
      return make_error(Error::NotSupported, "custom quantisation (QuantizationParameters.details) is not supported");
    out.scale = to_vector(q->scale());
    out.zero_point = to_vector(q->zero_point());
    out.quantized_dimension = q->quantized_dimension();
    if (out.scale.size() != out.zero_point.size())
      return make_error(Error::InvalidProgram, "quantisation has ", out.scale.size(), " scales but ",
                        out.zero_point.size(), " zero points");
    if (out.scale.size() > 1) {
      int32_t qd = out.quantized_dimension;
      if (qd < 0 || size_t(qd) >= out.shape.size())
        return make_error(Error::InvalidProgram, "quantized_dimension ", qd, " is outside the tensor's ",
                          out.shape.size(), " dims");
      if (out.scale.size() != size_t(out.shape[size_t(qd)]))
        return make_error(Error::InvalidProgram, "per-channel quantisation has ", out.scale.size(),
                          " scales but dim ", qd, " has size ", out.shape[size_t(qd)]);
    }
  }

  out.buffer = t->buffer();
  const auto* buffers = model->buffers();
  size_t buffer_count = buffers ? buffers->size() : 0;
  if (out.buffer != 0 || buffer_count != 0) {
    if (out.buffer >= buffer_count)
      return make_error(Error::InvalidProgram, "buffer index ", out.buffer, " but the model has ", buffer_count,
                        " buffers");
  }
  if (out.buffer != 0) {
    const fb::Buffer* b = buffers->Get(out.buffer);
    if (!b) return make_error(Error::InvalidProgram, "buffer ", out.buffer, " is a null table");
    std::span<const uint8_t> data;
    if (b->data() && b->data()->size() > 0) {
      data = std::span<const uint8_t>(b->data()->data(), b->data()->size());
    } else if (b->offset() > 1) {
      VKRT_ASSIGN_OR_RETURN(data, file_region(bytes, b->offset(), b->size(),
                                              "buffer " + std::to_string(out.buffer) + " (stored outside the flatbuffer)"));
    }
    if (!data.empty()) {
      if (esize == 0)
        return make_error(Error::NotSupported, "constant data of type ", tensor_type_name(out.type),
                          " is not supported");
      if (data.size() != nbytes)
        return make_error(Error::InvalidProgram, "buffer ", out.buffer, " holds ", data.size(),
                          " bytes but the tensor's shape and type need ", nbytes);
      out.data = data;
    }
  }
  return Status::ok();
}

Status read_operator(const fb::Model* model, const std::vector<uint8_t>& bytes, const fb::Operator* op,
                     size_t tensor_count, Operator& out) {
  if (!op) return make_error(Error::InvalidProgram, "null operator table");
  const auto* codes = model->operator_codes();
  size_t code_count = codes ? codes->size() : 0;
  if (op->opcode_index() >= code_count)
    return make_error(Error::InvalidProgram, "opcode_index ", op->opcode_index(), " but the model has ", code_count,
                      " operator codes");
  const fb::OperatorCode* code = codes->Get(op->opcode_index());
  if (!code) return make_error(Error::InvalidProgram, "operator code ", op->opcode_index(), " is a null table");
  // Files before schema 3a carry the code only in the int8 deprecated_builtin_code; newer ones write
  // both, with deprecated_builtin_code = min(code, 127) (PLACEHOLDER_FOR_GREATER_OP_CODES): the code is
  // the larger of the two.
  out.builtin_code = std::max<int32_t>(code->builtin_code(), code->deprecated_builtin_code());
  if (out.builtin_code < 0)
    return make_error(Error::InvalidProgram, "builtin code ", out.builtin_code, " is negative");
  out.version = code->version();
  if (code->custom_code()) out.custom_code = code->custom_code()->str();
  if (out.is(BuiltinOperator::Custom) && out.custom_code.empty())
    return make_error(Error::InvalidProgram, "CUSTOM operator with no custom_code");
  VKRT_RETURN_IF_ERROR(read_indices(op->inputs(), tensor_count, true, "inputs", out.inputs));
  VKRT_RETURN_IF_ERROR(read_indices(op->outputs(), tensor_count, false, "outputs", out.outputs));
  VKRT_RETURN_IF_ERROR(read_options(op, out.options));
  if (op->custom_options() && op->custom_options()->size() > 0) {
    out.custom_options = std::span<const uint8_t>(op->custom_options()->data(), op->custom_options()->size());
  } else if (op->large_custom_options_offset() > 1) {
    VKRT_ASSIGN_OR_RETURN(out.custom_options,
                          file_region(bytes, op->large_custom_options_offset(), op->large_custom_options_size(),
                                      "custom options (stored outside the flatbuffer)"));
  }
  return Status::ok();
}

}  // namespace

size_t element_size(TensorType type) {
  switch (type) {
    case TensorType::Float32: return 4;
    case TensorType::Float16: return 2;
    case TensorType::Int32: return 4;
    case TensorType::UInt8: return 1;
    case TensorType::Int64: return 8;
    case TensorType::Bool: return 1;
    case TensorType::Int16: return 2;
    case TensorType::Complex64: return 8;
    case TensorType::Int8: return 1;
    case TensorType::Float64: return 8;
    case TensorType::Complex128: return 16;
    case TensorType::UInt64: return 8;
    case TensorType::UInt32: return 4;
    case TensorType::UInt16: return 2;
    default: return 0;
  }
}

const char* tensor_type_name(TensorType type) {
  static constexpr const char* kNames[] = {"FLOAT32", "FLOAT16", "INT32",   "UINT8",      "INT64",
                                           "STRING",  "BOOL",    "INT16",   "COMPLEX64",  "INT8",
                                           "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
                                           "UINT32",  "UINT16",  "INT4"};
  int v = int8_t(type);
  if (v >= 0 && v < int(sizeof(kNames) / sizeof(kNames[0]))) return kNames[v];
  return "TYPE_?";
}

std::string builtin_operator_name(int32_t code) {
  for (const auto& n : kOperatorNames)
    if (n.code == code) return n.name;
  return "BUILTIN_" + std::to_string(code);
}

size_t Tensor::element_count() const {
  size_t n = 1;
  for (int32_t d : shape) n *= size_t(d);
  return n;
}

size_t Tensor::byte_size() const { return element_count() * element_size(type); }

std::string Operator::name() const {
  if (is(BuiltinOperator::Custom)) return "CUSTOM '" + custom_code + "'";
  return builtin_operator_name(builtin_code);
}

Result<Model> load_tflite(std::vector<uint8_t> bytes) {
  if (bytes.size() < 8)
    return make_error(Error::InvalidProgram, "TFLite model: file of ", bytes.size(),
                      " bytes is too small to be a TFLite flatbuffer");
  if (!fb::ModelBufferHasIdentifier(bytes.data())) {
    std::string id;
    for (size_t i = 4; i < 8; ++i) {
      char c = char(bytes[i]);
      id += (c >= 32 && c < 127) ? c : '?';
    }
    return make_error(Error::InvalidProgram, "TFLite model: file identifier is '", id,
                      "', expected 'TFL3' (not a TFLite model)");
  }
  // Buffers of models over 2 GB live after the flatbuffer; verify the flatbuffer part only.
  size_t fb_size = std::min<size_t>(bytes.size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 10'000'000;
  flatbuffers::Verifier verifier(bytes.data(), fb_size, opts);
  if (!fb::VerifyModelBuffer(verifier))
    return make_error(Error::InvalidProgram,
                      "TFLite model: flatbuffer failed verification (corrupt or truncated file)");

  const fb::Model* root = fb::GetModel(bytes.data());
  Model m;
  m.version = root->version();
  if (m.version != kSchemaVersion)
    return make_error(Error::NotSupported, "TFLite model: schema version ", m.version, ", expected ", kSchemaVersion);
  if (root->description()) m.description = root->description()->str();
  const auto* subgraphs = root->subgraphs();
  if (!subgraphs || subgraphs->size() == 0 || !subgraphs->Get(0))
    return make_error(Error::InvalidProgram, "TFLite model: no subgraphs");
  m.subgraph_count = subgraphs->size();
  const fb::SubGraph* sg = subgraphs->Get(0);
  if (sg->name()) m.subgraph_name = sg->name()->str();

  const auto* tensors = sg->tensors();
  size_t tensor_count = tensors ? tensors->size() : 0;
  m.tensors.resize(tensor_count);
  for (size_t i = 0; i < tensor_count; ++i) {
    Status s = read_tensor(root, bytes, tensors->Get(flatbuffers::uoffset_t(i)), m.tensors[i]);
    if (!s.is_ok())
      return std::move(s).with_context("TFLite model: subgraph 0 tensor " + std::to_string(i) +
                                       (m.tensors[i].name.empty() ? "" : " '" + m.tensors[i].name + "'"));
  }
  VKRT_RETURN_IF_ERROR(read_indices(sg->inputs(), tensor_count, false, "TFLite model: subgraph 0 inputs", m.inputs));
  VKRT_RETURN_IF_ERROR(
      read_indices(sg->outputs(), tensor_count, false, "TFLite model: subgraph 0 outputs", m.outputs));

  const auto* ops = sg->operators();
  size_t op_count = ops ? ops->size() : 0;
  m.operators.resize(op_count);
  for (size_t i = 0; i < op_count; ++i) {
    Status s = read_operator(root, bytes, ops->Get(flatbuffers::uoffset_t(i)), tensor_count, m.operators[i]);
    if (!s.is_ok())
      return std::move(s).with_context("TFLite model: subgraph 0 operator " + std::to_string(i));
  }
  if (const auto* metadata = root->metadata()) {
    const auto* buffers = root->buffers();
    const size_t buffer_count = buffers ? buffers->size() : 0;
    for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i) {
      const fb::Metadata* md = metadata->Get(i);
      if (!md) return make_error(Error::InvalidProgram, "TFLite model: metadata ", i, " is a null table");
      Metadata out;
      if (md->name()) out.name = md->name()->str();
      if (md->buffer() >= buffer_count || !buffers->Get(md->buffer()))
        return make_error(Error::InvalidProgram, "TFLite model: metadata '", out.name, "' names buffer ",
                          md->buffer(), " but the model has ", buffer_count);
      const fb::Buffer* b = buffers->Get(md->buffer());
      if (b->data() && b->data()->size() > 0) {
        out.data = std::span<const uint8_t>(b->data()->data(), b->data()->size());
      } else if (b->offset() > 1) {
        VKRT_ASSIGN_OR_RETURN(out.data, file_region(bytes, b->offset(), b->size(), "metadata '" + out.name + "'"));
      }
      m.metadata.push_back(std::move(out));
    }
  }
  // The spans point into the vector's heap storage, which moving keeps.
  m.bytes = std::move(bytes);
  return m;
}

Result<std::vector<int32_t>> offline_memory_offsets(const Model& model) {
  for (const Metadata& md : model.metadata) {
    if (md.name != "OfflineMemoryAllocation") continue;
    // int32 words: version (0), subgraph count, offset count, then one offset per tensor.
    const size_t words = md.data.size() / 4;
    auto word = [&](size_t i) {
      int32_t v;
      std::memcpy(&v, md.data.data() + 4 * i, 4);
      return v;
    };
    if (md.data.size() % 4 != 0 || words < 3)
      return make_error(Error::InvalidProgram, "OfflineMemoryAllocation: ", md.data.size(), " bytes is no header");
    if (word(0) != 0)
      return make_error(Error::NotSupported, "OfflineMemoryAllocation: version ", word(0), " (expected 0)");
    const int32_t count = word(2);
    if (count < 0 || size_t(count) != words - 3 || size_t(count) != model.tensors.size())
      return make_error(Error::InvalidProgram, "OfflineMemoryAllocation: ", count, " offsets in ", words - 3,
                        " words for ", model.tensors.size(), " tensors");
    std::vector<int32_t> offsets(static_cast<size_t>(count), 0);
    for (size_t i = 0; i < offsets.size(); ++i) offsets[i] = word(3 + i);
    return offsets;
  }
  return std::vector<int32_t>{};
}

Result<Model> load_tflite_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error(Error::NotFound, path, ": cannot open");
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return make_error(Error::AccessFailed, path, ": read error");
  auto r = load_tflite(std::move(bytes));
  if (!r.ok()) return Status(r.status()).with_context(path);
  return r;
}

}  // namespace vkrt::ethosu::tflite
