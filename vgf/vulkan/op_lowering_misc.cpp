// Lowering of REDUCE_*, ARGMAX, SELECT, GATHER and CAST, and their entries in the op table
// (op_table.h).
#include "shaders/glsl/op_codes.h"
#include "shaders/glsl/push_constants.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;

struct ReduceParams { REDUCE_PARAMS };

struct SelectParams { SELECT_PARAMS };

struct GatherParams { GATHER_SCATTER_PARAMS };

struct CastParams { CAST_PARAMS };

// Contiguous strides of `in` broadcast to the right-aligned 6-d `out` (0 where broadcast).
void broadcast6(const vgf::Shape& in, const int32_t out[6], int32_t strides[6]) {
  size_t pad = 6 - in.size();
  int32_t stride = 1;
  for (int d = 5; d >= 0; --d) {
    int32_t dim = size_t(d) < pad ? 1 : int32_t(in[size_t(d) - pad]);
    strides[d] = (dim == 1 && out[d] != 1) ? 0 : stride;
    stride *= dim;
  }
}

// REDUCE_* and ARGMAX (reduce.comp) along one axis, the input viewed as [outer, axis, inner].
Status lower_reduce(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType in = ctx.dtype(op.inputs[0]);
  const bool argmax = std::holds_alternative<vgf::ArgmaxAttr>(op.attr);
  int32_t axis = 0;
  vgf::NanMode nan = vgf::NanMode::Propagate;
  if (const auto* a = std::get_if<vgf::AxisAttr>(&op.attr)) {
    axis = a->axis;
    nan = a->nan_mode;
  } else if (const auto* a = std::get_if<vgf::ArgmaxAttr>(&op.attr)) {
    axis = a->axis;
    nan = a->nan_mode;
  }
  const vgf::Shape& s = ctx.shape(op.inputs[0]);
  ReduceParams p{1, int32_t(s[axis]), 1, vulkan_op(op.kind).shader_op, int32_t(nan)};
  for (int32_t i = 0; i < axis; ++i) p.outer *= int32_t(s[i]);
  for (size_t i = size_t(axis) + 1; i < s.size(); ++i) p.inner *= int32_t(s[i]);
  if (p.axis_len == 0) return make_error(Error::NotSupported, vgf::op_name(op.kind), " over an empty axis");
  PendingDispatch d;
  d.shader = std::string(argmax ? "argmax_" : "reduce_") + type_suffix(in);
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.outer) * uint64_t(p.inner);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

Status lower_select(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Shape& so = ctx.shape(op.outputs[0]);
  SelectParams p{};
  size_t pad = 6 - so.size();
  for (size_t dd = 0; dd < 6; ++dd) p.shape[dd] = dd < pad ? 1 : int32_t(so[dd - pad]);
  broadcast6(ctx.shape(op.inputs[0]), p.shape, p.c_stride);
  broadcast6(ctx.shape(op.inputs[1]), p.shape, p.a_stride);
  broadcast6(ctx.shape(op.inputs[2]), p.shape, p.b_stride);
  p.count = int32_t(element_count(so));
  PendingDispatch d;
  d.shader = "select_" + std::to_string(vgf::dtype_storage_bytes(ctx.dtype(op.inputs[1])) * 8);
  d.binding_count = 4;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.inputs[2]),
                ctx.tensor(op.outputs[0])};
  d.writes = {false, false, false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.count);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

Status lower_gather(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const vgf::Shape& sv = ctx.shape(op.inputs[0]);
  const vgf::Shape& si = ctx.shape(op.inputs[1]);
  GatherParams p{int32_t(sv[0]), int32_t(sv[1]), int32_t(sv[2]), int32_t(si[1])};
  PendingDispatch d;
  d.shader = "gather_" + std::to_string(vgf::dtype_storage_bytes(ctx.dtype(op.inputs[0])) * 8);
  d.binding_count = 3;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.inputs[1]), ctx.tensor(op.outputs[0])};
  d.writes = {false, false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.N) * uint64_t(p.W) * uint64_t(p.C);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

