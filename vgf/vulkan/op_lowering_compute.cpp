// Lowering of CONV2D / DEPTHWISE_CONV2D / MATMUL (with fused epilogues), pooling, RESCALE and
// TABLE, and their entries in the op table (op_table.h). Push-constant structs come from
// shaders/glsl/push_constants.h, the header the shaders' `Params` blocks are declared with.
#include <algorithm>

#include "shaders/glsl/op_codes.h"
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/op_lowering.h"
#include "vgf/vulkan/variant_select.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

constexpr int kEpiFusedRescale = 1;  // EPI_* in shaders/glsl/common.glsl
constexpr int kEpiDoubleRound = 2;
constexpr int kEpiPerChannel = 4;
constexpr int kEpiTable = 8;       // the table's offset in the shift buffer sits in flags >> 8
constexpr int kRescaleInputUnsigned = 8;

struct ConvParams { CONV_PARAMS };

struct MatmulParams { MATMUL_PARAMS };

struct PoolParams { POOL_PARAMS };

struct RescaleParams { RESCALE_PARAMS };

struct CountParams { COUNT_PARAMS };

// The fused epilogue of a step: flags, requantization tables and output bounds.
struct Epilogue {
  int32_t flags = 0;
  int32_t out_zp = 0;
  int32_t clamp_min = 0, clamp_max = 0;
  Slot mult, shift;
  DType out_type = DType::Int32;
};

Epilogue make_epilogue(const FusedStep& step, LoweringContext& ctx) {
  const vgf::Graph& g = ctx.graph();
  Epilogue e;
  e.out_type = g.tensor(step.output).dtype;
  e.mult = ctx.dummy();
  e.shift = ctx.dummy();
  if (step.rescale >= 0) {
    const auto& ra = std::get<vgf::RescaleAttr>(g.ops[step.rescale].attr);
    e.flags |= kEpiFusedRescale;
    if (ra.scale32 && ra.rounding_mode == vgf::RoundingMode::DoubleRound) e.flags |= kEpiDoubleRound;
    if (ra.per_channel) e.flags |= kEpiPerChannel;
    std::vector<int32_t> shifts(ra.shift.begin(), ra.shift.end());
    if (step.table >= 0) {  // int8 TABLE: its 256 entries follow the shifts
      const auto& ta = std::get<vgf::TableAttr>(g.ops[step.table].attr);
      e.flags |= kEpiTable | int32_t(shifts.size() << 8);
      shifts.insert(shifts.end(), ta.table.begin(), ta.table.end());
    }
    e.mult = ctx.add_int32_constant(ra.multiplier);
    e.shift = ctx.add_int32_constant(shifts);
    e.out_zp = ra.output_zp;
    DType rescale_out = g.tensor(g.ops[step.rescale].outputs[0]).dtype;
    e.clamp_min = type_min(rescale_out);
    e.clamp_max = type_max(rescale_out);
    if (step.clamp >= 0) {
      const auto& ca = std::get<vgf::ClampAttr>(g.ops[step.clamp].attr);
      e.clamp_min = int32_t(std::max<int64_t>(e.clamp_min, ca.min_int));
      e.clamp_max = int32_t(std::min<int64_t>(e.clamp_max, ca.max_int));
    }
  } else if (step.clamp >= 0) {  // fp32: clamp only
    const auto& ca = std::get<vgf::ClampAttr>(g.ops[step.clamp].attr);
    e.flags |= kEpiFusedRescale;
    e.clamp_min = float_bits(float(ca.min_fp));
    e.clamp_max = float_bits(float(ca.max_fp));
  }
  return e;
}

std::string conv_variant(const char* op, DType in, const Epilogue& e) {
  if (in == DType::Fp32) return std::string(op) + "_f32";
  if (in == DType::Int16) {  // int48 accumulator, raw or with the fused RESCALE (apply_scale_16)
    return std::string(op) + "_i16_" + ((e.flags & kEpiFusedRescale) ? type_suffix(e.out_type) : "i48");
  }
  if (in == DType::Fp16) return std::string(op) + "_f16";  // MATMUL only (fp16 storage, fp32 accumulation)
  if (e.flags & kEpiFusedRescale) return std::string(op) + "_i8_" + type_suffix(e.out_type);
  return std::string(op) + "_i8_i32";
}

