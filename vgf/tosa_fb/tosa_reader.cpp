// .tosa (TOSA 1.0 FlatBuffers) -> graph IR (tosa.md §2-§3).
#include "vgf/tosa_fb/tosa_reader.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "tosa_generated.h"
#include "vgf/ir/op_descriptor.h"
#include "vgf/spirv/tosa_operands.h"
#include "vkrt/tensor.h"

namespace vkrt::vgf {
namespace {

using spirv::tosa_first_input_operand;
using spirv::tosa_operand_index;
using spirv::tosa_operand_names;
using spirv::tosa_operands_variadic;
using spirv::tosa_tensor_operand_names;

std::string str(const flatbuffers::String* s) { return s ? std::string(s->c_str(), s->size()) : ""; }

// A compile-time constant value (CONST or CONST_SHAPE output).
struct ConstValue {
  DType dtype = DType::Unknown;
  size_t width = 0;  // bytes per element as stored
  size_t count = 0;
  std::span<const uint8_t> bytes;

  int64_t at(size_t i) const {
    int64_t v = 0;
    switch (width) {
      case 1: { int8_t x; std::memcpy(&x, bytes.data() + i, 1); v = x; break; }
      case 2: { int16_t x; std::memcpy(&x, bytes.data() + 2 * i, 2); v = x; break; }
      case 4: { int32_t x; std::memcpy(&x, bytes.data() + 4 * i, 4); v = x; break; }
      default: std::memcpy(&v, bytes.data() + 8 * i, 8); break;
    }
    return v;
  }
  double at_fp(size_t i) const {
    if (dtype == DType::Fp32) {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      return f;
    }
    return double(at(i));
  }
};

Result<AccType> acc_from_dtype(tosa_fb::DType d) {
  switch (d) {
    case tosa_fb::DType::INT32: return AccType::Int32;
    case tosa_fb::DType::INT48: return AccType::Int48;
    case tosa_fb::DType::FP32: return AccType::Fp32;
    case tosa_fb::DType::FP16: return AccType::Fp16;
    default: return make_error(Error::InvalidProgram, ".tosa: invalid acc_type ", uint32_t(d));
  }
}

template <typename Enum>
Result<Enum> enum_value(uint32_t v, uint32_t lo, uint32_t hi, const char* what) {
  VKRT_CHECK_OR_RETURN(v >= lo && v <= hi, InvalidProgram, ".tosa: invalid ", what, " ", v);
  return Enum(v);
}

template <size_t N>
Status fill(std::array<int32_t, N>& out, const flatbuffers::Vector<int32_t>* v, size_t count, const char* what) {
  VKRT_CHECK_OR_RETURN(v != nullptr && v->size() == count, InvalidProgram, ".tosa: ", what,
                       " needs ", count, " values");
  for (size_t i = 0; i < count; ++i) out[i] = v->Get(flatbuffers::uoffset_t(i));
  return Status::ok();
}

class TosaGraphBuilder {
 public:
  Result<Graph> build(const tosa_fb::TosaBasicBlock* block);

 private:
  Result<TensorId> tensor(const std::string& name);
  Result<const ConstValue*> constant(const std::string& name, const char* what);
  Result<std::vector<int64_t>> ints(const std::string& name, const char* what);
  Result<int32_t> zp(const std::string& name, const char* what, bool zero_extend = false);
  Result<OpAttributes> attributes(const tosa_fb::TosaOperator* op, OpKind kind,
                                  const std::vector<std::string>& inputs);

  // One operator as the attribute decoders see it: its attribute table and its constant inputs
  // by operand name (the op descriptor's list).
  struct Operator {
    const tosa_fb::TosaOperator* op;
    OpKind kind;
    const std::vector<std::string>& inputs;
    std::string input(std::string_view name) const;  // "" when the op has no such input
  };
  // One decoder per attribute struct (the descriptor says which struct an op carries).
  Status decode(const Operator&, NoAttr&) { return Status::ok(); }
  Status decode(const Operator& o, ArgmaxAttr& r);
  Status decode(const Operator& o, PoolAttr& r);
  Status decode(const Operator& o, ConvAttr& r);
  Status decode(const Operator& o, TransposeConvAttr& r);
  Status decode(const Operator& o, MatmulAttr& r);
  Status decode(const Operator& o, FftAttr& r);
  Status decode(const Operator& o, ClampAttr& r);
  Status decode(const Operator& o, ShiftAttr& r);
  Status decode(const Operator& o, NanModeAttr& r);
  Status decode(const Operator& o, MulAttr& r);
  Status decode(const Operator& o, TableAttr& r);
  Status decode(const Operator& o, NegateAttr& r);
  Status decode(const Operator& o, AxisAttr& r);
  Status decode(const Operator& o, PadAttr& r);
  Status decode(const Operator& o, ReshapeAttr& r);
  Status decode(const Operator& o, SliceAttr& r);
  Status decode(const Operator& o, TileAttr& r);
  Status decode(const Operator& o, TransposeAttr& r);
  Status decode(const Operator& o, ResizeAttr& r);
  Status decode(const Operator& o, RescaleAttr& r);

