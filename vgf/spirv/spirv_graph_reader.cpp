// SPIR-V graph -> IR (vgf-format.md §6.2-§6.4).
#include "vgf/spirv/spirv_graph_reader.h"

#include <cstring>
#include <unordered_map>

#include "vgf/ir/op_descriptor.h"
#include "vgf/spirv/spirv_defs.h"
#include "vkrt/tensor.h"
#include "vgf/spirv/spirv_module.h"
#include "vgf/spirv/tosa_operands.h"

namespace vkrt::vgf::spirv {
namespace {

class GraphBuilder {
 public:
  GraphBuilder(const Module& m, const SpirvReadOptions& o) : m_(m), options_(o) {}

  Result<Graph> build();

 private:
  struct EntryPoint {
    uint32_t graph_id = 0;
    std::string name;
    std::vector<uint32_t> interface;
  };

  template <typename... Parts>
  Status fail(const Instruction& inst, const Parts&... parts) const {
    return make_error(Error::InvalidProgram, "SPIR-V word ", inst.word_offset, ": ", parts...);
  }

  Result<TensorId> value(uint32_t id, const Instruction& inst);
  Result<TensorId> constant_tensor(uint32_t id);
  Status read_graph_input(const Instruction& inst, uint32_t num_inputs);
  Status read_set_output(const Instruction& inst, size_t num_outputs);
  Status read_ext_inst(const Instruction& inst);
  Status read_composite_extract(const Instruction& inst);

  const Module& m_;
  const SpirvReadOptions& options_;
  Graph g_;
  EntryPoint entry_;
  std::unordered_map<uint32_t, TensorId> values_;                 // graph values
  std::unordered_map<uint32_t, std::vector<TensorId>> multi_;      // struct results
  std::unordered_map<uint32_t, TensorId> constant_tensors_;        // constants used as tensors
  std::vector<bool> input_set_, output_set_;
};

// Decodes one TOSA op's operands (attribute constants -> typed attrs, tensors -> ids).
class OpDecoder {
 public:
  OpDecoder(const Module& m, OpKind kind, std::span<const uint32_t> operands, DType input_dtype)
      : m_(m), kind_(kind), operands_(operands), input_dtype_(input_dtype) {}

  OpKind kind() const { return kind_; }
  DType input_dtype() const { return input_dtype_; }  // the op's first tensor input
  bool has(std::string_view name) const { return tosa_operand_index(kind_, name) >= 0; }

  uint32_t id(std::string_view name) const {
    int i = tosa_operand_index(kind_, name);
    return (i >= 0 && size_t(i) < operands_.size()) ? operands_[size_t(i)] : kNoId;
  }
  Result<FlatConstant> flat(std::string_view name) const {
    auto r = m_.flatten(id(name));
    if (!r.ok()) return Status(r.status()).with_context(std::string(op_name(kind_)) + " " + std::string(name));
    return r;
  }
  Result<int64_t> scalar(std::string_view name) const {
    VKRT_ASSIGN_OR_RETURN(FlatConstant f, flat(name));
    VKRT_CHECK_OR_RETURN(f.raw.size() == 1, InvalidProgram, op_name(kind_), " ", std::string(name),
                         ": expected one value, got ", f.raw.size());
    return f.sign_extended(0);
  }
  Result<bool> boolean(std::string_view name) const {
    VKRT_ASSIGN_OR_RETURN(int64_t v, scalar(name));
    return v != 0;
  }
  Result<std::vector<int64_t>> ints(std::string_view name, size_t expected = 0) const {
    VKRT_ASSIGN_OR_RETURN(FlatConstant f, flat(name));
    VKRT_CHECK_OR_RETURN(expected == 0 || f.raw.size() == expected, InvalidProgram, op_name(kind_),
                         " ", std::string(name), ": expected ", expected, " values, got ", f.raw.size());
    std::vector<int64_t> out(f.raw.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = f.sign_extended(i);
    return out;
  }
  template <size_t N>
  Status array(std::string_view name, std::array<int32_t, N>& out, size_t count = N) const {
    VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> v, ints(name, count));
    for (size_t i = 0; i < count; ++i) {
      VKRT_CHECK_OR_RETURN(v[i] >= INT32_MIN && v[i] <= INT32_MAX, InvalidProgram, op_name(kind_),
                           " ", std::string(name), ": value out of range");
      out[i] = int32_t(v[i]);
    }
    return Status::ok();
  }
  // A zero point: tensor [1]; sign-extended (or zero-extended for RESCALE unsigned flags).
  Result<int32_t> zero_point(std::string_view name, bool zero_extend = false) const {
    VKRT_ASSIGN_OR_RETURN(FlatConstant f, flat(name));
    VKRT_CHECK_OR_RETURN(f.raw.size() == 1, InvalidProgram, op_name(kind_), " ", std::string(name),
                         ": zero point must have one element, has ", f.raw.size());
    int64_t v = zero_extend ? f.zero_extended(0) : f.sign_extended(0);
    VKRT_CHECK_OR_RETURN(v >= INT32_MIN && v <= INT32_MAX, InvalidProgram, op_name(kind_), " ",
                         std::string(name), ": zero point out of range");
    return int32_t(v);
  }
  template <typename Enum>
  Result<Enum> enumeration(std::string_view name, int64_t lo, int64_t hi) const {
    VKRT_ASSIGN_OR_RETURN(int64_t v, scalar(name));
    VKRT_CHECK_OR_RETURN(v >= lo && v <= hi, InvalidProgram, op_name(kind_), " ", std::string(name),
                         ": invalid value ", v);
    return Enum(v);
  }

