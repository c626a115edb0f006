// Writers for the ExecuTorch program formats: `.pte` programs, `.ptd` FlatTensor data files and
// `.bpte` bundled programs (facts: shared/docs/pte-format.md). Used by tests (to build programs the
// real toolchain would build, or deliberately inconsistent ones) and by the sample-program tool.
//
//   vkrt::ProgramBuilder program;                       // options: constants in a segment, eh00, ...
//   vkrt::MethodBuilder& m = program.add_method("forward");
//   int32_t x = m.add_planned_tensor(vkrt::ScalarType::Float, {2, 3});
//   int32_t two = m.add_constant_tensor<float>({}, {2.0f});
//   int32_t out = m.add_planned_tensor(vkrt::ScalarType::Float, {2, 3});
//   m.add_kernel_call("aten::mul.out", {x, two, out, out});   // operator table filled for you
//   m.set_inputs({x});
//   m.set_outputs({out});
//   vkrt::Result<std::vector<uint8_t>> bytes = program.build();
//
// Builders only record; build() checks everything (every index, size and layout the reader will
// check, unless PteWriteOptions::validate is false) and returns InvalidArgument naming the method,
// the value or instruction and what is wrong. Builders can be built several times.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/scalar_type.h"
#include "vkrt/tensor.h"

namespace vkrt {

// Raw little-endian bytes of a typed array (the host is little-endian, as the formats are).
template <typename T>
std::vector<uint8_t> to_bytes(std::span<const T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}
template <typename T>
std::vector<uint8_t> to_bytes(const std::vector<T>& values) {
  return to_bytes(std::span<const T>(values));
}

// ---------------------------------------------------------------------------------------------
// .pte programs
// ---------------------------------------------------------------------------------------------

enum class PteHeaderForm : uint8_t {
  Current32,  // eh00 with segment_data_size (writers since 2025-09)
  Legacy24,   // eh00 without segment_data_size (older writers); still padded to 32 bytes
};

enum class ConstantStorage : uint8_t {
  Segment,       // constant segment, entries aligned to constant_alignment, offsets[0] placeholder
  InlineBuffer,  // DEPRECATED Program.constant_buffer (files before 2024-09), entry 0 placeholder
};

enum class PayloadLocation : uint8_t { Inline = 0, Segment = 1 };  // = schema DataLocation

struct PteWriteOptions {
  ConstantStorage constant_storage = ConstantStorage::Segment;
  // Alignment of the segment base and of every segment offset (exir default 128).
  uint64_t segment_alignment = 128;
  // Alignment of each constant inside the constant segment (exir default 16).
  uint64_t constant_alignment = 16;
  PteHeaderForm header_form = PteHeaderForm::Current32;
  // eh00 is written only when there is at least one byte of segment data (as exir does);
  // true writes it anyway (program_size = file size, segment_base_offset 0).
  bool force_header = false;
  // With ConstantStorage::Segment and no constants, still write segments=[{0,0}] and
  // constant_segment={0,[0]} as exir does. false writes neither.
  bool always_write_constant_segment = true;
  // false skips the consistency checks of build() (indices, sizes, layouts) so tests can write
  // programs that are valid FlatBuffers but wrong for the runtime. Format limits that would
  // make the file unwritable are still errors.
  bool validate = true;
};

// A planned location: buffers[memory_id - 1] + offset (memory_id is 1-based, as in the file).
struct PlannedLocation {
  uint32_t memory_id = 1;
  uint64_t offset = 0;
};

// Everything a Tensor value in the program says about itself.
struct TensorSpec {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;      // upper bound for DynamicBound
  std::vector<uint8_t> dim_order;  // empty: 0, 1, ..., rank-1 (contiguous)
  ShapeDynamism dynamism = ShapeDynamism::Static;
  // allocation_info; nullopt: not memory-planned.
  std::optional<PlannedLocation> planned;
  // data_buffer_idx: a constant index from ProgramBuilder::add_constant (not planned), or a
  // mutable-data index from ProgramBuilder::add_mutable_data (planned). 0 = none.
  uint32_t data_buffer_idx = 0;
  // Non-empty: extra_tensor_info {fully_qualified_name, location EXTERNAL}: data from a .ptd.
  std::string external_fqn;
  // Written as is; readers require 0 (set it to test that they do).
  int32_t storage_offset = 0;