  Graph g_;
  std::unordered_map<std::string, const tosa_fb::TosaTensor*> decl_;
  std::unordered_map<std::string, TensorId> ids_;
  std::unordered_map<std::string, ConstValue> consts_;
  std::unordered_map<std::string, std::string> alias_;  // IDENTITY outputs
};

Result<TensorId> TosaGraphBuilder::tensor(const std::string& raw_name) {
  std::string name = alias_.count(raw_name) ? alias_.at(raw_name) : raw_name;
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  auto d = decl_.find(name);
  VKRT_CHECK_OR_RETURN(d != decl_.end(), InvalidProgram, ".tosa: tensor '", name, "' is not declared");
  const tosa_fb::TosaTensor* t = d->second;
  TensorInfo info;
  info.name = name;
  uint32_t type = uint32_t(t->type());
  VKRT_CHECK_OR_RETURN(type >= 1 && type <= 12, InvalidProgram, ".tosa: tensor '", name, "' has type ", type);
  info.dtype = DType(type);
  info.ranked = !t->is_unranked();
  if (t->shape()) {
    for (int32_t dim : *t->shape()) {
      VKRT_CHECK_OR_RETURN(dim >= -1, InvalidProgram, ".tosa: tensor '", name, "' has dimension ", dim);
      info.shape.push_back(dim < 0 ? kDynamicDim : dim);
    }
  }
  VKRT_CHECK_OR_RETURN(info.shape.size() <= size_t(kMaxRank), InvalidProgram, ".tosa: tensor '", name, "' rank too large");
  auto c = consts_.find(name);
  if (c != consts_.end()) {
    info.is_constant = true;
    int64_t count = info.element_count();
    size_t width = dtype_storage_bytes(info.dtype);
    VKRT_CHECK_OR_RETURN(count >= 0 && width != 0 && c->second.bytes.size() >= size_t(count) * width,
                         InvalidProgram, ".tosa: constant '", name, "' has ", c->second.bytes.size(),
                         " bytes, its shape needs ", size_t(count) * width);
    auto bytes = c->second.bytes.subspan(0, size_t(count) * width);
    if (reinterpret_cast<uintptr_t>(bytes.data()) % width == 0) {
      info.external = bytes;
    } else {
      info.owned.assign(bytes.begin(), bytes.end());
    }
  }
  TensorId id = g_.add_tensor(std::move(info));
  ids_[name] = id;
  return id;
}

Result<const ConstValue*> TosaGraphBuilder::constant(const std::string& raw_name, const char* what) {
  std::string name = alias_.count(raw_name) ? alias_.at(raw_name) : raw_name;
  auto it = consts_.find(name);
  VKRT_CHECK_OR_RETURN(it != consts_.end(), NotSupported, ".tosa: ", what, " operand '", name,
                       "' must be a constant (CONST / CONST_SHAPE output)");
  return &it->second;
}

Result<std::vector<int64_t>> TosaGraphBuilder::ints(const std::string& name, const char* what) {
  VKRT_ASSIGN_OR_RETURN(const ConstValue* c, constant(name, what));
  std::vector<int64_t> out(c->count);
  for (size_t i = 0; i < c->count; ++i) out[i] = c->at(i);
  return out;
}

Result<int32_t> TosaGraphBuilder::zp(const std::string& name, const char* what, bool zero_extend) {
  VKRT_ASSIGN_OR_RETURN(const ConstValue* c, constant(name, what));
  VKRT_CHECK_OR_RETURN(c->count >= 1, InvalidProgram, ".tosa: ", what, " is empty");
  int64_t v = c->at(0);
  if (zero_extend && c->width < 8) v &= (int64_t(1) << (8 * c->width)) - 1;
  return int32_t(v);
}

// `inputs` holds the .tosa inputs; operand `name` is inputs[index(name) - first input operand].
std::string TosaGraphBuilder::Operator::input(std::string_view name) const {
  const int i = tosa_operand_index(kind, name) - tosa_first_input_operand(kind);
  return (i >= 0 && size_t(i) < inputs.size()) ? inputs[size_t(i)] : std::string();
}

Result<OpAttributes> TosaGraphBuilder::attributes(const tosa_fb::TosaOperator* op, OpKind kind,
                                                  const std::vector<std::string>& in) {
  const Operator o{op, kind, in};
  OpAttributes attr = default_attributes(kind);
  VKRT_RETURN_IF_ERROR(std::visit([&](auto& a) { return decode(o, a); }, attr));
  return attr;
}

// A missing nan_mode (0) is PROPAGATE, the schema's default.
static Result<NanMode> nan_mode(uint32_t v) { return enum_value<NanMode>(v ? v : 1, 1, 2, "nan_mode"); }

Status TosaGraphBuilder::decode(const Operator& o, ArgmaxAttr& r) {
  const auto* a = o.op->attribute_as_ArgmaxAttribute();
  VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: ARGMAX without attributes");
  r.axis = a->axis();
  VKRT_ASSIGN_OR_RETURN(r.nan_mode, nan_mode(uint32_t(a->nan_mode())));
  return Status::ok();
}

// AVG_POOL2D carries an accumulator and zero points, MAX_POOL2D a nan_mode.
Status TosaGraphBuilder::decode(const Operator& o, PoolAttr& r) {
  auto window = [&](const auto* a) -> Status {
    VKRT_RETURN_IF_ERROR(fill(r.kernel, a->kernel(), 2, "kernel"));
    VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), 2, "stride"));
    return fill(r.pad, a->pad(), 4, "pad");
  };
  if (const auto* a = o.op->attribute_as_AvgPool2dAttribute(); a && o.kind == OpKind::AVG_POOL2D) {
    VKRT_RETURN_IF_ERROR(window(a));
    VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(a->acc_type()));
    VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(o.input("input_zp"), "input_zp"));
    VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(o.input("output_zp"), "output_zp"));
    return Status::ok();
  }
  if (const auto* a = o.op->attribute_as_MaxPool2dAttribute(); a && o.kind == OpKind::MAX_POOL2D) {
    VKRT_RETURN_IF_ERROR(window(a));
    VKRT_ASSIGN_OR_RETURN(r.nan_mode, nan_mode(uint32_t(a->nan_mode())));
    return Status::ok();
  }
  return make_error(Error::InvalidProgram, ".tosa: ", op_name(o.kind), " without attributes");
}