Status lower_cast(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  const DType in = ctx.dtype(op.inputs[0]);
  const DType o = ctx.dtype(op.outputs[0]);
  if (in == DType::Fp16 || o == DType::Fp16) return lower_cast_half(op, ctx, out);  // cast_f16.comp
  CastParams p{int32_t(element_count(ctx.shape(op.outputs[0]))), o == DType::Bool ? 1 : 0};
  PendingDispatch d;
  d.shader = std::string("cast_") + type_suffix(in) + "_" + type_suffix(o);
  d.binding_count = 2;
  d.bindings = {ctx.tensor(op.inputs[0]), ctx.tensor(op.outputs[0])};
  d.writes = {false, true};
  d.set_push(p);
  d.invocations = uint64_t(p.count);
  if (d.invocations > 0) out->push_back(std::move(d));
  return Status::ok();
}

// Capabilities: the variants of reduce.comp, select.comp, gather.comp, cast.comp/cast_f16.comp.
constexpr std::initializer_list<DType> kIntsAndFp32 = {DType::Int8, DType::Int16, DType::Int32, DType::Fp32};

std::string bool_input(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Bool); }
std::string int_or_fp32_input(const OpOperands& o) { return o.supported_if(is_one_of(o.in(0), kIntsAndFp32)); }
std::string int32_or_fp32_input(const OpOperands& o) {
  return o.supported_if(is_one_of(o.in(0), {DType::Int32, DType::Fp32}));
}
std::string fp32_input(const OpOperands& o) { return o.supported_if(o.in(0) == DType::Fp32); }

std::string select_types(const OpOperands& o) {
  const size_t bytes = vgf::dtype_storage_bytes(o.in(1));
  return o.supported_if(o.in(0) == DType::Bool && (bytes == 1 || bytes == 2 || bytes == 4) && o.in(2) == o.in(1));
}

std::string gather_types(const OpOperands& o) {
  return o.supported_if(is_one_of(o.in(0), kIntsAndFp32) && o.in(1) == DType::Int32 && o.in_rank(0) == 3 &&
                        o.in_rank(1) == 2);
}

std::string cast_types(const OpOperands& o) {
  auto castable = [](DType t) { return t == DType::Bool || is_one_of(t, kIntsAndFp32) || t == DType::Fp16; };
  // bool -> bool would be a copy; int8 <-> bool uses the int8 variant with the bool flag.
  return o.supported_if(castable(o.in(0)) && castable(o.out(0)) && o.in(0) != o.out(0));
}

// CAST in a fused chain, as cast.comp (fp16 never joins a chain: graph_plan.cpp).
Result<std::string> chain_cast(const ChainOperands& o) {
  const std::string& a = o.regs[0];
  const bool float_in = o.in == DType::Fp32;
  if (o.out == DType::Bool) return float_in ? "int(" + a + " != 0.0)" : "int(" + a + " != 0)";
  if (o.out == DType::Fp32) return "float(" + a + ")";
  if (float_in) return "ew_f2i(" + a + ", " + std::to_string(int_bits(o.out)) + ")";
  return a;  // narrowing keeps the low bits: the generator's wrap to the output type
}

const VulkanOpEntry kMiscOps[] = {
    {OpKind::REDUCE_ALL, {bool_input, lower_single<lower_reduce>, RED_ALL}},
    {OpKind::REDUCE_ANY, {bool_input, lower_single<lower_reduce>, RED_ANY}},
    {OpKind::REDUCE_MAX, {int_or_fp32_input, lower_single<lower_reduce>, RED_MAX}},
    {OpKind::REDUCE_MIN, {int_or_fp32_input, lower_single<lower_reduce>, RED_MIN}},
    {OpKind::REDUCE_SUM, {int32_or_fp32_input, lower_single<lower_reduce>, RED_SUM}},
    {OpKind::REDUCE_PRODUCT, {fp32_input, lower_single<lower_reduce>, RED_PRODUCT}},
    {OpKind::ARGMAX, {int_or_fp32_input, lower_single<lower_reduce>, RED_MAX}},  // reduce.comp, ARGMAX_OUT
    {OpKind::SELECT, {select_types, lower_single<lower_select>, -1, "($a != 0 ? $b : $c)"}},
    {OpKind::GATHER, {gather_types, lower_single<lower_gather>}},
    {OpKind::CAST, {cast_types, lower_single<lower_cast>, -1, nullptr, chain_cast}},
};

}  // namespace

std::span<const VulkanOpEntry> misc_ops() { return kMiscOps; }

}  // namespace vkrt::vulkan