  static TensorSpec make(ScalarType dtype, std::vector<int32_t> sizes) {
    TensorSpec s;
    s.dtype = dtype;
    s.sizes = std::move(sizes);
    return s;
  }
  TensorSpec& at(uint32_t memory_id, uint64_t offset) {
    planned = PlannedLocation{memory_id, offset};
    return *this;
  }
  TensorSpec& with_dim_order(std::vector<uint8_t> order) {
    dim_order = std::move(order);
    return *this;
  }
  TensorSpec& dynamic_bound() {
    dynamism = ShapeDynamism::DynamicBound;
    return *this;
  }
  TensorSpec& external(std::string fqn) {
    external_fqn = std::move(fqn);
    return *this;
  }
  // numel * element size at `sizes` (0 for invalid dtypes or negative sizes).
  size_t nbytes() const;
};

// One compile spec: key + opaque value bytes (usually ASCII text).
struct CompileSpecEntry {
  std::string key;
  std::vector<uint8_t> value;
  static CompileSpecEntry text(std::string key, std::string_view value) {
    return {std::move(key), std::vector<uint8_t>(value.begin(), value.end())};
  }
};

class ProgramBuilder;

// One method (ExecutionPlan). Obtained from ProgramBuilder::add_method; lives as long as it.
// Every add_* returns the index of what it added (value, operator, delegate or instruction).
class MethodBuilder {
 public:
  const std::string& name() const { return name_; }
  int32_t num_values() const { return int32_t(values_.size()); }
  int32_t num_instructions() const { return int32_t(instructions_.size()); }

  // --- values ---
  int32_t add_none();
  int32_t add_int(int64_t v);
  int32_t add_double(double v);
  int32_t add_bool(bool v);
  int32_t add_string(std::string v);
  int32_t add_tensor(TensorSpec spec);
  // A tensor planned in buffer `memory_id` at the next free 16-byte-aligned offset of that
  // buffer (offsets chosen by this builder, in call order, never shared).
  int32_t add_planned_tensor(ScalarType dtype, std::vector<int32_t> sizes, uint32_t memory_id = 1);
  // A constant tensor: `data` becomes a program constant (nbytes must match, checked at build).
  int32_t add_constant_tensor(TensorSpec spec, std::span<const uint8_t> data);
  template <typename T>
  int32_t add_constant_tensor(std::vector<int32_t> sizes, const std::vector<T>& values) {
    return add_constant_tensor(TensorSpec::make(CppTypeToScalar<T>::value, std::move(sizes)),
                               to_bytes(values));
  }
  // A planned tensor (spec.planned must be set) whose buffer is filled at load from a
  // mutable-data entry holding `initial`.
  int32_t add_mutable_tensor(TensorSpec spec, std::span<const uint8_t> initial);
  // IntList, boxed as the emitter does: one Int value per element, then the list of their
  // indices. Returns the list's index.
  int32_t add_int_list(std::span<const int64_t> values);
  int32_t add_int_list(std::initializer_list<int64_t> values) {
    return add_int_list(std::span<const int64_t>(values.begin(), values.size()));
  }
  // IntList whose items are given as value indices, written as is.
  int32_t add_int_list_of_values(std::vector<int64_t> value_indices);
  int32_t add_double_list(std::vector<double> values);
  int32_t add_bool_list(std::vector<bool> values);
  int32_t add_tensor_list(std::vector<int32_t> tensor_value_indices);
  // -1 items are None.
  int32_t add_optional_tensor_list(std::vector<int32_t> tensor_value_indices);

  // --- signature ---
  MethodBuilder& set_inputs(std::vector<int32_t> value_indices);
  MethodBuilder& set_outputs(std::vector<int32_t> value_indices);
  // The pytree specs (ignored by the runtime; written when set).
  MethodBuilder& set_container_meta(std::string encoded_inputs, std::string encoded_outputs);