 private:
  const Module& m_;
  OpKind kind_;
  std::span<const uint32_t> operands_;
  DType input_dtype_;
};

// One decoder per attribute struct. The op's SPIR-V operand list (its descriptor) says which of
// the struct's fields it carries (AVG_POOL2D has zero points, MAX_POOL2D a nan_mode, ...).
Status decode(const OpDecoder&, NoAttr&) { return Status::ok(); }

Status decode(const OpDecoder& d, ArgmaxAttr& a) {
  VKRT_ASSIGN_OR_RETURN(int64_t axis, d.scalar("axis"));
  a.axis = int32_t(axis);
  VKRT_ASSIGN_OR_RETURN(a.nan_mode, d.enumeration<NanMode>("nan_mode", 1, 2));
  return Status::ok();
}

Status decode(const OpDecoder& d, PoolAttr& a) {
  VKRT_RETURN_IF_ERROR(d.array("kernel", a.kernel));
  VKRT_RETURN_IF_ERROR(d.array("stride", a.stride));
  VKRT_RETURN_IF_ERROR(d.array("pad", a.pad));
  if (d.has("acc_type")) {
    VKRT_ASSIGN_OR_RETURN(a.acc_type, d.enumeration<AccType>("acc_type", 1, 4));
    VKRT_ASSIGN_OR_RETURN(a.input_zp, d.zero_point("input_zp"));
    VKRT_ASSIGN_OR_RETURN(a.output_zp, d.zero_point("output_zp"));
  }
  if (d.has("nan_mode")) {
    VKRT_ASSIGN_OR_RETURN(a.nan_mode, d.enumeration<NanMode>("nan_mode", 1, 2));
  }
  return Status::ok();
}

Status decode(const OpDecoder& d, ConvAttr& a) {
  const size_t spatial = d.kind() == OpKind::CONV3D ? 3 : 2;
  VKRT_RETURN_IF_ERROR(d.array("pad", a.pad, 2 * spatial));
  VKRT_RETURN_IF_ERROR(d.array("stride", a.stride, spatial));
  VKRT_RETURN_IF_ERROR(d.array("dilation", a.dilation, spatial));
  VKRT_ASSIGN_OR_RETURN(a.acc_type, d.enumeration<AccType>("acc_type", 1, 4));
  VKRT_ASSIGN_OR_RETURN(a.local_bound, d.boolean("local_bound"));
  VKRT_ASSIGN_OR_RETURN(a.input_zp, d.zero_point("input_zp"));
  VKRT_ASSIGN_OR_RETURN(a.weight_zp, d.zero_point("weight_zp"));
  return Status::ok();
}

Status decode(const OpDecoder& d, TransposeConvAttr& a) {
  VKRT_RETURN_IF_ERROR(d.array("out_pad", a.out_pad));
  VKRT_RETURN_IF_ERROR(d.array("stride", a.stride));
  VKRT_ASSIGN_OR_RETURN(a.acc_type, d.enumeration<AccType>("acc_type", 1, 4));
  VKRT_ASSIGN_OR_RETURN(a.local_bound, d.boolean("local_bound"));
  VKRT_ASSIGN_OR_RETURN(a.input_zp, d.zero_point("input_zp"));
  VKRT_ASSIGN_OR_RETURN(a.weight_zp, d.zero_point("weight_zp"));
  return Status::ok();
}

Status decode(const OpDecoder& d, MatmulAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.a_zp, d.zero_point("A_zp"));
  VKRT_ASSIGN_OR_RETURN(a.b_zp, d.zero_point("B_zp"));
  return Status::ok();
}

Status decode(const OpDecoder& d, FftAttr& a) {
  if (d.has("inverse")) {
    VKRT_ASSIGN_OR_RETURN(a.inverse, d.boolean("inverse"));
  }
  VKRT_ASSIGN_OR_RETURN(a.local_bound, d.boolean("local_bound"));
  return Status::ok();
}

// The bounds are in the input's type: integer inputs use the sign-extended values.
Status decode(const OpDecoder& d, ClampAttr& a) {
  VKRT_ASSIGN_OR_RETURN(FlatConstant lo, d.flat("min_val"));
  VKRT_ASSIGN_OR_RETURN(FlatConstant hi, d.flat("max_val"));
  VKRT_CHECK_OR_RETURN(lo.raw.size() == 1 && hi.raw.size() == 1, InvalidProgram, "CLAMP: min_val/max_val must be scalars");
  a.min_int = lo.sign_extended(0);
  a.max_int = hi.sign_extended(0);
  a.min_fp = lo.as_double(0);
  a.max_fp = hi.as_double(0);
  if (!dtype_is_float(d.input_dtype())) {
    a.min_fp = double(a.min_int);
    a.max_fp = double(a.max_int);
  }
  VKRT_ASSIGN_OR_RETURN(a.nan_mode, d.enumeration<NanMode>("nan_mode", 1, 2));
  return Status::ok();
}

Status decode(const OpDecoder& d, ShiftAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.round, d.boolean("round"));
  return Status::ok();
}

