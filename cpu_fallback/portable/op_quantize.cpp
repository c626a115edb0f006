// Affine (de)quantization, ExecuTorch's quantized library (kernels/quantized/cpu/
// op_quantize.cpp, op_dequantize.cpp, op_add.cpp): one element loop for quantize and one for
// dequantize, each taking its (scale, zero_point) per tensor, per channel along an axis or
// per token (per row of the input flattened to 2-D).
//
// Schemas (kernels/quantized/quantized.yaml; + out + the trailing return slot):
//   quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//       int quant_max, ScalarType dtype, *, Tensor(a!) out)                            -> 8 args
//   quantize_per_tensor.Tensor_out: scale a Tensor (float64, one element), zero_point a Tensor
//       (int64, one element). Also registered as '.tensor_out', the spelling of programs
//       exported through torch's quantized_decomposed library.
//   dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//       int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> 9 args
//       (older programs have no out_dtype: 8 args; both are accepted). .Tensor_out likewise.
//   quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//       int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)             -> 9 args
//   dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
//       int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
//       Tensor(a!) out)                                                               -> 10 args
//   quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//       int quant_max, ScalarType dtype, *, Tensor(a!) out)                            -> 8 args
//   dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//       int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out)   -> 9 args
//   add.out(Tensor a, float a_scale, int a_zero_point, int a_quant_min, int a_quant_max,
//       Tensor b, float b_scale, int b_zero_point, int b_quant_min, int b_quant_max,
//       float out_scale, int out_zero_point, int out_quant_min, int out_quant_max, *,
//       Tensor(a!) out)                                                               -> 16 args
//
// Dtypes (upstream): quantize input float32/float64/float16, quantized uint8/int8/int16/int32;
// dequantize out float32/float64/float16. Per-channel/per-token quantize: scales float64,
// zero points int64; dequantize: scales float32/float64, zero points int32/int64.
// Arithmetic: quantize_value (quant_util.h). Dequantize: (q - zp) * (float)scale in float
// (upstream), except that a float64 out of the per-tensor ops is computed in double with the
// double scale (this runtime's earlier behaviour, relied upon by quantize_test.cpp) and a
// float64 out of a 1-D per-channel input in double with the float scale (upstream's 1-D path).
// Checks beyond upstream: scale of the per-tensor quantize positive and finite, zero points
// within int32, quant_min <= quant_max everywhere.
#include <algorithm>
#include <cmath>

#include "quant_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

struct Range {
  int64_t min = 0;
  int64_t max = 0;
};

bool is_quantized_storage(ScalarType t) {
  return t == ScalarType::Byte || t == ScalarType::Char || t == ScalarType::Short || t == ScalarType::Int;
}

void storage_range(ScalarType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case ScalarType::Byte: lo = 0; hi = 255; break;
    case ScalarType::Char: lo = -128; hi = 127; break;
    case ScalarType::Short: lo = -32768; hi = 32767; break;
    default: lo = INT32_MIN; hi = INT32_MAX; break;
  }
}

// quant_min, quant_max and dtype (arguments i, i+1, i+2), checked against the quantized
// tensor's dtype `qtype` (argument qindex, named qname). `bounded`: the range must lie within
// qtype (quantize; dequantize only needs min <= max).
Result<Range> read_range(const KernelArgs& a, size_t i, size_t qindex, std::string_view qname, ScalarType qtype,
                         bool bounded) {
  Range r;
  VKRT_ASSIGN_OR_RETURN(r.min, a.int_value(i, "quant_min"));
  VKRT_ASSIGN_OR_RETURN(r.max, a.int_value(i + 1, "quant_max"));
  VKRT_ASSIGN_OR_RETURN(int64_t dtype, a.int_value(i + 2, "dtype"));
  if (!is_quantized_storage(qtype)) {
    return a.error(qindex, qname, "expected dtype uint8, int8, int16 or int32, got " + dtype_str(qtype));
  }
  if (dtype != int64_t(qtype)) {
    return a.error(i + 2, "dtype", "dtype " + std::to_string(dtype) + " differs from the dtype of " +
                                       std::string(qname) + " (" + dtype_str(qtype) + ")");
  }
  int64_t lo = 0, hi = 0;
  storage_range(qtype, lo, hi);
  if (r.min > r.max || (bounded && (r.min < lo || r.max > hi))) {
    return a.error(i, "quant_min", "range [" + std::to_string(r.min) + ", " + std::to_string(r.max) +
                                       "] is empty or outside " + dtype_str(qtype));
  }
  return r;
}