  // --- operators and instructions ---
  // Returns the index of (name, overload), adding it when new.
  int32_t add_operator(std::string name, std::string overload);
  // KernelCall. args: every schema argument in order, then the return slot (pte-format §9.5).
  int32_t add_kernel_call(int32_t op_index, std::vector<int32_t> args);
  // KernelCall by kernel name "ns::op.overload" (or "ns::op"): the operator is added if new.
  int32_t add_kernel_call(std::string_view kernel_name, std::vector<int32_t> args);
  int32_t add_delegate_call(int32_t delegate_index, std::vector<int32_t> args);
  int32_t add_move(int32_t from_value, int32_t to_value);
  int32_t add_jump_false(int32_t cond_value, int32_t destination_instruction);
  int32_t add_free(int32_t value);

  // --- delegates ---
  // A BackendDelegate. The payload is stored once per program (identical payloads are shared,
  // as exir does) inline in backend_delegate_data or in a segment.
  int32_t add_delegate(std::string backend_id, std::vector<uint8_t> payload,
                       std::vector<CompileSpecEntry> compile_specs = {},
                       PayloadLocation where = PayloadLocation::Inline);

  // --- memory plan ---
  // Sizes of planned buffers 1, 2, ... (the file's placeholder element 0 is added when
  // written). If never called, the sizes are derived: for each memory_id used, the end of the
  // furthest planned tensor rounded up to 16 (and buffers up to the largest id, 0 if unused).
  MethodBuilder& set_planned_buffer_sizes(std::vector<int64_t> sizes);

  // The recorded form of values and instructions, read by the encoder (not for direct use).
  struct Value {
    enum class Kind : uint8_t {
      Null, Int, Bool, Double, String, Tensor, IntList, DoubleList, BoolList, TensorList,
      OptionalTensorList,
    };
    Kind kind = Kind::Null;
    int64_t int_val = 0;
    double double_val = 0;
    bool bool_val = false;
    std::string string_val;
    TensorSpec tensor;
    std::vector<int64_t> int_items;     // IntList (value indices)
    std::vector<double> double_items;   // DoubleList
    std::vector<bool> bool_items;       // BoolList
    std::vector<int32_t> index_items;   // TensorList, OptionalTensorList
  };
  struct Instruction {
    enum class Kind : uint8_t { Kernel = 1, Delegate = 2, Move = 3, JumpFalse = 4, Free = 5 };
    Kind kind = Kind::Kernel;
    int32_t a = 0;  // op_index / delegate_index / move_from / cond_value_index / value_index
    int32_t b = 0;  // move_to / destination_instruction
    std::vector<int32_t> args;
  };

 private:
  friend class ProgramBuilder;
  struct Operator {
    std::string name, overload;
  };
  struct Delegate {
    std::string id;
    uint32_t payload_index = 0;  // into ProgramBuilder's payloads
    PayloadLocation where = PayloadLocation::Inline;
    std::vector<CompileSpecEntry> compile_specs;
  };
  MethodBuilder(ProgramBuilder* program, std::string name);
  int32_t push_value(Value v);

  ProgramBuilder* program_;
  std::string name_;
  std::vector<Value> values_;
  std::vector<int32_t> inputs_, outputs_;
  std::vector<Operator> operators_;
  std::vector<Instruction> instructions_;
  std::vector<Delegate> delegates_;
  std::optional<std::vector<int64_t>> planned_sizes_;
  std::vector<uint64_t> next_free_offset_;  // per memory_id - 1, for add_planned_tensor
  std::optional<std::pair<std::string, std::string>> container_meta_;
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(PteWriteOptions options = {});
  ~ProgramBuilder();
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  PteWriteOptions& options() { return options_; }

  // Adds a method; the reference stays valid for the builder's lifetime. Methods are written
  // in call order (the first is the runner's default).
  MethodBuilder& add_method(std::string name);

  // A program constant (shared by all methods). Returns its data_buffer_idx (1-based; 0 is the
  // file's placeholder).
  uint32_t add_constant(std::span<const uint8_t> data);
  // An initial value for a mutable (planned) tensor. Returns its data_buffer_idx (1-based).
  uint32_t add_mutable_data(std::span<const uint8_t> data);
  // A named blob (Program.named_data) in its own segment. Duplicate keys fail at build().
  void add_named_data(std::string key, std::span<const uint8_t> data);

  // The whole .pte file.
  Result<std::vector<uint8_t>> build() const;
  Status write_file(const std::string& path) const;

