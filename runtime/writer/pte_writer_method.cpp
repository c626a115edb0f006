// MethodBuilder and ProgramBuilder recording: every add_* only stores what it is given; the
// checks and the encoding happen in build() (pte_writer.cpp, pte_writer_check.cpp).
#include <algorithm>
#include <utility>

#include "vkrt/pte_writer.h"

namespace vkrt {

namespace {
uint64_t round_up(uint64_t v, uint64_t alignment) { return (v + alignment - 1) / alignment * alignment; }
}  // namespace

size_t TensorSpec::nbytes() const {
  if (!is_valid_scalar_type(int(dtype))) return 0;
  size_t numel = 1;
  for (int32_t s : sizes) {
    if (s < 0) return 0;
    numel *= size_t(s);
  }
  return numel * element_size(dtype);
}

MethodBuilder::MethodBuilder(ProgramBuilder* program, std::string name)
    : program_(program), name_(std::move(name)) {}

int32_t MethodBuilder::push_value(Value v) {
  values_.push_back(std::move(v));
  return int32_t(values_.size() - 1);
}

int32_t MethodBuilder::add_none() { return push_value(Value{}); }

int32_t MethodBuilder::add_int(int64_t v) {
  Value value;
  value.kind = Value::Kind::Int;
  value.int_val = v;
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_double(double v) {
  Value value;
  value.kind = Value::Kind::Double;
  value.double_val = v;
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_bool(bool v) {
  Value value;
  value.kind = Value::Kind::Bool;
  value.bool_val = v;
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_string(std::string v) {
  Value value;
  value.kind = Value::Kind::String;
  value.string_val = std::move(v);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_tensor(TensorSpec spec) {
  Value value;
  value.kind = Value::Kind::Tensor;
  value.tensor = std::move(spec);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_planned_tensor(ScalarType dtype, std::vector<int32_t> sizes,
                                          uint32_t memory_id) {
  TensorSpec spec = TensorSpec::make(dtype, std::move(sizes));
  // memory_id 0 is invalid in the file; record it as given so build() reports it.
  uint64_t offset = 0;
  if (memory_id > 0) {
    if (next_free_offset_.size() < memory_id) next_free_offset_.resize(memory_id, 0);
    offset = next_free_offset_[memory_id - 1];
    // Planned offsets are multiples of 16 in every real file (pte-format §9.2).
    next_free_offset_[memory_id - 1] = round_up(offset + spec.nbytes(), 16);
  }
  spec.planned = PlannedLocation{memory_id, offset};
  return add_tensor(std::move(spec));
}

int32_t MethodBuilder::add_constant_tensor(TensorSpec spec, std::span<const uint8_t> data) {
  spec.data_buffer_idx = program_->add_constant(data);
  spec.planned.reset();
  return add_tensor(std::move(spec));
}

int32_t MethodBuilder::add_mutable_tensor(TensorSpec spec, std::span<const uint8_t> initial) {
  spec.data_buffer_idx = program_->add_mutable_data(initial);
  return add_tensor(std::move(spec));
}

int32_t MethodBuilder::add_int_list(std::span<const int64_t> values) {
  std::vector<int64_t> indices;
  indices.reserve(values.size());
  for (int64_t v : values) indices.push_back(add_int(v));
  return add_int_list_of_values(std::move(indices));
}

int32_t MethodBuilder::add_int_list_of_values(std::vector<int64_t> value_indices) {
  Value value;
  value.kind = Value::Kind::IntList;
  value.int_items = std::move(value_indices);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_double_list(std::vector<double> values) {
  Value value;
  value.kind = Value::Kind::DoubleList;
  value.double_items = std::move(values);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_bool_list(std::vector<bool> values) {
  Value value;
  value.kind = Value::Kind::BoolList;
  value.bool_items = std::move(values);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_tensor_list(std::vector<int32_t> tensor_value_indices) {
  Value value;
  value.kind = Value::Kind::TensorList;
  value.index_items = std::move(tensor_value_indices);
  return push_value(std::move(value));
}

int32_t MethodBuilder::add_optional_tensor_list(std::vector<int32_t> tensor_value_indices) {
  Value value;
  value.kind = Value::Kind::OptionalTensorList;
  value.index_items = std::move(tensor_value_indices);
  return push_value(std::move(value));
}

MethodBuilder& MethodBuilder::set_inputs(std::vector<int32_t> value_indices) {
  inputs_ = std::move(value_indices);
  return *this;
}

MethodBuilder& MethodBuilder::set_outputs(std::vector<int32_t> value_indices) {
  outputs_ = std::move(value_indices);
  return *this;
}

MethodBuilder& MethodBuilder::set_container_meta(std::string encoded_inputs,
                                                 std::string encoded_outputs) {
  container_meta_ = std::make_pair(std::move(encoded_inputs), std::move(encoded_outputs));
  return *this;
}

int32_t MethodBuilder::add_operator(std::string name, std::string overload) {
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i].name == name && operators_[i].overload == overload) return int32_t(i);
  }
  operators_.push_back(Operator{std::move(name), std::move(overload)});
  return int32_t(operators_.size() - 1);
}

int32_t MethodBuilder::add_kernel_call(int32_t op_index, std::vector<int32_t> args) {
  Instruction instr;
  instr.kind = Instruction::Kind::Kernel;
  instr.a = op_index;
  instr.args = std::move(args);
  instructions_.push_back(std::move(instr));
  return int32_t(instructions_.size() - 1);
}

int32_t MethodBuilder::add_kernel_call(std::string_view kernel_name, std::vector<int32_t> args) {
  // Kernel name = Operator.name + "." + overload (pte-format §9.1.4); the overload is what
  // follows the last '.' after the namespace separator.
  size_t ns_end = kernel_name.rfind("::");
  size_t search_from = ns_end == std::string_view::npos ? 0 : ns_end + 2;
  size_t dot = kernel_name.find('.', search_from);
  std::string name(kernel_name.substr(0, dot));
  std::string overload = dot == std::string_view::npos ? std::string() : std::string(kernel_name.substr(dot + 1));
  return add_kernel_call(add_operator(std::move(name), std::move(overload)), std::move(args));
}

int32_t MethodBuilder::add_delegate_call(int32_t delegate_index, std::vector<int32_t> args) {
  Instruction instr;
  instr.kind = Instruction::Kind::Delegate;
  instr.a = delegate_index;
  instr.args = std::move(args);
  instructions_.push_back(std::move(instr));
  return int32_t(instructions_.size() - 1);
}

int32_t MethodBuilder::add_move(int32_t from_value, int32_t to_value) {
  Instruction instr;
  instr.kind = Instruction::Kind::Move;
  instr.a = from_value;
  instr.b = to_value;
  instructions_.push_back(std::move(instr));
  return int32_t(instructions_.size() - 1);
}

int32_t MethodBuilder::add_jump_false(int32_t cond_value, int32_t destination_instruction) {
  Instruction instr;
  instr.kind = Instruction::Kind::JumpFalse;
  instr.a = cond_value;
  instr.b = destination_instruction;
  instructions_.push_back(std::move(instr));
  return int32_t(instructions_.size() - 1);
}

int32_t MethodBuilder::add_free(int32_t value) {
  Instruction instr;
  instr.kind = Instruction::Kind::Free;
  instr.a = value;
  instructions_.push_back(std::move(instr));
  return int32_t(instructions_.size() - 1);
}

int32_t MethodBuilder::add_delegate(std::string backend_id, std::vector<uint8_t> payload,
                                    std::vector<CompileSpecEntry> compile_specs,
                                    PayloadLocation where) {
  Delegate d;
  d.id = std::move(backend_id);
  d.where = where;
  d.payload_index = program_->intern_payload(std::move(payload), where);
  d.compile_specs = std::move(compile_specs);
  delegates_.push_back(std::move(d));
  return int32_t(delegates_.size() - 1);
}

MethodBuilder& MethodBuilder::set_planned_buffer_sizes(std::vector<int64_t> sizes) {
  planned_sizes_ = std::move(sizes);
  return *this;
}

// ---------------------------------------------------------------------------------------------

ProgramBuilder::ProgramBuilder(PteWriteOptions options) : options_(options) {
  constants_.emplace_back();     // placeholder: data_buffer_idx 0 means "no constant"
  mutable_data_.emplace_back();  // placeholder, same convention
}

ProgramBuilder::~ProgramBuilder() = default;

MethodBuilder& ProgramBuilder::add_method(std::string name) {
  methods_.push_back(std::unique_ptr<MethodBuilder>(new MethodBuilder(this, std::move(name))));
  return *methods_.back();
}

uint32_t ProgramBuilder::add_constant(std::span<const uint8_t> data) {
  constants_.emplace_back(data.begin(), data.end());
  return uint32_t(constants_.size() - 1);
}

uint32_t ProgramBuilder::add_mutable_data(std::span<const uint8_t> data) {
  mutable_data_.emplace_back(data.begin(), data.end());
  return uint32_t(mutable_data_.size() - 1);
}

void ProgramBuilder::add_named_data(std::string key, std::span<const uint8_t> data) {
  named_data_.emplace_back(std::move(key), std::vector<uint8_t>(data.begin(), data.end()));
}

uint32_t ProgramBuilder::intern_payload(std::vector<uint8_t> bytes, PayloadLocation where) {
  // Identical blobs are stored once (exir deduplicates delegate payloads, pte-format §9.6).
  for (size_t i = 0; i < payloads_.size(); ++i) {
    if (payloads_[i].where == where && payloads_[i].bytes == bytes) return uint32_t(i);
  }
  payloads_.push_back(Payload{std::move(bytes), where});
  return uint32_t(payloads_.size() - 1);
}

std::vector<int64_t> ProgramBuilder::planned_sizes_of(const MethodBuilder& method) {
  if (method.planned_sizes_) return *method.planned_sizes_;
  std::vector<int64_t> sizes;
  for (const auto& v : method.values_) {
    if (v.kind != MethodBuilder::Value::Kind::Tensor || !v.tensor.planned) continue;
    uint32_t id = v.tensor.planned->memory_id;
    if (id == 0) continue;
    if (sizes.size() < id) sizes.resize(id, 0);
    uint64_t end = round_up(v.tensor.planned->offset + v.tensor.nbytes(), 16);
    sizes[id - 1] = std::max<int64_t>(sizes[id - 1], int64_t(end));
  }
  return sizes;
}

}  // namespace vkrt
