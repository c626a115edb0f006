// Lowering of RESIZE, SCATTER, FFT2D/RFFT2D and the fp16 CASTs, and the entries of RESIZE,
// SCATTER, FFT2D and RFFT2D in the op table (op_table.h; CAST is registered in op_lowering_misc.cpp). TRANSPOSE_CONV2D and the int16
// convolutions share lower_conv_like in op_lowering_compute.cpp. Push-constant structs come from
// shaders/glsl/push_constants.h.
#include <algorithm>

#include "cpu_fallback/tosa/tosa_kernels.h"  // fft2d_twiddles
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct ResizeParams { RESIZE_PARAMS };

struct ScatterParams { GATHER_SCATTER_PARAMS };

struct CastParams { CAST_PARAMS };

struct Fft2dParams { FFT2D_PARAMS };

// Name part of a CAST operand: bool rides on the int8 variants (out_bool flag).
const char* cast_suffix(DType t) { return t == DType::Fp16 ? "f16" : type_suffix(t); }

Status lower_resize(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const auto& a = std::get<vgf::ResizeAttr>(op.attr);
  const vgf::Shape& si = ctx.shape(op.inputs[0]);
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  // The shader divides by scale_n and indexes with the clamped neighbours: the TOSA ERROR_IF
  // bounds on scale and offset (RESIZE's descriptor, checked by validate_graph) and on the sizes
  // (below) keep every intermediate in int32.
  if (si.size() != 4 || so.size() != 4 || si[1] < 1 || si[2] < 1 || si[1] >= 16384 || si[2] >= 16384 ||
      so[1] >= 16384 * 16 || so[2] >= 16384 * 16 || so[0] != si[0] || so[3] != si[3]) {
    return make_error(Error::InvalidProgram, "RESIZE ", op.debug_name, ": input/output shapes outside the TOSA limits");
  }
  const DType in = ctx.dtype(op.inputs[0]);
  const DType o = ctx.dtype(op.outputs[0]);
  ResizeParams p{};
  set_nhwc_sizes(p, si, so);
  p.y_n = a.scale[0];
  p.y_d = a.scale[1];
  p.x_n = a.scale[2];
  p.x_d = a.scale[3];
  p.offset_y = a.offset[0];
  p.offset_x = a.offset[1];
  p.bilinear = a.mode == vgf::ResizeMode::Bilinear ? 1 : 0;
  PendingDispatch d;
  if (in == DType::Fp32) {
    d.shader = "resize_f32";
  } else if (o == in) {
    d.shader = std::string("resize_") + type_suffix(in);
  } else {
    d.shader = in == DType::Int8 ? "resize_i8_i32" : "resize_i16_i48";
  }
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = element_count(so);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

Status lower_scatter(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Shape& sv = ctx.shape(op.inputs[0]);
  const vgf::Shape& si = ctx.shape(op.inputs[1]);
  // Shapes as SCATTER's shape rule guarantees: values_in [N,K,C], indices [N,W], input [N,W,C].
  ScatterParams p{int32_t(sv[0]), int32_t(sv[1]), int32_t(sv[2]), int32_t(si[1])};
  PendingDispatch d;
  d.shader = "scatter_" + std::to_string(vgf::dtype_storage_bytes(ctx.dtype(op.inputs[0])) * 8);
  d.binding_count = 4;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.inputs[2]),
                ctx.tensor(op.outputs[0])};
  d.writes = {false, false, false, true};
  d.set_push(p);
  d.invocations = element_count(sv);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