 private:
  friend class MethodBuilder;
  struct Payload {
    std::vector<uint8_t> bytes;
    PayloadLocation where;
  };
  uint32_t intern_payload(std::vector<uint8_t> bytes, PayloadLocation where);
  // Consistency checks of build() (PteWriteOptions::validate); pte_writer_check.cpp.
  Status check_program() const;
  Status check_method(const MethodBuilder& method) const;
  // Planned buffer sizes as written (without the placeholder): given or derived.
  static std::vector<int64_t> planned_sizes_of(const MethodBuilder& method);

  PteWriteOptions options_;
  std::vector<std::unique_ptr<MethodBuilder>> methods_;
  std::vector<std::vector<uint8_t>> constants_;     // [0] is the placeholder
  std::vector<std::vector<uint8_t>> mutable_data_;  // [0] is the placeholder
  std::vector<std::pair<std::string, std::vector<uint8_t>>> named_data_;
  std::vector<Payload> payloads_;
};

// ---------------------------------------------------------------------------------------------
// One-kernel programs, for kernel tests
// ---------------------------------------------------------------------------------------------

// One argument of a one-kernel program, in the operator's schema order (pte-format §9.3).
struct OpArg {
  enum class Kind : uint8_t {
    Input, Output, Constant, None, Int, Double, Bool, String, IntList, DoubleList, BoolList,
  };
  Kind kind = Kind::None;
  TensorSpec tensor;                 // Input / Output / Constant
  std::vector<uint8_t> data;         // Constant
  int64_t int_val = 0;
  double double_val = 0;
  bool bool_val = false;
  std::string string_val;
  std::vector<int64_t> int_items;
  std::vector<double> double_items;
  std::vector<bool> bool_items;

  // A memory-planned tensor that becomes the next method input.
  static OpArg input(ScalarType dtype, std::vector<int32_t> sizes);
  // A memory-planned tensor that becomes the next method output.
  static OpArg output(ScalarType dtype, std::vector<int32_t> sizes);
  // A constant tensor (any TensorSpec fields other than data placement are honoured).
  static OpArg constant(TensorSpec spec, std::vector<uint8_t> data);
  template <typename T>
  static OpArg constant_of(std::vector<int32_t> sizes, const std::vector<T>& values) {
    return constant(TensorSpec::make(CppTypeToScalar<T>::value, std::move(sizes)), to_bytes(values));
  }
  static OpArg none();
  static OpArg integer(int64_t v);  // also ScalarType / MemoryFormat arguments
  static OpArg real(double v);
  static OpArg boolean(bool v);
  static OpArg string(std::string v);
  static OpArg int_list(std::vector<int64_t> v);  // boxed IntList
  static OpArg double_list(std::vector<double> v);
  static OpArg bool_list(std::vector<bool> v);
};

// A program with one method "forward" holding one KernelCall of `kernel_name`
// ("aten::add.out") over `args`, then the return slot: the output itself when there is one
// output, else a TensorList of the outputs. Inputs and outputs are memory-planned in buffer 1
// in order; the method's inputs/outputs are the Input/Output args in order. E.g. add:
//   make_one_op_program("aten::add.out", {OpArg::input(F, {3}), OpArg::input(F, {3}),
//                                         OpArg::integer(1), OpArg::output(F, {3})});
Result<std::vector<uint8_t>> make_one_op_program(std::string_view kernel_name, std::vector<OpArg> args,
                                                 PteWriteOptions options = {});

// ---------------------------------------------------------------------------------------------
// Container layer (used by the builders; public so tests can rebuild real files byte for byte)
// ---------------------------------------------------------------------------------------------

// Lays blobs out one after another, each starting at a multiple of `alignment` (relative to
// the start of the block). No padding after the last blob.
struct SegmentLayout {
  explicit SegmentLayout(uint64_t alignment) : alignment(alignment) {}
  // Appends `data`, returns its offset in the block.
  uint64_t append(std::span<const uint8_t> data);
  uint64_t alignment;
  std::vector<uint8_t> bytes;
};

// Turns a finished program FlatBuffer (root offset, "ET12", tables; no header) plus the
// segment block (offsets inside it = Program.segments[i].offset) into a .pte file: inserts
// eh00 after byte 8 when segment_data is non-empty (or options.force_header), fixes the root
// offset, and places the block at round_up(program_size, options.segment_alignment).
Result<std::vector<uint8_t>> assemble_pte(std::span<const uint8_t> flatbuffer,
                                          std::span<const uint8_t> segment_data,
                                          const PteWriteOptions& options = {});

// ---------------------------------------------------------------------------------------------
// .ptd FlatTensor files
// ---------------------------------------------------------------------------------------------

struct PtdWriteOptions {
  // Alignment of the segment base and of each tensor's segment (upstream writes 16).
  uint64_t segment_alignment = 16;
};

class FlatTensorBuilder {
 public:
  explicit FlatTensorBuilder(PtdWriteOptions options = {}) : options_(options) {}
  // A tensor by fully-qualified name: named_data entry with a tensor_layout, data in its own
  // segment. dim_order empty = contiguous. data size must equal the layout's nbytes.
  void add_tensor(std::string key, ScalarType dtype, std::vector<int32_t> sizes,
                  std::span<const uint8_t> data, std::vector<uint8_t> dim_order = {});
  template <typename T>
  void add_tensor(std::string key, std::vector<int32_t> sizes, const std::vector<T>& values) {
    add_tensor(std::move(key), CppTypeToScalar<T>::value, std::move(sizes), to_bytes(values));
  }
  // A blob without tensor layout (backend named data).
  void add_blob(std::string key, std::span<const uint8_t> data);

