// TOSA 1.0 tensor operators (tosa.md §6): ARGMAX, the pools, the convolutions, MATMUL, FFT2D,
// RFFT2D.
#include "vgf/ir/ops/shape_rules.h"

namespace vkrt::vgf {
namespace {

using namespace shape_rules;

// ERROR_IF(in_t != int8 && zp != 0): only int8 tensors carry a zero point, an int8 value.
Status zero_point_allowed(const OpContext& c, const char* what, DType t, int32_t zp) {
  if (t == DType::Int8) {
    if (zp < INT8_MIN || zp > INT8_MAX) return c.refuse(what, " ", zp, " outside the int8 range");
    return Status::ok();
  }
  if (zp == 0) return Status::ok();
  return c.refuse(what, " ", zp, " must be 0 for ", dtype_name(t), " tensors");
}

// The accumulator TOSA 1.0 allows for an input type: int8 -> INT32, int16 -> INT48, fp16 -> FP16
// or FP32, bf16 and fp32 -> FP32 (other input types have no convolution or average pool).
Status check_accumulator(const OpContext& c, DType in, AccType acc, bool int16_acc_is_int48 = true) {
  bool ok = true;
  switch (in) {
    case DType::Int8: ok = acc == AccType::Int32; break;
    case DType::Int16: ok = acc == (int16_acc_is_int48 ? AccType::Int48 : AccType::Int32); break;
    case DType::Fp16: ok = acc == AccType::Fp16 || acc == AccType::Fp32; break;
    case DType::Bf16:
    case DType::Fp32: ok = acc == AccType::Fp32; break;
    default: return c.refuse("input type ", dtype_name(in), " has no accumulator");
  }
  static constexpr const char* kNames[] = {"?", "INT32", "FP16", "FP32", "INT48"};
  if (!ok) return c.refuse("acc_type ", kNames[uint32_t(acc) <= 4 ? uint32_t(acc) : 0], " is not allowed with ",
                           dtype_name(in), " input");
  return Status::ok();
}

// The element types of a convolution: int8 input -> int8 (or int4) weights, int32 bias and output;
// int16 -> int8 weights, int48 bias and output; floats: weights of the input type, bias and output
// of the input type (fp16 may widen to fp32 with an fp32 accumulator).
Status check_conv_types(const OpContext& c, AccType acc) {
  const DType in = c.input_type(0), w = c.input_type(1), bias = c.input_type(2), out = c.output_type(0);
  VKRT_RETURN_IF_ERROR(check_accumulator(c, in, acc));
  bool ok = true;
  switch (in) {
    case DType::Int8: ok = (w == DType::Int8 || w == DType::Int4) && bias == DType::Int32 && out == DType::Int32; break;
    case DType::Int16: ok = w == DType::Int8 && bias == DType::Int48 && out == DType::Int48; break;
    case DType::Fp16: ok = w == DType::Fp16 && bias == out && (out == DType::Fp16 || out == DType::Fp32); break;
    default: ok = w == in && bias == in && out == in; break;
  }
  if (!ok)
    return c.refuse("input ", dtype_name(in), ", weight ", dtype_name(w), ", bias ", dtype_name(bias), ", output ",
                    dtype_name(out), " is not a TOSA combination");
  return Status::ok();
}

Status check_spatial(const OpContext& c, std::span<const int32_t> stride, std::span<const int32_t> dilation,
                     std::span<const int32_t> pad) {
  for (size_t i = 0; i < stride.size(); ++i) {
    if (stride[i] < 1) return c.refuse("stride[", i, "] = ", stride[i], " must be >= 1");
  }
  for (size_t i = 0; i < dilation.size(); ++i) {
    if (dilation[i] < 1) return c.refuse("dilation[", i, "] = ", dilation[i], " must be >= 1");
  }
  for (size_t i = 0; i < pad.size(); ++i) {
    if (pad[i] < 0) return c.refuse("pad[", i, "] = ", pad[i], " must be >= 0");
  }
  return Status::ok();
}

Result<std::vector<Shape>> infer_argmax(const OpContext& c, std::span<const Shape* const> in) {
  VKRT_ASSIGN_OR_RETURN(int axis, check_axis(c, c.attr<ArgmaxAttr>().axis, in[0]->size()));
  Shape s = *in[0];
  s.erase(s.begin() + axis);
  return std::vector<Shape>{s};
}

Status check_argmax(const OpContext& c) {
  if (c.output_type(0) != DType::Int32) return c.refuse("output is ", dtype_name(c.output_type(0)), ", not int32");
  return Status::ok();
}

Result<std::vector<Shape>> infer_pool(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<PoolAttr>();
  const Shape& a = *in[0];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
  VKRT_ASSIGN_OR_RETURN(int64_t oh, pool_out(c, a[1], p.kernel[0], p.pad[0], p.pad[1], p.stride[0]));
  VKRT_ASSIGN_OR_RETURN(int64_t ow, pool_out(c, a[2], p.kernel[1], p.pad[2], p.pad[3], p.stride[1]));
  return std::vector<Shape>{{a[0], oh, ow, a[3]}};
}

Status check_pool(const OpContext& c) {
  VKRT_RETURN_IF_ERROR(same_types(c, {0}));
  const auto& p = c.attr<PoolAttr>();
  for (size_t i = 0; i < 2; ++i) {
    if (p.kernel[i] < 1) return c.refuse("kernel[", i, "] = ", p.kernel[i], " must be >= 1");
  }
  VKRT_RETURN_IF_ERROR(check_spatial(c, p.stride, {}, p.pad));
  for (size_t i = 0; i < 4; ++i) {
    if (p.pad[i] >= p.kernel[i / 2])
      return c.refuse("pad[", i, "] = ", p.pad[i], " must be below the kernel size ", p.kernel[i / 2]);
  }
  if (c.op.kind == OpKind::AVG_POOL2D) {
    VKRT_RETURN_IF_ERROR(check_accumulator(c, c.input_type(0), p.acc_type, /*int16_acc_is_int48=*/false));
    VKRT_RETURN_IF_ERROR(zero_point_allowed(c, "input_zp", c.input_type(0), p.input_zp));
    VKRT_RETURN_IF_ERROR(zero_point_allowed(c, "output_zp", c.output_type(0), p.output_zp));
  }
  return Status::ok();
}

// The bias: rank 1, one value per output channel or one for all.
Status check_bias(const OpContext& c, const Shape& bias, int64_t out_channels) {
  VKRT_RETURN_IF_ERROR(need_rank(c, bias, 1, "bias"));
  if (known(bias[0]) && known(out_channels) && bias[0] != out_channels && bias[0] != 1)
    return c.fail("bias has ", bias[0], " values, expected ", out_channels, " or 1");
  return Status::ok();
}

Result<std::vector<Shape>> infer_conv2d(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<ConvAttr>();
  const Shape& a = *in[0];
  const Shape& w = *in[1];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
  VKRT_RETURN_IF_ERROR(need_rank(c, w, 4, "weight"));
  const bool depthwise = c.op.kind == OpKind::DEPTHWISE_CONV2D;
  // CONV2D weight [OC, KH, KW, IC]; DEPTHWISE_CONV2D weight [KH, KW, C, M].
  int64_t kh = depthwise ? w[0] : w[1], kw = depthwise ? w[1] : w[2];
  int64_t wc = depthwise ? w[2] : w[3];
  if (known(wc) && known(a[3]) && wc != a[3]) return c.fail("weight channels ", wc, " != input channels ", a[3]);
  VKRT_ASSIGN_OR_RETURN(int64_t oh, conv_out(c, a[1], kh, p.pad[0], p.pad[1], p.stride[0], p.dilation[0]));
  VKRT_ASSIGN_OR_RETURN(int64_t ow, conv_out(c, a[2], kw, p.pad[2], p.pad[3], p.stride[1], p.dilation[1]));
  int64_t oc = depthwise ? ((known(w[2]) && known(w[3])) ? w[2] * w[3] : kDynamicDim) : w[0];
  VKRT_RETURN_IF_ERROR(check_bias(c, *in[2], oc));
  return std::vector<Shape>{{a[0], oh, ow, oc}};
}

Result<std::vector<Shape>> infer_conv3d(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<ConvAttr>();
  const Shape& a = *in[0];
  const Shape& w = *in[1];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 5, "input"));
  VKRT_RETURN_IF_ERROR(need_rank(c, w, 5, "weight"));
  VKRT_RETURN_IF_ERROR(check_bias(c, *in[2], w[0]));
  Shape s{a[0], 0, 0, 0, w[0]};
  for (size_t d = 0; d < 3; ++d) {
    VKRT_ASSIGN_OR_RETURN(s[d + 1], conv_out(c, a[d + 1], w[d + 1], p.pad[2 * d], p.pad[2 * d + 1], p.stride[d],
                                             p.dilation[d]));
  }
  return std::vector<Shape>{s};
}

