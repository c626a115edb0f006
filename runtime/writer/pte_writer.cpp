// Encoding of a ProgramBuilder into a .pte file: the FlatBuffer tables (pte-format §5), the
// segments after it (§3, §7) and the eh00 extended header (§2).
#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "program_generated.h"
#include "vkrt/pte_writer.h"

namespace vkrt {

Status check_layout_options(const PteWriteOptions& o);  // pte_writer_check.cpp

namespace {

namespace et = executorch_flatbuffer;
using fb_offset_vector = std::vector<flatbuffers::Offset<void>>;

uint64_t round_up(uint64_t v, uint64_t alignment) { return (v + alignment - 1) / alignment * alignment; }

void put_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }  // host is little-endian
void put_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Layout of eh00 (pte-format §2): magic, uint32 length, then uint64 fields.
constexpr size_t kHeaderPaddedLength = 32;  // round_up(32, largest force_align of the schema: 16)
constexpr size_t kFlatBufferPreamble = 8;   // root offset + file identifier

// Where each segment ended up, and what the Program table says about them.
struct SegmentPlan {
  SegmentLayout block;
  std::vector<std::pair<uint64_t, uint64_t>> segments;  // {offset, size}
  explicit SegmentPlan(uint64_t alignment) : block(alignment) {}
  uint32_t add(std::span<const uint8_t> data) {
    segments.emplace_back(block.append(data), data.size());
    return uint32_t(segments.size() - 1);
  }
};

// Concatenates entries 1.. of `entries` with each entry aligned; offsets[0] = 0 placeholder.
std::pair<std::vector<uint8_t>, std::vector<uint64_t>> pack_subsegments(
    const std::vector<std::vector<uint8_t>>& entries, uint64_t alignment) {
  SegmentLayout layout(alignment);
  std::vector<uint64_t> offsets{0};
  for (size_t i = 1; i < entries.size(); ++i) offsets.push_back(layout.append(entries[i]));
  return {std::move(layout.bytes), std::move(offsets)};
}

flatbuffers::Offset<flatbuffers::Vector<uint8_t>> aligned_bytes(flatbuffers::FlatBufferBuilder& fbb,
                                                               std::span<const uint8_t> data,
                                                               size_t alignment) {
  // Buffer.storage and BackendDelegateInlineData.data carry force_align 16 (pte-format §5).
  fbb.ForceVectorAlignment(data.size(), sizeof(uint8_t), alignment);
  return fbb.CreateVector(data.data(), data.size());
}

class ProgramEncoder {
 public:
  ProgramEncoder(flatbuffers::FlatBufferBuilder& fbb) : fbb_(fbb) {}

  flatbuffers::Offset<et::Tensor> tensor(const TensorSpec& t) {
    std::vector<uint8_t> dim_order = t.dim_order;
    if (dim_order.empty()) {
      for (size_t d = 0; d < t.sizes.size(); ++d) dim_order.push_back(uint8_t(d));
    }
    auto sizes = fbb_.CreateVector(t.sizes);
    auto order = fbb_.CreateVector(dim_order);
    flatbuffers::Offset<et::AllocationDetails> alloc = 0;
    if (t.planned) {
      // 64-bit offsets are split into low/high words (pte-format §5, AllocationDetails).
      alloc = et::CreateAllocationDetails(fbb_, t.planned->memory_id,
                                          uint32_t(t.planned->offset & 0xffffffffu),
                                          uint32_t(t.planned->offset >> 32));
    }
    flatbuffers::Offset<et::ExtraTensorInfo> extra = 0;
    if (!t.external_fqn.empty()) {
      extra = et::CreateExtraTensorInfo(fbb_, 0, fbb_.CreateString(t.external_fqn),
                                        et::TensorDataLocation::EXTERNAL);
    }
    return et::CreateTensor(fbb_, et::ScalarType(t.dtype), t.storage_offset, sizes, order,
                            /*requires_grad=*/false, t.data_buffer_idx, alloc, /*layout=*/0,
                            et::TensorShapeDynamism(t.dynamism), extra);
  }

