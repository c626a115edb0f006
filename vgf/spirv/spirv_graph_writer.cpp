// Graph IR -> SPIR-V graph module (see spirv_graph_writer.h).
#include "vgf/spirv/spirv_graph_writer.h"

#include <algorithm>

#include <cstring>
#include <map>
#include <tuple>

#include "vgf/spirv/spirv_defs.h"
#include "vgf/ir/op_descriptor.h"

namespace vkrt::vgf::spirv {
namespace {

void append_string(std::vector<uint32_t>& out, std::string_view s) {
  size_t words = s.size() / 4 + 1;  // always room for the terminating NUL
  size_t start = out.size();
  out.resize(start + words, 0);
  std::memcpy(out.data() + start, s.data(), s.size());  // little-endian packing (SPIR-V §2.2.1)
}

class Writer {
 public:
  Writer(const Graph& g, const SpirvWriteOptions& o) : g_(g), o_(o) {}
  Result<SpirvWriteResult> write();

 private:
  uint32_t new_id() { return next_id_++; }
  static void emit(std::vector<uint32_t>& sec, uint16_t opcode, std::initializer_list<uint32_t> ops) {
    sec.push_back((uint32_t(ops.size() + 1) << 16) | opcode);
    sec.insert(sec.end(), ops);
  }
  static void emit(std::vector<uint32_t>& sec, uint16_t opcode, const std::vector<uint32_t>& ops) {
    sec.push_back((uint32_t(ops.size() + 1) << 16) | opcode);
    sec.insert(sec.end(), ops.begin(), ops.end());
  }