// CONV2D, DEPTHWISE_CONV2D and CONV3D: the same fields in their own tables.
Status TosaGraphBuilder::decode(const Operator& o, ConvAttr& r) {
  const size_t spatial = o.kind == OpKind::CONV3D ? 3 : 2;
  auto fields = [&](const auto* a) -> Status {
    VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: ", op_name(o.kind), " without attributes");
    VKRT_RETURN_IF_ERROR(fill(r.pad, a->pad(), 2 * spatial, "pad"));
    VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), spatial, "stride"));
    VKRT_RETURN_IF_ERROR(fill(r.dilation, a->dilation(), spatial, "dilation"));
    r.local_bound = a->local_bound();
    VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(a->acc_type()));
    VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(o.input("input_zp"), "input_zp"));
    VKRT_ASSIGN_OR_RETURN(r.weight_zp, zp(o.input("weight_zp"), "weight_zp"));
    return Status::ok();
  };
  if (o.kind == OpKind::CONV3D) return fields(o.op->attribute_as_Conv3dAttribute());
  if (o.kind == OpKind::DEPTHWISE_CONV2D) return fields(o.op->attribute_as_DepthwiseConv2dAttribute());
  return fields(o.op->attribute_as_Conv2dAttribute());
}

Status TosaGraphBuilder::decode(const Operator& o, TransposeConvAttr& r) {
  const auto* a = o.op->attribute_as_TransposeConv2dAttribute();
  VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: TRANSPOSE_CONV2D without attributes");
  VKRT_RETURN_IF_ERROR(fill(r.out_pad, a->out_pad(), 4, "out_pad"));
  VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), 2, "stride"));
  r.local_bound = a->local_bound();
  VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(a->acc_type()));
  VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(o.input("input_zp"), "input_zp"));
  VKRT_ASSIGN_OR_RETURN(r.weight_zp, zp(o.input("weight_zp"), "weight_zp"));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, MatmulAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.a_zp, zp(o.input("A_zp"), "A_zp"));
  VKRT_ASSIGN_OR_RETURN(r.b_zp, zp(o.input("B_zp"), "B_zp"));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, FftAttr& r) {
  if (o.kind == OpKind::FFT2D) {
    const auto* a = o.op->attribute_as_Fft2dAttribute();
    VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: FFT2D without attributes");
    r.inverse = a->inverse();
    r.local_bound = a->local_bound();
  } else if (const auto* a = o.op->attribute_as_Rfft2dAttribute()) {
    r.local_bound = a->local_bound();
  }
  return Status::ok();
}