Status check_zero_point(const KernelArgs& a, size_t i, std::string_view name, int64_t zp) {
  if (zp < INT32_MIN || zp > INT32_MAX) return a.error(i, name, "out of int32 range: " + std::to_string(zp));
  return Status::ok();
}

// Where each element's (scale, zero_point) comes from: the scalars, or element
// (n / inner) % channels of the scales / zero_points tensors for the element of logical
// index n (zero point 0 when zero_points is null in per-channel mode).
struct ChannelParams {
  const Tensor* scales = nullptr;
  const Tensor* zero_points = nullptr;
  double scale = 1.0;
  int64_t zero_point = 0;
  int64_t inner = 1;
  int64_t channels = 1;

  int64_t channel(int64_t n) const { return (n / inner) % channels; }
  double scale_of(int64_t c) const { return scales ? load_flat<double>(*scales, c) : scale; }
  int32_t zero_point_of(int64_t c) const {
    return int32_t(zero_points ? load_flat<int64_t>(*zero_points, c) : scales ? 0 : zero_point);
  }
};

// out (quantized) = quantize(in) with the parameters of each element's channel.
void quantize_loop(const Tensor& in, Tensor& out, const ChannelParams& p, const Range& r) {
  StridedWalker<2> walk(in.sizes(), {strides_of(out), strides_of(in)});
  const bool is_double = in.dtype() == ScalarType::Double;
  int64_t cached = -1;
  float inv_scale = 1.0f;
  int32_t zp = 0;
  for (int64_t n = 0; n < in.numel(); ++n, walk.next()) {
    const int64_t c = p.channel(n);
    if (c != cached) {
      cached = c;
      inv_scale = 1.0f / static_cast<float>(p.scale_of(c));
      zp = p.zero_point_of(c);
    }
    const int64_t q =
        is_double ? quantize_value(load_elem<double>(in.data(), in.dtype(), walk.offset(1)), inv_scale, zp, r.min, r.max)
                  : quantize_value(load_elem<float>(in.data(), in.dtype(), walk.offset(1)), inv_scale, zp, r.min, r.max);
    store_elem<int64_t>(out.data(), out.dtype(), walk.offset(0), q);
  }
}

// out (floating) = (in - zp) * scale. `float_scale`: the scale is rounded to float first;
// `double_math`: the product is computed in double, else in float.
void dequantize_loop(const Tensor& in, Tensor& out, const ChannelParams& p, bool float_scale, bool double_math) {
  StridedWalker<2> walk(in.sizes(), {strides_of(out), strides_of(in)});
  int64_t cached = -1;
  double scale = 1.0;
  int32_t zp = 0;
  for (int64_t n = 0; n < in.numel(); ++n, walk.next()) {
    const int64_t c = p.channel(n);
    if (c != cached) {
      cached = c;
      scale = p.scale_of(c);
      if (float_scale) scale = double(static_cast<float>(scale));
      zp = p.zero_point_of(c);
    }
    // int64 difference: int32 inputs minus a zero point may leave the int32 range.
    const int64_t centered = load_elem<int64_t>(in.data(), in.dtype(), walk.offset(1)) - zp;
    if (double_math) {
      store_elem<double>(out.data(), out.dtype(), walk.offset(0), double(centered) * scale);
    } else {
      store_elem<float>(out.data(), out.dtype(), walk.offset(0), float(centered) * static_cast<float>(scale));
    }
  }
}

// A quantize input: float32, float64 or float16.
Status expect_quantize_input(const KernelArgs& a, const Tensor& in) {
  if (!is_floath_dtype(in.dtype())) {
    return a.error(0, "input", "expected a floating dtype (float16, float32, float64), got " + dtype_str(in.dtype()));
  }
  return Status::ok();
}