Status lower_conv_like(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Graph& g = ctx.graph();
  const vgf::Op& op = g.ops[step.op];
  const DType in_type = ctx.dtype(op.inputs[0]);
  if (in_type == DType::Fp16 && !ctx.features().shader_float16) {
    return make_error(Error::NotSupported, vgf::op_name(op.kind), " ", op.debug_name,
                      ": fp16 needs shaderFloat16, which this device lacks");
  }
  // int16 activations accumulate in int48 (tosa.md §6), held in int64 on the device.
  if (in_type == DType::Int16 && !ctx.features().shader_int64) {
    return make_error(Error::NotSupported, vgf::op_name(op.kind), " ", op.debug_name,
                      ": int16 inputs (int48 accumulator) need shaderInt64, which this device lacks");
  }
  Epilogue e = make_epilogue(step, ctx);
  PendingDispatch d;
  d.binding_count = 6;
  Slot bias = op.inputs.size() > 2 ? ctx.tensor(op.inputs[2]) : ctx.dummy();
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), bias, e.mult, e.shift,
                ctx.tensor(step.output)};
  d.writes = {false, false, false, false, false, true};

  if (op.kind == OpKind::MATMUL) {
    const auto& a = std::get<vgf::MatmulAttr>(op.attr);
    const auto& sa = ctx.shape(op.inputs[0]);
    const auto& sb = ctx.shape(op.inputs[1]);
    MatmulParams p{int32_t(sa[0]), int32_t(sa[1]), int32_t(sb[2]), int32_t(sa[2]), a.a_zp, a.b_zp,
                   e.out_zp, e.clamp_min, e.clamp_max, e.flags};
    d.shader = conv_variant("matmul", in_type, e);
    d.set_push(p);
    // matmul_i16_i48 computes one output per invocation, the others a 4x4 tile.
    d.invocations = in_type == DType::Int16 ? uint64_t(p.N) * uint64_t(p.H) * uint64_t(p.W)
                                            : uint64_t(p.N) * uint64_t((p.H + 3) / 4) * uint64_t((p.W + 3) / 4);
    VKRT_RETURN_IF_ERROR(select_fast_variant(op, ctx, sizeof(p), &d));  // fast variant by feature
    out->push_back(std::move(d));
    return Status::ok();
  }

  const auto& si = ctx.shape(op.inputs[0]);
  const auto& sw = ctx.shape(op.inputs[1]);
  const auto& so = ctx.shape(step.output);
  // A bias of one element (or none: the zero dummy) is broadcast over the output channels.
  uint64_t bias_elements = 1;
  if (op.inputs.size() > 2) {
    for (int64_t dim : ctx.shape(op.inputs[2])) bias_elements *= uint64_t(dim);
  }

  // NHWC shapes and the fused epilogue, the same for every convolution.
  auto common_params = [&] {
    ConvParams p{};
    p.N = int32_t(si[0]);
    p.IH = int32_t(si[1]);
    p.IW = int32_t(si[2]);
    p.IC = int32_t(si[3]);
    p.OH = int32_t(so[1]);
    p.OW = int32_t(so[2]);
    p.out_zp = e.out_zp;
    p.clamp_min = e.clamp_min;
    p.clamp_max = e.clamp_max;
    p.flags = e.flags;
    p.bias_broadcast = bias_elements == 1 ? 1 : 0;
    return p;
  };

  if (op.kind == OpKind::TRANSPOSE_CONV2D) {
    // transpose_conv2d.comp reads the ConvParams block: pad_top/pad_left carry out_pad[0]/[2].
    const auto& a = std::get<vgf::TransposeConvAttr>(op.attr);
    ConvParams p = common_params();
    p.OC = int32_t(sw[0]);
    p.KH = int32_t(sw[1]);
    p.KW = int32_t(sw[2]);
    p.stride_y = a.stride[0];
    p.stride_x = a.stride[1];
    p.pad_top = a.out_pad[0];
    p.pad_left = a.out_pad[2];
    p.dil_y = p.dil_x = 1;
    p.in_zp = a.input_zp;
    p.w_zp = a.weight_zp;
    d.shader = conv_variant("transpose_conv2d", in_type, e);
    d.invocations = uint64_t(p.N) * p.OH * p.OW * uint64_t(p.OC);
    d.set_push(p);
    out->push_back(std::move(d));
    return Status::ok();
  }

  const auto& a = std::get<vgf::ConvAttr>(op.attr);
  ConvParams p = common_params();
  p.stride_y = a.stride[0];
  p.stride_x = a.stride[1];
  p.pad_top = a.pad[0];
  p.pad_left = a.pad[2];
  p.dil_y = a.dilation[0];
  p.dil_x = a.dilation[1];
  p.in_zp = a.input_zp;
  p.w_zp = a.weight_zp;
  if (op.kind == OpKind::CONV2D) {
    p.OC = int32_t(sw[0]);
    p.KH = int32_t(sw[1]);
    p.KW = int32_t(sw[2]);
    d.shader = conv_variant("conv2d", in_type, e);
    // conv_i48.comp (int16) computes one output channel per invocation, conv2d.comp a block of 4.
    d.invocations = uint64_t(p.N) * p.OH * p.OW *
                    uint64_t(in_type == DType::Int16 ? p.OC : (p.OC + 3) / 4);
  } else {  // DEPTHWISE_CONV2D: weight [KH,KW,C,M]; the OC slot carries M
    p.KH = int32_t(sw[0]);
    p.KW = int32_t(sw[1]);
    p.OC = int32_t(sw[3]);
    // int8 with a channel multiplier of 1 and a multiple of 4 channels: four channels per
    // invocation, read as 32-bit words (depthwise_conv2d.comp, CHANNELS4).
    const bool by_four = in_type == DType::Int8 && p.OC == 1 && p.IC % 4 == 0;
    d.shader = conv_variant(by_four ? "depthwise_conv2d_c4" : "depthwise_conv2d", in_type, e);
    d.invocations = uint64_t(p.N) * p.OH * p.OW * uint64_t(p.IC) * uint64_t(p.OC) / (by_four ? 4 : 1);
  }
  d.set_push(p);
  VKRT_RETURN_IF_ERROR(select_fast_variant(op, ctx, sizeof(p), &d));  // fast variant by feature
  out->push_back(std::move(d));
  return Status::ok();
}