// The bounds are bytes of the input's element type.
Status TosaGraphBuilder::decode(const Operator& o, ClampAttr& r) {
  const auto* a = o.op->attribute_as_ClampAttribute();
  VKRT_CHECK_OR_RETURN(a && a->min_val() && a->max_val(), InvalidProgram, ".tosa: CLAMP without bounds");
  const std::string& in0 = o.inputs[0];
  const DType t = g_.tensors[ids_.at(alias_.count(in0) ? alias_.at(in0) : in0)].dtype;
  const size_t width = dtype_storage_bytes(t);
  VKRT_CHECK_OR_RETURN(width != 0 && a->min_val()->size() >= width && a->max_val()->size() >= width,
                       InvalidProgram, ".tosa: CLAMP bounds shorter than one ", dtype_name(t));
  const ConstValue lo{t, width, 1, {a->min_val()->data(), a->min_val()->size()}};
  const ConstValue hi{t, width, 1, {a->max_val()->data(), a->max_val()->size()}};
  r.min_int = lo.at(0);
  r.max_int = hi.at(0);
  r.min_fp = dtype_is_float(t) ? lo.at_fp(0) : double(r.min_int);
  r.max_fp = dtype_is_float(t) ? hi.at_fp(0) : double(r.max_int);
  VKRT_ASSIGN_OR_RETURN(r.nan_mode, nan_mode(uint32_t(a->nan_mode())));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, ShiftAttr& r) {
  const auto* a = o.op->attribute_as_ArithmeticRightShiftAttribute();
  r.round = a ? a->round() : false;
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, NanModeAttr& r) {
  uint32_t nm = 0;
  if (const auto* a = o.op->attribute_as_MaximumAttribute()) nm = uint32_t(a->nan_mode());
  if (const auto* a = o.op->attribute_as_MinimumAttribute()) nm = uint32_t(a->nan_mode());
  VKRT_ASSIGN_OR_RETURN(r.nan_mode, nan_mode(nm));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, MulAttr& r) {
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> s, ints(o.input("shift"), "MUL shift"));
  VKRT_CHECK_OR_RETURN(s.size() == 1 && s[0] >= INT32_MIN && s[0] <= INT32_MAX, InvalidProgram,
                       ".tosa: MUL shift must be one int32 value");
  r.shift = int32_t(s[0]);  // its TOSA range (0..63, int32 only) is the descriptor's rule
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, TableAttr& r) {
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> t, ints(o.input("table"), "TABLE table"));
  for (int64_t v : t) r.table.push_back(int16_t(v));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, NegateAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(o.input("input1_zp"), "input1_zp"));
  VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(o.input("output_zp"), "output_zp"));
  return Status::ok();
}

