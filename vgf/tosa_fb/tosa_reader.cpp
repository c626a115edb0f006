// .tosa (TOSA 1.0 FlatBuffers) -> graph IR (tosa.md §2-§3).
#include "vgf/tosa_fb/tosa_reader.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "tosa_generated.h"
#include "vgf/spirv/tosa_operands.h"
#include "vkrt/tensor.h"

namespace vkrt::vgf {
namespace {

using spirv::tosa_first_input_operand;
using spirv::tosa_operand_index;
using spirv::tosa_operand_names;
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

Result<OpAttributes> TosaGraphBuilder::attributes(const tosa_fb::TosaOperator* op, OpKind kind,
                                                  const std::vector<std::string>& in) {
  // `in` holds the .tosa inputs; operand `name` is in[index(name) - first input operand].
  const int first = tosa_first_input_operand(kind);
  auto input = [&](std::string_view name) -> std::string {
    int i = tosa_operand_index(kind, name) - first;
    return (i >= 0 && size_t(i) < in.size()) ? in[size_t(i)] : std::string();
  };
  switch (kind) {
    case OpKind::ARGMAX: {
      const auto* a = op->attribute_as_ArgmaxAttribute();
      VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: ARGMAX without attributes");
      ArgmaxAttr r;
      r.axis = a->axis();
      VKRT_ASSIGN_OR_RETURN(r.nan_mode, enum_value<NanMode>(uint32_t(a->nan_mode()) ? uint32_t(a->nan_mode()) : 1, 1, 2, "nan_mode"));
      return OpAttributes(r);
    }
    case OpKind::AVG_POOL2D: {
      const auto* a = op->attribute_as_AvgPool2dAttribute();
      VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: AVG_POOL2D without attributes");
      PoolAttr r;
      VKRT_RETURN_IF_ERROR(fill(r.kernel, a->kernel(), 2, "kernel"));
      VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), 2, "stride"));
      VKRT_RETURN_IF_ERROR(fill(r.pad, a->pad(), 4, "pad"));
      VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(a->acc_type()));
      VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(input("input_zp"), "input_zp"));
      VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(input("output_zp"), "output_zp"));
      return OpAttributes(r);
    }
    case OpKind::MAX_POOL2D: {
      const auto* a = op->attribute_as_MaxPool2dAttribute();
      VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: MAX_POOL2D without attributes");
      PoolAttr r;
      VKRT_RETURN_IF_ERROR(fill(r.kernel, a->kernel(), 2, "kernel"));
      VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), 2, "stride"));
      VKRT_RETURN_IF_ERROR(fill(r.pad, a->pad(), 4, "pad"));
      uint32_t nm = uint32_t(a->nan_mode());
      VKRT_ASSIGN_OR_RETURN(r.nan_mode, enum_value<NanMode>(nm ? nm : 1, 1, 2, "nan_mode"));
      return OpAttributes(r);
    }
    case OpKind::CONV2D:
    case OpKind::DEPTHWISE_CONV2D: {
      const flatbuffers::Vector<int32_t>*pad, *stride, *dilation;
      bool local_bound;
      tosa_fb::DType acc;
      if (kind == OpKind::CONV2D) {
        const auto* a = op->attribute_as_Conv2dAttribute();
        VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: CONV2D without attributes");
        pad = a->pad(); stride = a->stride(); dilation = a->dilation(); local_bound = a->local_bound(); acc = a->acc_type();
      } else {
        const auto* a = op->attribute_as_DepthwiseConv2dAttribute();
        VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: DEPTHWISE_CONV2D without attributes");
        pad = a->pad(); stride = a->stride(); dilation = a->dilation(); local_bound = a->local_bound(); acc = a->acc_type();
      }
      ConvAttr r;
      VKRT_RETURN_IF_ERROR(fill(r.pad, pad, 4, "pad"));
      VKRT_RETURN_IF_ERROR(fill(r.stride, stride, 2, "stride"));
      VKRT_RETURN_IF_ERROR(fill(r.dilation, dilation, 2, "dilation"));
      r.local_bound = local_bound;
      VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(acc));
      VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(input("input_zp"), "input_zp"));
      VKRT_ASSIGN_OR_RETURN(r.weight_zp, zp(input("weight_zp"), "weight_zp"));
      return OpAttributes(r);
    }
    case OpKind::TRANSPOSE_CONV2D: {
      const auto* a = op->attribute_as_TransposeConv2dAttribute();
      VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: TRANSPOSE_CONV2D without attributes");
      TransposeConvAttr r;
      VKRT_RETURN_IF_ERROR(fill(r.out_pad, a->out_pad(), 4, "out_pad"));
      VKRT_RETURN_IF_ERROR(fill(r.stride, a->stride(), 2, "stride"));
      r.local_bound = a->local_bound();
      VKRT_ASSIGN_OR_RETURN(r.acc_type, acc_from_dtype(a->acc_type()));
      VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(input("input_zp"), "input_zp"));
      VKRT_ASSIGN_OR_RETURN(r.weight_zp, zp(input("weight_zp"), "weight_zp"));
      return OpAttributes(r);
    }
    case OpKind::MATMUL: {
      MatmulAttr r;
      VKRT_ASSIGN_OR_RETURN(r.a_zp, zp(input("A_zp"), "A_zp"));
      VKRT_ASSIGN_OR_RETURN(r.b_zp, zp(input("B_zp"), "B_zp"));
      return OpAttributes(r);
    }
    case OpKind::CLAMP: {
      const auto* a = op->attribute_as_ClampAttribute();
      VKRT_CHECK_OR_RETURN(a && a->min_val() && a->max_val(), InvalidProgram, ".tosa: CLAMP without bounds");
      DType t = g_.tensors[ids_.at(alias_.count(in[0]) ? alias_.at(in[0]) : in[0])].dtype;
      size_t width = dtype_storage_bytes(t);
      VKRT_CHECK_OR_RETURN(width != 0 && a->min_val()->size() >= width && a->max_val()->size() >= width,
                           InvalidProgram, ".tosa: CLAMP bounds shorter than one ", dtype_name(t));
      ConstValue lo{t, width, 1, {a->min_val()->data(), a->min_val()->size()}};
      ConstValue hi{t, width, 1, {a->max_val()->data(), a->max_val()->size()}};
      ClampAttr r;
      r.min_int = lo.at(0);
      r.max_int = hi.at(0);
      r.min_fp = dtype_is_float(t) ? lo.at_fp(0) : double(r.min_int);
      r.max_fp = dtype_is_float(t) ? hi.at_fp(0) : double(r.max_int);
      uint32_t nm = uint32_t(a->nan_mode());
      VKRT_ASSIGN_OR_RETURN(r.nan_mode, enum_value<NanMode>(nm ? nm : 1, 1, 2, "nan_mode"));
      return OpAttributes(r);
    }
    case OpKind::ARITHMETIC_RIGHT_SHIFT: {
      const auto* a = op->attribute_as_ArithmeticRightShiftAttribute();
      return OpAttributes(ShiftAttr{a ? a->round() : false});
    }
    case OpKind::MAXIMUM:
    case OpKind::MINIMUM: {
      uint32_t nm = 0;
      if (kind == OpKind::MAXIMUM && op->attribute_as_MaximumAttribute()) nm = uint32_t(op->attribute_as_MaximumAttribute()->nan_mode());
      if (kind == OpKind::MINIMUM && op->attribute_as_MinimumAttribute()) nm = uint32_t(op->attribute_as_MinimumAttribute()->nan_mode());
      NanModeAttr r;
      VKRT_ASSIGN_OR_RETURN(r.nan_mode, enum_value<NanMode>(nm ? nm : 1, 1, 2, "nan_mode"));
      return OpAttributes(r);
    }
    case OpKind::MUL: {
      MulAttr r;
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> s, ints(input("shift"), "MUL shift"));
      VKRT_CHECK_OR_RETURN(s.size() == 1 && s[0] >= 0 && s[0] <= 63, InvalidProgram, ".tosa: MUL shift invalid");
      r.shift = int32_t(s[0]);
      return OpAttributes(r);
    }
    case OpKind::TABLE: {
      TableAttr r;
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> t, ints(input("table"), "TABLE table"));
      for (int64_t v : t) r.table.push_back(int16_t(v));
      return OpAttributes(r);
    }
    case OpKind::NEGATE: {
      NegateAttr r;
      VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(input("input1_zp"), "input1_zp"));
      VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(input("output_zp"), "output_zp"));
      return OpAttributes(r);
    }
    case OpKind::REDUCE_ALL: case OpKind::REDUCE_ANY: case OpKind::REDUCE_PRODUCT:
    case OpKind::REDUCE_SUM: case OpKind::REDUCE_MAX: case OpKind::REDUCE_MIN:
    case OpKind::CONCAT: case OpKind::REVERSE: {
      AxisAttr r;
      uint32_t nm = 0;
      switch (kind) {
        case OpKind::REDUCE_ALL: if (auto* a = op->attribute_as_ReduceAllAttribute()) r.axis = a->axis(); break;
        case OpKind::REDUCE_ANY: if (auto* a = op->attribute_as_ReduceAnyAttribute()) r.axis = a->axis(); break;
        case OpKind::REDUCE_PRODUCT: if (auto* a = op->attribute_as_ReduceProductAttribute()) r.axis = a->axis(); break;
        case OpKind::REDUCE_SUM: if (auto* a = op->attribute_as_ReduceSumAttribute()) r.axis = a->axis(); break;
        case OpKind::REDUCE_MAX: if (auto* a = op->attribute_as_ReduceMaxAttribute()) { r.axis = a->axis(); nm = uint32_t(a->nan_mode()); } break;
        case OpKind::REDUCE_MIN: if (auto* a = op->attribute_as_ReduceMinAttribute()) { r.axis = a->axis(); nm = uint32_t(a->nan_mode()); } break;
        case OpKind::CONCAT: if (auto* a = op->attribute_as_ConcatAttribute()) r.axis = a->axis(); break;
        default: if (auto* a = op->attribute_as_ReverseAttribute()) r.axis = a->axis(); break;
      }
      VKRT_ASSIGN_OR_RETURN(r.nan_mode, enum_value<NanMode>(nm ? nm : 1, 1, 2, "nan_mode"));
      return OpAttributes(r);
    }
    case OpKind::PAD: {
      PadAttr r;
      VKRT_ASSIGN_OR_RETURN(r.padding, ints(input("padding"), "PAD padding"));
      VKRT_ASSIGN_OR_RETURN(const ConstValue* c, constant(input("pad_const"), "PAD pad_const"));
      VKRT_CHECK_OR_RETURN(c->count >= 1, InvalidProgram, ".tosa: PAD pad_const is empty");
      r.pad_const_int = c->at(0);
      r.pad_const_fp = c->at_fp(0);
      return OpAttributes(r);
    }
    case OpKind::RESHAPE: {
      ReshapeAttr r;
      VKRT_ASSIGN_OR_RETURN(r.shape, ints(input("shape"), "RESHAPE shape"));
      return OpAttributes(r);
    }
    case OpKind::SLICE: {
      SliceAttr r;
      VKRT_ASSIGN_OR_RETURN(r.start, ints(input("start"), "SLICE start"));
      VKRT_ASSIGN_OR_RETURN(r.size, ints(input("size"), "SLICE size"));
      return OpAttributes(r);
    }
    case OpKind::TILE: {
      TileAttr r;
      VKRT_ASSIGN_OR_RETURN(r.multiples, ints(input("multiples"), "TILE multiples"));
      return OpAttributes(r);
    }
    case OpKind::TRANSPOSE: {
      const auto* a = op->attribute_as_TransposeAttribute();
      VKRT_CHECK_OR_RETURN(a && a->perms(), InvalidProgram, ".tosa: TRANSPOSE without perms");
      TransposeAttr r;
      r.perms.assign(a->perms()->begin(), a->perms()->end());
      return OpAttributes(r);
    }
    case OpKind::RESIZE: {
      const auto* a = op->attribute_as_ResizeAttribute();
      ResizeAttr r;
      VKRT_ASSIGN_OR_RETURN(r.mode, enum_value<ResizeMode>(a ? uint32_t(a->mode()) : 0, 1, 2, "resize mode"));
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> scale, ints(input("scale"), "RESIZE scale"));
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> offset, ints(input("offset"), "RESIZE offset"));
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> border, ints(input("border"), "RESIZE border"));
      VKRT_CHECK_OR_RETURN(scale.size() == 4 && offset.size() == 2 && border.size() == 2, InvalidProgram,
                           ".tosa: RESIZE scale/offset/border sizes");
      for (size_t i = 0; i < 4; ++i) r.scale[i] = int32_t(scale[i]);
      for (size_t i = 0; i < 2; ++i) {
        r.offset[i] = int32_t(offset[i]);
        r.border[i] = int32_t(border[i]);
      }
      return OpAttributes(r);
    }
    case OpKind::RESCALE: {
      const auto* a = op->attribute_as_RescaleAttribute();
      VKRT_CHECK_OR_RETURN(a, InvalidProgram, ".tosa: RESCALE without attributes");
      RescaleAttr r;
      r.scale32 = a->scale32();
      VKRT_ASSIGN_OR_RETURN(r.rounding_mode, enum_value<RoundingMode>(uint32_t(a->rounding_mode()), 1, 3, "rounding_mode"));
      r.per_channel = a->per_channel();
      r.input_unsigned = a->input_unsigned();
      r.output_unsigned = a->output_unsigned();
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> m, ints(input("multiplier"), "RESCALE multiplier"));
      VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> s, ints(input("shift"), "RESCALE shift"));
      for (int64_t v : m) r.multiplier.push_back(int32_t(v));
      for (int64_t v : s) r.shift.push_back(int8_t(v));
      VKRT_ASSIGN_OR_RETURN(r.input_zp, zp(input("input_zp"), "input_zp", r.input_unsigned));
      VKRT_ASSIGN_OR_RETURN(r.output_zp, zp(input("output_zp"), "output_zp", r.output_unsigned));
      return OpAttributes(r);
    }
    case OpKind::FFT2D:
    case OpKind::RFFT2D:
    case OpKind::CONV3D:
      return make_error(Error::NotSupported, ".tosa reader: ", op_name(kind), " is not supported");
    default:
      return OpAttributes(NoAttr{});
  }
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
      if (kind == OpKind::CONCAT) {
        VKRT_CHECK_OR_RETURN(!in.empty(), InvalidProgram, ".tosa operator ", k, ": CONCAT without inputs");
      } else {
        VKRT_CHECK_OR_RETURN(in.size() == want_inputs, InvalidProgram, ".tosa operator ", k, " (",
                             op_name(kind), "): ", in.size(), " inputs, expected ", want_inputs);
      }
      Op ir;
      ir.kind = kind;
      ir.debug_name = out.empty() ? std::string() : out[0];
      if (kind == OpKind::CONCAT) {
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