Status decode(const OpDecoder& d, NanModeAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.nan_mode, d.enumeration<NanMode>("nan_mode", 1, 2));
  return Status::ok();
}

Status decode(const OpDecoder& d, MulAttr& a) {
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> shift, d.ints("shift", 1));
  VKRT_CHECK_OR_RETURN(shift[0] >= INT32_MIN && shift[0] <= INT32_MAX, InvalidProgram, "MUL: shift ", shift[0],
                       " out of range");
  a.shift = int32_t(shift[0]);  // its TOSA range (0..63, int32 only) is the descriptor's rule
  return Status::ok();
}

Status decode(const OpDecoder& d, TableAttr& a) {
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> t, d.ints("table"));
  VKRT_CHECK_OR_RETURN(t.size() == 256 || t.size() == 513, InvalidProgram, "TABLE: table has ", t.size(),
                       " entries (expected 256 or 513)");
  for (int64_t v : t) a.table.push_back(int16_t(v));
  return Status::ok();
}

Status decode(const OpDecoder& d, NegateAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.input_zp, d.zero_point("input1_zp"));
  VKRT_ASSIGN_OR_RETURN(a.output_zp, d.zero_point("output_zp"));
  return Status::ok();
}

Status decode(const OpDecoder& d, AxisAttr& a) {
  VKRT_ASSIGN_OR_RETURN(int64_t axis, d.scalar("axis"));
  VKRT_CHECK_OR_RETURN(axis >= 0 && axis < kMaxRank, InvalidProgram, op_name(d.kind()), ": axis ", axis,
                       " out of range");
  a.axis = int32_t(axis);
  if (d.has("nan_mode")) {
    VKRT_ASSIGN_OR_RETURN(a.nan_mode, d.enumeration<NanMode>("nan_mode", 1, 2));
  }
  return Status::ok();
}