// A dequantize out: float32, float64 or float16, equal to out_dtype (argument i) when given.
Status expect_dequantize_out(const KernelArgs& a, size_t out_index, const Tensor& out, size_t out_dtype_index,
                             bool optional) {
  if (!is_floath_dtype(out.dtype())) {
    return a.error(out_index, "out", "expected a floating dtype (float16, float32, float64), got " + dtype_str(out.dtype()));
  }
  if (out_dtype_index == 0) return Status::ok();
  std::optional<int64_t> dtype;
  if (optional) {
    VKRT_ASSIGN_OR_RETURN(dtype, optional_int_arg(a, out_dtype_index, "out_dtype"));
  } else {
    VKRT_ASSIGN_OR_RETURN(int64_t d, a.int_value(out_dtype_index, "output_dtype"));
    dtype = d;
  }
  if (dtype && *dtype != int64_t(out.dtype())) {
    return a.error(out_dtype_index, optional ? "out_dtype" : "output_dtype",
                   "dtype " + std::to_string(*dtype) + " differs from out dtype " + dtype_str(out.dtype()));
  }
  return Status::ok();
}

// Per-tensor scale and zero point: scalars (arguments 1, 2) or one-element tensors (float64,
// int64).
Status read_tensor_params(const KernelArgs& a, bool tensor_params, ChannelParams& p) {
  if (tensor_params) {
    VKRT_ASSIGN_OR_RETURN(Tensor * scale, tensor_arg(a, 1, "scale"));
    VKRT_ASSIGN_OR_RETURN(Tensor * zp, tensor_arg(a, 2, "zero_point"));
    VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "scale", *scale, ScalarType::Double));
    VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "zero_point", *zp, ScalarType::Long));
    if (scale->numel() != 1) return a.error(1, "scale", "expected one element, got " + std::to_string(scale->numel()));
    if (zp->numel() != 1) return a.error(2, "zero_point", "expected one element, got " + std::to_string(zp->numel()));
    p.scale = load_flat<double>(*scale, 0);
    p.zero_point = load_flat<int64_t>(*zp, 0);
  } else {
    VKRT_ASSIGN_OR_RETURN(p.scale, a.double_value(1, "scale"));
    VKRT_ASSIGN_OR_RETURN(p.zero_point, a.int_value(2, "zero_point"));
  }
  return check_zero_point(a, 2, "zero_point", p.zero_point);
}

Status quantize_per_tensor(const char* name, bool tensor_params, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 8));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 6, "out"));
  VKRT_RETURN_IF_ERROR(expect_quantize_input(a, *input));
  ChannelParams p;
  VKRT_RETURN_IF_ERROR(read_tensor_params(a, tensor_params, p));
  const float inv = 1.0f / static_cast<float>(p.scale);
  if (!(std::isfinite(p.scale) && p.scale > 0.0 && std::isfinite(inv))) {
    return a.error(1, "scale", "must be a positive finite number, got " + std::to_string(p.scale));
  }
  VKRT_ASSIGN_OR_RETURN(Range r, read_range(a, 3, 6, "out", out->dtype(), true));
  VKRT_RETURN_IF_ERROR(resize_output(a, 6, "out", *out, input->sizes()));
  quantize_loop(*input, *out, p, r);
  return Status::ok();
}

Status dequantize_per_tensor(const char* name, bool tensor_params, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  VKRT_RETURN_IF_ERROR(a.expect_count(8, 9));
  const bool has_out_dtype = a.size() == 9;
  const size_t out_index = has_out_dtype ? 7 : 6;
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  ChannelParams p;
  VKRT_RETURN_IF_ERROR(read_tensor_params(a, tensor_params, p));
  VKRT_ASSIGN_OR_RETURN(Range r, read_range(a, 3, 0, "input", input->dtype(), false));
  (void)r;
  VKRT_RETURN_IF_ERROR(expect_dequantize_out(a, out_index, *out, has_out_dtype ? 6 : 0, true));
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", *out, input->sizes()));
  dequantize_loop(*input, *out, p, false, out->dtype() == ScalarType::Double);
  return Status::ok();
}