  // ---- types ----
  uint32_t int_type(uint32_t width) {
    auto key = std::make_tuple(uint32_t(0), width, uint32_t(0));
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    uint32_t id = new_id();
    emit(defs_, OpTypeInt, {id, width, 0});  // signless (§6.3)
    if (width == 8) caps_int8_ = true;
    if (width == 16) caps_int16_ = true;
    if (width == 64) caps_int64_ = true;
    return types_[key] = id;
  }
  uint32_t bool_type() {
    auto key = std::make_tuple(uint32_t(1), uint32_t(0), uint32_t(0));
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    uint32_t id = new_id();
    emit(defs_, OpTypeBool, {id});
    return types_[key] = id;
  }
  Result<uint32_t> float_type(DType t) {
    auto key = std::make_tuple(uint32_t(2), uint32_t(t), uint32_t(0));
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    uint32_t id = new_id();
    switch (t) {
      case DType::Fp32: emit(defs_, OpTypeFloat, {id, 32}); break;
      case DType::Fp16: emit(defs_, OpTypeFloat, {id, 16}); caps_float16_ = true; break;
      case DType::Bf16: emit(defs_, OpTypeFloat, {id, 16, FPEncodingBFloat16KHR}); break;
      case DType::Fp8E4M3: emit(defs_, OpTypeFloat, {id, 8, FPEncodingFloat8E4M3EXT}); break;
      case DType::Fp8E5M2: emit(defs_, OpTypeFloat, {id, 8, FPEncodingFloat8E5M2EXT}); break;
      default: return make_error(Error::InvalidArgument, "SPIR-V writer: no float type for ", dtype_name(t));
    }
    return types_[key] = id;
  }
  Result<uint32_t> scalar_type(DType t) {
    switch (t) {
      case DType::Bool: return bool_type();
      case DType::Int4:
      case DType::Int8: return int_type(8);
      case DType::Int16: return int_type(16);
      case DType::Int32: return int_type(32);
      case DType::Int48: return int_type(64);
      default: return float_type(t);
    }
  }
  uint32_t uint_const(uint32_t v) { return int_const(32, v); }
  uint32_t int_const(uint32_t width, uint64_t bits) {
    if (width < 64) bits &= (uint64_t(1) << width) - 1;
    auto key = std::make_pair(width, bits);
    auto it = int_consts_.find(key);
    if (it != int_consts_.end()) return it->second;
    uint32_t type = int_type(width);
    uint32_t id = new_id();
    if (width == 64) {
      emit(defs_, OpConstant, {type, id, uint32_t(bits), uint32_t(bits >> 32)});
    } else {
      emit(defs_, OpConstant, {type, id, uint32_t(bits)});
    }
    return int_consts_[key] = id;
  }
  uint32_t bool_const(bool v) {
    uint32_t& slot = v ? true_id_ : false_id_;
    if (slot) return slot;
    uint32_t type = bool_type();
    slot = new_id();
    emit(defs_, v ? OpConstantTrue : OpConstantFalse, {type, slot});
    return slot;
  }
  // A bit pattern of element type `t` as a scalar constant.
  Result<uint32_t> scalar_const(DType t, uint64_t bits) {
    if (t == DType::Bool) return bool_const(bits != 0);
    if (!dtype_is_float(t)) return int_const(uint32_t(dtype_storage_bytes(t) == 8 ? 64 : dtype_storage_bytes(t) * 8), bits);
    auto key = std::make_pair(uint32_t(t) | 0x1000u, bits);
    auto it = int_consts_.find(key);
    if (it != int_consts_.end()) return it->second;
    VKRT_ASSIGN_OR_RETURN(uint32_t type, float_type(t));
    uint32_t id = new_id();
    emit(defs_, OpConstant, {type, id, uint32_t(bits)});
    return int_consts_[key] = id;
  }
  // OpTypeTensorARM: shaped when static, ranked-unshaped with dynamic dims, else unranked.
  Result<uint32_t> tensor_type(DType t, bool ranked, const std::vector<int64_t>& shape) {
    VKRT_ASSIGN_OR_RETURN(uint32_t elem, scalar_type(t));
    std::vector<uint32_t> key_ops = {elem, ranked ? 1u : 0u};
    bool shaped = ranked;
    for (int64_t d : shape) {
      if (d < 1 || d > 0x7FFFFFFF) shaped = false;
    }
    VKRT_CHECK_OR_RETURN(!ranked || !shape.empty(), InvalidArgument,
                         "SPIR-V writer: rank-0 tensors are not expressible (use shape [1])");
    std::vector<uint32_t> ops = {0, elem};
    if (ranked) {
      ops.push_back(uint_const(uint32_t(shape.size())));
      key_ops.push_back(uint32_t(shape.size()));
      if (shaped) {
        uint32_t arr = array_type(uint32_t(shape.size()));
        std::vector<uint32_t> comp = {arr, 0};
        for (int64_t d : shape) {
          comp.push_back(uint_const(uint32_t(d)));
          key_ops.push_back(uint32_t(d));
        }
        auto sit = shape_consts_.find(key_ops);
        uint32_t shape_id;
        if (sit != shape_consts_.end()) {
          shape_id = sit->second;
        } else {
          shape_id = new_id();
          comp[1] = shape_id;
          emit(defs_, OpConstantComposite, comp);
          shape_consts_[key_ops] = shape_id;
        }
        ops.push_back(shape_id);
      } else {
        key_ops.push_back(0xFFFFFFFFu);  // unshaped
      }
    }
    auto it = tensor_types_.find(key_ops);
    if (it != tensor_types_.end()) return it->second;
    uint32_t id = new_id();
    ops[0] = id;
    emit(defs_, OpTypeTensorARM, ops);
    return tensor_types_[key_ops] = id;
  }
  uint32_t array_type(uint32_t length) {
    auto key = std::make_tuple(uint32_t(3), length, uint32_t(0));
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    uint32_t elem = int_type(32);
    uint32_t len = uint_const(length);
    uint32_t id = new_id();
    emit(defs_, OpTypeArray, {id, elem, len});
    return types_[key] = id;
  }
  // A rank-1 tensor constant [values.size()] with `width`-bit integer elements.
  Result<uint32_t> int_tensor_const(uint32_t width, const std::vector<int64_t>& values) {
    DType t = width == 8 ? DType::Int8 : width == 16 ? DType::Int16 : width == 32 ? DType::Int32 : DType::Int48;
    VKRT_ASSIGN_OR_RETURN(uint32_t type, tensor_type(t, true, {int64_t(values.size())}));
    std::vector<uint32_t> ops = {type, 0};
    for (int64_t v : values) ops.push_back(int_const(width, uint64_t(v)));
    ops[1] = new_id();
    emit(defs_, OpConstantComposite, ops);
    return ops[1];
  }
  template <size_t N>
  Result<uint32_t> int_tensor_const(const std::array<int32_t, N>& a, size_t count = N) {
    return int_tensor_const(32, std::vector<int64_t>(a.begin(), a.begin() + long(count)));
  }
  // A [1] zero-point tensor of element type `t`.
  Result<uint32_t> zero_point(DType t, int64_t value) {
    VKRT_ASSIGN_OR_RETURN(uint32_t type, tensor_type(t, true, {1}));
    VKRT_ASSIGN_OR_RETURN(uint32_t v, scalar_const(t, uint64_t(value)));
    uint32_t id = new_id();
    emit(defs_, OpConstantComposite, {type, id, v});
    return id;
  }