Status decode(const OpDecoder& d, PadAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.padding, d.ints("padding"));
  VKRT_ASSIGN_OR_RETURN(FlatConstant c, d.flat("pad_const"));
  VKRT_CHECK_OR_RETURN(c.raw.size() == 1, InvalidProgram, "PAD: pad_const must have one element");
  a.pad_const_int = c.sign_extended(0);
  a.pad_const_fp = c.as_double(0);
  return Status::ok();
}

Status decode(const OpDecoder& d, ReshapeAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.shape, d.ints("shape"));
  return Status::ok();
}

Status decode(const OpDecoder& d, SliceAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.start, d.ints("start"));
  VKRT_ASSIGN_OR_RETURN(a.size, d.ints("size"));
  return Status::ok();
}

Status decode(const OpDecoder& d, TileAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.multiples, d.ints("multiples"));
  return Status::ok();
}

Status decode(const OpDecoder& d, TransposeAttr& a) {
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> p, d.ints("perms"));
  for (int64_t v : p) a.perms.push_back(int32_t(v));
  return Status::ok();
}

Status decode(const OpDecoder& d, ResizeAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.mode, d.enumeration<ResizeMode>("mode", 1, 2));
  VKRT_RETURN_IF_ERROR(d.array("scale", a.scale));
  VKRT_RETURN_IF_ERROR(d.array("offset", a.offset));
  return d.array("border", a.border);
}

Status decode(const OpDecoder& d, RescaleAttr& a) {
  VKRT_ASSIGN_OR_RETURN(a.scale32, d.boolean("scale32"));
  VKRT_ASSIGN_OR_RETURN(a.rounding_mode, d.enumeration<RoundingMode>("rounding_mode", 1, 3));
  VKRT_ASSIGN_OR_RETURN(a.per_channel, d.boolean("per_channel"));
  VKRT_ASSIGN_OR_RETURN(a.input_unsigned, d.boolean("input_unsigned"));
  VKRT_ASSIGN_OR_RETURN(a.output_unsigned, d.boolean("output_unsigned"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> mult, d.ints("multiplier"));
  VKRT_ASSIGN_OR_RETURN(std::vector<int64_t> shift, d.ints("shift"));
  VKRT_CHECK_OR_RETURN(mult.size() == shift.size() && !mult.empty(), InvalidProgram, "RESCALE: multiplier has ",
                       mult.size(), " values, shift ", shift.size());
  for (int64_t v : mult) a.multiplier.push_back(int32_t(v));
  for (int64_t v : shift) a.shift.push_back(int8_t(v));
  VKRT_ASSIGN_OR_RETURN(a.input_zp, d.zero_point("input_zp", a.input_unsigned));
  VKRT_ASSIGN_OR_RETURN(a.output_zp, d.zero_point("output_zp", a.output_unsigned));
  return Status::ok();
}

Result<OpAttributes> decode_attributes(const Module& m, OpKind kind, std::span<const uint32_t> operands,
                                       DType input_dtype) {
  const OpDecoder d(m, kind, operands, input_dtype);
  OpAttributes attr = default_attributes(kind);
  VKRT_RETURN_IF_ERROR(std::visit([&](auto& a) { return decode(d, a); }, attr));
  return attr;
}

Result<TensorId> GraphBuilder::constant_tensor(uint32_t id) {
  auto it = constant_tensors_.find(id);
  if (it != constant_tensors_.end()) return it->second;
  const ConstInfo& c = m_.constants.at(id);
  TensorInfo t;
  t.name = m_.debug_name(id);
  t.is_constant = true;
  VKRT_RETURN_IF_ERROR(m_.tensor_type_info(c.type, t));
  VKRT_CHECK_OR_RETURN(t.is_static(), InvalidProgram, "SPIR-V: constant tensor ", t.name,
                       " has no static shape");
  const size_t width = dtype_storage_bytes(t.dtype);
  const size_t count = size_t(t.element_count());
  if (c.kind == ConstKind::GraphConstant) {
    VKRT_CHECK_OR_RETURN(options_.resolve_graph_constant != nullptr, NotFound,
                         "SPIR-V: graph constant ", c.graph_constant_id,
                         " used but no constant section is available");
    VKRT_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, options_.resolve_graph_constant(c.graph_constant_id));
    VKRT_CHECK_OR_RETURN(bytes.size() == count * width, InvalidProgram, "graph constant ",
                         c.graph_constant_id, " (", t.name, "): ", bytes.size(),
                         " bytes, its type ", dtype_name(t.dtype), " needs ", count * width);
    if (reinterpret_cast<uintptr_t>(bytes.data()) % (width ? width : 1) == 0) {
      t.external = bytes;  // zero copy
    } else {
      t.owned.assign(bytes.begin(), bytes.end());  // misaligned (4-aligned 0.4.0 sections)
    }
  } else {
    VKRT_ASSIGN_OR_RETURN(FlatConstant f, m_.flatten(id));
    VKRT_CHECK_OR_RETURN(f.raw.size() == count, InvalidProgram, "constant ", t.name, ": ",
                         f.raw.size(), " elements, type needs ", count);
    t.owned.resize(count * width);
    for (size_t i = 0; i < count; ++i) {
      // Elements narrower than their storage (i48 in 64 bits) are sign-extended (§6.3).
      int64_t v = (t.dtype == DType::Int48) ? f.sign_extended(i) : int64_t(f.raw[i]);
      std::memcpy(t.owned.data() + i * width, &v, width);  // little-endian host
    }
  }
  TensorId tid = g_.add_tensor(std::move(t));
  constant_tensors_[id] = tid;
  return tid;
}