  flatbuffers::Offset<et::EValue> value(const MethodBuilder::Value& v) {
    using Kind = MethodBuilder::Value::Kind;
    switch (v.kind) {
      case Kind::Null:
        return et::CreateEValue(fbb_, et::KernelTypes::Null, et::CreateNull(fbb_).Union());
      case Kind::Int:
        return et::CreateEValue(fbb_, et::KernelTypes::Int, et::CreateInt(fbb_, v.int_val).Union());
      case Kind::Bool:
        return et::CreateEValue(fbb_, et::KernelTypes::Bool, et::CreateBool(fbb_, v.bool_val).Union());
      case Kind::Double:
        return et::CreateEValue(fbb_, et::KernelTypes::Double,
                                et::CreateDouble(fbb_, v.double_val).Union());
      case Kind::String:
        return et::CreateEValue(fbb_, et::KernelTypes::String,
                                et::CreateString(fbb_, fbb_.CreateString(v.string_val)).Union());
      case Kind::Tensor:
        return et::CreateEValue(fbb_, et::KernelTypes::Tensor, tensor(v.tensor).Union());
      case Kind::IntList:
        return et::CreateEValue(fbb_, et::KernelTypes::IntList,
                                et::CreateIntList(fbb_, fbb_.CreateVector(v.int_items)).Union());
      case Kind::DoubleList:
        return et::CreateEValue(fbb_, et::KernelTypes::DoubleList,
                                et::CreateDoubleList(fbb_, fbb_.CreateVector(v.double_items)).Union());
      case Kind::BoolList: {
        auto vec = fbb_.CreateVector(v.bool_items);  // [bool] is a byte vector of 0/1
        return et::CreateEValue(fbb_, et::KernelTypes::BoolList, et::CreateBoolList(fbb_, vec).Union());
      }
      case Kind::TensorList:
        return et::CreateEValue(fbb_, et::KernelTypes::TensorList,
                                et::CreateTensorList(fbb_, fbb_.CreateVector(v.index_items)).Union());
      case Kind::OptionalTensorList:
        return et::CreateEValue(
            fbb_, et::KernelTypes::OptionalTensorList,
            et::CreateOptionalTensorList(fbb_, fbb_.CreateVector(v.index_items)).Union());
    }
    return et::CreateEValue(fbb_);
  }

  flatbuffers::Offset<et::Instruction> instruction(const MethodBuilder::Instruction& in) {
    using Kind = MethodBuilder::Instruction::Kind;
    switch (in.kind) {
      case Kind::Kernel:
        return et::CreateInstruction(fbb_, et::InstructionArguments::KernelCall,
                                     et::CreateKernelCall(fbb_, in.a, fbb_.CreateVector(in.args)).Union());
      case Kind::Delegate:
        return et::CreateInstruction(
            fbb_, et::InstructionArguments::DelegateCall,
            et::CreateDelegateCall(fbb_, in.a, fbb_.CreateVector(in.args)).Union());
      case Kind::Move:
        return et::CreateInstruction(fbb_, et::InstructionArguments::MoveCall,
                                     et::CreateMoveCall(fbb_, in.a, in.b).Union());
      case Kind::JumpFalse:
        return et::CreateInstruction(fbb_, et::InstructionArguments::JumpFalseCall,
                                     et::CreateJumpFalseCall(fbb_, in.a, in.b).Union());
      case Kind::Free:
        return et::CreateInstruction(fbb_, et::InstructionArguments::FreeCall,
                                     et::CreateFreeCall(fbb_, in.a).Union());
    }
    return et::CreateInstruction(fbb_);
  }

 private:
  flatbuffers::FlatBufferBuilder& fbb_;
};

}  // namespace

uint64_t SegmentLayout::append(std::span<const uint8_t> data) {
  const uint64_t offset = round_up(bytes.size(), alignment);
  // An empty blob adds no padding: padding only ever separates two blobs.
  if (data.empty()) return offset;
  bytes.resize(offset, 0);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return offset;
}

