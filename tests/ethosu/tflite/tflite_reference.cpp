// The interpreter of tflite_reference.h: Prepare-style checks and parameter computation per
// operator (TFLite's kernels/*.cc Prepare), then the reference arithmetic (tflite_reference_ops.h)
// or the data movement written here.
#include "tflite_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "tflite_reference_ops.h"

namespace vkrt::ethosu::tflite {

namespace {

using namespace ref;  // NOLINT

constexpr size_t kMaxRank = 8;

int64_t product(const std::vector<int32_t>& dims, size_t begin = 0, size_t end = SIZE_MAX) {
  int64_t p = 1;
  for (size_t i = begin; i < std::min(end, dims.size()); ++i) p *= dims[i];
  return p;
}

std::string shape_str(const std::vector<int32_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

class Interpreter {
 public:
  explicit Interpreter(const Model& m, CustomOperator custom = {})
      : m_(m), custom_(std::move(custom)), values_(m.tensors.size()), ready_(m.tensors.size(), 0) {}

  Status set_inputs(const std::vector<std::vector<uint8_t>>& inputs) {
    for (size_t i = 0; i < m_.tensors.size(); ++i) {
      const Tensor& t = m_.tensors[i];
      if (t.is_constant()) {
        values_[i].assign(t.data.begin(), t.data.end());
        ready_[i] = 1;
      }
    }
    if (inputs.size() != m_.inputs.size())
      return make_error(Error::InvalidArgument, "TFLite reference: ", inputs.size(), " inputs given, the model has ",
                        m_.inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = m_.tensors[size_t(m_.inputs[i])];
      if (inputs[i].size() != t.byte_size())
        return make_error(Error::InvalidArgument, "TFLite reference: input ", i, " ('", t.name, "') has ",
                          inputs[i].size(), " bytes, the tensor needs ", t.byte_size());
      values_[size_t(m_.inputs[i])] = inputs[i];
      ready_[size_t(m_.inputs[i])] = 1;
    }
    return Status::ok();
  }

  Status run() {
    for (op_index_ = 0; op_index_ < m_.operators.size(); ++op_index_) {
      op_ = &m_.operators[op_index_];
      if (op_->is(BuiltinOperator::Custom) && custom_) {
        VKRT_ASSIGN_OR_RETURN(std::vector<std::vector<uint8_t>> outs, custom_(op_index_, values_));
        if (outs.size() != op_->outputs.size())
          return err(Error::InvalidProgram, "the custom operator gave ", outs.size(), " outputs, it has ",
                     op_->outputs.size());
        for (size_t k = 0; k < outs.size(); ++k) {
          values_[size_t(op_->outputs[k])] = std::move(outs[k]);
          ready_[size_t(op_->outputs[k])] = 1;
        }
        continue;
      }
      if (!supported(op_->op())) return err(Error::OperatorMissing, "operator not supported by the TFLite reference");
      for (size_t k = 0; k < op_->inputs.size(); ++k) {
        int32_t t = op_->inputs[k];
        if (t >= 0 && !ready_[size_t(t)])
          return err(Error::InvalidProgram, "input ", k, " (tensor ", t, " '", m_.tensors[size_t(t)].name,
                     "') has no value yet (not a constant, a model input or an earlier output)");
      }
      for (int32_t t : op_->outputs) {
        values_[size_t(t)].assign(m_.tensors[size_t(t)].byte_size(), 0);
        ready_[size_t(t)] = 1;
      }
      VKRT_RETURN_IF_ERROR(dispatch());
    }
    return Status::ok();
  }

  std::vector<std::vector<uint8_t>> outputs() const {
    std::vector<std::vector<uint8_t>> r;
    for (int32_t t : m_.outputs) r.push_back(values_[size_t(t)]);
    return r;
  }
  std::vector<std::vector<uint8_t>>& values() { return values_; }

 private:
  template <typename... P>
  Status err(Error code, const P&... parts) const {
    return make_error(code, "TFLite reference: operator ", op_index_, " (", op_->name(), "): ", parts...);
  }

  // ---- operand access ----------------------------------------------------------------------------

  Status arity(size_t min_in, size_t max_in, size_t min_out, size_t max_out) const {
    if (op_->inputs.size() < min_in || op_->inputs.size() > max_in)
      return err(Error::InvalidProgram, "has ", op_->inputs.size(), " inputs, expected ", min_in,
                 min_in == max_in ? "" : (" to " + std::to_string(max_in)));
    if (op_->outputs.size() < min_out || op_->outputs.size() > max_out)
      return err(Error::InvalidProgram, "has ", op_->outputs.size(), " outputs, expected ", min_out,
                 min_out == max_out ? "" : (" to " + std::to_string(max_out)));
    for (size_t k = 0; k < min_in; ++k)
      if (op_->inputs[k] < 0) return err(Error::InvalidProgram, "required input ", k, " is absent (-1)");
    return Status::ok();
  }
  bool has_input(size_t k) const { return k < op_->inputs.size() && op_->inputs[k] >= 0; }
  const Tensor& in(size_t k) const { return m_.tensors[size_t(op_->inputs[k])]; }
  const Tensor& out(size_t k = 0) const { return m_.tensors[size_t(op_->outputs[k])]; }
  const std::vector<uint8_t>& in_bytes(size_t k) const { return values_[size_t(op_->inputs[k])]; }
  std::vector<uint8_t>& out_bytes(size_t k = 0) { return values_[size_t(op_->outputs[k])]; }
  template <typename E>
  const E* in_data(size_t k) const {
    return reinterpret_cast<const E*>(in_bytes(k).data());
  }
  template <typename E>
  E* out_data(size_t k = 0) {
    return reinterpret_cast<E*>(out_bytes(k).data());
  }

  Status expect_type(const Tensor& t, TensorType type, const char* what) const {
    if (t.type != type)
      return err(Error::NotSupported, what, " '", t.name, "' is ", tensor_type_name(t.type), ", expected ",
                 tensor_type_name(type));
    return Status::ok();
  }
  Status expect_rank(const Tensor& t, size_t rank, const char* what) const {
    if (t.shape.size() != rank)
      return err(Error::InvalidProgram, what, " '", t.name, "' has shape ", shape_str(t.shape), ", expected rank ",
                 rank);
    return Status::ok();
  }
  Status expect_shape(const Tensor& t, const std::vector<int32_t>& shape, const char* what) const {
    if (t.shape != shape)
      return err(Error::InvalidProgram, what, " '", t.name, "' has shape ", shape_str(t.shape), ", the operator computes ",
                 shape_str(shape));
    return Status::ok();
  }
  Status expect_count(const Tensor& t, int64_t count, const char* what) const {
    if (int64_t(t.element_count()) != count)
      return err(Error::InvalidProgram, what, " '", t.name, "' has ", t.element_count(), " elements, expected ", count);
    return Status::ok();
  }
  // Per-tensor quantisation of an 8-bit operand: a finite positive scale and a zero point in range.
  Status expect_quantized(const Tensor& t, const char* what) const {
    if (t.scale.empty()) return err(Error::InvalidProgram, what, " '", t.name, "' is not quantised");
    for (float s : t.scale)
      if (!(std::isfinite(s) && s > 0.0f))
        return err(Error::InvalidProgram, what, " '", t.name, "' has scale ", double(s), " (must be finite and > 0)");
    const int64_t lo = t.type == TensorType::UInt8 ? 0 : t.type == TensorType::Int8 ? -128 : INT32_MIN;
    const int64_t hi = t.type == TensorType::UInt8 ? 255 : t.type == TensorType::Int8 ? 127 : INT32_MAX;
    for (int64_t z : t.zero_point)
      if (z < lo || z > hi)
        return err(Error::InvalidProgram, what, " '", t.name, "' has zero point ", z, " outside its type's range");
    return Status::ok();
  }
  static float scale(const Tensor& t) { return t.scale[0]; }
  static int32_t zp(const Tensor& t) { return int32_t(t.zero_point[0]); }

  // Reads an int32 or int64 index tensor (constant or computed) as int64 values.
  Result<std::vector<int64_t>> read_ints(size_t k, const char* what) const {
    const Tensor& t = in(k);
    const auto& bytes = in_bytes(k);
    std::vector<int64_t> r(t.element_count());
    if (t.type == TensorType::Int32) {
      for (size_t i = 0; i < r.size(); ++i) {
        int32_t v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        r[i] = v;
      }
    } else if (t.type == TensorType::Int64) {
      for (size_t i = 0; i < r.size(); ++i) std::memcpy(&r[i], bytes.data() + 8 * i, 8);
    } else {
      return err(Error::NotSupported, what, " '", t.name, "' is ", tensor_type_name(t.type), ", expected INT32 or INT64");
    }
    return r;
  }
  // A negative axis counts from the end; the result is in [0, rank).
  Result<int> resolve_axis(int64_t axis, size_t rank, const char* what) const {
    int64_t a = axis < 0 ? axis + int64_t(rank) : axis;
    if (a < 0 || a >= int64_t(rank))
      return err(Error::InvalidProgram, what, " ", axis, " is outside a rank-", rank, " tensor");
    return int(a);
  }

  // Calls f.template operator()<int8_t or uint8_t>() for an 8-bit operand type.
  template <typename F>
  Status by_type(TensorType type, F&& f) const {
    if (type == TensorType::Int8) return f.template operator()<int8_t>();
    if (type == TensorType::UInt8) return f.template operator()<uint8_t>();
    return err(Error::NotSupported, "type ", tensor_type_name(type), " is not supported (int8 and uint8 are)");
  }

  static bool supported(BuiltinOperator op) {
    switch (op) {
      case BuiltinOperator::Conv2d: case BuiltinOperator::DepthwiseConv2d: case BuiltinOperator::TransposeConv:
      case BuiltinOperator::FullyConnected: case BuiltinOperator::AveragePool2d: case BuiltinOperator::MaxPool2d:
      case BuiltinOperator::Add: case BuiltinOperator::Sub: case BuiltinOperator::Mul:
      case BuiltinOperator::Minimum: case BuiltinOperator::Maximum: case BuiltinOperator::Softmax:
      case BuiltinOperator::Logistic: case BuiltinOperator::Tanh: case BuiltinOperator::HardSwish:
      case BuiltinOperator::LeakyRelu: case BuiltinOperator::Relu: case BuiltinOperator::Relu6:
      case BuiltinOperator::ReluN1To1: case BuiltinOperator::Abs: case BuiltinOperator::Quantize:
      case BuiltinOperator::Dequantize: case BuiltinOperator::Mean: case BuiltinOperator::ResizeBilinear:
      case BuiltinOperator::Pad: case BuiltinOperator::Concatenation: case BuiltinOperator::Split:
      case BuiltinOperator::Pack: case BuiltinOperator::Unpack: case BuiltinOperator::Slice:
      case BuiltinOperator::StridedSlice: case BuiltinOperator::Reshape: case BuiltinOperator::Shape:
        return true;
      default:
        return false;
    }
  }

  Status dispatch() {
    switch (op_->op()) {
      case BuiltinOperator::Conv2d: return conv(false);
      case BuiltinOperator::DepthwiseConv2d: return conv(true);
      case BuiltinOperator::TransposeConv: return transpose_conv();
      case BuiltinOperator::FullyConnected: return fully_connected_op();
      case BuiltinOperator::AveragePool2d: return pool_op(true);
      case BuiltinOperator::MaxPool2d: return pool_op(false);
      case BuiltinOperator::Add: return binary_op(BuiltinOperator::Add);
      case BuiltinOperator::Sub: return binary_op(BuiltinOperator::Sub);
      case BuiltinOperator::Mul: return binary_op(BuiltinOperator::Mul);
      case BuiltinOperator::Minimum: return binary_op(BuiltinOperator::Minimum);
      case BuiltinOperator::Maximum: return binary_op(BuiltinOperator::Maximum);
      case BuiltinOperator::Softmax: return softmax_op();
      case BuiltinOperator::Logistic: return lut_op(LutFunction::Logistic);
      case BuiltinOperator::Tanh: return lut_op(LutFunction::Tanh);
      case BuiltinOperator::HardSwish: return hard_swish_op();
      case BuiltinOperator::LeakyRelu: return leaky_relu_op();
      case BuiltinOperator::Relu: return relu_op(0.0f, std::numeric_limits<float>::infinity());
      case BuiltinOperator::Relu6: return relu_op(0.0f, 6.0f);
      case BuiltinOperator::ReluN1To1: return relu_op(-1.0f, 1.0f);
      case BuiltinOperator::Abs: return abs_op();
      case BuiltinOperator::Quantize: return quantize_op();
      case BuiltinOperator::Dequantize: return dequantize_op();
      case BuiltinOperator::Mean: return mean_op();
      case BuiltinOperator::ResizeBilinear: return resize_bilinear_op();
      case BuiltinOperator::Pad: return pad_op();
      case BuiltinOperator::Concatenation: return concat_op();
      case BuiltinOperator::Split: return split_op();
      case BuiltinOperator::Pack: return pack_op();
      case BuiltinOperator::Unpack: return unpack_op();
      case BuiltinOperator::Slice: return slice_op(false);
      case BuiltinOperator::StridedSlice: return slice_op(true);
      case BuiltinOperator::Reshape: return reshape_op();
      case BuiltinOperator::Shape: return shape_op();
      default:
        return err(Error::OperatorMissing, "operator not supported by the TFLite reference");
    }
  }

  // ---- convolutions and fully connected ----------------------------------------------------------

  // PopulateConvolutionQuantizationParams: per-channel (or per-tensor) multipliers in double.
  Result<OutputStage> output_stage(const Tensor& input, const Tensor& filter, const Tensor& output, int channels,
                                   Activation act) const {
    VKRT_RETURN_IF_ERROR(expect_quantized(input, "input"));
    VKRT_RETURN_IF_ERROR(expect_quantized(filter, "filter"));
    VKRT_RETURN_IF_ERROR(expect_quantized(output, "output"));
    if (filter.scale.size() != 1 && filter.scale.size() != size_t(channels))
      return err(Error::InvalidProgram, "filter '", filter.name, "' has ", filter.scale.size(), " scales for ", channels,
                 " output channels");
    if (filter.scale.size() > 1 || filter.type == TensorType::Int8)
      for (int64_t z : filter.zero_point)
        if (z != 0) return err(Error::NotSupported, "filter '", filter.name, "' has a non-zero zero point ", z);
    OutputStage s;
    s.input_offset = -zp(input);
    s.filter_offset = -zp(filter);
    s.output_offset = zp(output);
    for (float fs : filter.scale)
      s.multipliers.push_back(quantize_multiplier(double(scale(input)) * double(fs) / double(scale(output))));
    const bool u8 = output.type == TensorType::UInt8;
    s.act = activation_range(act, scale(output), zp(output), u8 ? 0 : -128, u8 ? 255 : 127);
    return s;
  }

  Status check_bias(size_t k, int channels) const {
    if (!has_input(k)) return Status::ok();
    VKRT_RETURN_IF_ERROR(expect_type(in(k), TensorType::Int32, "bias"));
    return expect_count(in(k), channels, "bias");
  }

  Status conv(bool depthwise) {
    VKRT_RETURN_IF_ERROR(arity(2, 3, 1, 1));
    const Tensor &input = in(0), &filter = in(1), &output = out();
    const OperatorOptions& o = op_->options;
    VKRT_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
    VKRT_RETURN_IF_ERROR(expect_rank(filter, 4, "filter"));
    VKRT_RETURN_IF_ERROR(expect_rank(output, 4, "output"));
    if (filter.type != input.type || output.type != input.type)
      return err(Error::NotSupported, "input, filter and output types differ");
    if (o.stride_w < 1 || o.stride_h < 1 || o.dilation_w < 1 || o.dilation_h < 1)
      return err(Error::InvalidProgram, "stride ", o.stride_h, "x", o.stride_w, " / dilation ", o.dilation_h, "x",
                 o.dilation_w, " must be >= 1");
    ConvGeometry g;
    g.batches = input.shape[0];
    g.in_h = input.shape[1];
    g.in_w = input.shape[2];
    g.in_ch = input.shape[3];
    g.filter_h = filter.shape[1];
    g.filter_w = filter.shape[2];
    g.out_ch = depthwise ? filter.shape[3] : filter.shape[0];
    g.stride_h = o.stride_h;
    g.stride_w = o.stride_w;
    g.dilation_h = o.dilation_h;
    g.dilation_w = o.dilation_w;
    if (depthwise) {
      if (filter.shape[0] != 1 || g.in_ch == 0 || g.out_ch % g.in_ch != 0)
        return err(Error::InvalidProgram, "depthwise filter ", shape_str(filter.shape), " does not fit ", g.in_ch,
                   " input channels");
    } else if (filter.shape[3] != g.in_ch) {
      return err(Error::NotSupported, "filter ", shape_str(filter.shape), " for ", g.in_ch,
                 " input channels (grouped convolution is not supported)");
    }
    g.out_h = compute_out_size(o.padding, g.in_h, g.filter_h, g.stride_h, g.dilation_h);
    g.out_w = compute_out_size(o.padding, g.in_w, g.filter_w, g.stride_w, g.dilation_w);
    g.pad_h = compute_padding(g.stride_h, g.dilation_h, g.in_h, g.filter_h, g.out_h);
    g.pad_w = compute_padding(g.stride_w, g.dilation_w, g.in_w, g.filter_w, g.out_w);
    VKRT_RETURN_IF_ERROR(expect_shape(output, {g.batches, g.out_h, g.out_w, g.out_ch}, "output"));
    VKRT_RETURN_IF_ERROR(check_bias(2, g.out_ch));
    VKRT_ASSIGN_OR_RETURN(OutputStage s, output_stage(input, filter, output, g.out_ch, o.fused_activation));
    const int32_t* bias = has_input(2) ? in_data<int32_t>(2) : nullptr;
    return by_type(input.type, [&]<typename T>() {
      if (depthwise)
        depthwise_conv2d<T>(g, s, in_data<T>(0), in_data<T>(1), bias, out_data<T>());
      else
        conv2d<T>(g, s, in_data<T>(0), in_data<T>(1), bias, out_data<T>());
      return Status::ok();
    });
  }

  Status transpose_conv() {
    VKRT_RETURN_IF_ERROR(arity(3, 4, 1, 1));
    const Tensor &filter = in(1), &input = in(2), &output = out();
    const OperatorOptions& o = op_->options;
    VKRT_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
    VKRT_RETURN_IF_ERROR(expect_rank(filter, 4, "filter"));
    VKRT_RETURN_IF_ERROR(expect_rank(output, 4, "output"));
    if (filter.type != input.type || output.type != input.type)
      return err(Error::NotSupported, "input, filter and output types differ");
    if (o.stride_w < 1 || o.stride_h < 1)
      return err(Error::InvalidProgram, "stride ", o.stride_h, "x", o.stride_w, " must be >= 1");
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> out_shape, read_ints(0, "output shape"));
    std::vector<int32_t> requested(out_shape.begin(), out_shape.end());
    VKRT_RETURN_IF_ERROR(expect_shape(output, requested, "output"));
    ConvGeometry g;
    g.batches = input.shape[0];
    g.in_h = input.shape[1];
    g.in_w = input.shape[2];
    g.in_ch = input.shape[3];
    g.out_h = output.shape[1];
    g.out_w = output.shape[2];
    g.out_ch = output.shape[3];
    g.filter_h = filter.shape[1];
    g.filter_w = filter.shape[2];
    g.stride_h = o.stride_h;
    g.stride_w = o.stride_w;
    if (filter.shape[0] != g.out_ch || filter.shape[3] != g.in_ch || output.shape[0] != g.batches)
      return err(Error::InvalidProgram, "filter ", shape_str(filter.shape), " does not fit input ",
                 shape_str(input.shape), " and output ", shape_str(output.shape));
    // TFLite's transpose_conv.cc: the padding of the forward convolution from output to input.
    g.pad_h = compute_padding(g.stride_h, 1, g.out_h, g.filter_h,
                              compute_out_size(o.padding, g.out_h, g.filter_h, g.stride_h, 1));
    g.pad_w = compute_padding(g.stride_w, 1, g.out_w, g.filter_w,
                              compute_out_size(o.padding, g.out_w, g.filter_w, g.stride_w, 1));
    VKRT_RETURN_IF_ERROR(check_bias(3, g.out_ch));
    VKRT_ASSIGN_OR_RETURN(OutputStage s, output_stage(input, filter, output, g.out_ch, o.fused_activation));
    const int32_t* bias = has_input(3) ? in_data<int32_t>(3) : nullptr;
    return by_type(input.type, [&]<typename T>() {
      transpose_conv2d<T>(g, s, in_data<T>(2), in_data<T>(1), bias, out_data<T>());
      return Status::ok();
    });
  }

  Status fully_connected_op() {
    VKRT_RETURN_IF_ERROR(arity(2, 3, 1, 1));
    const Tensor &input = in(0), &filter = in(1), &output = out();
    VKRT_RETURN_IF_ERROR(expect_rank(filter, 2, "filter"));
    if (filter.type != input.type || output.type != input.type)
      return err(Error::NotSupported, "input, filter and output types differ");
    if (op_->options.weights_format != 0) return err(Error::NotSupported, "shuffled weights format");
    const int out_features = filter.shape[0], depth = filter.shape[1];
    if (depth == 0 || input.element_count() % size_t(depth) != 0)
      return err(Error::InvalidProgram, "input of ", input.element_count(), " elements is not a multiple of depth ",
                 depth);
    const int batches = int(input.element_count() / size_t(depth));
    VKRT_RETURN_IF_ERROR(expect_count(output, int64_t(batches) * out_features, "output"));
    VKRT_RETURN_IF_ERROR(check_bias(2, out_features));
    VKRT_ASSIGN_OR_RETURN(OutputStage s,
                          output_stage(input, filter, output, out_features, op_->options.fused_activation));
    const int32_t* bias = has_input(2) ? in_data<int32_t>(2) : nullptr;
    return by_type(input.type, [&]<typename T>() {
      fully_connected<T>(batches, depth, out_features, s, in_data<T>(0), in_data<T>(1), bias, out_data<T>());
      return Status::ok();
    });
  }

  Status pool_op(bool average) {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, 1));
    const Tensor &input = in(0), &output = out();
    const OperatorOptions& o = op_->options;
    VKRT_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
    if (output.type != input.type) return err(Error::NotSupported, "input and output types differ");
    VKRT_RETURN_IF_ERROR(expect_quantized(output, "output"));
    if (o.stride_w < 1 || o.stride_h < 1 || o.filter_w < 1 || o.filter_h < 1)
      return err(Error::InvalidProgram, "filter ", o.filter_h, "x", o.filter_w, " / stride ", o.stride_h, "x",
                 o.stride_w, " must be >= 1");
    PoolGeometry g;
    g.batches = input.shape[0];
    g.in_h = input.shape[1];
    g.in_w = input.shape[2];
    g.channels = input.shape[3];
    g.filter_h = o.filter_h;
    g.filter_w = o.filter_w;
    g.stride_h = o.stride_h;
    g.stride_w = o.stride_w;
    g.out_h = compute_out_size(o.padding, g.in_h, g.filter_h, g.stride_h, 1);
    g.out_w = compute_out_size(o.padding, g.in_w, g.filter_w, g.stride_w, 1);
    g.pad_h = compute_padding(g.stride_h, 1, g.in_h, g.filter_h, g.out_h);
    g.pad_w = compute_padding(g.stride_w, 1, g.in_w, g.filter_w, g.out_w);
    VKRT_RETURN_IF_ERROR(expect_shape(output, {g.batches, g.out_h, g.out_w, g.channels}, "output"));
    // Every window must hold an input tap (TFLite's average pool fails Eval otherwise).
    if (g.out_h > 0 && g.out_w > 0 &&
        ((g.out_h - 1) * g.stride_h - g.pad_h >= g.in_h || (g.out_w - 1) * g.stride_w - g.pad_w >= g.in_w))
      return err(Error::InvalidProgram, "a pooling window lies wholly in the padding");
    const bool u8 = output.type == TensorType::UInt8;
    const Range act = activation_range(o.fused_activation, scale(output), zp(output), u8 ? 0 : -128, u8 ? 255 : 127);
    return by_type(input.type, [&]<typename T>() {
      if (average)
        average_pool<T>(g, act, in_data<T>(0), out_data<T>());
      else
        max_pool<T>(g, act, in_data<T>(0), out_data<T>());
      return Status::ok();
    });
  }

