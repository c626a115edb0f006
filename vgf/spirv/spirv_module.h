// Private to vgf/spirv: a SPIR-V module split into instructions, with its types, constants,
// names and decorations indexed by id. Only what graph modules use is interpreted.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf::spirv {

struct Instruction {
  uint16_t opcode = 0;
  size_t word_offset = 0;             // for error messages
  std::span<const uint32_t> operands;  // words after the opcode word
};

enum class TypeKind : uint8_t { Void, Bool, Int, Float, Array, Struct, Pointer, Tensor, Graph, Other };

inline constexpr uint32_t kNoId = 0;

struct TypeInfo {
  TypeInfo() = default;
  explicit TypeInfo(TypeKind k, uint32_t w = 0) : kind(k), width(w) {}
  TypeKind kind = TypeKind::Other;
  uint32_t width = 0;          // Int / Float
  uint32_t encoding = ~0u;     // Float: FPEncoding, ~0u = IEEE
  uint32_t element = kNoId;    // Array / Tensor element type, Pointer pointee
  uint32_t length_id = kNoId;  // Array length constant
  uint32_t rank_id = kNoId;    // Tensor: rank constant (kNoId = unranked)
  uint32_t shape_id = kNoId;   // Tensor: shape constant (kNoId = unshaped)
  uint32_t num_inputs = 0;     // Graph
  std::vector<uint32_t> members;  // Struct members; Graph input then output types
};

enum class ConstKind : uint8_t { Scalar, Bool, Composite, Null, Replicate, GraphConstant };

struct ConstInfo {
  ConstInfo() = default;
  explicit ConstInfo(ConstKind k) : kind(k) {}
  ConstKind kind = ConstKind::Scalar;
  uint32_t type = kNoId;
  uint64_t bits = 0;              // Scalar: raw literal bits (low `width` bits); Bool: 0/1
  std::vector<uint32_t> parts;    // Composite constituents; Replicate: one value id
  uint32_t graph_constant_id = 0; // GraphConstant
};

// A constant flattened to its elements (row-major), with the element type.
struct FlatConstant {
  DType dtype = DType::Unknown;
  uint32_t width = 0;           // bits of each element as declared
  std::vector<uint64_t> raw;    // each element's bits, zero-extended from `width`
  std::vector<int64_t> shape;   // of the constant's type (scalars: empty)

  int64_t sign_extended(size_t i) const;
  int64_t zero_extended(size_t i) const { return int64_t(raw[i]); }
  double as_double(size_t i) const;  // float types by bits; integers sign-extended
};

struct Module {
  uint32_t bound = 0;
  std::vector<Instruction> instructions;
  std::unordered_map<uint32_t, TypeInfo> types;
  std::unordered_map<uint32_t, ConstInfo> constants;
  std::unordered_map<uint32_t, std::string> names;
  std::unordered_map<uint32_t, uint32_t> bindings;         // id -> Binding decoration
  std::unordered_map<uint32_t, uint32_t> descriptor_sets;  // id -> DescriptorSet decoration
  std::unordered_map<uint32_t, std::string> imports;       // OpExtInstImport
  std::unordered_map<uint32_t, uint32_t> variables;        // OpVariable id -> pointer type

  // Parses header and instructions, indexing types/constants/names (not the graph bodies).
  static Result<Module> parse(std::span<const uint32_t> words);

  std::string debug_name(uint32_t id) const;
  Result<const TypeInfo*> type(uint32_t id, TypeKind want, const char* what) const;
  Result<const ConstInfo*> constant(uint32_t id, const char* what) const;
  // Scalar element type of an Int/Float/Bool type id.
  Result<DType> scalar_dtype(uint32_t type_id) const;
  // Tensor type -> IR dtype, rankedness and shape (dynamic where unshaped).
  Status tensor_type_info(uint32_t type_id, TensorInfo& out) const;
  // Flattens a constant (scalar, composite, null, replicate; not graph constants).
  Result<FlatConstant> flatten(uint32_t const_id) const;
  // Scalar integer constant, sign-extended from its width.
  Result<int64_t> scalar_int(uint32_t const_id, const char* what) const;
};

// Reads a literal string starting at operands[index]; advances index past it.
Result<std::string> read_literal_string(std::span<const uint32_t> operands, size_t& index);

}  // namespace vkrt::vgf::spirv