// FFT2D and RFFT2D: fft2d.comp, one invocation per output element, with the twiddle table the
// CPU kernel uses (computed in double, rounded once) in the constant buffer.
Status lower_fft(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const bool real_input = op.kind == OpKind::RFFT2D;
  const vgf::Shape& si = ctx.shape(op.inputs[0]);
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  const int64_t table_size = std::max(si[1], si[2]);
  std::vector<float> twiddles(size_t(2 * table_size));
  VKRT_RETURN_IF_ERROR(tosa::fft2d_twiddles(table_size, twiddles));
  int flags = real_input ? FFT2D_REAL_INPUT : 0;
  if (!real_input && std::get<vgf::FftAttr>(op.attr).inverse) flags |= FFT2D_INVERSE;
  const Fft2dParams p{int32_t(si[0]), int32_t(si[1]), int32_t(si[2]), int32_t(so[2]), int32_t(table_size), flags};
  PendingDispatch d;
  d.shader = "fft2d";
  d.binding_count = 5;
  const Slot in_re = ctx.tensor(op.inputs[0]);
  d.bindings = {in_re, real_input ? in_re : ctx.tensor(op.inputs[1]),
                ctx.add_constant(twiddles.data(), twiddles.size() * sizeof(float)), ctx.tensor(op.outputs[0]),
                ctx.tensor(op.outputs[1])};
  d.writes = {false, false, false, true, true};
  d.set_push(p);
  d.invocations = element_count(so);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

}  // namespace

Status lower_cast_half(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType in = ctx.dtype(op.inputs[0]);
  const DType o = ctx.dtype(op.outputs[0]);
  CastParams p{int32_t(element_count(ctx.shape(op.outputs[0]))), o == DType::Bool ? 1 : 0};
  PendingDispatch d;
  d.shader = std::string("cast_") + cast_suffix(in) + "_" + cast_suffix(o);
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.count);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

namespace {

// Capabilities: resize.comp (NHWC), scatter.comp.
std::string resize_types(const OpOperands& o) {
  if (o.in_rank(0) != 4) return "a RESIZE input of rank other than 4";
  // NEAREST keeps the type; integer BILINEAR widens (tosa.md §11, cpu_fallback/tosa/resize.cpp).
  const vgf::ResizeMode mode = std::get<vgf::ResizeAttr>(o.op.attr).mode;
  const bool bilinear = mode == vgf::ResizeMode::Bilinear;
  if (mode != vgf::ResizeMode::Nearest && !bilinear) return "this RESIZE mode";
  const DType in = o.in(0), out = o.out(0);
  if ((in == DType::Fp32 && out == DType::Fp32) ||
      (in == DType::Int8 && out == (bilinear ? DType::Int32 : DType::Int8)) ||
      (in == DType::Int16 && out == (bilinear ? DType::Int48 : DType::Int16))) {
    return {};
  }
  return o.types() + (bilinear ? " (BILINEAR)" : " (NEAREST)");
}

std::string scatter_types(const OpOperands& o) {
  const size_t bytes = vgf::dtype_storage_bytes(o.in(0));
  return o.supported_if((bytes == 1 || bytes == 2 || bytes == 4) && o.in(1) == DType::Int32 && o.in(2) == o.in(0) &&
                        o.out(0) == o.in(0) && o.in_rank(0) == 3 && o.in_rank(1) == 2 && o.in_rank(2) == 3);
}

// fft2d.comp: fp32 [N,H,W] (the descriptor's rules: powers of two, fp32 only); the table holds
// max(H, W) <= 8192 entries (TOSA level 8K).
std::string fft_types(const OpOperands& o) {
  const vgf::Shape& s = o.graph.tensor(o.op.inputs[0]).shape;
  if (o.in_rank(0) == 3 && (s[1] > 8192 || s[2] > 8192)) return "a transform larger than 8192 (TOSA level 8K)";
  return o.supported_if(o.in(0) == DType::Fp32 && o.in_rank(0) == 3);
}

const VulkanOpEntry kExtraOps[] = {
    {OpKind::FFT2D, {fft_types, lower_single<lower_fft>}},
    {OpKind::RFFT2D, {fft_types, lower_single<lower_fft>}},
    {OpKind::RESIZE, {resize_types, lower_single<lower_resize>}},
    {OpKind::SCATTER, {scatter_types, lower_single<lower_scatter>}},
};

}  // namespace

std::span<const VulkanOpEntry> extra_ops() { return kExtraOps; }

}  // namespace vkrt::vulkan