Status check_conv(const OpContext& c) {
  const auto& p = c.attr<ConvAttr>();
  VKRT_RETURN_IF_ERROR(check_conv_types(c, p.acc_type));
  const size_t spatial = c.op.kind == OpKind::CONV3D ? 3 : 2;
  VKRT_RETURN_IF_ERROR(check_spatial(c, std::span(p.stride).first(spatial), std::span(p.dilation).first(spatial),
                                     std::span(p.pad).first(2 * spatial)));
  VKRT_RETURN_IF_ERROR(zero_point_allowed(c, "input_zp", c.input_type(0), p.input_zp));
  return zero_point_allowed(c, "weight_zp", c.input_type(1), p.weight_zp);
}

Result<std::vector<Shape>> infer_transpose_conv2d(const OpContext& c, std::span<const Shape* const> in) {
  const auto& p = c.attr<TransposeConvAttr>();
  const Shape& a = *in[0];
  const Shape& w = *in[1];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 4, "input"));
  VKRT_RETURN_IF_ERROR(need_rank(c, w, 4, "weight"));
  if (p.stride[0] < 1 || p.stride[1] < 1) return c.fail("stride must be >= 1");
  // weight [OC, KH, KW, IC]
  if (known(w[3]) && known(a[3]) && w[3] != a[3]) return c.fail("weight channels ", w[3], " != input channels ", a[3]);
  auto out_dim = [&](int64_t i, int64_t k, int64_t pa, int64_t pb, int64_t s) -> int64_t {
    return (known(i) && known(k)) ? (i - 1) * s + pa + pb + k : kDynamicDim;
  };
  int64_t oh = out_dim(a[1], w[1], p.out_pad[0], p.out_pad[1], p.stride[0]);
  int64_t ow = out_dim(a[2], w[2], p.out_pad[2], p.out_pad[3], p.stride[1]);
  if ((known(oh) && oh < 1) || (known(ow) && ow < 1)) return c.fail("empty output");
  VKRT_RETURN_IF_ERROR(check_bias(c, *in[2], w[0]));
  return std::vector<Shape>{{a[0], oh, ow, w[0]}};
}