// REDUCE_*, CONCAT and REVERSE: an axis in each op's own table (REDUCE_MAX/MIN add a nan_mode).
Status TosaGraphBuilder::decode(const Operator& o, AxisAttr& r) {
  uint32_t nm = 0;
  if (const auto* a = o.op->attribute_as_ReduceAllAttribute()) r.axis = a->axis();
  if (const auto* a = o.op->attribute_as_ReduceAnyAttribute()) r.axis = a->axis();
  if (const auto* a = o.op->attribute_as_ReduceProductAttribute()) r.axis = a->axis();
  if (const auto* a = o.op->attribute_as_ReduceSumAttribute()) r.axis = a->axis();
  if (const auto* a = o.op->attribute_as_ReduceMaxAttribute()) r.axis = a->axis(), nm = uint32_t(a->nan_mode());
  if (const auto* a = o.op->attribute_as_ReduceMinAttribute()) r.axis = a->axis(), nm = uint32_t(a->nan_mode());
  if (const auto* a = o.op->attribute_as_ConcatAttribute()) r.axis = a->axis();
  if (const auto* a = o.op->attribute_as_ReverseAttribute()) r.axis = a->axis();
  VKRT_ASSIGN_OR_RETURN(r.nan_mode, nan_mode(nm));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, PadAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.padding, ints(o.input("padding"), "PAD padding"));
  VKRT_ASSIGN_OR_RETURN(const ConstValue* c, constant(o.input("pad_const"), "PAD pad_const"));
  VKRT_CHECK_OR_RETURN(c->count >= 1, InvalidProgram, ".tosa: PAD pad_const is empty");
  r.pad_const_int = c->at(0);
  r.pad_const_fp = c->at_fp(0);
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, ReshapeAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.shape, ints(o.input("shape"), "RESHAPE shape"));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, SliceAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.start, ints(o.input("start"), "SLICE start"));
  VKRT_ASSIGN_OR_RETURN(r.size, ints(o.input("size"), "SLICE size"));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, TileAttr& r) {
  VKRT_ASSIGN_OR_RETURN(r.multiples, ints(o.input("multiples"), "TILE multiples"));
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, TransposeAttr& r) {
  const auto* a = o.op->attribute_as_TransposeAttribute();
  VKRT_CHECK_OR_RETURN(a && a->perms(), InvalidProgram, ".tosa: TRANSPOSE without perms");
  r.perms.assign(a->perms()->begin(), a->perms()->end());
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, ResizeAttr& r) {
  const auto* a = o.op->attribute_as_ResizeAttribute();
  VKRT_ASSIGN_OR_RETURN(r.mode, enum_value<ResizeMode>(a ? uint32_t(a->mode()) : 0, 1, 2, "resize mode"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> scale, ints(o.input("scale"), "RESIZE scale"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> offset, ints(o.input("offset"), "RESIZE offset"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> border, ints(o.input("border"), "RESIZE border"));
  VKRT_CHECK_OR_RETURN(scale.size() == 4 && offset.size() == 2 && border.size() == 2, InvalidProgram,
                       ".tosa: RESIZE scale/offset/border sizes");
  for (size_t i = 0; i < 4; ++i) r.scale[i] = int32_t(scale[i]);
  for (size_t i = 0; i < 2; ++i) {
    r.offset[i] = int32_t(offset[i]);
    r.border[i] = int32_t(border[i]);
  }
  return Status::ok();
}

Status TosaGraphBuilder::decode(const Operator& o, RescaleAttr& r) {
  const auto* a = o.op->attribute_as_RescaleAttribute();
  VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: RESCALE without attributes");
  r.scale32 = a->scale32();
  VKRT_ASSIGN_OR_RETURN(r.rounding_mode, enum_value<RoundingMode>(uint32_t(a->rounding_mode()), 1, 3, "rounding_mode"));
  r.per_channel = a->per_channel();
  r.input_unsigned = a->input_unsigned();
  r.output_unsigned = a->output_unsigned();
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> m, ints(o.input("multiplier"), "RESCALE multiplier"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> s, ints(o.input("shift"), "RESCALE shift"));
  for (int64_t v : m) r.multiplier.push_back(int32_t(v));
  for (int64_t v : s) r.shift.push_back(int8_t(v));
  VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(o.input("input_zp"), "input_zp", r.input_unsigned));
  VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(o.input("output_zp"), "output_zp", r.output_unsigned));
  return Status::ok();
}

Result<Graph> TosaGraphBuilder::build(const tosa_fb::TosaBasicBlock* block) {
  g_.name = str(block->name());
  if (block->tensors()) {
    for (const tosa_fb::TosaTensor* t : *block->tensors()) {
      VKRT_CHECK_OR_RETURN(t && t->name(), InvalidProgram, ".tosa: tensor without a name");
      decl_[str(t->name())] = t;
    }
  }
  if (block->shapes()) {
    // CONST_SHAPE values: int64 elements per the reference model, int32 accepted when smaller.
    for (const tosa_fb::TosaShape* s : *block->shapes()) {
      if (!s || !s->name()) continue;
      ConstValue c;
      c.dtype = DType::Shape;
      c.count = s->rank();
      size_t bytes = s->data() ? s->data()->size() : 0;
      c.width = (bytes >= c.count * 8) ? 8 : 4;
      VKRT_CHECK_OR_RETURN(bytes >= c.count * c.width, InvalidProgram, ".tosa: shape '", str(s->name()), "' data too short");
      c.bytes = {s->data() ? s->data()->data() : nullptr, bytes};
      consts_[str(s->name())] = c;
    }
  }
  const auto* ops = block->operators();
  // First pass: constants (CONST outputs carry data in their tensor).
  if (ops) {
    for (const tosa_fb::TosaOperator* op : *ops) {
      VKRT_CHECK_OR_RETURN(op != nullptr, InvalidProgram, ".tosa: null operator");
      if (op->op() != tosa_fb::Op::CONST && op->op() != tosa_fb::Op::CONST_SHAPE) continue;
      VKRT_CHECK_OR_RETURN(op->outputs() && op->outputs()->size() == 1, InvalidProgram, ".tosa: CONST needs one output");
      std::string name = str(op->outputs()->Get(0));
      if (consts_.count(name)) continue;  // a TosaShape
      auto d = decl_.find(name);
      VKRT_CHECK_OR_RETURN(d != decl_.end(), InvalidProgram, ".tosa: CONST output '", name, "' not declared");
      const tosa_fb::TosaTensor* t = d->second;
      VKRT_CHECK_OR_RETURN(uint32_t(t->type()) >= 1 && uint32_t(t->type()) <= 12, InvalidProgram, ".tosa: constant '", name, "' has an invalid type");
      VKRT_CHECK_OR_RETURN(t->data() != nullptr || t->offset() > 1, InvalidProgram, ".tosa: constant '", name, "' has no data");
      VKRT_CHECK_OR_RETURN(t->data() != nullptr, NotSupported, ".tosa: constant '", name, "' stored outside the FlatBuffer");
      ConstValue c;
      c.dtype = DType(uint32_t(t->type()));
      c.width = dtype_storage_bytes(c.dtype);
      VKRT_CHECK_OR_RETURN(c.width != 0, NotSupported, ".tosa: constant '", name, "' of type ", dtype_name(c.dtype));
      uint64_t count = 1;
      if (t->shape()) {
        for (int32_t dim : *t->shape()) {
          VKRT_CHECK_OR_RETURN(dim >= 0 && (dim == 0 || count <= (uint64_t(1) << 40) / uint64_t(dim)),
                               InvalidProgram, ".tosa: constant '", name, "' has an invalid shape");
          count *= uint64_t(dim);
        }
      }
      // The data vector is padded to 8 bytes: use shape x element size (tosa.md §3).
      VKRT_CHECK_OR_RETURN(t->data()->size() >= count * c.width, InvalidProgram, ".tosa: constant '", name,
                           "' has ", t->data()->size(), " bytes, its shape needs ", count * c.width);
      c.count = size_t(count);
      c.bytes = {t->data()->data(), size_t(count) * c.width};
      consts_[name] = c;
    }
  }
  if (block->inputs()) {
    for (flatbuffers::uoffset_t i = 0; i < block->inputs()->size(); ++i) {
      std::string name = str(block->inputs()->Get(i));
      VKRT_ASSIGN_OR_RETURN(TensorId t, tensor(name));
      g_.inputs.push_back(GraphIO{t, name, uint32_t(i), 0});
    }
  }
  if (ops) {
    for (flatbuffers::uoffset_t k = 0; k < ops->size(); ++k) {
      const tosa_fb::TosaOperator* op = ops->Get(k);
      uint32_t code = uint32_t(op->op());
      if (op->op() == tosa_fb::Op::CONST || op->op() == tosa_fb::Op::CONST_SHAPE) continue;
      std::vector<std::string> in, out;
      if (op->inputs()) for (const flatbuffers::String* s : *op->inputs()) in.push_back(str(s));
      if (op->outputs()) for (const flatbuffers::String* s : *op->outputs()) out.push_back(str(s));
      if (op->op() == tosa_fb::Op::IDENTITY) {
        VKRT_CHECK_OR_RETURN(in.size() == 1 && out.size() == 1, InvalidProgram, ".tosa: IDENTITY needs one input and output");
        alias_[out[0]] = alias_.count(in[0]) ? alias_.at(in[0]) : in[0];
        continue;
      }
      VKRT_CHECK_OR_RETURN(code >= 1 && code <= 66, NotSupported, ".tosa operator ", k, ": op ",
                           code, " (", tosa_fb::EnumNameOp(op->op()), ") is not supported");
      const OpKind kind = OpKind(code - 1);
      const size_t want_inputs = tosa_operand_names(kind).size() - size_t(tosa_first_input_operand(kind));
      if (tosa_operands_variadic(kind)) {
        VKRT_CHECK_OR_RETURN(!in.empty(), InvalidProgram, ".tosa operator ", k, ": CONCAT without inputs");
      } else {
        VKRT_CHECK_OR_RETURN(in.size() == want_inputs, InvalidProgram, ".tosa operator ", k, " (",
                             op_name(kind), "): ", in.size(), " inputs, expected ", want_inputs);
      }
      Op ir;
      ir.kind = kind;
      ir.debug_name = out.empty() ? std::string() : out[0];
      if (tosa_operands_variadic(kind)) {
        for (const std::string& name : in) {
          VKRT_ASSIGN_OR_RETURN(TensorId t, tensor(name));
          ir.inputs.push_back(t);
        }
      } else {
        const int first = tosa_first_input_operand(kind);
        for (std::string_view name : tosa_tensor_operand_names(kind)) {
          VKRT_ASSIGN_OR_RETURN(TensorId t, tensor(in[size_t(tosa_operand_index(kind, name) - first)]));
          ir.inputs.push_back(t);
        }
      }
      auto attr = attributes(op, kind, in);
      if (!attr.ok()) return Status(attr.status()).with_context(".tosa operator " + std::to_string(k) + " (" + op_name(kind) + ")");
      ir.attr = std::move(attr).value();
      VKRT_CHECK_OR_RETURN(out.size() == size_t(expected_output_count(kind)), InvalidProgram,
                           ".tosa operator ", k, ": ", out.size(), " outputs");
      for (const std::string& name : out) {
        VKRT_CHECK_OR_RETURN(!ids_.count(name), InvalidProgram, ".tosa operator ", k, ": output '", name, "' defined twice");
        VKRT_ASSIGN_OR_RETURN(TensorId t, tensor(name));
        ir.outputs.push_back(t);
      }
      g_.ops.push_back(std::move(ir));
    }
  }
  if (block->outputs()) {
    for (flatbuffers::uoffset_t j = 0; j < block->outputs()->size(); ++j) {
      std::string name = str(block->outputs()->Get(j));
      VKRT_ASSIGN_OR_RETURN(TensorId t, tensor(name));
      g_.outputs.push_back(GraphIO{t, name, uint32_t(j), 0});
    }
  }
  VKRT_RETURN_IF_ERROR(validate_graph(g_));
  return std::move(g_);
}

}  // namespace