Result<TensorId> GraphBuilder::value(uint32_t id, const Instruction& inst) {
  auto it = values_.find(id);
  if (it != values_.end()) return it->second;
  if (m_.constants.count(id)) return constant_tensor(id);
  return fail(inst, "%", id, " is not a graph value or constant defined before its use");
}

Status GraphBuilder::read_graph_input(const Instruction& inst, uint32_t num_inputs) {
  auto ops = inst.operands;
  if (ops.size() < 3) return fail(inst, "OpGraphInputARM needs 3 operands");
  if (ops.size() > 3) return make_error(Error::NotSupported, "SPIR-V word ", inst.word_offset, ": arrays of graph inputs (ElementIndex) are not supported");
  VKRT_ASSIGN_OR_RETURN(int64_t index, m_.scalar_int(ops[2], "InputIndex"));
  if (index < 0 || index >= int64_t(num_inputs)) return fail(inst, "InputIndex ", index, " out of range");
  if (input_set_[size_t(index)]) return fail(inst, "graph input ", index, " defined twice");
  if (values_.count(ops[1])) return fail(inst, "result %", ops[1], " defined twice");
  TensorInfo t;
  t.name = m_.debug_name(ops[1]);
  VKRT_RETURN_IF_ERROR(m_.tensor_type_info(ops[0], t));
  uint32_t var = entry_.interface[size_t(index)];
  GraphIO& io = g_.inputs[size_t(index)];
  io.tensor = g_.add_tensor(std::move(t));
  io.name = m_.debug_name(var);
  io.binding = m_.bindings.count(var) ? m_.bindings.at(var) : uint32_t(index);
  values_[ops[1]] = io.tensor;
  input_set_[size_t(index)] = true;
  return Status::ok();
}

Status GraphBuilder::read_set_output(const Instruction& inst, size_t num_outputs) {
  auto ops = inst.operands;
  if (ops.size() < 2) return fail(inst, "OpGraphSetOutputARM needs 2 operands");
  if (ops.size() > 2) return make_error(Error::NotSupported, "SPIR-V word ", inst.word_offset, ": arrays of graph outputs are not supported");
  VKRT_ASSIGN_OR_RETURN(int64_t index, m_.scalar_int(ops[1], "OutputIndex"));
  if (index < 0 || index >= int64_t(num_outputs)) return fail(inst, "OutputIndex ", index, " out of range");
  if (output_set_[size_t(index)]) return fail(inst, "graph output ", index, " set twice");
  VKRT_ASSIGN_OR_RETURN(TensorId t, value(ops[0], inst));
  uint32_t var = entry_.interface[g_.inputs.size() + size_t(index)];
  GraphIO& io = g_.outputs[size_t(index)];
  io.tensor = t;
  io.name = m_.debug_name(var);
  io.binding = m_.bindings.count(var) ? m_.bindings.at(var) : uint32_t(g_.inputs.size() + size_t(index));
  output_set_[size_t(index)] = true;
  return Status::ok();
}

