// SPIR-V module indexing for graph modules (SPIR-V spec §2.3 physical layout; SPV_ARM_tensors,
// SPV_EXT_replicated_composites for the constant forms).
#include "vgf/spirv/spirv_module.h"

#include <cstring>

#include "vgf/spirv/spirv_defs.h"
#include "vkrt/tensor.h"

namespace vkrt::vgf::spirv {
namespace {

// Limits that keep hostile modules from exhausting memory or stack.
constexpr int kMaxNesting = 16;
constexpr uint64_t kMaxFlatElements = uint64_t(1) << 22;  // literal constants are small; weights use graph constants

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

int64_t FlatConstant::sign_extended(size_t i) const {
  uint64_t v = raw[i];
  if (width == 0 || width >= 64) return int64_t(v);
  uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((v ^ sign) - sign);
}

double FlatConstant::as_double(size_t i) const {
  if (dtype == DType::Fp32) {
    uint32_t b = uint32_t(raw[i]);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  if (dtype == DType::Fp16) return half_to_float(uint16_t(raw[i]));
  if (dtype == DType::Bf16) {
    uint32_t b = uint32_t(raw[i]) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  return double(sign_extended(i));
}

Result<std::string> read_literal_string(std::span<const uint32_t> operands, size_t& index) {
  std::string s;
  while (index < operands.size()) {
    uint32_t w = operands[index++];
    for (int b = 0; b < 4; ++b) {
      char c = char((w >> (8 * b)) & 0xFF);
      if (c == '\0') return s;
      s.push_back(c);
    }
  }
  return make_error(Error::InvalidProgram, "SPIR-V: literal string not terminated");
}

Result<Module> Module::parse(std::span<const uint32_t> words) {
  VKRT_CHECK_OR_RETURN(words.size() >= kHeaderWords, InvalidProgram, "SPIR-V: ", words.size(),
                       " words, the header needs 5");
  VKRT_CHECK_OR_RETURN(words[0] == kMagic, InvalidProgram, "SPIR-V: bad magic ", words[0]);
  Module m;
  m.bound = words[3];
  size_t pos = kHeaderWords;
  auto bad = [&](size_t at, const auto&... parts) {
    return make_error(Error::InvalidProgram, "SPIR-V word ", at, ": ", parts...);
  };
  while (pos < words.size()) {
    uint32_t first = words[pos];
    uint32_t count = first >> 16;
    uint16_t opcode = uint16_t(first & 0xFFFF);
    if (count == 0) return bad(pos, "instruction with word count 0");
    if (count > words.size() - pos) return bad(pos, "instruction (opcode ", opcode, ") runs past the end");
    Instruction inst{opcode, pos, words.subspan(pos + 1, count - 1)};
    m.instructions.push_back(inst);
    pos += count;
    auto ops = inst.operands;
    auto need = [&](size_t n) -> Status {
      if (ops.size() < n) return bad(inst.word_offset, "opcode ", opcode, " needs ", n, " operands, has ", ops.size());
      return Status::ok();
    };
    auto check_id = [&](uint32_t id) -> Status {
      if (id == 0 || id >= m.bound) return bad(inst.word_offset, "id ", id, " outside the bound ", m.bound);
      return Status::ok();
    };
    auto define_type = [&](uint32_t id, TypeInfo t) -> Status {
      VKRT_RETURN_IF_ERROR(check_id(id));
      if (m.types.count(id) || m.constants.count(id)) return bad(inst.word_offset, "id ", id, " defined twice");
      m.types.emplace(id, std::move(t));
      return Status::ok();
    };
    auto define_const = [&](uint32_t type, uint32_t id, ConstInfo c) -> Status {
      VKRT_RETURN_IF_ERROR(check_id(id));
      if (!m.types.count(type)) return bad(inst.word_offset, "constant %", id, " has undefined type %", type);
      if (m.types.count(id) || m.constants.count(id)) return bad(inst.word_offset, "id ", id, " defined twice");
      c.type = type;
      m.constants.emplace(id, std::move(c));
      return Status::ok();
    };
    switch (opcode) {
      case OpName: {
        VKRT_RETURN_IF_ERROR(need(2));
        size_t i = 1;
        VKRT_ASSIGN_OR_RETURN(std::string name, read_literal_string(ops, i));
        m.names[ops[0]] = std::move(name);
        break;
      }
      case OpExtInstImport: {
        VKRT_RETURN_IF_ERROR(need(2));
        size_t i = 1;
        VKRT_ASSIGN_OR_RETURN(std::string name, read_literal_string(ops, i));
        VKRT_RETURN_IF_ERROR(check_id(ops[0]));
        m.imports[ops[0]] = std::move(name);
        break;
      }
      case OpDecorate:
        VKRT_RETURN_IF_ERROR(need(2));
        if (ops[1] == DecorationBinding || ops[1] == DecorationDescriptorSet) {
          VKRT_RETURN_IF_ERROR(need(3));
          (ops[1] == DecorationBinding ? m.bindings : m.descriptor_sets)[ops[0]] = ops[2];
        }
        break;
      case OpTypeVoid:
        VKRT_RETURN_IF_ERROR(need(1));
        VKRT_RETURN_IF_ERROR(define_type(ops[0], TypeInfo{TypeKind::Void}));
        break;
      case OpTypeBool:
        VKRT_RETURN_IF_ERROR(need(1));
        VKRT_RETURN_IF_ERROR(define_type(ops[0], TypeInfo{TypeKind::Bool, 8}));
        break;
      case OpTypeInt: {
        VKRT_RETURN_IF_ERROR(need(3));
        if (ops[1] != 8 && ops[1] != 16 && ops[1] != 32 && ops[1] != 64)
          return bad(inst.word_offset, "unsupported integer width ", ops[1]);
        TypeInfo t{TypeKind::Int, ops[1]};
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpTypeFloat: {
        VKRT_RETURN_IF_ERROR(need(2));
        TypeInfo t{TypeKind::Float, ops[1]};
        if (ops.size() >= 3) t.encoding = ops[2];
        if (ops[1] != 8 && ops[1] != 16 && ops[1] != 32 && ops[1] != 64)
          return bad(inst.word_offset, "unsupported float width ", ops[1]);
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpTypeArray: {
        VKRT_RETURN_IF_ERROR(need(3));
        TypeInfo t{TypeKind::Array};
        t.element = ops[1];
        t.length_id = ops[2];
        if (!m.types.count(ops[1])) return bad(inst.word_offset, "array of undefined type %", ops[1]);
        if (!m.constants.count(ops[2])) return bad(inst.word_offset, "array length %", ops[2], " is not a constant");
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpTypeStruct:
      case OpTypeGraphARM: {
        VKRT_RETURN_IF_ERROR(need(opcode == OpTypeStruct ? 1 : 2));
        TypeInfo t{opcode == OpTypeStruct ? TypeKind::Struct : TypeKind::Graph};
        size_t first_member = opcode == OpTypeStruct ? 1 : 2;
        if (opcode == OpTypeGraphARM) t.num_inputs = ops[1];
        for (size_t i = first_member; i < ops.size(); ++i) {
          if (!m.types.count(ops[i])) return bad(inst.word_offset, "member of undefined type %", ops[i]);
          t.members.push_back(ops[i]);
        }
        if (t.num_inputs > t.members.size()) return bad(inst.word_offset, "graph type: NumInputs ", t.num_inputs, " > ", t.members.size(), " types");
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpTypePointer: {
        VKRT_RETURN_IF_ERROR(need(3));
        TypeInfo t{TypeKind::Pointer};
        t.element = ops[2];
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpTypeTensorARM: {
        VKRT_RETURN_IF_ERROR(need(2));
        TypeInfo t{TypeKind::Tensor};
        t.element = ops[1];
        if (ops.size() >= 3) t.rank_id = ops[2];
        if (ops.size() >= 4) t.shape_id = ops[3];
        if (!m.types.count(t.element)) return bad(inst.word_offset, "tensor of undefined element type %", t.element);
        if (t.rank_id != kNoId && !m.constants.count(t.rank_id)) return bad(inst.word_offset, "tensor rank %", t.rank_id, " is not a constant");
        if (t.shape_id != kNoId && !m.constants.count(t.shape_id)) return bad(inst.word_offset, "tensor shape %", t.shape_id, " is not a constant");
        VKRT_RETURN_IF_ERROR(define_type(ops[0], t));
        break;
      }
      case OpConstantTrue:
      case OpConstantFalse:
      case OpSpecConstantTrue:
      case OpSpecConstantFalse: {
        VKRT_RETURN_IF_ERROR(need(2));
        ConstInfo c{ConstKind::Bool};
        c.bits = (opcode == OpConstantTrue || opcode == OpSpecConstantTrue) ? 1 : 0;
        VKRT_RETURN_IF_ERROR(define_const(ops[0], ops[1], c));
        break;
      }
      case OpConstant:
      case OpSpecConstant: {
        VKRT_RETURN_IF_ERROR(need(3));
        ConstInfo c{ConstKind::Scalar};
        auto t = m.types.find(ops[0]);
        if (t == m.types.end() || (t->second.kind != TypeKind::Int && t->second.kind != TypeKind::Float))
          return bad(inst.word_offset, "OpConstant of a non-scalar type");
        uint32_t width = t->second.width;
        c.bits = ops[2];
        if (width > 32) {
          VKRT_RETURN_IF_ERROR(need(4));
          c.bits |= uint64_t(ops[3]) << 32;  // low-order word first
        } else if (width < 32) {
          c.bits &= (uint64_t(1) << width) - 1;
        }
        VKRT_RETURN_IF_ERROR(define_const(ops[0], ops[1], c));
        break;
      }
      case OpConstantComposite:
      case OpSpecConstantComposite:
      case OpConstantCompositeReplicateEXT:
      case OpSpecConstantCompositeReplicateEXT: {
        VKRT_RETURN_IF_ERROR(need(2));
        bool replicate = opcode == OpConstantCompositeReplicateEXT || opcode == OpSpecConstantCompositeReplicateEXT;
        ConstInfo c{replicate ? ConstKind::Replicate : ConstKind::Composite};
        for (size_t i = 2; i < ops.size(); ++i) {
          if (!m.constants.count(ops[i])) return bad(inst.word_offset, "constituent %", ops[i], " is not a defined constant");
          c.parts.push_back(ops[i]);
        }
        if (replicate && c.parts.size() != 1) return bad(inst.word_offset, "replicated composite needs exactly one value");
        VKRT_RETURN_IF_ERROR(define_const(ops[0], ops[1], c));
        break;
      }
      case OpConstantNull: {
        VKRT_RETURN_IF_ERROR(need(2));
        VKRT_RETURN_IF_ERROR(define_const(ops[0], ops[1], ConstInfo{ConstKind::Null}));
        break;
      }
      case OpGraphConstantARM: {
        VKRT_RETURN_IF_ERROR(need(3));
        ConstInfo c{ConstKind::GraphConstant};
        c.graph_constant_id = ops[2];
        VKRT_RETURN_IF_ERROR(define_const(ops[0], ops[1], c));
        break;
      }
      case OpVariable:
        VKRT_RETURN_IF_ERROR(need(3));
        VKRT_RETURN_IF_ERROR(check_id(ops[1]));
        m.variables[ops[1]] = ops[0];
        break;
      default:
        break;
    }
  }
  return m;
}

std::string Module::debug_name(uint32_t id) const {
  auto it = names.find(id);
  return it != names.end() ? it->second : "%" + std::to_string(id);
}

Result<const TypeInfo*> Module::type(uint32_t id, TypeKind want, const char* what) const {
  auto it = types.find(id);
  VKRT_CHECK_OR_RETURN(it != types.end(), InvalidProgram, "SPIR-V: ", what, ": %", id,
                       " is not a type");
  VKRT_CHECK_OR_RETURN(it->second.kind == want, InvalidProgram, "SPIR-V: ", what, ": %", id,
                       " has the wrong kind of type");
  return &it->second;
}

Result<const ConstInfo*> Module::constant(uint32_t id, const char* what) const {
  auto it = constants.find(id);
  VKRT_CHECK_OR_RETURN(it != constants.end(), InvalidProgram, "SPIR-V: ", what, ": %", id,
                       " is not a constant");
  return &it->second;
}

Result<DType> Module::scalar_dtype(uint32_t type_id) const {
  auto it = types.find(type_id);
  VKRT_CHECK_OR_RETURN(it != types.end(), InvalidProgram, "SPIR-V: %", type_id, " is not a type");
  const TypeInfo& t = it->second;
  if (t.kind == TypeKind::Bool) return DType::Bool;
  if (t.kind == TypeKind::Int) {
    // All integers are signless in TOSA SPIR-V (§6.3); i48 is carried as a 64-bit int.
    switch (t.width) {
      case 8: return DType::Int8;
      case 16: return DType::Int16;
      case 32: return DType::Int32;
      case 64: return DType::Int48;
    }
  }
  if (t.kind == TypeKind::Float) {
    if (t.width == 32 && t.encoding == ~0u) return DType::Fp32;
    if (t.width == 16 && t.encoding == ~0u) return DType::Fp16;
    if (t.width == 16 && t.encoding == FPEncodingBFloat16KHR) return DType::Bf16;
    if (t.width == 8 && t.encoding == FPEncodingFloat8E4M3EXT) return DType::Fp8E4M3;
    if (t.width == 8 && t.encoding == FPEncodingFloat8E5M2EXT) return DType::Fp8E5M2;
  }
  return make_error(Error::NotSupported, "SPIR-V: element type %", type_id, " is not a TOSA type");
}

Result<int64_t> Module::scalar_int(uint32_t const_id, const char* what) const {
  VKRT_ASSIGN_OR_RETURN(const ConstInfo* c, constant(const_id, what));
  if (c->kind == ConstKind::Bool) return int64_t(c->bits);
  if (c->kind == ConstKind::Null) return int64_t(0);
  VKRT_CHECK_OR_RETURN(c->kind == ConstKind::Scalar, InvalidProgram, "SPIR-V: ", what, ": %",
                       const_id, " is not a scalar constant");
  VKRT_ASSIGN_OR_RETURN(const TypeInfo* t, type(c->type, TypeKind::Int, what));
  FlatConstant f;
  f.width = t->width;
  f.raw = {c->bits};
  return f.sign_extended(0);
}

Status Module::tensor_type_info(uint32_t type_id, TensorInfo& out) const {
  VKRT_ASSIGN_OR_RETURN(const TypeInfo* t, type(type_id, TypeKind::Tensor, "tensor type"));
  VKRT_ASSIGN_OR_RETURN(out.dtype, scalar_dtype(t->element));
  out.shape.clear();
  out.ranked = t->rank_id != kNoId;
  if (!out.ranked) return Status::ok();
  VKRT_ASSIGN_OR_RETURN(int64_t rank, scalar_int(t->rank_id, "tensor rank"));
  VKRT_CHECK_OR_RETURN(rank >= 1 && rank <= kMaxRank, InvalidProgram, "SPIR-V: tensor type %",
                       type_id, " has rank ", rank);
  if (t->shape_id == kNoId) {
    out.shape.assign(size_t(rank), kDynamicDim);
    return Status::ok();
  }
  VKRT_ASSIGN_OR_RETURN(FlatConstant shape, flatten(t->shape_id));
  VKRT_CHECK_OR_RETURN(int64_t(shape.raw.size()) == rank, InvalidProgram, "SPIR-V: tensor type %",
                       type_id, ": shape has ", shape.raw.size(), " values, rank is ", rank);
  for (size_t i = 0; i < shape.raw.size(); ++i) {
    // Shape entries are unsigned (SPV_ARM_tensors); dims beyond int32 are not useful here.
    VKRT_CHECK_OR_RETURN(shape.raw[i] >= 1 && shape.raw[i] <= 0x7FFFFFFF, InvalidProgram,
                         "SPIR-V: tensor type %", type_id, ": dimension ", i, " is ", shape.raw[i]);
    out.shape.push_back(int64_t(shape.raw[i]));
  }
  return Status::ok();
}

namespace {

// Element type and element count of a composite-capable type (tensor, array, scalar).
struct TypeShape {
  uint32_t scalar_type = kNoId;
  std::vector<int64_t> shape;
};

Result<TypeShape> type_shape(const Module& m, uint32_t type_id, int depth) {
  VKRT_CHECK_OR_RETURN(depth < kMaxNesting, InvalidProgram, "SPIR-V: types nested too deeply");
  auto it = m.types.find(type_id);
  VKRT_CHECK_OR_RETURN(it != m.types.end(), InvalidProgram, "SPIR-V: %", type_id, " is not a type");
  const TypeInfo& t = it->second;
  switch (t.kind) {
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Bool:
      return TypeShape{type_id, {}};
    case TypeKind::Array: {
      VKRT_ASSIGN_OR_RETURN(TypeShape inner, type_shape(m, t.element, depth + 1));
      VKRT_ASSIGN_OR_RETURN(int64_t len, m.scalar_int(t.length_id, "array length"));
      VKRT_CHECK_OR_RETURN(len >= 1, InvalidProgram, "SPIR-V: array length ", len);
      inner.shape.insert(inner.shape.begin(), len);
      return inner;
    }
    case TypeKind::Tensor: {
      TensorInfo info;
      VKRT_RETURN_IF_ERROR(m.tensor_type_info(type_id, info));
      VKRT_CHECK_OR_RETURN(info.is_static(), InvalidProgram, "SPIR-V: constant of unshaped tensor type %", type_id);
      return TypeShape{t.element, info.shape};
    }
    default:
      return make_error(Error::InvalidProgram, "SPIR-V: %", type_id, " cannot hold a constant");
  }
}

Status flatten_into(const Module& m, uint32_t id, FlatConstant& out, int depth) {
  VKRT_CHECK_OR_RETURN(depth < kMaxNesting, InvalidProgram, "SPIR-V: constants nested too deeply");
  VKRT_ASSIGN_OR_RETURN(const ConstInfo* c, m.constant(id, "constant"));
  VKRT_ASSIGN_OR_RETURN(TypeShape ts, type_shape(m, c->type, 0));
  uint64_t count = 1;
  for (int64_t d : ts.shape) {
    count *= uint64_t(d);
    VKRT_CHECK_OR_RETURN(count <= kMaxFlatElements, InvalidProgram, "SPIR-V: constant %", id, " too large");
  }
  switch (c->kind) {
    case ConstKind::Scalar:
    case ConstKind::Bool:
      out.raw.push_back(c->bits);
      return Status::ok();
    case ConstKind::Null:
      VKRT_CHECK_OR_RETURN(out.raw.size() + count <= kMaxFlatElements, InvalidProgram, "SPIR-V: constants too large");
      out.raw.insert(out.raw.end(), size_t(count), 0);
      return Status::ok();
    case ConstKind::Composite: {
      size_t before = out.raw.size();
      for (uint32_t part : c->parts) VKRT_RETURN_IF_ERROR(flatten_into(m, part, out, depth + 1));
      VKRT_CHECK_OR_RETURN(out.raw.size() - before == count, InvalidProgram, "SPIR-V: composite %",
                           id, " has ", out.raw.size() - before, " elements, its type needs ", count);
      return Status::ok();
    }
    case ConstKind::Replicate: {
      FlatConstant value;
      VKRT_RETURN_IF_ERROR(flatten_into(m, c->parts[0], value, depth + 1));
      VKRT_CHECK_OR_RETURN(!value.raw.empty() && count % value.raw.size() == 0, InvalidProgram,
                           "SPIR-V: replicated composite %", id, " does not tile its type");
      VKRT_CHECK_OR_RETURN(out.raw.size() + count <= kMaxFlatElements, InvalidProgram, "SPIR-V: constants too large");
      for (uint64_t k = 0; k < count / value.raw.size(); ++k) {
        out.raw.insert(out.raw.end(), value.raw.begin(), value.raw.end());
      }
      return Status::ok();
    }
    case ConstKind::GraphConstant:
      return make_error(Error::InvalidProgram, "SPIR-V: graph constant %", id,
                        " used where a literal constant is required");
  }
  return Status::ok();
}

}  // namespace

Result<FlatConstant> Module::flatten(uint32_t const_id) const {
  VKRT_ASSIGN_OR_RETURN(const ConstInfo* c, constant(const_id, "constant"));
  VKRT_ASSIGN_OR_RETURN(TypeShape ts, type_shape(*this, c->type, 0));
  FlatConstant out;
  VKRT_ASSIGN_OR_RETURN(out.dtype, scalar_dtype(ts.scalar_type));
  out.width = types.at(ts.scalar_type).width;
  out.shape = ts.shape;
  VKRT_RETURN_IF_ERROR(flatten_into(*this, const_id, out, 0));
  return out;
}

}  // namespace vkrt::vgf::spirv