// Per-channel / per-token parameter tensors: scales (argument 1) of `scale_dtypes`, zero
// points (argument 2; may be None when `optional_zp`) int64 (or int32 when `int32_zp`), each
// with `channels` elements.
Status read_channel_params(const KernelArgs& a, int64_t channels, bool dequant, bool optional_zp, ChannelParams& p) {
  VKRT_ASSIGN_OR_RETURN(Tensor * scales, tensor_arg(a, 1, "scales"));
  const bool scale_ok = scales->dtype() == ScalarType::Double || (dequant && scales->dtype() == ScalarType::Float);
  if (!scale_ok) {
    return a.error(1, "scales", std::string("expected dtype float64") + (dequant ? " or float32" : "") + ", got " +
                                    dtype_str(scales->dtype()));
  }
  if (scales->numel() != channels) {
    return a.error(1, "scales", "expected " + std::to_string(channels) + " elements, got " +
                                    std::to_string(scales->numel()));
  }
  p.scales = scales;
  Tensor* zp = nullptr;
  if (optional_zp && a.is_none(2)) return Status::ok();
  VKRT_ASSIGN_OR_RETURN(zp, tensor_arg(a, 2, "zero_points"));
  const bool zp_ok = zp->dtype() == ScalarType::Long || (dequant && zp->dtype() == ScalarType::Int);
  if (!zp_ok) {
    return a.error(2, "zero_points", std::string("expected dtype int64") + (dequant ? " or int32" : "") + ", got " +
                                         dtype_str(zp->dtype()));
  }
  if (zp->numel() != channels) {
    return a.error(2, "zero_points", "expected " + std::to_string(channels) + " elements, got " +
                                         std::to_string(zp->numel()));
  }
  for (int64_t c = 0; c < channels; ++c) {
    VKRT_RETURN_IF_ERROR(check_zero_point(a, 2, "zero_points", load_flat<int64_t>(*zp, c)));
  }
  p.zero_points = zp;
  return Status::ok();
}

// Upstream's fast dequantize path (int8 input in the default dim order, float32 out) checks
// quant_min <= zero point <= quant_max for every channel it visits. The per-token op views its
// input as a contiguous 2-D tensor whatever its dim order (`any_layout`).
Status check_fast_path_zero_points(const KernelArgs& a, const Tensor& in, const Tensor& out, const ChannelParams& p,
                                   const Range& r, bool any_layout) {
  if (in.dtype() != ScalarType::Char || out.dtype() != ScalarType::Float ||
      !(any_layout || in.is_default_dim_order()) || in.numel() == 0) {
    return Status::ok();
  }
  for (int64_t c = 0; c < p.channels; ++c) {
    const int64_t zp = p.zero_point_of(c);
    if (zp < r.min || zp > r.max) {
      return a.error(2, "zero_points", "zero point " + std::to_string(zp) + " outside [quant_min, quant_max] = [" +
                                           std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
    }
  }
  return Status::ok();
}

// Channel layout of the per-channel ops: `axis` of input (argument 3); `size` = its length.
Status channel_layout(const KernelArgs& a, const Tensor& in, int64_t& size, ChannelParams& p) {
  if (in.rank() == 0) return a.error(0, "input", "per-channel (de)quantization needs at least one dim");
  VKRT_ASSIGN_OR_RETURN(int axis, dim_arg(a, 3, "axis", in.rank()));
  size = in.size(axis);
  p.inner = 1;
  for (int d = axis + 1; d < in.rank(); ++d) p.inner *= in.size(d);
  if (p.inner == 0) p.inner = 1;
  p.channels = size > 0 ? size : 1;
  return Status::ok();
}

// Token layout of the per-token ops: one channel per row of input flattened to 2-D.
Status token_layout(const KernelArgs& a, const Tensor& in, int64_t& tokens, ChannelParams& p) {
  if (in.rank() == 0) return a.error(0, "input", "per-token (de)quantization needs at least one dim");
  tokens = 1;
  for (int d = 0; d + 1 < in.rank(); ++d) tokens *= in.size(d);
  p.inner = in.size(in.rank() - 1) > 0 ? in.size(in.rank() - 1) : 1;
  p.channels = tokens > 0 ? tokens : 1;
  return Status::ok();
}

// quantize_per_channel (per_token = false: axis at 3, range at 4) and quantize_per_token
// (range at 3).
Status quantize_grouped(const char* name, bool per_token, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const size_t out_index = per_token ? 6 : 7;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_index + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  VKRT_RETURN_IF_ERROR(expect_quantize_input(a, *input));
  ChannelParams p;
  int64_t channels = 0;
  if (per_token) {
    VKRT_RETURN_IF_ERROR(token_layout(a, *input, channels, p));
  } else {
    VKRT_RETURN_IF_ERROR(channel_layout(a, *input, channels, p));
  }
  VKRT_RETURN_IF_ERROR(read_channel_params(a, channels, false, false, p));
  VKRT_ASSIGN_OR_RETURN(Range r, read_range(a, per_token ? 3 : 4, out_index, "out", out->dtype(), true));
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", *out, input->sizes()));
  quantize_loop(*input, *out, p, r);
  return Status::ok();
}

// dequantize_per_channel (axis at 3, range at 4, optional zero points, ScalarType? out_dtype
// at 7) and dequantize_per_token (range at 3, ScalarType output_dtype at 6).
Status dequantize_grouped(const char* name, bool per_token, std::span<EValue* const> args) {
  KernelArgs a(name, args);
  const size_t out_index = per_token ? 7 : 8;
  VKRT_RETURN_IF_ERROR(expect_args(a, out_index + 2));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, out_index, "out"));
  ChannelParams p;
  int64_t channels = 0;
  if (per_token) {
    VKRT_RETURN_IF_ERROR(token_layout(a, *input, channels, p));
  } else {
    VKRT_RETURN_IF_ERROR(channel_layout(a, *input, channels, p));
  }
  VKRT_RETURN_IF_ERROR(read_channel_params(a, channels, true, !per_token, p));
  VKRT_ASSIGN_OR_RETURN(Range r, read_range(a, per_token ? 3 : 4, 0, "input", input->dtype(), false));
  VKRT_RETURN_IF_ERROR(expect_dequantize_out(a, out_index, *out, out_index - 1, !per_token));
  VKRT_RETURN_IF_ERROR(check_fast_path_zero_points(a, *input, *out, p, r, per_token));
  VKRT_RETURN_IF_ERROR(resize_output(a, out_index, "out", *out, input->sizes()));
  const bool double_math = !per_token && input->rank() == 1 && out->dtype() == ScalarType::Double;
  dequantize_loop(*input, *out, p, true, double_math);
  return Status::ok();
}