Result<Graph> read_tosa_graph(std::span<const uint8_t> bytes) {
  // FlatBuffers needs an aligned buffer; callers normally pass file contents in a vector.
  VKRT_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(bytes.data()) % 8 == 0, InvalidArgument,
                       ".tosa: buffer must be 8-byte aligned");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  VKRT_CHECK_OR_RETURN(tosa_fb::VerifyTosaGraphBuffer(verifier), InvalidProgram,
                       ".tosa: FlatBuffers verification failed (or identifier is not 'TOSA')");
  const tosa_fb::TosaGraph* graph = tosa_fb::GetTosaGraph(bytes.data());
  VKRT_CHECK_OR_RETURN(graph->regions() && graph->regions()->size() > 0, InvalidProgram, ".tosa: no regions");
  const tosa_fb::TosaRegion* region = graph->regions()->Get(0);
  for (const tosa_fb::TosaRegion* r : *graph->regions()) {
    if (r && str(r->name()) == "main") region = r;
  }
  VKRT_CHECK_OR_RETURN(region && region->blocks() && region->blocks()->size() > 0, InvalidProgram, ".tosa: no blocks");
  const tosa_fb::TosaBasicBlock* block = region->blocks()->Get(0);
  for (const tosa_fb::TosaBasicBlock* b : *region->blocks()) {
    if (b && str(b->name()) == "main") block = b;
  }
  VKRT_CHECK_OR_RETURN(block != nullptr, InvalidProgram, ".tosa: null block");
  TosaGraphBuilder builder;
  return builder.build(block);
}

}  // namespace vkrt::vgf