Status GraphBuilder::read_ext_inst(const Instruction& inst) {
  auto ops = inst.operands;
  if (ops.size() < 4) return fail(inst, "OpExtInst needs 4 operands");
  auto imp = m_.imports.find(ops[2]);
  if (imp == m_.imports.end()) return fail(inst, "OpExtInst set %", ops[2], " is not an import");
  if (imp->second != kTosaImportName) {
    return make_error(Error::NotSupported, "SPIR-V word ", inst.word_offset,
                      ": extended instruction set '", imp->second, "' is not supported");
  }
  if (!is_valid_op_kind(ops[3])) return fail(inst, "unknown TOSA instruction ", ops[3]);
  const OpKind kind = OpKind(ops[3]);
  const auto operands = ops.subspan(4);
  const size_t want = tosa_operand_names(kind).size();
  if (tosa_operands_variadic(kind) ? operands.size() < want : operands.size() != want) {
    return fail(inst, op_name(kind), " has ", operands.size(), " operands, expected ", want);
  }
  if (values_.count(ops[1]) || multi_.count(ops[1])) return fail(inst, "result %", ops[1], " defined twice");
  Op op;
  op.kind = kind;
  op.debug_name = m_.debug_name(ops[1]);
  if (kind == OpKind::CONCAT) {
    for (size_t i = 1; i < operands.size(); ++i) {
      VKRT_ASSIGN_OR_RETURN(TensorId t, value(operands[i], inst));
      op.inputs.push_back(t);
    }
  } else {
    for (std::string_view name : tosa_tensor_operand_names(kind)) {
      int idx = tosa_operand_index(kind, name);
      if (idx < 0) return make_error(Error::Internal, "operand table lacks ", std::string(name));
      VKRT_ASSIGN_OR_RETURN(TensorId t, value(operands[size_t(idx)], inst));
      op.inputs.push_back(t);
    }
  }
  DType in_dtype = g_.tensors[op.inputs[0]].dtype;
  auto attr = decode_attributes(m_, kind, operands, in_dtype);
  if (!attr.ok()) {
    return make_error(attr.status().code(), "SPIR-V word ", inst.word_offset, " (",
                      op.debug_name, "): ", attr.status().message());
  }
  op.attr = std::move(attr).value();
  // Result: a tensor type, or a struct of tensors for multi-output ops (taken apart by
  // OpCompositeExtract).
  auto rt = m_.types.find(ops[0]);
  if (rt == m_.types.end()) return fail(inst, "result type %", ops[0], " undefined");
  std::vector<uint32_t> result_types;
  if (rt->second.kind == TypeKind::Struct) {
    result_types = rt->second.members;
  } else {
    result_types = {ops[0]};
  }
  if (result_types.size() != size_t(expected_output_count(kind))) {
    return fail(inst, op_name(kind), " result has ", result_types.size(), " members, expected ",
                expected_output_count(kind));
  }
  for (size_t k = 0; k < result_types.size(); ++k) {
    TensorInfo t;
    t.name = op.debug_name + (result_types.size() > 1 ? "." + std::to_string(k) : "");
    VKRT_RETURN_IF_ERROR(m_.tensor_type_info(result_types[k], t));
    op.outputs.push_back(g_.add_tensor(std::move(t)));
  }
  if (rt->second.kind == TypeKind::Struct) {
    multi_[ops[1]] = op.outputs;
  } else {
    values_[ops[1]] = op.outputs[0];
  }
  g_.ops.push_back(std::move(op));
  return Status::ok();
}

Status GraphBuilder::read_composite_extract(const Instruction& inst) {
  auto ops = inst.operands;
  if (ops.size() != 4) return fail(inst, "OpCompositeExtract in a graph needs one index");
  auto it = multi_.find(ops[2]);
  if (it == multi_.end()) return fail(inst, "OpCompositeExtract of %", ops[2], ", not a multi-result op");
  if (ops[3] >= it->second.size()) return fail(inst, "OpCompositeExtract index ", ops[3], " out of range");
  if (values_.count(ops[1])) return fail(inst, "result %", ops[1], " defined twice");
  values_[ops[1]] = it->second[ops[3]];
  return Status::ok();
}