// quantized_decomposed::add.out: dequantize a and b, add in float, quantize with the out
// parameters. a, b and out share shape and dtype (uint8, int8, int16, int32, int64); every
// quant range lies within [0, 255]. Scales are rounded to float and zero points to int32
// first (upstream: "to match fbgemm").
Status quantized_add_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("quantized_decomposed::add.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 16));
  VKRT_ASSIGN_OR_RETURN(Tensor * ta, tensor_arg(a, 0, "a"));
  VKRT_ASSIGN_OR_RETURN(Tensor * tb, tensor_arg(a, 5, "b"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 14, "out"));
  struct Side {
    float scale = 1.0f;
    int32_t zp = 0;
    Range range;
  } side[3];
  const char* scale_names[3] = {"a_scale", "b_scale", "out_scale"};
  const char* zp_names[3] = {"a_zero_point", "b_zero_point", "out_zero_point"};
  const char* min_names[3] = {"a_quant_min", "b_quant_min", "out_quant_min"};
  const char* max_names[3] = {"a_quant_max", "b_quant_max", "out_quant_max"};
  const size_t bases[3] = {1, 6, 10};
  for (size_t s = 0; s < 3; ++s) {
    const size_t base = bases[s];
    VKRT_ASSIGN_OR_RETURN(double scale, a.double_value(base, scale_names[s]));
    VKRT_ASSIGN_OR_RETURN(int64_t zp, a.int_value(base + 1, zp_names[s]));
    VKRT_RETURN_IF_ERROR(check_zero_point(a, base + 1, zp_names[s], zp));
    VKRT_ASSIGN_OR_RETURN(side[s].range.min, a.int_value(base + 2, min_names[s]));
    VKRT_ASSIGN_OR_RETURN(side[s].range.max, a.int_value(base + 3, max_names[s]));
    if (side[s].range.min < 0 || side[s].range.max > 255 || side[s].range.min > side[s].range.max) {
      return a.error(base + 2, min_names[s], "range [" + std::to_string(side[s].range.min) + ", " +
                                                 std::to_string(side[s].range.max) + "] is empty or outside [0, 255]");
    }
    side[s].scale = static_cast<float>(scale);
    side[s].zp = int32_t(zp);
  }
  if (!is_int_dtype(ta->dtype())) {
    return a.error(0, "a", "expected an integral dtype (uint8, int8, int16, int32, int64), got " + dtype_str(ta->dtype()));
  }
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 5, "b", *tb, ta->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 14, "out", *out, ta->dtype()));
  if (!std::equal(ta->sizes().begin(), ta->sizes().end(), tb->sizes().begin(), tb->sizes().end())) {
    return a.error(5, "b", "shape " + shape_string(tb->sizes()) + " differs from a's " + shape_string(ta->sizes()));
  }
  VKRT_RETURN_IF_ERROR(resize_output(a, 14, "out", *out, ta->sizes()));

  const float inv_out = 1.0f / side[2].scale;
  StridedWalker<3> walk(ta->sizes(), {strides_of(*out), strides_of(*ta), strides_of(*tb)});
  for (int64_t n = 0; n < ta->numel(); ++n, walk.next()) {
    // (value - zero_point) * scale in int64 and double, then float (upstream dequantize_val).
    const int64_t qa = load_elem<int64_t>(ta->data(), ta->dtype(), walk.offset(1));
    const int64_t qb = load_elem<int64_t>(tb->data(), tb->dtype(), walk.offset(2));
    const float da = static_cast<float>(double(wrapping_sub<int64_t>(qa, side[0].zp)) * double(side[0].scale));
    const float db = static_cast<float>(double(wrapping_sub<int64_t>(qb, side[1].zp)) * double(side[1].scale));
    const float sum = da + db;
    const int64_t q = quantize_value(sum, inv_out, side[2].zp, side[2].range.min, side[2].range.max);
    store_elem<int64_t>(out->data(), out->dtype(), walk.offset(0), q);
  }
  return Status::ok();
}