Status lower_pool(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const auto& a = std::get<vgf::PoolAttr>(op.attr);
  const auto& si = ctx.shape(op.inputs[0]);
  const auto& so = ctx.shape(op.outputs[0]);
  DType t = ctx.dtype(op.inputs[0]);
  PoolParams p{};
  set_nhwc_sizes(p, si, so);
  p.KH = a.kernel[0];
  p.KW = a.kernel[1];
  p.stride_y = a.stride[0];
  p.stride_x = a.stride[1];
  p.pad_top = a.pad[0];
  p.pad_left = a.pad[2];
  p.mode = vulkan_op(op.kind).shader_op;  // POOL_MAX or POOL_AVG
  p.in_zp = p.mode == POOL_AVG && t == DType::Int8 ? a.input_zp : 0;
  p.out_zp = p.mode == POOL_AVG && t == DType::Int8 ? a.output_zp : 0;
  p.type_min = type_min(t);
  p.type_max = type_max(t);
  p.nan_mode = int32_t(a.nan_mode);
  PendingDispatch d;
  d.shader = std::string("pool2d_") + type_suffix(t);
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.N) * p.OH * p.OW * p.C;
  out->push_back(std::move(d));
  return Status::ok();
}

Status lower_rescale(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const auto& a = std::get<vgf::RescaleAttr>(op.attr);
  DType in = ctx.dtype(op.inputs[0]);
  DType o = ctx.dtype(op.outputs[0]);
  const auto& shape = ctx.shape(op.inputs[0]);
  RescaleParams p{};
  uint64_t count = 1;
  for (int64_t dim : shape) count *= uint64_t(dim);
  p.count = int32_t(count);
  p.channels = a.per_channel && !shape.empty() ? int32_t(shape.back()) : 1;
  // validate_graph and infer_shapes guarantee the multiplier/shift counts and ranges and the
  // int48 rules (no scale32, no unsigned input); what is left is the device's.
  if (in == DType::Int48 && !ctx.features().shader_int64) {
    return make_error(Error::NotSupported, "RESCALE ", op.debug_name,
                      ": an int48 input needs shaderInt64, which this device lacks");
  }
  if (a.scale32 && a.rounding_mode == vgf::RoundingMode::DoubleRound) p.flags |= kEpiDoubleRound;
  if (a.per_channel) p.flags |= kEpiPerChannel;
  if (a.input_unsigned) p.flags |= kRescaleInputUnsigned;
  p.in_zp = a.input_zp;
  p.out_zp = a.output_zp;
  if (a.output_unsigned) {
    p.out_min = 0;
    p.out_max = o == DType::Int8 ? 255 : 65535;
  } else {
    p.out_min = type_min(o);
    p.out_max = type_max(o);
  }
  std::vector<int32_t> shifts(a.shift.begin(), a.shift.end());
  PendingDispatch d;
  d.shader = std::string("rescale_") + type_suffix(in) + "_" + type_suffix(o);
  d.binding_count = 4;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.add_int32_constant(a.multiplier),
                ctx.add_int32_constant(shifts), ctx.tensor(op.outputs[0])};
  d.writes = {false, false, false, true};
  d.set_push(p);
  d.invocations = count;
  out->push_back(std::move(d));
  return Status::ok();
}