Status check_transpose_conv2d(const OpContext& c) {
  const auto& p = c.attr<TransposeConvAttr>();
  VKRT_RETURN_IF_ERROR(check_conv_types(c, p.acc_type));
  VKRT_RETURN_IF_ERROR(check_spatial(c, p.stride, {}, {}));
  VKRT_RETURN_IF_ERROR(zero_point_allowed(c, "input_zp", c.input_type(0), p.input_zp));
  return zero_point_allowed(c, "weight_zp", c.input_type(1), p.weight_zp);
}

Result<std::vector<Shape>> infer_matmul(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& a = *in[0];
  const Shape& b = *in[1];
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "A"));
  VKRT_RETURN_IF_ERROR(need_rank(c, b, 3, "B"));
  if (known(a[2]) && known(b[1]) && a[2] != b[1]) return c.fail("A columns ", a[2], " != B rows ", b[1]);
  if (known(a[0]) && known(b[0]) && a[0] != b[0]) return c.fail("A batch ", a[0], " != B batch ", b[0]);
  return std::vector<Shape>{{a[0], a[1], b[2]}};
}

Status check_matmul(const OpContext& c) {
  const auto& p = c.attr<MatmulAttr>();
  VKRT_RETURN_IF_ERROR(zero_point_allowed(c, "A_zp", c.input_type(0), p.a_zp));
  return zero_point_allowed(c, "B_zp", c.input_type(1), p.b_zp);
}

// FFT2D / RFFT2D: fp32 [N, H, W] with H and W powers of two.
Status fft_spatial_dims(const OpContext& c, const Shape& a) {
  VKRT_RETURN_IF_ERROR(need_rank(c, a, 3, "input_real"));
  for (size_t d = 1; d < 3; ++d) {
    const int64_t v = a[d];
    if (known(v) && (v < 1 || (v & (v - 1)) != 0))
      return c.fail(d == 1 ? "height " : "width ", v, " is not a power of two");
  }
  return Status::ok();
}

Result<std::vector<Shape>> infer_fft2d(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& re = *in[0];
  const Shape& im = *in[1];
  VKRT_RETURN_IF_ERROR(fft_spatial_dims(c, re));
  VKRT_RETURN_IF_ERROR(need_rank(c, im, 3, "input_imag"));
  Shape s = re;  // no broadcasting: the imaginary part has the real part's shape
  for (size_t d = 0; d < 3; ++d) {
    if (known(re[d]) && known(im[d]) && re[d] != im[d])
      return c.fail("input_imag ", shape_str(im), " differs from input_real ", shape_str(re));
    if (!known(s[d])) s[d] = im[d];
  }
  return std::vector<Shape>{s, s};
}