  Result<uint32_t> tensor_value(TensorId t);
  Result<uint32_t> constant_tensor(TensorId t);
  Result<uint32_t> attribute_operand(const Op& op, std::string_view name);
  // One encoder per attribute struct: the constant for operand `name` of `op`.
  Result<uint32_t> encode(const Op& op, std::string_view name, const NoAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ArgmaxAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const PoolAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ConvAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const TransposeConvAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const MatmulAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const FftAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ClampAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ShiftAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const NanModeAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const MulAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const TableAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const NegateAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const AxisAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const PadAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ReshapeAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const SliceAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const TileAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const TransposeAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const ResizeAttr& a);
  Result<uint32_t> encode(const Op& op, std::string_view name, const RescaleAttr& a);
  DType input_dtype(const Op& op, size_t k) const { return g_.tensors[op.inputs[k]].dtype; }
  DType output_dtype(const Op& op) const { return g_.tensors[op.outputs[0]].dtype; }
  Result<uint32_t> fp32_or_int_const(DType t, double fp, int64_t integer);
  Status write_op(const Op& op);

  const Graph& g_;
  const SpirvWriteOptions& o_;
  uint32_t next_id_ = 1;
  uint32_t tosa_import_ = 0;
  std::vector<uint32_t> names_, decorations_, defs_, graph_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> types_;
  std::map<std::vector<uint32_t>, uint32_t> tensor_types_, shape_consts_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> int_consts_;
  uint32_t true_id_ = 0, false_id_ = 0;
  bool caps_int8_ = false, caps_int16_ = false, caps_int64_ = false, caps_float16_ = false;
  std::vector<uint32_t> value_ids_;  // per TensorId, 0 = not yet defined
  std::vector<TensorId> graph_constants_;
};

Result<uint32_t> Writer::constant_tensor(TensorId t) {
  const TensorInfo& info = g_.tensors[t];
  VKRT_ASSIGN_OR_RETURN(uint32_t type, tensor_type(info.dtype, true, info.shape));
  auto bytes = info.constant_bytes();
  uint32_t id = new_id();
  if (bytes.size() >= o_.graph_constant_min_bytes) {
    emit(defs_, OpGraphConstantARM, {type, id, uint32_t(graph_constants_.size())});
    graph_constants_.push_back(t);
  } else {
    size_t width = dtype_storage_bytes(info.dtype);
    std::vector<uint32_t> ops = {type, id};
    for (size_t i = 0; i + width <= bytes.size(); i += width) {
      uint64_t bits = 0;
      std::memcpy(&bits, bytes.data() + i, width);  // little-endian host
      VKRT_ASSIGN_OR_RETURN(uint32_t c, scalar_const(info.dtype, bits));
      ops.push_back(c);
    }
    emit(defs_, OpConstantComposite, ops);
  }
  value_ids_[t] = id;
  return id;
}

Result<uint32_t> Writer::tensor_value(TensorId t) {
  if (value_ids_[t] != 0) return value_ids_[t];
  VKRT_CHECK_OR_RETURN(g_.tensors[t].is_constant, InvalidArgument, "SPIR-V writer: tensor ", t,
                       " used before it is defined");
  return constant_tensor(t);
}

Result<uint32_t> Writer::attribute_operand(const Op& op, std::string_view name) {
  auto id = std::visit([&](const auto& a) { return encode(op, name, a); }, op.attr);
  if (id.ok() && *id == 0) {
    return make_error(Error::InvalidArgument, "SPIR-V writer: ", op_name(op.kind), " has no operand '",
                      std::string(name), "'");
  }
  return id;
}

// Encoders return id 0 for a name their struct does not carry (attribute_operand reports it).
Result<uint32_t> Writer::encode(const Op&, std::string_view, const NoAttr&) { return 0u; }

Result<uint32_t> Writer::encode(const Op&, std::string_view name, const ArgmaxAttr& a) {
  return name == "axis" ? uint_const(uint32_t(a.axis)) : uint_const(uint32_t(a.nan_mode));
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const PoolAttr& a) {
  if (name == "kernel") return int_tensor_const(a.kernel);
  if (name == "stride") return int_tensor_const(a.stride);
  if (name == "pad") return int_tensor_const(a.pad);
  if (name == "acc_type") return uint_const(uint32_t(a.acc_type));
  if (name == "nan_mode") return uint_const(uint32_t(a.nan_mode));
  if (name == "input_zp") return zero_point(input_dtype(op, 0), a.input_zp);
  if (name == "output_zp") return zero_point(output_dtype(op), a.output_zp);
  return 0u;
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const ConvAttr& a) {
  const size_t spatial = op.kind == OpKind::CONV3D ? 3 : 2;
  if (name == "pad") return int_tensor_const(a.pad, 2 * spatial);
  if (name == "stride") return int_tensor_const(a.stride, spatial);
  if (name == "dilation") return int_tensor_const(a.dilation, spatial);
  if (name == "acc_type") return uint_const(uint32_t(a.acc_type));
  if (name == "local_bound") return bool_const(a.local_bound);
  if (name == "input_zp") return zero_point(input_dtype(op, 0), a.input_zp);
  if (name == "weight_zp") return zero_point(input_dtype(op, 1), a.weight_zp);
  return 0u;
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const TransposeConvAttr& a) {
  if (name == "out_pad") return int_tensor_const(a.out_pad);
  if (name == "stride") return int_tensor_const(a.stride);
  if (name == "acc_type") return uint_const(uint32_t(a.acc_type));
  if (name == "local_bound") return bool_const(a.local_bound);
  if (name == "input_zp") return zero_point(input_dtype(op, 0), a.input_zp);
  if (name == "weight_zp") return zero_point(input_dtype(op, 1), a.weight_zp);
  return 0u;
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const MatmulAttr& a) {
  if (name == "A_zp") return zero_point(input_dtype(op, 0), a.a_zp);
  if (name == "B_zp") return zero_point(input_dtype(op, 1), a.b_zp);
  return 0u;
}

Result<uint32_t> Writer::encode(const Op&, std::string_view name, const FftAttr& a) {
  return bool_const(name == "inverse" ? a.inverse : a.local_bound);
}

// fp32 values as their bit pattern, integers in the type's width.
Result<uint32_t> Writer::fp32_or_int_const(DType t, double fp, int64_t integer) {
  if (t == DType::Fp32) {
    const float f = float(fp);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return scalar_const(t, bits);
  }
  return scalar_const(t, uint64_t(integer));
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const ClampAttr& a) {
  if (name == "nan_mode") return uint_const(uint32_t(a.nan_mode));
  const DType in = input_dtype(op, 0);
  VKRT_CHECK_OR_RETURN(in == DType::Fp32 || !dtype_is_float(in), InvalidArgument, "SPIR-V writer: CLAMP on ",
                       dtype_name(in));
  const bool lo = name == "min_val";
  return fp32_or_int_const(in, lo ? a.min_fp : a.max_fp, lo ? a.min_int : a.max_int);
}

Result<uint32_t> Writer::encode(const Op&, std::string_view, const ShiftAttr& a) { return bool_const(a.round); }

Result<uint32_t> Writer::encode(const Op&, std::string_view, const NanModeAttr& a) {
  return uint_const(uint32_t(a.nan_mode));
}

Result<uint32_t> Writer::encode(const Op&, std::string_view, const MulAttr& a) { return int_tensor_const(8, {a.shift}); }

Result<uint32_t> Writer::encode(const Op& op, std::string_view, const TableAttr& a) {
  return int_tensor_const(input_dtype(op, 0) == DType::Int8 ? 8 : 16, std::vector<int64_t>(a.table.begin(), a.table.end()));
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const NegateAttr& a) {
  if (name == "input1_zp") return zero_point(input_dtype(op, 0), a.input_zp);
  return zero_point(output_dtype(op), a.output_zp);
}

Result<uint32_t> Writer::encode(const Op&, std::string_view name, const AxisAttr& a) {
  return name == "axis" ? uint_const(uint32_t(a.axis)) : uint_const(uint32_t(a.nan_mode));
}

// pad_const is a one-element tensor of the input type (fp32 bits for float inputs).
Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const PadAttr& a) {
  if (name == "padding") return int_tensor_const(32, a.padding);
  const DType in = input_dtype(op, 0);
  if (in == DType::Fp32) {
    const float f = float(a.pad_const_fp);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return zero_point(in, bits);
  }
  return zero_point(in, a.pad_const_int);
}

Result<uint32_t> Writer::encode(const Op&, std::string_view, const ReshapeAttr& a) { return int_tensor_const(32, a.shape); }

Result<uint32_t> Writer::encode(const Op&, std::string_view name, const SliceAttr& a) {
  return int_tensor_const(32, name == "start" ? a.start : a.size);
}

Result<uint32_t> Writer::encode(const Op&, std::string_view, const TileAttr& a) { return int_tensor_const(32, a.multiples); }

Result<uint32_t> Writer::encode(const Op&, std::string_view, const TransposeAttr& a) {
  return int_tensor_const(32, std::vector<int64_t>(a.perms.begin(), a.perms.end()));
}

Result<uint32_t> Writer::encode(const Op&, std::string_view name, const ResizeAttr& a) {
  if (name == "mode") return uint_const(uint32_t(a.mode));
  if (name == "scale") return int_tensor_const(a.scale);
  if (name == "offset") return int_tensor_const(a.offset);
  if (name == "border") return int_tensor_const(a.border);
  return 0u;
}

Result<uint32_t> Writer::encode(const Op& op, std::string_view name, const RescaleAttr& a) {
  if (name == "scale32") return bool_const(a.scale32);
  if (name == "rounding_mode") return uint_const(uint32_t(a.rounding_mode));
  if (name == "per_channel") return bool_const(a.per_channel);
  if (name == "input_unsigned") return bool_const(a.input_unsigned);
  if (name == "output_unsigned") return bool_const(a.output_unsigned);
  if (name == "multiplier")
    return int_tensor_const(a.scale32 ? 32 : 16, std::vector<int64_t>(a.multiplier.begin(), a.multiplier.end()));
  if (name == "shift") return int_tensor_const(8, std::vector<int64_t>(a.shift.begin(), a.shift.end()));
  if (name == "input_zp") return zero_point(input_dtype(op, 0), a.input_zp);
  if (name == "output_zp") return zero_point(output_dtype(op), a.output_zp);
  return 0u;
}

Status Writer::write_op(const Op& op) {
  std::vector<uint32_t> operands;
  const OpDescriptor& descriptor = op_descriptor(op.kind);
  for (std::string_view name : descriptor.spirv_operands) {
    if (descriptor.variadic && name == descriptor.tensor_inputs.front()) {  // CONCAT: every input
      for (TensorId t : op.inputs) {
        VKRT_ASSIGN_OR_RETURN(uint32_t v, tensor_value(t));
        operands.push_back(v);
      }
      continue;
    }
    const auto& tensors = descriptor.tensor_inputs;
    const size_t input_index = size_t(std::find(tensors.begin(), tensors.end(), name) - tensors.begin());
    if (input_index < tensors.size()) {
      VKRT_CHECK_OR_RETURN(input_index < op.inputs.size(), InvalidArgument, "SPIR-V writer: ", op_name(op.kind),
                           " lacks input ", input_index);
      VKRT_ASSIGN_OR_RETURN(uint32_t v, tensor_value(op.inputs[input_index]));
      operands.push_back(v);
    } else {
      VKRT_ASSIGN_OR_RETURN(uint32_t v, attribute_operand(op, name));
      operands.push_back(v);
    }
  }
  std::vector<uint32_t> result_types;
  for (TensorId t : op.outputs) {
    const TensorInfo& info = g_.tensors[t];
    VKRT_ASSIGN_OR_RETURN(uint32_t type, tensor_type(info.dtype, info.ranked, info.shape));
    result_types.push_back(type);
  }
  uint32_t result_type = result_types[0];
  if (result_types.size() > 1) {
    result_type = new_id();
    std::vector<uint32_t> ops = {result_type};
    ops.insert(ops.end(), result_types.begin(), result_types.end());
    emit(defs_, OpTypeStruct, ops);
  }
  uint32_t result = new_id();
  std::vector<uint32_t> inst = {result_type, result, tosa_import_, uint32_t(op.kind)};
  inst.insert(inst.end(), operands.begin(), operands.end());
  emit(graph_, OpExtInst, inst);
  if (!op.debug_name.empty()) {
    std::vector<uint32_t> name = {result};
    append_string(name, op.debug_name);
    emit(names_, OpName, name);
  }
  if (op.outputs.size() == 1) {
    value_ids_[op.outputs[0]] = result;
  } else {
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      uint32_t member = new_id();
      emit(graph_, OpCompositeExtract, {result_types[k], member, result, uint32_t(k)});
      value_ids_[op.outputs[k]] = member;
    }
  }
  return Status::ok();
}