Status lower_table(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const auto& a = std::get<vgf::TableAttr>(op.attr);
  DType in = ctx.dtype(op.inputs[0]);
  std::vector<int32_t> table(a.table.begin(), a.table.end());
  uint64_t count = 1;
  for (int64_t dim : ctx.shape(op.inputs[0])) count *= uint64_t(dim);
  PendingDispatch d;
  d.shader = in == DType::Int8 ? "table_i8" : "table_i16";
  d.binding_count = 3;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.add_int32_constant(table), ctx.tensor(op.outputs[0])};
  d.writes = {false, false, true};
  d.set_push(CountParams{int32_t(count)});
  d.invocations = count;
  out->push_back(std::move(d));
  return Status::ok();
}

// Capabilities: the variants of conv2d/depthwise_conv2d/transpose_conv2d (.comp, conv_i48.comp),
// matmul*.comp, pool2d.comp and table.comp. int16 activations (int48 accumulator) also need
// shaderInt64 and fp16 MATMUL shaderFloat16: lower_conv_like checks the device.
std::string conv_types(const OpOperands& o) {
  const DType in = o.in(0), w = o.in(1), bias = o.in(2), acc = o.out(0);
  return o.supported_if((in == DType::Int8 && w == DType::Int8 && acc == DType::Int32 && bias == DType::Int32) ||
                        (in == DType::Int16 && w == DType::Int8 && acc == DType::Int48 && bias == DType::Int48) ||
                        (in == DType::Fp32 && w == DType::Fp32 && acc == DType::Fp32 && bias == DType::Fp32));
}

std::string matmul_types(const OpOperands& o) {
  const DType a = o.in(0), b = o.in(1), acc = o.out(0);
  return o.supported_if((a == DType::Int8 && b == DType::Int8 && acc == DType::Int32) ||
                        (a == DType::Int16 && b == DType::Int16 && acc == DType::Int48) ||
                        (a == DType::Fp32 && b == DType::Fp32 && acc == DType::Fp32) ||
                        (a == DType::Fp16 && b == DType::Fp16 && acc == DType::Fp16));
}

std::string pool_types(const OpOperands& o) {
  return o.supported_if(is_one_of(o.in(0), {DType::Int8, DType::Int16, DType::Fp32}) && o.out(0) == o.in(0));
}

// Every input/output pair validate_graph allows (int8/16/32/48 -> int8/16/32) has a variant.
std::string rescale_types(const OpOperands&) { return {}; }

