// EtdumpWriter: the EventTracer that records what a method reports into an Etdump
// (vkrt/etdump.h). Tracing is off the hot path, so this allocates freely.
#include <chrono>
#include <cstring>

#include "vkrt/etdump.h"

namespace vkrt {

namespace {
// Upstream's buffer data sink places each tensor at a 64-byte boundary of the debug buffer.
constexpr size_t kDebugBufferAlignment = 64;
}  // namespace

uint64_t trace_now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

EtdumpRun& EtdumpWriter::run() {
  if (etdump_.runs.empty()) begin_run("Default");
  return etdump_.runs.back();
}

void EtdumpWriter::begin_run(std::string_view name) {
  EtdumpRun r;
  r.name = name;
  r.bundled_input_index = bundled_input_index_;
  etdump_.runs.push_back(std::move(r));
}

void EtdumpWriter::profile_event(const ProfileEventInfo& info) {
  EtdumpEvent e;
  e.kind = EtdumpEvent::Kind::Profile;
  e.name = info.name;
  e.chain_index = info.chain_index;
  e.instruction_id = info.instruction_id;
  e.delegate_debug_id_int = info.delegate_debug_id_int;
  e.delegate_debug_id_str = info.delegate_debug_id_str;
  e.delegate_debug_metadata.assign(info.delegate_debug_metadata.begin(), info.delegate_debug_metadata.end());
  e.start_time = info.start_ns;
  e.end_time = info.end_ns;
  run().events.push_back(std::move(e));
}

int32_t EtdumpWriter::track_allocator(std::string_view name) {
  EtdumpRun& r = run();
  r.allocators.emplace_back(name);
  return int32_t(r.allocators.size() - 1);
}

void EtdumpWriter::allocation_event(int32_t allocator_id, uint64_t bytes) {
  EtdumpEvent e;
  e.kind = EtdumpEvent::Kind::Allocation;
  e.allocator_id = allocator_id;
  e.allocation_size = bytes;
  run().events.push_back(std::move(e));
}

EtdumpTensor EtdumpWriter::log_tensor(const Tensor& t) {
  EtdumpTensor out;
  out.scalar_type = int8_t(t.dtype());
  out.sizes.assign(t.sizes().begin(), t.sizes().end());
  out.strides.assign(t.strides().begin(), t.strides().end());
  const size_t n = t.nbytes();
  if (n == 0 || !t.data()) {
    out.offset = -1;  // upstream's marker for a tensor with no bytes
    return out;
  }
  const size_t offset = (debug_buffer_.size() + kDebugBufferAlignment - 1) / kDebugBufferAlignment *
                        kDebugBufferAlignment;
  debug_buffer_.resize(offset + n);
  memcpy(debug_buffer_.data() + offset, t.data(), n);
  out.offset = int64_t(offset);
  return out;
}

void EtdumpWriter::debug_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                               const EValue& value) {
  if (!log_values_) return;
  EtdumpEvent e;
  e.kind = EtdumpEvent::Kind::Debug;
  e.name = name;
  e.chain_index = chain_index;
  e.instruction_id = instruction_id;
  if (value.is_tensor()) {
    e.value.type = EtdumpValue::Type::Tensor;
    e.value.tensors.push_back(log_tensor(value.to_tensor()));
  } else if (value.is_tensor_list()) {
    e.value.type = EtdumpValue::Type::TensorList;
    for (const EValue* item : value.boxed_items())
      if (item && item->is_tensor()) e.value.tensors.push_back(log_tensor(item->to_tensor()));
  } else {
    return;  // scalars are inputs or constants; upstream logs tensors for outputs
  }
  run().events.push_back(std::move(e));
}

}  // namespace vkrt