Result<std::vector<Shape>> infer_rfft2d(const OpContext& c, std::span<const Shape* const> in) {
  const Shape& a = *in[0];
  VKRT_RETURN_IF_ERROR(fft_spatial_dims(c, a));
  Shape s{a[0], a[1], known(a[2]) ? a[2] / 2 + 1 : kDynamicDim};
  return std::vector<Shape>{s, s};
}

// TOSA 1.0 defines FFT2D and RFFT2D for fp32 only (EXT-FFT).
Status check_fft(const OpContext& c) {
  for (size_t k = 0; k < c.op.inputs.size(); ++k) {
    if (c.input_type(k) != DType::Fp32) return c.refuse("input ", k, " is ", dtype_name(c.input_type(k)), ", not fp32");
  }
  for (size_t k = 0; k < c.op.outputs.size(); ++k) {
    if (c.output_type(k) != DType::Fp32)
      return c.refuse("output ", k, " is ", dtype_name(c.output_type(k)), ", not fp32");
  }
  return Status::ok();
}

}  // namespace

std::vector<OpDescriptor> tensor_op_descriptors() {
  const std::vector<std::string_view> conv_operands = {"pad",   "stride", "dilation", "acc_type", "local_bound",
                                                       "input", "weight", "bias",     "input_zp", "weight_zp"};
  auto conv = [&](OpKind kind, const char* name, ShapeRule rule) {
    return OpDescriptor{.kind = kind, .name = name, .tensor_inputs = {"input", "weight", "bias"},
                        .attributes = attribute_index<ConvAttr>(), .spirv_operands = conv_operands,
                        .infer_shapes = rule, .check = check_conv};
  };
  return {
      {.kind = OpKind::ARGMAX, .name = "ARGMAX", .tensor_inputs = {"input"},
       .attributes = attribute_index<ArgmaxAttr>(), .spirv_operands = {"axis", "nan_mode", "input"},
       .infer_shapes = infer_argmax, .check = check_argmax},
      {.kind = OpKind::AVG_POOL2D, .name = "AVG_POOL2D", .tensor_inputs = {"input"},
       .attributes = attribute_index<PoolAttr>(),
       .spirv_operands = {"kernel", "stride", "pad", "acc_type", "input", "input_zp", "output_zp"},
       .infer_shapes = infer_pool, .check = check_pool},
      conv(OpKind::CONV2D, "CONV2D", infer_conv2d),
      conv(OpKind::CONV3D, "CONV3D", infer_conv3d),
      conv(OpKind::DEPTHWISE_CONV2D, "DEPTHWISE_CONV2D", infer_conv2d),
      {.kind = OpKind::FFT2D, .name = "FFT2D", .tensor_inputs = {"input_real", "input_imag"}, .outputs = 2,
       .attributes = attribute_index<FftAttr>(),
       .spirv_operands = {"inverse", "local_bound", "input_real", "input_imag"}, .infer_shapes = infer_fft2d,
       .check = check_fft},
      {.kind = OpKind::MATMUL, .name = "MATMUL", .tensor_inputs = {"A", "B"},
       .attributes = attribute_index<MatmulAttr>(), .spirv_operands = {"A", "B", "A_zp", "B_zp"},
       .infer_shapes = infer_matmul, .check = check_matmul},
      {.kind = OpKind::MAX_POOL2D, .name = "MAX_POOL2D", .tensor_inputs = {"input"},
       .attributes = attribute_index<PoolAttr>(), .spirv_operands = {"kernel", "stride", "pad", "nan_mode", "input"},
       .infer_shapes = infer_pool, .check = check_pool},
      {.kind = OpKind::RFFT2D, .name = "RFFT2D", .tensor_inputs = {"input_real"}, .outputs = 2,
       .attributes = attribute_index<FftAttr>(), .spirv_operands = {"local_bound", "input_real"},
       .infer_shapes = infer_rfft2d, .check = check_fft},
      {.kind = OpKind::TRANSPOSE_CONV2D, .name = "TRANSPOSE_CONV2D", .tensor_inputs = {"input", "weight", "bias"},
       .attributes = attribute_index<TransposeConvAttr>(),
       .spirv_operands = {"out_pad", "stride", "acc_type", "local_bound", "input", "weight", "bias", "input_zp",
                          "weight_zp"},
       .infer_shapes = infer_transpose_conv2d, .check = check_transpose_conv2d},
  };
}

}  // namespace vkrt::vgf