std::string table_types(const OpOperands& o) {
  return o.supported_if((o.in(0) == DType::Int8 && o.out(0) == DType::Int8) ||
                        (o.in(0) == DType::Int16 && o.out(0) == DType::Int32));
}

// RESCALE in a fused chain, as rescale.comp: zero-extend an unsigned input, subtract input_zp,
// apply_scale_32 (double rounding only for scale32), add output_zp, clamp to the output range
// (tosa.md §5). Per-channel multipliers and shifts go to the constant block.
Result<std::string> chain_rescale(const ChainOperands& o) {
  const auto& r = std::get<vgf::RescaleAttr>(o.op.attr);
  std::string v = o.regs[0];
  if (r.input_unsigned && int_bits(o.in) < 32) v = "(" + v + " & " + std::to_string((1 << int_bits(o.in)) - 1) + ")";
  v = "(" + v + " - " + glsl_int(r.input_zp) + ")";
  const bool double_round = r.scale32 && r.rounding_mode == vgf::RoundingMode::DoubleRound;
  std::string mult, shift;
  if (r.per_channel) {
    const int64_t channels = o.out_shape.empty() ? 1 : o.out_shape.back();
    std::vector<int32_t> shifts(r.shift.begin(), r.shift.begin() + channels);
    size_t m_off = o.add_constants(std::span<const int32_t>(r.multiplier.data(), size_t(channels)));
    size_t s_off = o.add_constants(shifts);
    std::string c = "int(idx % " + std::to_string(channels) + "u)";
    mult = "data_const[" + std::to_string(m_off) + " + " + c + "]";
    shift = "data_const[" + std::to_string(s_off) + " + " + c + "]";
  } else {
    mult = glsl_int(r.multiplier[0]);
    shift = std::to_string(int(r.shift[0]));
  }
  // The bounds of lower_rescale.
  const int32_t lo = r.output_unsigned ? 0 : type_min(o.out);
  const int32_t hi = r.output_unsigned ? (o.out == DType::Int8 ? 255 : 65535) : type_max(o.out);
  return "clamp(apply_scale_32(" + v + ", " + mult + ", " + shift + ", " + (double_round ? "true" : "false") +
         ") + " + glsl_int(r.output_zp) + ", " + glsl_int(lo) + ", " + glsl_int(hi) + ")";
}

// TABLE in a fused chain, as table.comp: the entries go to the constant block.
Result<std::string> chain_table(const ChainOperands& o) {
  const auto& t = std::get<vgf::TableAttr>(o.op.attr);
  if (t.table.size() != (o.in == DType::Int8 ? 256u : 513u)) {
    return make_error(Error::NotSupported, std::to_string(t.table.size()) + " table entries");
  }
  std::vector<int32_t> entries(t.table.begin(), t.table.end());
  size_t off = o.add_constants(entries);
  if (o.in == DType::Int8) return "data_const[" + std::to_string(off + 128) + " + " + o.regs[0] + "]";
  return "ew_table16(" + o.regs[0] + ", " + std::to_string(off) + ")";
}

const VulkanOpEntry kComputeOps[] = {
    {OpKind::CONV2D, {.supports = conv_types, .lower = lower_conv_like, .fuses_epilogue = true}},
    {OpKind::DEPTHWISE_CONV2D, {.supports = conv_types, .lower = lower_conv_like, .fuses_epilogue = true}},
    {OpKind::TRANSPOSE_CONV2D, {.supports = conv_types, .lower = lower_conv_like, .fuses_epilogue = true}},
    {OpKind::MATMUL, {.supports = matmul_types, .lower = lower_conv_like, .fuses_epilogue = true}},
    {OpKind::AVG_POOL2D, {pool_types, lower_single<lower_pool>, POOL_AVG}},
    {OpKind::MAX_POOL2D, {pool_types, lower_single<lower_pool>, POOL_MAX}},
    {OpKind::RESCALE, {rescale_types, lower_single<lower_rescale>, -1, nullptr, chain_rescale}},
    {OpKind::TABLE, {table_types, lower_single<lower_table>, -1, nullptr, chain_table}},
};

}  // namespace

std::span<const VulkanOpEntry> compute_ops() { return kComputeOps; }

}  // namespace vkrt::vulkan