Result<SpirvWriteResult> Writer::write() {
  Status valid = validate_graph(g_);
  if (!valid.is_ok()) return make_error(Error::InvalidArgument, "SPIR-V writer: ", valid.message());
  value_ids_.assign(g_.tensors.size(), 0);
  tosa_import_ = new_id();
  // Interface: one UniformConstant variable per graph input/output (inputs first).
  std::vector<uint32_t> interface, graph_type_ops;
  std::vector<uint32_t> io_types;
  auto declare_io = [&](const GraphIO& io) -> Status {
    const TensorInfo& info = g_.tensors[io.tensor];
    VKRT_ASSIGN_OR_RETURN(uint32_t type, tensor_type(info.dtype, info.ranked, info.shape));
    uint32_t ptr = new_id();
    emit(defs_, OpTypePointer, {ptr, StorageClassUniformConstant, type});
    uint32_t var = new_id();
    emit(defs_, OpVariable, {ptr, var, StorageClassUniformConstant});
    emit(decorations_, OpDecorate, {var, DecorationBinding, io.binding});
    emit(decorations_, OpDecorate, {var, DecorationDescriptorSet, 0});
    if (!io.name.empty()) {
      std::vector<uint32_t> name = {var};
      append_string(name, io.name);
      emit(names_, OpName, name);
    }
    interface.push_back(var);
    io_types.push_back(type);
    return Status::ok();
  };
  for (const GraphIO& io : g_.inputs) VKRT_RETURN_IF_ERROR(declare_io(io));
  for (const GraphIO& io : g_.outputs) VKRT_RETURN_IF_ERROR(declare_io(io));
  uint32_t graph_type = new_id();
  graph_type_ops = {graph_type, uint32_t(g_.inputs.size())};
  graph_type_ops.insert(graph_type_ops.end(), io_types.begin(), io_types.end());
  emit(defs_, OpTypeGraphARM, graph_type_ops);

  uint32_t graph_id = new_id();
  std::string entry = !o_.entry_point.empty() ? o_.entry_point : !g_.name.empty() ? g_.name : "graph_partition_0";
  std::vector<uint32_t> ep = {graph_id};
  append_string(ep, entry);
  ep.insert(ep.end(), interface.begin(), interface.end());
  emit(graph_, OpGraphEntryPointARM, ep);
  emit(graph_, OpGraphARM, {graph_type, graph_id});
  for (size_t i = 0; i < g_.inputs.size(); ++i) {
    uint32_t id = new_id();
    emit(graph_, OpGraphInputARM, {io_types[i], id, uint_const(uint32_t(i))});
    value_ids_[g_.inputs[i].tensor] = id;
  }
  for (const Op& op : g_.ops) VKRT_RETURN_IF_ERROR(write_op(op));
  for (size_t j = 0; j < g_.outputs.size(); ++j) {
    VKRT_ASSIGN_OR_RETURN(uint32_t v, tensor_value(g_.outputs[j].tensor));
    emit(graph_, OpGraphSetOutputARM, {v, uint_const(uint32_t(j))});
  }
  emit(graph_, OpGraphEndARM, {});

  SpirvWriteResult result;
  std::vector<uint32_t>& w = result.words;
  w = {kMagic, 0x00010500u /* SPIR-V 1.5, as the converter writes */, 0, next_id_, 0};
  std::vector<uint32_t> caps = {CapabilityShader, CapabilityVulkanMemoryModel, CapabilityTensorsARM,
                                CapabilityGraphARM};
  if (caps_int8_) caps.push_back(CapabilityInt8);
  if (caps_int16_) caps.push_back(CapabilityInt16);
  if (caps_int64_) caps.push_back(CapabilityInt64);
  if (caps_float16_) caps.push_back(CapabilityFloat16);
  for (uint32_t c : caps) emit(w, OpCapability, {c});
  for (const char* ext : {"SPV_ARM_tensors", "SPV_ARM_graph", "SPV_KHR_vulkan_memory_model"}) {
    std::vector<uint32_t> ops;
    append_string(ops, ext);
    emit(w, OpExtension, ops);
  }
  std::vector<uint32_t> import = {tosa_import_};
  append_string(import, kTosaImportName);
  emit(w, OpExtInstImport, import);
  emit(w, OpMemoryModel, {kAddressingLogical, kMemoryModelVulkan});
  for (auto* sec : {&names_, &decorations_, &defs_, &graph_}) w.insert(w.end(), sec->begin(), sec->end());
  w[3] = next_id_;  // bound
  result.graph_constants = graph_constants_;
  return result;
}

}  // namespace

Result<SpirvWriteResult> write_spirv_graph(const Graph& graph, const SpirvWriteOptions& options) {
  Writer w(graph, options);
  return w.write();
}

}  // namespace vkrt::vgf::spirv