Status quantize_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_per_tensor("quantized_decomposed::quantize_per_tensor.out", false, args);
}
Status quantize_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_per_tensor("quantized_decomposed::quantize_per_tensor.Tensor_out", true, args);
}
Status quantize_tensor_out_lower(KernelContext&, std::span<EValue* const> args) {
  return quantize_per_tensor("quantized_decomposed::quantize_per_tensor.tensor_out", true, args);
}
Status dequantize_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_per_tensor("quantized_decomposed::dequantize_per_tensor.out", false, args);
}
Status dequantize_tensor_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_per_tensor("quantized_decomposed::dequantize_per_tensor.Tensor_out", true, args);
}
Status dequantize_tensor_out_lower(KernelContext&, std::span<EValue* const> args) {
  return dequantize_per_tensor("quantized_decomposed::dequantize_per_tensor.tensor_out", true, args);
}
Status quantize_per_channel_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_grouped("quantized_decomposed::quantize_per_channel.out", false, args);
}
Status quantize_per_token_out(KernelContext&, std::span<EValue* const> args) {
  return quantize_grouped("quantized_decomposed::quantize_per_token.out", true, args);
}
Status dequantize_per_channel_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_grouped("quantized_decomposed::dequantize_per_channel.out", false, args);
}
Status dequantize_per_token_out(KernelContext&, std::span<EValue* const> args) {
  return dequantize_grouped("quantized_decomposed::dequantize_per_token.out", true, args);
}

}  // namespace

VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_tensor.out", quantize_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_tensor.Tensor_out", quantize_tensor_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_tensor.tensor_out", quantize_tensor_out_lower);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_tensor.out", dequantize_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_tensor.Tensor_out", dequantize_tensor_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_tensor.tensor_out", dequantize_tensor_out_lower);
VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::quantize_per_token.out", quantize_per_token_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::dequantize_per_token.out", dequantize_per_token_out);
VKRT_REGISTER_KERNEL("quantized_decomposed::add.out", quantized_add_out);

}  // namespace vkrt::portable