Result<std::vector<uint8_t>> ProgramBuilder::build() const {
  VKRT_RETURN_IF_ERROR(check_layout_options(options_));
  if (options_.validate) VKRT_RETURN_IF_ERROR(check_program());

  // Segments (pte-format §3): [constant segment, mutable data, delegate payloads, named data].
  // Every segment offset is a multiple of the segment alignment; constants inside the constant
  // segment are aligned to constant_alignment, so the segment alignment must cover it.
  const uint64_t segment_alignment = std::max(options_.segment_alignment, options_.constant_alignment);
  SegmentPlan plan(segment_alignment);

  std::optional<std::pair<uint32_t, std::vector<uint64_t>>> constant_segment;
  if (options_.constant_storage == ConstantStorage::Segment &&
      (constants_.size() > 1 || options_.always_write_constant_segment)) {
    auto [bytes, offsets] = pack_subsegments(constants_, options_.constant_alignment);
    constant_segment.emplace(plan.add(bytes), std::move(offsets));
  }
  std::optional<std::pair<uint32_t, std::vector<uint64_t>>> mutable_segment;
  if (mutable_data_.size() > 1) {
    auto [bytes, offsets] = pack_subsegments(mutable_data_, options_.constant_alignment);
    mutable_segment.emplace(plan.add(bytes), std::move(offsets));
  }
  // payload index -> index into backend_delegate_data (INLINE) or segments (SEGMENT).
  std::vector<uint32_t> payload_slot(payloads_.size(), 0);
  std::vector<size_t> inline_payloads;
  for (size_t i = 0; i < payloads_.size(); ++i) {
    if (payloads_[i].where == PayloadLocation::Segment) {
      payload_slot[i] = plan.add(payloads_[i].bytes);
    } else {
      payload_slot[i] = uint32_t(inline_payloads.size());
      inline_payloads.push_back(i);
    }
  }
  std::vector<std::pair<const std::string*, uint32_t>> named_segments;
  for (const auto& [key, data] : named_data_) named_segments.emplace_back(&key, plan.add(data));

  flatbuffers::FlatBufferBuilder fbb(1024);
  ProgramEncoder enc(fbb);

  std::vector<flatbuffers::Offset<et::ExecutionPlan>> plans;
  for (const auto& mp : methods_) {
    const MethodBuilder& m = *mp;
    std::vector<flatbuffers::Offset<et::EValue>> values;
    for (const auto& v : m.values_) values.push_back(enc.value(v));
    std::vector<flatbuffers::Offset<et::Instruction>> instructions;
    for (const auto& in : m.instructions_) instructions.push_back(enc.instruction(in));
    std::vector<flatbuffers::Offset<et::Operator>> operators;
    for (const auto& op : m.operators_) {
      const auto name = fbb.CreateString(op.name);
      const auto overload = fbb.CreateString(op.overload);
      operators.push_back(et::CreateOperator(fbb, name, overload));
    }
    std::vector<flatbuffers::Offset<et::BackendDelegate>> delegates;
    for (const auto& d : m.delegates_) {
      std::vector<flatbuffers::Offset<et::CompileSpec>> specs;
      for (const auto& cs : d.compile_specs) {
        const auto key = fbb.CreateString(cs.key);
        const auto value = fbb.CreateVector(cs.value);
        specs.push_back(et::CreateCompileSpec(fbb, key, value));
      }
      auto processed = et::CreateBackendDelegateDataReference(
          fbb, et::DataLocation(d.where), payload_slot[d.payload_index]);
      const auto id = fbb.CreateString(d.id);
      const auto spec_list = fbb.CreateVector(specs);
      delegates.push_back(et::CreateBackendDelegate(fbb, id, processed, spec_list));
    }
    // One chain holding every instruction (all real programs have exactly one).
    const auto chain_inputs = fbb.CreateVector(m.inputs_);
    const auto chain_outputs = fbb.CreateVector(m.outputs_);
    const auto chain_instructions = fbb.CreateVector(instructions);
    auto chain = et::CreateChain(fbb, chain_inputs, chain_outputs, chain_instructions);
    // Element 0 of non_const_buffer_sizes is a placeholder (pte-format §5, §9.2).
    std::vector<int64_t> buffer_sizes{0};
    for (int64_t s : planned_sizes_of(m)) buffer_sizes.push_back(s);
    flatbuffers::Offset<et::ContainerMetadata> meta = 0;
    if (m.container_meta_) {
      const auto encoded_inputs = fbb.CreateString(m.container_meta_->first);
      const auto encoded_outputs = fbb.CreateString(m.container_meta_->second);
      meta = et::CreateContainerMetadata(fbb, encoded_inputs, encoded_outputs);
    }
    std::vector<flatbuffers::Offset<et::Chain>> chains{chain};
    const auto name = fbb.CreateString(m.name_);
    const auto value_list = fbb.CreateVector(values);
    const auto plan_inputs = fbb.CreateVector(m.inputs_);
    const auto plan_outputs = fbb.CreateVector(m.outputs_);
    const auto chain_list = fbb.CreateVector(chains);
    const auto operator_list = fbb.CreateVector(operators);
    const auto delegate_list = fbb.CreateVector(delegates);
    const auto sizes = fbb.CreateVector(buffer_sizes);
    plans.push_back(et::CreateExecutionPlan(fbb, name, meta, value_list, plan_inputs, plan_outputs, chain_list,
                                            operator_list, delegate_list, sizes));
  }

  std::vector<flatbuffers::Offset<et::Buffer>> constant_buffer;
  if (options_.constant_storage == ConstantStorage::InlineBuffer) {
    for (const auto& c : constants_) constant_buffer.push_back(et::CreateBuffer(fbb, aligned_bytes(fbb, c, 16)));
  }
  std::vector<flatbuffers::Offset<et::BackendDelegateInlineData>> inline_data;
  for (size_t i : inline_payloads) {
    inline_data.push_back(et::CreateBackendDelegateInlineData(fbb, aligned_bytes(fbb, payloads_[i].bytes, 16)));
  }
  std::vector<flatbuffers::Offset<et::DataSegment>> segments;
  for (const auto& [offset, size] : plan.segments) segments.push_back(et::CreateDataSegment(fbb, offset, size));
  flatbuffers::Offset<et::SubsegmentOffsets> constant_offsets = 0;
  if (constant_segment) {
    constant_offsets = et::CreateSubsegmentOffsets(fbb, constant_segment->first,
                                                   fbb.CreateVector(constant_segment->second));
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<et::SubsegmentOffsets>>> mutable_offsets = 0;
  if (mutable_segment) {
    std::vector<flatbuffers::Offset<et::SubsegmentOffsets>> list{
        et::CreateSubsegmentOffsets(fbb, mutable_segment->first, fbb.CreateVector(mutable_segment->second))};
    mutable_offsets = fbb.CreateVector(list);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<et::NamedData>>> named = 0;
  if (!named_segments.empty()) {
    std::vector<flatbuffers::Offset<et::NamedData>> list;
    for (const auto& [key, seg] : named_segments) {
      const auto key_string = fbb.CreateString(*key);
      list.push_back(et::CreateNamedData(fbb, key_string, seg));
    }
    named = fbb.CreateVector(list);
  }
  const auto plan_list = fbb.CreateVector(plans);
  const auto constant_buffer_list = fbb.CreateVector(constant_buffer);
  const auto inline_data_list = fbb.CreateVector(inline_data);
  const auto segment_list = fbb.CreateVector(segments);
  auto root = et::CreateProgram(fbb, /*version=*/0, plan_list, constant_buffer_list, inline_data_list, segment_list,
                                constant_offsets, mutable_offsets, named);
  et::FinishProgramBuffer(fbb, root);
  return assemble_pte(std::span<const uint8_t>(fbb.GetBufferPointer(), fbb.GetSize()), plan.block.bytes,
                      options_);
}

Status ProgramBuilder::write_file(const std::string& path) const {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, build());
  return write_bytes_to_file(path, bytes);
}

Result<std::vector<uint8_t>> assemble_pte(std::span<const uint8_t> flatbuffer,
                                          std::span<const uint8_t> segment_data,
                                          const PteWriteOptions& options) {
  VKRT_RETURN_IF_ERROR(check_layout_options(options));
  VKRT_CHECK_OR_RETURN(flatbuffer.size() >= kFlatBufferPreamble + 4, InvalidArgument,
                       "flatbuffer of ", flatbuffer.size(), " bytes is too short");
  VKRT_CHECK_OR_RETURN(std::memcmp(flatbuffer.data() + 4, "ET12", 4) == 0, InvalidArgument,
                       "flatbuffer identifier is not ET12");
  const bool with_header = !segment_data.empty() || options.force_header;
  if (!with_header) return std::vector<uint8_t>(flatbuffer.begin(), flatbuffer.end());

  // The header goes after the 8-byte preamble; everything after it moves by the padded header
  // length, which keeps the schema's alignments (a multiple of 16), and only the root offset
  // (relative to byte 0) changes (pte-format §2).
  const uint64_t program_size = flatbuffer.size() + kHeaderPaddedLength;
  const uint64_t segment_alignment = std::max(options.segment_alignment, options.constant_alignment);
  const uint64_t base = segment_data.empty() ? 0 : round_up(program_size, segment_alignment);
  std::vector<uint8_t> out(segment_data.empty() ? program_size : base + segment_data.size(), 0);
  std::memcpy(out.data(), flatbuffer.data(), kFlatBufferPreamble);
  put_u32(out.data(), get_u32(flatbuffer.data()) + uint32_t(kHeaderPaddedLength));
  uint8_t* header = out.data() + kFlatBufferPreamble;
  std::memcpy(header, "eh00", 4);
  const bool current = options.header_form == PteHeaderForm::Current32;
  put_u32(header + 4, current ? 32 : 24);
  put_u64(header + 8, program_size);
  put_u64(header + 16, base);
  if (current) put_u64(header + 24, segment_data.size());
  std::memcpy(out.data() + kFlatBufferPreamble + kHeaderPaddedLength, flatbuffer.data() + kFlatBufferPreamble,
              flatbuffer.size() - kFlatBufferPreamble);
  if (!segment_data.empty()) std::memcpy(out.data() + base, segment_data.data(), segment_data.size());
  return out;
}

Status write_bytes_to_file(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return make_error(errno == ENOENT ? Error::NotFound : Error::AccessFailed, "cannot open '", path,
                      "' for writing: ", std::strerror(errno));
  }
  const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = std::fclose(f) == 0;
  VKRT_CHECK_OR_RETURN(written == bytes.size() && closed, AccessFailed, "writing '", path, "' failed after ",
                       written, " of ", bytes.size(), " bytes");
  return Status::ok();
}

}  // namespace vkrt