  // ---- element-wise binary operators (NumPy broadcasting) ----------------------------------------

  Status binary_op(BuiltinOperator kind) {
    VKRT_RETURN_IF_ERROR(arity(2, 2, 1, 1));
    const Tensor &a = in(0), &b = in(1), &output = out();
    if (a.type != output.type || b.type != output.type)
      return err(Error::NotSupported, "input and output types differ");
    const size_t rank = std::max(a.shape.size(), b.shape.size());
    if (rank > kMaxRank) return err(Error::NotSupported, "rank ", rank, " is above ", kMaxRank);
    std::vector<int32_t> shape(rank);
    std::vector<int64_t> stride_a(rank, 0), stride_b(rank, 0);
    int64_t sa = 1, sb = 1;
    for (size_t i = rank; i-- > 0;) {
      const size_t ia = i + a.shape.size() - rank, ib = i + b.shape.size() - rank;  // wraps when absent
      const int32_t da = i + a.shape.size() >= rank ? a.shape[ia] : 1;
      const int32_t db = i + b.shape.size() >= rank ? b.shape[ib] : 1;
      if (da != db && da != 1 && db != 1)
        return err(Error::InvalidProgram, "shapes ", shape_str(a.shape), " and ", shape_str(b.shape),
                   " do not broadcast");
      shape[i] = da == 1 ? db : da;
      stride_a[i] = da == 1 ? 0 : sa;
      stride_b[i] = db == 1 ? 0 : sb;
      sa *= da;
      sb *= db;
    }
    VKRT_RETURN_IF_ERROR(expect_count(output, product(shape), "output"));
    if (output.shape.size() == rank) VKRT_RETURN_IF_ERROR(expect_shape(output, shape, "output"));
    const int64_t count = product(shape);
    auto offsets = [&](int64_t flat, int64_t* oa, int64_t* ob) {
      *oa = *ob = 0;
      for (size_t i = rank; i-- > 0;) {
        const int64_t c = flat % shape[i];
        flat /= shape[i];
        *oa += c * stride_a[i];
        *ob += c * stride_b[i];
      }
    };

    if (kind == BuiltinOperator::Minimum || kind == BuiltinOperator::Maximum) {
      // maximum_minimum.cc: raw values, no requantisation.
      return by_type(output.type, [&]<typename T>() {
        const T *x = in_data<T>(0), *y = in_data<T>(1);
        T* o = out_data<T>();
        for (int64_t i = 0; i < count; ++i) {
          int64_t oa, ob;
          offsets(i, &oa, &ob);
          o[i] = kind == BuiltinOperator::Maximum ? std::max(x[oa], y[ob]) : std::min(x[oa], y[ob]);
        }
        return Status::ok();
      });
    }
    VKRT_RETURN_IF_ERROR(expect_quantized(a, "input 0"));
    VKRT_RETURN_IF_ERROR(expect_quantized(b, "input 1"));
    VKRT_RETURN_IF_ERROR(expect_quantized(output, "output"));
    const bool u8 = output.type == TensorType::UInt8;
    const Range act =
        activation_range(op_->options.fused_activation, scale(output), zp(output), u8 ? 0 : -128, u8 ? 255 : 127);
    if (kind == BuiltinOperator::Mul) {
      // mul.cc: the float product of the scales, then QuantizeMultiplier.
      const Multiplier m = quantize_multiplier(scale(a) * scale(b) / scale(output));
      const int32_t off_a = -zp(a), off_b = -zp(b), off_o = zp(output);
      return by_type(output.type, [&]<typename T>() {
        const T *x = in_data<T>(0), *y = in_data<T>(1);
        T* o = out_data<T>();
        for (int64_t i = 0; i < count; ++i) {
          int64_t oa, ob;
          offsets(i, &oa, &ob);
          const int32_t v =
              off_o + multiply_by_quantized_multiplier((int32_t(x[oa]) + off_a) * (int32_t(y[ob]) + off_b), m);
          o[i] = static_cast<T>(std::min(std::max(v, act.min), act.max));
        }
        return Status::ok();
      });
    }
    AddParams p;
    if (!prepare_add(scale(a), zp(a), scale(b), zp(b), scale(output), zp(output), act, &p))
      return err(Error::NotSupported, "scales give a rescaling multiplier outside (0, 1)");
    const bool subtract = kind == BuiltinOperator::Sub;
    return by_type(output.type, [&]<typename T>() {
      const T *x = in_data<T>(0), *y = in_data<T>(1);
      T* o = out_data<T>();
      for (int64_t i = 0; i < count; ++i) {
        int64_t oa, ob;
        offsets(i, &oa, &ob);
        o[i] = static_cast<T>(add_sub_value(p, x[oa], y[ob], subtract));
      }
      return Status::ok();
    });
  }