  Result<std::vector<uint8_t>> build() const;
  Status write_file(const std::string& path) const;

 private:
  struct Entry {
    std::string key;
    std::optional<TensorSpec> layout;
    std::vector<uint8_t> data;
  };
  PtdWriteOptions options_;
  std::vector<Entry> entries_;
};

// Turns a finished FlatTensor FlatBuffer (root offset, "FT01", tables; no header) plus its
// segment block into a .ptd file: FH01 header (40 bytes) after byte 8, segment block at
// round_up(end of flatbuffer, options.segment_alignment), padded to that alignment at the end.
Result<std::vector<uint8_t>> assemble_ptd(std::span<const uint8_t> flatbuffer,
                                          std::span<const uint8_t> segment_data,
                                          const PtdWriteOptions& options = {});

// ---------------------------------------------------------------------------------------------
// .bpte bundled programs
// ---------------------------------------------------------------------------------------------

// One input or expected output of a test case.
struct BundledValueSpec {
  enum class Kind : uint8_t { Tensor = 1, Int = 2, Bool = 3, Double = 4 };  // = ValueUnion
  Kind kind = Kind::Int;
  // Tensor:
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;  // empty: contiguous
  std::vector<uint8_t> data;       // raw bytes in dim order
  // Scalars:
  int64_t int_val = 0;
  bool bool_val = false;
  double double_val = 0;

  static BundledValueSpec tensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> data);
  template <typename T>
  static BundledValueSpec tensor_of(std::vector<int32_t> sizes, const std::vector<T>& values) {
    return tensor(CppTypeToScalar<T>::value, std::move(sizes), to_bytes(values));
  }
  static BundledValueSpec integer(int64_t v);
  static BundledValueSpec boolean(bool v);
  static BundledValueSpec real(double v);
};

struct BundledTestCaseSpec {
  std::vector<BundledValueSpec> inputs;
  std::vector<BundledValueSpec> expected_outputs;
};

class BundledProgramBuilder {
 public:
  // `program`: a whole .pte file (e.g. from ProgramBuilder::build()).
  explicit BundledProgramBuilder(std::vector<uint8_t> program) : program_(std::move(program)) {}
  // Test cases are grouped into one suite per method, suites in first-use order.
  void add_test_case(std::string method_name, BundledTestCaseSpec test_case);
  Result<std::vector<uint8_t>> build() const;  // BundledProgram version 2, identifier BP08
  Status write_file(const std::string& path) const;

 private:
  std::vector<uint8_t> program_;
  std::vector<std::pair<std::string, std::vector<BundledTestCaseSpec>>> suites_;
};

// Writes bytes to a file (NotFound/AccessFailed naming the path on failure).
Status write_bytes_to_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace vkrt
