// ETDump encoding and decoding (shared/docs/etdump.md) with the tables flatc generates from
// runtime/schema/etdump.fbs. Both directions go through the same structs (vkrt/etdump.h), so a
// round trip checks the writer against the reader.
#include <cstring>
#include <type_traits>

#include "api_boundary.h"
#include "etdump_generated.h"
#include "vkrt/etdump.h"

namespace vkrt {

namespace {

namespace ed = etdump;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// ---- writing ----

Offset<ed::Tensor> build_tensor(FlatBufferBuilder& b, const EtdumpTensor& t) {
  return ed::CreateTensorDirect(b, static_cast<executorch_flatbuffer::ScalarType>(t.scalar_type), &t.sizes,
                                &t.strides, t.offset);
}

Offset<ed::Value> build_value(FlatBufferBuilder& b, const EtdumpValue& v) {
  using T = EtdumpValue::Type;
  Offset<ed::Tensor> tensor;
  Offset<ed::TensorList> list;
  Offset<ed::Int> int_value;
  Offset<ed::Float> float_value;
  Offset<ed::Double> double_value;
  Offset<ed::Bool> bool_value;
  switch (v.type) {
    case T::Tensor:
      if (!v.tensors.empty()) tensor = build_tensor(b, v.tensors[0]);
      break;
    case T::TensorList: {
      std::vector<Offset<ed::Tensor>> items;
      for (const auto& t : v.tensors) items.push_back(build_tensor(b, t));
      list = ed::CreateTensorListDirect(b, &items);
      break;
    }
    case T::Int: int_value = ed::CreateInt(b, v.int_value); break;
    case T::Float: float_value = ed::CreateFloat(b, float(v.double_value)); break;
    case T::Double: double_value = ed::CreateDouble(b, v.double_value); break;
    case T::Bool: bool_value = ed::CreateBool(b, v.bool_value); break;
    default: break;
  }
  Offset<ed::Bool> output = v.output ? ed::CreateBool(b, true) : Offset<ed::Bool>();
  return ed::CreateValue(b, static_cast<ed::ValueType>(v.type), tensor, list, int_value, float_value, double_value,
                         bool_value, output);
}

Offset<ed::Event> build_event(FlatBufferBuilder& b, const EtdumpEvent& e) {
  auto str = [&](const std::string& s) { return s.empty() ? Offset<flatbuffers::String>() : b.CreateString(s); };
  switch (e.kind) {
    case EtdumpEvent::Kind::Profile: {
      auto metadata = e.delegate_debug_metadata.empty() ? Offset<flatbuffers::Vector<uint8_t>>()
                                                         : b.CreateVector(e.delegate_debug_metadata);
      const auto name = str(e.name);
      const auto debug_id = str(e.delegate_debug_id_str);
      auto p = ed::CreateProfileEvent(b, name, int32_t(e.chain_index), e.instruction_id, e.delegate_debug_id_int,
                                      debug_id, metadata, e.start_time, e.end_time);
      return ed::CreateEvent(b, p);
    }
    case EtdumpEvent::Kind::Allocation:
      return ed::CreateEvent(b, 0, ed::CreateAllocationEvent(b, e.allocator_id, e.allocation_size));
    case EtdumpEvent::Kind::Debug: {
      auto value = build_value(b, e.value);
      const auto debug_id = str(e.delegate_debug_id_str);
      const auto name = str(e.name);
      auto d = ed::CreateDebugEvent(b, uint64_t(e.chain_index), e.instruction_id, value, e.delegate_debug_id_int,
                                    debug_id, name);
      return ed::CreateEvent(b, 0, 0, d);
    }
  }
  return ed::CreateEvent(b);
}

// ---- reading (the buffer is verified before any of this runs) ----

std::string to_string(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// The verifier checks only the 4-byte alignment of a vector's length, so 8-byte elements of a
// damaged file may be misaligned (etdump_fuzzer): copied as bytes, never loaded as T.
template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  static_assert(std::is_arithmetic_v<T>);
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

EtdumpTensor read_tensor(const ed::Tensor* t) {
  EtdumpTensor out;
  out.scalar_type = int8_t(t->scalar_type());
  out.sizes = to_vector(t->sizes());
  out.strides = to_vector(t->strides());
  out.offset = t->offset();
  return out;
}

Result<EtdumpValue> read_value(const ed::Value* v, const std::string& where) {
  using T = EtdumpValue::Type;
  EtdumpValue out;
  if (!v) return out;
  const int type = int(v->val());
  if (type < 0 || type > int(T::String))
    return make_error(Error::InvalidProgram, "ETDump: ", where, ": unknown value type ", type);
  out.type = T(type);
  out.output = v->output() && v->output()->bool_val();
  switch (out.type) {
    case T::Tensor:
      if (!v->tensor()) return make_error(Error::InvalidProgram, "ETDump: ", where, ": Tensor value without tensor");
      out.tensors.push_back(read_tensor(v->tensor()));
      break;
    case T::TensorList:
      if (!v->tensor_list())
        return make_error(Error::InvalidProgram, "ETDump: ", where, ": TensorList value without tensor_list");
      if (const auto* ts = v->tensor_list()->tensors())
        for (const auto* t : *ts) {
          if (!t) return make_error(Error::InvalidProgram, "ETDump: ", where, ": null tensor in a tensor list");
          out.tensors.push_back(read_tensor(t));
        }
      break;
    case T::Int: out.int_value = v->int_value() ? v->int_value()->int_val() : 0; break;
    case T::Float: out.double_value = v->float_value() ? v->float_value()->float_val() : 0; break;
    case T::Double: out.double_value = v->double_value() ? v->double_value()->double_val() : 0; break;
    case T::Bool: out.bool_value = v->bool_value() && v->bool_value()->bool_val(); break;
    default: break;
  }
  return out;
}

Result<EtdumpEvent> read_event(const ed::Event* e, const std::string& where) {
  if (!e) return make_error(Error::InvalidProgram, "ETDump: ", where, " is null");
  const int members = (e->profile_event() != nullptr) + (e->allocation_event() != nullptr) +
                      (e->debug_event() != nullptr);
  if (members != 1)
    return make_error(Error::InvalidProgram, "ETDump: ", where, " has ", members, " members set, expected exactly 1");
  EtdumpEvent out;
  if (const auto* p = e->profile_event()) {
    out.kind = EtdumpEvent::Kind::Profile;
    out.name = to_string(p->name());
    out.chain_index = p->chain_index();
    out.instruction_id = p->instruction_id();
    out.delegate_debug_id_int = p->delegate_debug_id_int();
    out.delegate_debug_id_str = to_string(p->delegate_debug_id_str());
    out.delegate_debug_metadata = to_vector(p->delegate_debug_metadata());
    out.start_time = p->start_time();
    out.end_time = p->end_time();
  } else if (const auto* a = e->allocation_event()) {
    out.kind = EtdumpEvent::Kind::Allocation;
    out.allocator_id = a->allocator_id();
    out.allocation_size = a->allocation_size();
  } else {
    const auto* d = e->debug_event();
    out.kind = EtdumpEvent::Kind::Debug;
    out.name = to_string(d->name());
    out.chain_index = int64_t(d->chain_index());
    out.instruction_id = d->instruction_id();
    out.delegate_debug_id_int = d->delegate_debug_id_int();
    out.delegate_debug_id_str = to_string(d->delegate_debug_id_str());
    VKRT_ASSIGN_OR_RETURN(out.value, read_value(d->debug_entry(), where));
  }
  return out;
}

}  // namespace

std::vector<uint8_t> write_etdump(const Etdump& etdump) {
  FlatBufferBuilder b;
  std::vector<Offset<ed::RunData>> runs;
  for (const EtdumpRun& r : etdump.runs) {
    std::vector<Offset<ed::Allocator>> allocators;
    for (const auto& a : r.allocators) allocators.push_back(ed::CreateAllocatorDirect(b, a.c_str()));
    std::vector<Offset<ed::Event>> events;
    for (const auto& e : r.events) events.push_back(build_event(b, e));
    runs.push_back(ed::CreateRunDataDirect(b, r.name.c_str(), r.bundled_input_index,
                                           allocators.empty() ? nullptr : &allocators, &events));
  }
  b.FinishSizePrefixed(ed::CreateETDumpDirect(b, etdump.version, &runs), ed::ETDumpIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Result<Etdump> read_etdump(std::span<const uint8_t> bytes) {
  return detail::guard_api("read_etdump", [&]() -> Result<Etdump> {
    // Upstream writes a 4-byte size prefix: [size][root offset][identifier]. A bare buffer,
    // [root offset][identifier], is accepted too. Each identifier is read only where it fits.
    auto has_identifier_at = [&](size_t at) {
      return bytes.size() >= at + 4 && memcmp(bytes.data() + at, ed::ETDumpIdentifier(), 4) == 0;
    };
    const bool prefixed = has_identifier_at(8);
    const bool bare = !prefixed && has_identifier_at(4);
    if (!prefixed && !bare) return make_error(Error::InvalidProgram, "ETDump: no \"ED00\" identifier");
    if (prefixed) {
      uint32_t size;
      memcpy(&size, bytes.data(), 4);
      if (size_t(size) > bytes.size() - 4)
        return make_error(Error::InvalidProgram, "ETDump: size prefix ", size, " exceeds the file's ",
                          bytes.size() - 4, " bytes");
    }
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    const bool verified = prefixed ? ed::VerifySizePrefixedETDumpBuffer(verifier) : ed::VerifyETDumpBuffer(verifier);
    if (!verified) return make_error(Error::InvalidProgram, "ETDump: flatbuffer verification failed");
    const ed::ETDump* root = prefixed ? ed::GetSizePrefixedETDump(bytes.data()) : ed::GetETDump(bytes.data());
    Etdump out;
    out.version = root->version();
    if (!root->run_data()) return out;
    for (flatbuffers::uoffset_t i = 0; i < root->run_data()->size(); ++i) {
      const ed::RunData* r = root->run_data()->Get(i);
      if (!r) return make_error(Error::InvalidProgram, "ETDump: run_data[", i, "] is null");
      EtdumpRun run;
      run.name = to_string(r->name());
      run.bundled_input_index = r->bundled_input_index();
      if (r->allocators())
        for (const auto* a : *r->allocators()) run.allocators.push_back(a ? to_string(a->name()) : std::string());
      if (r->events())
        for (flatbuffers::uoffset_t k = 0; k < r->events()->size(); ++k) {
          VKRT_ASSIGN_OR_RETURN(auto event, read_event(r->events()->Get(k), "run_data[" + std::to_string(i) +
                                                                                "].events[" + std::to_string(k) + "]"));
          run.events.push_back(std::move(event));
        }
      out.runs.push_back(std::move(run));
    }
    return out;
  });
}

}  // namespace vkrt