  // ---- element-wise unary operators --------------------------------------------------------------

  Status unary_prologue() {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, 1));
    if (in(0).type != out().type) return err(Error::NotSupported, "input and output types differ");
    VKRT_RETURN_IF_ERROR(expect_count(out(), int64_t(in(0).element_count()), "output"));
    VKRT_RETURN_IF_ERROR(expect_quantized(in(0), "input"));
    return expect_quantized(out(), "output");
  }

  template <typename F>
  Status map_8bit(F&& f) {
    return by_type(out().type, [&]<typename T>() {
      const T* x = in_data<T>(0);
      T* o = out_data<T>();
      for (size_t i = 0; i < out().element_count(); ++i) o[i] = f(x[i]);
      return Status::ok();
    });
  }

  Status softmax_op() {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    const Tensor &input = in(0), &output = out();
    if (input.shape.empty()) return err(Error::InvalidProgram, "input must have rank >= 1");
    // TFLite Micro's SoftmaxPrepare: 8-bit output with scale 1/256 and the type's lowest zero point.
    const int32_t qmin = output.type == TensorType::UInt8 ? 0 : -128;
    if (zp(output) != qmin || std::abs(double(scale(output)) - 1.0 / 256) > 0.001 / 256)
      return err(Error::NotSupported, "output quantisation (scale ", double(scale(output)), ", zero point ", zp(output),
                 ") is not 1/256, ", qmin);
    const SoftmaxParams p = prepare_softmax(double(op_->options.beta), double(scale(input)));
    if (p.input_left_shift < 0) return err(Error::NotSupported, "beta · input scale too small for the fixed-point path");
    const int depth = input.shape.back();
    const int rows = depth == 0 ? 0 : int(input.element_count() / size_t(depth));
    return by_type(input.type, [&]<typename T>() {
      if (!softmax<T>(p, rows, depth, in_data<T>(0), out_data<T>()))
        return err(Error::NotSupported, "row sum outside the range of the fixed-point reciprocal");
      return Status::ok();
    });
  }

  Status lut_op(LutFunction f) {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    const Tensor &input = in(0), &output = out();
    if (f == LutFunction::Logistic && double(scale(output)) != 1.0 / 256)
      return err(Error::NotSupported, "LOGISTIC needs output scale 1/256, got ", double(scale(output)));
    return by_type(input.type, [&]<typename T>() {
      const auto table = make_lut<T>(f, scale(input), zp(input), scale(output), zp(output));
      const T* x = in_data<T>(0);
      T* o = out_data<T>();
      for (size_t i = 0; i < output.element_count(); ++i) o[i] = table[static_cast<uint8_t>(x[i])];
      return Status::ok();
    });
  }

  Status hard_swish_op() {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    HardSwishParams p;
    if (!prepare_hard_swish(scale(in(0)), zp(in(0)), scale(out()), zp(out()), &p))
      return err(Error::NotSupported, "output multiplier exponent > 0 (output scale too small for the input scale)");
    return map_8bit([&]<typename T>(T x) { return hard_swish<T>(p, x); });
  }

  Status leaky_relu_op() {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    const LeakyReluParams p = prepare_leaky_relu(scale(in(0)), zp(in(0)), scale(out()), zp(out()), op_->options.alpha);
    return map_8bit([&]<typename T>(T x) { return leaky_relu<T>(p, x); });
  }

  // activations.cc ReluPrepare + QuantizedReluX.
  Status relu_op(float act_min, float act_max) {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    const Tensor &input = in(0), &output = out();
    const Multiplier m = quantize_multiplier(scale(input) / scale(output));  // float quotient, as TFLite
    const bool u8 = output.type == TensorType::UInt8;
    const int32_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
    Range r;
    r.min = std::max(qmin, zp(output) + static_cast<int32_t>(std::round(act_min / scale(output))));
    r.max = std::isinf(act_max) ? qmax : std::min(qmax, zp(output) + static_cast<int32_t>(std::round(act_max / scale(output))));
    const int32_t in_zp = zp(input), out_zp = zp(output);
    return map_8bit([&]<typename T>(T x) {
      const int32_t v = out_zp + multiply_by_quantized_multiplier(int32_t(x) - in_zp, m);
      return static_cast<T>(std::min(std::max(v, r.min), r.max));
    });
  }

  // elementwise.cc AbsEvalQuantized (int8).
  Status abs_op() {
    VKRT_RETURN_IF_ERROR(unary_prologue());
    const Tensor &input = in(0), &output = out();
    if (input.type != TensorType::Int8) return err(Error::NotSupported, "ABS is supported for int8 only");
    const bool rescale = scale(input) != scale(output);
    const Multiplier m = rescale ? quantize_multiplier(scale(input) / scale(output)) : Multiplier{};
    const int32_t in_zp = zp(input), out_zp = zp(output);
    const int8_t* x = in_data<int8_t>(0);
    int8_t* o = out_data<int8_t>();
    for (size_t i = 0; i < output.element_count(); ++i) {
      const int32_t v = std::abs(int32_t(x[i]) - in_zp);
      const int32_t r = (rescale ? multiply_by_quantized_multiplier(v, m) : v) + out_zp;
      o[i] = static_cast<int8_t>(std::min(std::max(r, -128), 127));
    }
    return Status::ok();
  }

  // quantize.cc: float → 8-bit (AffineQuantize) or 8-bit → 8-bit (Requantize).
  Status quantize_op() {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, 1));
    const Tensor &input = in(0), &output = out();
    VKRT_RETURN_IF_ERROR(expect_count(output, int64_t(input.element_count()), "output"));
    VKRT_RETURN_IF_ERROR(expect_quantized(output, "output"));
    const int32_t out_zp = zp(output);
    if (input.type == TensorType::Float32) {
      const float s = scale(output);
      return by_type(output.type, [&]<typename T>() {
        const auto& bytes = in_bytes(0);
        T* o = out_data<T>();
        for (size_t i = 0; i < output.element_count(); ++i) {
          float v;
          std::memcpy(&v, bytes.data() + 4 * i, 4);
          const float q = std::round(v / s);
          const int64_t u = std::isfinite(q) ? int64_t(std::clamp(q, -1e9f, 1e9f)) + out_zp : (q > 0 ? INT32_MAX : INT32_MIN);
          o[i] = static_cast<T>(std::clamp<int64_t>(u, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
        }
        return Status::ok();
      });
    }
    VKRT_RETURN_IF_ERROR(expect_quantized(input, "input"));
    const Multiplier m = quantize_multiplier(double(scale(input)) / double(scale(output)));
    const int32_t in_zp = zp(input);
    return by_type(input.type, [&]<typename In>() {
      return by_type(output.type, [&]<typename Out>() {
        const In* x = in_data<In>(0);
        Out* o = out_data<Out>();
        for (size_t i = 0; i < output.element_count(); ++i) {
          const int32_t v = multiply_by_quantized_multiplier(int32_t(x[i]) - in_zp, m) + out_zp;
          o[i] = static_cast<Out>(std::min<int32_t>(std::max<int32_t>(v, std::numeric_limits<Out>::min()),
                                                    std::numeric_limits<Out>::max()));
        }
        return Status::ok();
      });
    });
  }

  Status dequantize_op() {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, 1));
    const Tensor &input = in(0), &output = out();
    VKRT_RETURN_IF_ERROR(expect_type(output, TensorType::Float32, "output"));
    VKRT_RETURN_IF_ERROR(expect_count(output, int64_t(input.element_count()), "output"));
    VKRT_RETURN_IF_ERROR(expect_quantized(input, "input"));
    const double s = scale(input);
    const int32_t z = zp(input);
    return by_type(input.type, [&]<typename T>() {
      const T* x = in_data<T>(0);
      for (size_t i = 0; i < input.element_count(); ++i) {
        const float v = static_cast<float>(s * (int32_t(x[i]) - z));
        std::memcpy(out_bytes().data() + 4 * i, &v, 4);
      }
      return Status::ok();
    });
  }

  // MEAN (int8): reduce.cc's paths, see mean_op's body.
  Status mean_op() {
    VKRT_RETURN_IF_ERROR(arity(2, 2, 1, 1));
    const Tensor &input = in(0), &output = out();
    VKRT_RETURN_IF_ERROR(expect_type(input, TensorType::Int8, "input"));
    VKRT_RETURN_IF_ERROR(expect_type(output, TensorType::Int8, "output"));
    VKRT_RETURN_IF_ERROR(expect_quantized(input, "input"));
    VKRT_RETURN_IF_ERROR(expect_quantized(output, "output"));
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, read_ints(1, "axis"));
    const size_t rank = input.shape.size();
    if (rank > kMaxRank) return err(Error::NotSupported, "rank ", rank, " is above ", kMaxRank);
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) {
      VKRT_ASSIGN_OR_RETURN(int axis, resolve_axis(a, rank, "axis"));
      reduced[size_t(axis)] = true;
    }
    std::vector<int32_t> out_shape;
    int64_t num_in_axis = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (reduced[d]) {
        num_in_axis *= input.shape[d];
        if (op_->options.keep_dims) out_shape.push_back(1);
      } else {
        out_shape.push_back(input.shape[d]);
      }
    }
    VKRT_RETURN_IF_ERROR(expect_count(output, product(out_shape), "output"));
    std::vector<int32_t> sums(output.element_count(), 0);
    const int8_t* x = in_data<int8_t>(0);
    if (num_in_axis > 0) {
      for (size_t i = 0; i < input.element_count(); ++i) {
        size_t flat = i, out_index = 0, out_stride = 1;
        for (size_t d = rank; d-- > 0;) {
          const size_t c = flat % size_t(input.shape[d]);
          flat /= size_t(input.shape[d]);
          if (!reduced[d]) {
            out_index += c * out_stride;
            out_stride *= size_t(input.shape[d]);
          }
        }
        sums[out_index] = arith_add(sums[out_index], x[i]);
      }
    }
    int8_t* o = out_data<int8_t>();
    if (num_in_axis == 0) return Status::ok();  // TFLite leaves zeros
    Multiplier m = quantize_multiplier(double(scale(input)) / double(scale(output)));
    // reduce.cc's special case (the axes as written, 4-D, keep_dims, axes {1, 2}):
    // reference_integer_ops::Mean rescales the sum first, then divides rounding half away from zero.
    if (op_->options.keep_dims && rank == 4 && axes.size() == 2 &&
        ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1))) {
      const int32_t n = int32_t(num_in_axis);
      for (size_t i = 0; i < sums.size(); ++i) {
        int32_t acc = multiply_by_quantized_multiplier(
            static_cast<int32_t>(int64_t(sums[i]) - int64_t(zp(input)) * num_in_axis), m);
        acc = acc > 0 ? (acc + n / 2) / n : (acc - n / 2) / n;
        o[i] = static_cast<int8_t>(std::min(std::max(acc + zp(output), -128), 127));
      }
      return Status::ok();
    }
    // Otherwise reference_ops::QuantizedMeanOrSum: 1/n folded into the multiplier.
    int shift = 63 - __builtin_clzll(uint64_t(num_in_axis));
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / num_in_axis);
    m.shift -= shift;
    for (size_t i = 0; i < sums.size(); ++i) {
      const int32_t shifted = static_cast<int32_t>(int64_t(sums[i]) - int64_t(zp(input)) * num_in_axis);
      const int32_t v = multiply_by_quantized_multiplier(shifted, m) + zp(output);
      o[i] = static_cast<int8_t>(std::min(std::max(v, -128), 127));
    }
    return Status::ok();
  }
  static int32_t arith_add(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }

  // reference_ops::ResizeBilinearInteger (int8).
  Status resize_bilinear_op() {
    VKRT_RETURN_IF_ERROR(arity(2, 2, 1, 1));
    const Tensor &input = in(0), &output = out();
    VKRT_RETURN_IF_ERROR(expect_type(input, TensorType::Int8, "input"));
    VKRT_RETURN_IF_ERROR(expect_type(output, TensorType::Int8, "output"));
    VKRT_RETURN_IF_ERROR(expect_rank(input, 4, "input"));
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> size, read_ints(1, "size"));
    if (size.size() != 2 || size[0] < 1 || size[1] < 1 || size[0] > 65536 || size[1] > 65536)
      return err(Error::InvalidProgram, "size must hold two values in [1, 65536]");
    const bool align = op_->options.align_corners, half = op_->options.half_pixel_centers;
    if (align && half) return err(Error::InvalidProgram, "align_corners and half_pixel_centers are exclusive");
    const int32_t batches = input.shape[0], in_h = input.shape[1], in_w = input.shape[2], depth = input.shape[3];
    const int32_t out_h = int32_t(size[0]), out_w = int32_t(size[1]);
    VKRT_RETURN_IF_ERROR(expect_shape(output, {batches, out_h, out_w, depth}, "output"));
    int32_t h_scale = ((1 << 10) * in_h + out_h / 2) / out_h;
    int32_t w_scale = ((1 << 10) * in_w + out_w / 2) / out_w;
    if (align && out_h > 1) h_scale = ((1 << 10) * (in_h - 1) + (out_h - 1) / 2) / (out_h - 1);
    if (align && out_w > 1) w_scale = ((1 << 10) * (in_w - 1) + (out_w - 1) / 2) / (out_w - 1);
    auto interp = [&](int32_t v, int32_t s, int32_t n, int32_t* scaled, int32_t* lo, int32_t* hi) {
      *scaled = half ? v * s + s / 2 - (1 << 9) : v * s;
      *lo = std::max(*scaled / (1 << 10), 0);
      *hi = std::min((*scaled + (1 << 10) - 1) / (1 << 10), n - 1);
    };
    const int8_t* x = in_data<int8_t>(0);
    int8_t* o = out_data<int8_t>();
    auto at = [&](int b, int y, int xx, int c) { return int64_t(x[((size_t(b) * in_h + y) * in_w + xx) * depth + c]); };
    for (int b = 0; b < batches; ++b)
      for (int y = 0; y < out_h; ++y) {
        int32_t iy, y0, y1;
        interp(y, h_scale, in_h, &iy, &y0, &y1);
        for (int xo = 0; xo < out_w; ++xo) {
          int32_t ix, x0, x1;
          interp(xo, w_scale, in_w, &ix, &x0, &x1);
          const int64_t dy = iy - (1 << 10) * y0, dx = ix - (1 << 10) * x0;
          for (int c = 0; c < depth; ++c) {
            const int64_t v = at(b, y0, x0, c) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                              at(b, y1, x0, c) * dy * ((1 << 10) - dx) + at(b, y0, x1, c) * ((1 << 10) - dy) * dx +
                              at(b, y1, x1, c) * dy * dx;
            const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
            o[((size_t(b) * out_h + y) * out_w + xo) * depth + c] = static_cast<int8_t>((v + round) / (1 << 20));
          }
        }
      }
    return Status::ok();
  }

  // ---- data movement -----------------------------------------------------------------------------

  Status same_type_out(const Tensor& input) const {
    if (out().type != input.type) return err(Error::NotSupported, "input and output types differ");
    if (element_size(input.type) == 0) return err(Error::NotSupported, "type ", tensor_type_name(input.type));
    return Status::ok();
  }

  // pad.cc: the quantised pad value is the output zero point.
  Status pad_op() {
    VKRT_RETURN_IF_ERROR(arity(2, 2, 1, 1));
    const Tensor &input = in(0), &output = out();
    VKRT_RETURN_IF_ERROR(same_type_out(input));
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, read_ints(1, "paddings"));
    const size_t rank = input.shape.size();
    if (rank > kMaxRank || pads.size() != 2 * rank)
      return err(Error::InvalidProgram, "paddings hold ", pads.size(), " values for a rank-", rank, " input");
    std::vector<int32_t> shape(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (pads[2 * d] < 0 || pads[2 * d + 1] < 0 || pads[2 * d] + pads[2 * d + 1] > (1 << 24))
        return err(Error::InvalidProgram, "padding of dim ", d, " is negative or too large");
      shape[d] = int32_t(input.shape[d] + pads[2 * d] + pads[2 * d + 1]);
    }
    VKRT_RETURN_IF_ERROR(expect_shape(output, shape, "output"));
    const size_t es = element_size(input.type);
    std::vector<uint8_t>& o = out_bytes();
    if (output.is_quantized()) {
      const int64_t z = output.zero_point[0];
      for (size_t i = 0; i < output.element_count(); ++i) std::memcpy(o.data() + i * es, &z, es);  // little endian
    }
    const auto& x = in_bytes(0);
    for (size_t i = 0; i < input.element_count(); ++i) {
      size_t flat = i, out_index = 0, out_stride = 1;
      for (size_t d = rank; d-- > 0;) {
        const size_t c = flat % size_t(input.shape[d]);
        flat /= size_t(input.shape[d]);
        out_index += (c + size_t(pads[2 * d])) * out_stride;
        out_stride *= size_t(shape[d]);
      }
      std::memcpy(o.data() + out_index * es, x.data() + i * es, es);
    }
    return Status::ok();
  }

  // Quantised operands of a pure data movement must share the output's quantisation.
  Status same_quantization(const Tensor& t) const {
    if (t.scale != out().scale || t.zero_point != out().zero_point)
      return err(Error::NotSupported, "input '", t.name, "' and output quantisations differ (requantising ",
                 "data movement is not supported)");
    return Status::ok();
  }

  Status concat_op() {
    VKRT_RETURN_IF_ERROR(arity(1, SIZE_MAX, 1, 1));
    const Tensor& output = out();
    if (op_->options.fused_activation != Activation::None)
      return err(Error::NotSupported, "fused activation on CONCATENATION");
    const size_t rank = output.shape.size();
    VKRT_ASSIGN_OR_RETURN(int axis, resolve_axis(op_->options.axis, rank, "axis"));
    std::vector<int32_t> shape = in(0).shape;
    int64_t axis_total = 0;
    for (size_t k = 0; k < op_->inputs.size(); ++k) {
      const Tensor& t = in(k);
      VKRT_RETURN_IF_ERROR(same_type_out(t));
      VKRT_RETURN_IF_ERROR(same_quantization(t));
      if (t.shape.size() != rank) return err(Error::InvalidProgram, "input ", k, " has rank ", t.shape.size());
      for (size_t d = 0; d < rank; ++d)
        if (int(d) != axis && t.shape[d] != output.shape[d])
          return err(Error::InvalidProgram, "input ", k, " shape ", shape_str(t.shape), " does not fit output ",
                     shape_str(output.shape));
      axis_total += t.shape[size_t(axis)];
    }
    shape[size_t(axis)] = int32_t(axis_total);
    VKRT_RETURN_IF_ERROR(expect_shape(output, shape, "output"));
    const size_t es = element_size(output.type);
    const size_t outer = size_t(product(output.shape, 0, size_t(axis)));
    const size_t inner = size_t(product(output.shape, size_t(axis) + 1)) * es;
    uint8_t* o = out_bytes().data();
    for (size_t b = 0; b < outer; ++b)
      for (size_t k = 0; k < op_->inputs.size(); ++k) {
        const size_t chunk = size_t(in(k).shape[size_t(axis)]) * inner;
        if (chunk) std::memcpy(o, in_bytes(k).data() + b * chunk, chunk);
        o += chunk;
      }
    return Status::ok();
  }

  Status split_op() {
    VKRT_RETURN_IF_ERROR(arity(2, 2, 1, SIZE_MAX));
    const Tensor& input = in(1);
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, read_ints(0, "axis"));
    if (axis_v.size() != 1) return err(Error::InvalidProgram, "axis must hold one value");
    VKRT_ASSIGN_OR_RETURN(int axis, resolve_axis(axis_v[0], input.shape.size(), "axis"));
    const size_t n = op_->outputs.size();
    if (op_->options.num_splits != int32_t(n))
      return err(Error::InvalidProgram, "num_splits ", op_->options.num_splits, " but ", n, " outputs");
    if (input.shape[size_t(axis)] % int32_t(n) != 0)
      return err(Error::InvalidProgram, "dim ", axis, " of size ", input.shape[size_t(axis)], " does not split into ",
                 n);
    std::vector<int32_t> shape = input.shape;
    shape[size_t(axis)] /= int32_t(n);
    for (size_t k = 0; k < n; ++k) {
      if (out(k).type != input.type) return err(Error::NotSupported, "input and output types differ");
      VKRT_RETURN_IF_ERROR(expect_shape(out(k), shape, "output"));
    }
    const size_t es = element_size(input.type);
    if (es == 0) return err(Error::NotSupported, "type ", tensor_type_name(input.type));
    const size_t outer = size_t(product(input.shape, 0, size_t(axis)));
    const size_t chunk = size_t(product(shape, size_t(axis))) * es;
    const uint8_t* x = in_bytes(1).data();
    for (size_t b = 0; b < outer; ++b)
      for (size_t k = 0; k < n; ++k) {
        if (chunk) std::memcpy(out_bytes(k).data() + b * chunk, x, chunk);
        x += chunk;
      }
    return Status::ok();
  }

  Status pack_op() {
    VKRT_RETURN_IF_ERROR(arity(1, SIZE_MAX, 1, 1));
    const size_t n = op_->inputs.size();
    if (op_->options.values_count != int32_t(n))
      return err(Error::InvalidProgram, "values_count ", op_->options.values_count, " but ", n, " inputs");
    const Tensor& first = in(0);
    VKRT_ASSIGN_OR_RETURN(int axis, resolve_axis(op_->options.axis, first.shape.size() + 1, "axis"));
    for (size_t k = 0; k < n; ++k) {
      VKRT_RETURN_IF_ERROR(same_type_out(in(k)));
      if (in(k).shape != first.shape) return err(Error::InvalidProgram, "inputs have different shapes");
    }
    std::vector<int32_t> shape = first.shape;
    shape.insert(shape.begin() + axis, int32_t(n));
    VKRT_RETURN_IF_ERROR(expect_shape(out(), shape, "output"));
    const size_t es = element_size(first.type);
    const size_t outer = size_t(product(first.shape, 0, size_t(axis)));
    const size_t inner = size_t(product(first.shape, size_t(axis))) * es;
    uint8_t* o = out_bytes().data();
    for (size_t b = 0; b < outer; ++b)
      for (size_t k = 0; k < n; ++k) {
        if (inner) std::memcpy(o, in_bytes(k).data() + b * inner, inner);
        o += inner;
      }
    return Status::ok();
  }

  Status unpack_op() {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, SIZE_MAX));
    const Tensor& input = in(0);
    VKRT_ASSIGN_OR_RETURN(int axis, resolve_axis(op_->options.axis, input.shape.size(), "axis"));
    const size_t n = op_->outputs.size();
    if (input.shape[size_t(axis)] != int32_t(n) || (op_->options.num != 0 && op_->options.num != int32_t(n)))
      return err(Error::InvalidProgram, "dim ", axis, " has size ", input.shape[size_t(axis)], ", num ",
                 op_->options.num, ", outputs ", n);
    std::vector<int32_t> shape = input.shape;
    shape.erase(shape.begin() + axis);
    for (size_t k = 0; k < n; ++k) {
      if (out(k).type != input.type) return err(Error::NotSupported, "input and output types differ");
      VKRT_RETURN_IF_ERROR(expect_shape(out(k), shape, "output"));
    }
    const size_t es = element_size(input.type);
    if (es == 0) return err(Error::NotSupported, "type ", tensor_type_name(input.type));
    const size_t outer = size_t(product(input.shape, 0, size_t(axis)));
    const size_t inner = size_t(product(input.shape, size_t(axis) + 1)) * es;
    const uint8_t* x = in_bytes(0).data();
    for (size_t b = 0; b < outer; ++b)
      for (size_t k = 0; k < n; ++k) {
        if (inner) std::memcpy(out_bytes(k).data() + b * inner, x, inner);
        x += inner;
      }
    return Status::ok();
  }

  // SLICE (begin, size; size −1 = to the end) and STRIDED_SLICE (strided_slice_logic.h: begin/end
  // masks, negative indices, clamping, shrink_axis_mask, offset).
  Status slice_op(bool strided) {
    VKRT_RETURN_IF_ERROR(strided ? arity(4, 4, 1, 1) : arity(3, 3, 1, 1));
    const Tensor& input = in(0);
    VKRT_RETURN_IF_ERROR(same_type_out(input));
    const size_t rank = input.shape.size();
    if (rank > kMaxRank) return err(Error::NotSupported, "rank ", rank, " is above ", kMaxRank);
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> begin, read_ints(1, "begin"));
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> second, read_ints(2, strided ? "end" : "size"));
    std::vector<int64_t> strides(rank, 1);
    if (strided) {
      VKRT_ASSIGN_OR_RETURN(strides, read_ints(3, "strides"));
    }
    if (begin.size() != rank || second.size() != rank || strides.size() != rank)
      return err(Error::InvalidProgram, "begin/", strided ? "end/strides" : "size", " do not have ", rank, " values");
    const OperatorOptions& o = op_->options;
    if (strided && (o.ellipsis_mask != 0 || o.new_axis_mask != 0))
      return err(Error::NotSupported, "ellipsis_mask and new_axis_mask are not supported");
    std::vector<int64_t> start(rank), stop(rank);
    std::vector<int32_t> kept_shape;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t n = input.shape[d];
      if (!strided) {
        start[d] = begin[d];
        stop[d] = second[d] == -1 ? n : begin[d] + second[d];
        if (start[d] < 0 || stop[d] < start[d] || stop[d] > n)
          return err(Error::InvalidProgram, "slice [", start[d], ", ", stop[d], ") of dim ", d, " (size ", n, ")");
        kept_shape.push_back(int32_t(stop[d] - start[d]));
        continue;
      }
      const int64_t s = strides[d];
      if (s == 0) return err(Error::InvalidProgram, "stride of dim ", d, " is 0");
      const bool shrink = (o.shrink_axis_mask >> d) & 1;
      if (n == 0) {
        start[d] = stop[d] = 0;
      } else {
        int64_t b = begin[d];
        if ((o.begin_mask >> d) & 1) b = s > 0 ? std::numeric_limits<int32_t>::lowest() : std::numeric_limits<int32_t>::max();
        if (b < 0) b += n;
        b = s > 0 ? std::clamp<int64_t>(b, 0, n) : std::clamp<int64_t>(b, -1, n - 1);
        int64_t e = o.offset ? begin[d] + second[d] : second[d];
        if (shrink) {
          e = b + 1;
        } else {
          if ((o.end_mask >> d) & 1) e = s > 0 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::lowest();
          if (e < 0) e += n;
          e = s > 0 ? std::clamp<int64_t>(e, 0, n) : std::clamp<int64_t>(e, -1, n - 1);
        }
        start[d] = b;
        stop[d] = e;
      }
      const int64_t len = s > 0 ? (stop[d] > start[d] ? (stop[d] - start[d] + s - 1) / s : 0)
                                : (start[d] > stop[d] ? (start[d] - stop[d] - s - 1) / -s : 0);
      if (shrink && len != 1) return err(Error::InvalidProgram, "shrunk dim ", d, " selects ", len, " elements");
      if (!shrink) kept_shape.push_back(int32_t(len));
      if (shrink && (start[d] < 0 || start[d] >= n))
        return err(Error::InvalidProgram, "shrunk dim ", d, " index ", start[d], " outside size ", n);
    }
    VKRT_RETURN_IF_ERROR(expect_count(out(), product(kept_shape), "output"));
    const size_t es = element_size(input.type);
    const auto& x = in_bytes(0);
    uint8_t* dst = out_bytes().data();
    // Odometer over the selected coordinates, last dim fastest.
    std::vector<int64_t> idx(start.begin(), start.end());
    auto in_range = [&](size_t d, int64_t v) { return strides[d] > 0 ? v < stop[d] : v > stop[d]; };
    for (size_t d = 0; d < rank; ++d)
      if (!in_range(d, idx[d])) return Status::ok();  // empty selection
    while (true) {
      size_t flat = 0;
      for (size_t d = 0; d < rank; ++d) flat = flat * size_t(input.shape[d]) + size_t(idx[d]);
      std::memcpy(dst, x.data() + flat * es, es);
      dst += es;
      size_t d = rank;
      while (d-- > 0) {
        idx[d] += strides[d];
        if (in_range(d, idx[d])) break;
        idx[d] = start[d];
      }
      if (d == SIZE_MAX) break;
    }
    return Status::ok();
  }

  Status reshape_op() {
    VKRT_RETURN_IF_ERROR(arity(1, 2, 1, 1));
    VKRT_RETURN_IF_ERROR(same_type_out(in(0)));
    VKRT_RETURN_IF_ERROR(expect_count(out(), int64_t(in(0).element_count()), "output"));
    out_bytes() = in_bytes(0);
    return Status::ok();
  }

  Status shape_op() {
    VKRT_RETURN_IF_ERROR(arity(1, 1, 1, 1));
    const Tensor& input = in(0);
    const Tensor& output = out();
    VKRT_RETURN_IF_ERROR(expect_count(output, int64_t(input.shape.size()), "output"));
    for (size_t d = 0; d < input.shape.size(); ++d) {
      if (output.type == TensorType::Int32) {
        std::memcpy(out_bytes().data() + 4 * d, &input.shape[d], 4);
      } else if (output.type == TensorType::Int64) {
        const int64_t v = input.shape[d];
        std::memcpy(out_bytes().data() + 8 * d, &v, 8);
      } else {
        return err(Error::NotSupported, "output type ", tensor_type_name(output.type));
      }
    }
    return Status::ok();
  }

  const Model& m_;
  CustomOperator custom_;
  std::vector<std::vector<uint8_t>> values_;
  std::vector<char> ready_;
  size_t op_index_ = 0;
  const Operator* op_ = nullptr;
};

}  // namespace

Result<std::vector<std::vector<uint8_t>>> run_tflite_reference(const Model& model,
                                                               const std::vector<std::vector<uint8_t>>& inputs,
                                                               const CustomOperator& custom) {
  Interpreter interp(model, custom);
  VKRT_RETURN_IF_ERROR(interp.set_inputs(inputs));
  VKRT_RETURN_IF_ERROR(interp.run());
  return interp.outputs();
}

Result<std::vector<std::vector<uint8_t>>> run_tflite_reference_all(const Model& model,
                                                                   const std::vector<std::vector<uint8_t>>& inputs) {
  Interpreter interp(model);
  VKRT_RETURN_IF_ERROR(interp.set_inputs(inputs));
  VKRT_RETURN_IF_ERROR(interp.run());
  return std::move(interp.values());
}

}  // namespace vkrt::ethosu::tflite