Result<Graph> GraphBuilder::build() {
  // Entry points come before the graphs they name (a forward reference, §6.2): find ours first.
  bool found = false;
  for (const Instruction& inst : m_.instructions) {
    if (inst.opcode != OpGraphEntryPointARM) continue;
    if (inst.operands.size() < 2) return fail(inst, "OpGraphEntryPointARM needs 2 operands");
    EntryPoint e;
    e.graph_id = inst.operands[0];
    size_t i = 1;
    VKRT_ASSIGN_OR_RETURN(e.name, read_literal_string(inst.operands, i));
    e.interface.assign(inst.operands.begin() + long(i), inst.operands.end());
    if (options_.entry_point.empty() || options_.entry_point == e.name) {
      entry_ = std::move(e);
      found = true;
      break;
    }
  }
  if (!found) {
    return make_error(Error::NotFound, "SPIR-V: no graph entry point named '",
                      std::string(options_.entry_point), "'");
  }
  g_.name = entry_.name;
  bool in_graph = false, ended = false;
  uint32_t num_inputs = 0;
  size_t num_outputs = 0;
  for (const Instruction& inst : m_.instructions) {
    if (!in_graph) {
      if (inst.opcode == OpGraphARM && inst.operands.size() >= 2 && inst.operands[1] == entry_.graph_id) {
        VKRT_ASSIGN_OR_RETURN(const TypeInfo* gt, m_.type(inst.operands[0], TypeKind::Graph, "OpGraphARM type"));
        num_inputs = gt->num_inputs;
        num_outputs = gt->members.size() - num_inputs;
        if (entry_.interface.size() != gt->members.size()) {
          return fail(inst, "entry point has ", entry_.interface.size(), " interface ids, graph type has ",
                      gt->members.size(), " inputs and outputs");
        }
        g_.inputs.resize(num_inputs);
        g_.outputs.resize(num_outputs);
        input_set_.assign(num_inputs, false);
        output_set_.assign(num_outputs, false);
        in_graph = true;
      }
      continue;
    }
    switch (inst.opcode) {
      case OpGraphInputARM: VKRT_RETURN_IF_ERROR(read_graph_input(inst, num_inputs)); break;
      case OpGraphSetOutputARM: VKRT_RETURN_IF_ERROR(read_set_output(inst, num_outputs)); break;
      case OpExtInst: VKRT_RETURN_IF_ERROR(read_ext_inst(inst)); break;
      case OpCompositeExtract: VKRT_RETURN_IF_ERROR(read_composite_extract(inst)); break;
      case OpGraphEndARM: ended = true; break;
      default:
        return fail(inst, "opcode ", inst.opcode, " is not allowed in a graph body");
    }
    if (ended) break;
  }
  if (!in_graph) return make_error(Error::InvalidProgram, "SPIR-V: graph '", entry_.name, "' has no OpGraphARM");
  if (!ended) return make_error(Error::InvalidProgram, "SPIR-V: graph '", entry_.name, "' has no OpGraphEndARM");
  for (size_t i = 0; i < input_set_.size(); ++i) {
    if (!input_set_[i]) return make_error(Error::InvalidProgram, "SPIR-V: graph input ", i, " is never declared");
  }
  for (size_t i = 0; i < output_set_.size(); ++i) {
    if (!output_set_[i]) return make_error(Error::InvalidProgram, "SPIR-V: graph output ", i, " is never set");
  }
  VKRT_RETURN_IF_ERROR(validate_graph(g_));
  return std::move(g_);
}

}  // namespace

Result<Graph> read_spirv_graph(std::span<const uint32_t> words, const SpirvReadOptions& options) {
  VKRT_ASSIGN_OR_RETURN(Module m, Module::parse(words));
  GraphBuilder b(m, options);
  return b.build();
}

Result<Graph> read_spirv_graph_bytes(std::span<const uint8_t> bytes, const SpirvReadOptions& options) {
  VKRT_CHECK_OR_RETURN(bytes.size() % 4 == 0, InvalidProgram, "SPIR-V not word-aligned: ",
                       bytes.size(), " bytes");
  std::vector<uint32_t> words(bytes.size() / 4);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return read_spirv_graph(words, options);
}

}  // namespace vkrt::vgf::spirv
