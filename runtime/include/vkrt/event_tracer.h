// The event-tracer interface: what a loaded method reports while it loads and runs, for
// profiling and debugging (ETDump, vkrt/etdump.h, is the implementation the runner uses).
//
// Set one in LoadOptions::event_tracer (or later with Method::set_event_tracer). With none set
// (the default) the method's execute path is unchanged: no clock reads, no allocation. With one
// set, reporting may allocate; that is the price of tracing.
//
// The vocabulary is ExecuTorch's (shared/docs/etdump.md): events are grouped in runs ("Default"
// for loading, "Execute" for each execution), a profile event is a named span of ticks with a
// chain and instruction id, delegates' own events carry a delegate debug id.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "vkrt/evalue.h"

namespace vkrt {

// The tracer clock: nanoseconds of std::chrono::steady_clock. Every time a method reports is
// in these ticks, so spans from the runtime and from delegates can be compared.
uint64_t trace_now_ns();

struct ProfileEventInfo {
  std::string_view name;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;     // a delegate event's id, or -1
  std::string_view delegate_debug_id_str;  // or its string id
  std::span<const uint8_t> delegate_debug_metadata;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// A span of the runtime itself (no delegate id).
inline ProfileEventInfo runtime_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                                      uint64_t start_ns, uint64_t end_ns) {
  ProfileEventInfo e;
  e.name = name;
  e.chain_index = chain_index;
  e.instruction_id = instruction_id;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  return e;
}

class EventTracer {
 public:
  virtual ~EventTracer() = default;
  // Starts a new run; the events that follow belong to it.
  virtual void begin_run(std::string_view name) = 0;
  // Reports a span. Spans are reported when they end, so an enclosing span follows the ones
  // it encloses (as upstream).
  virtual void profile_event(const ProfileEventInfo& event) = 0;
  // Names an allocator of the current run; returns its id for allocation_event.
  virtual int32_t track_allocator(std::string_view name) = 0;
  virtual void allocation_event(int32_t allocator_id, uint64_t bytes) = 0;
  // Whether the method should report instruction outputs with debug_event (costs a copy of
  // every output).
  virtual bool logs_values() const { return false; }
  // An instruction's output (a tensor or a tensor list; other values are ignored).
  virtual void debug_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                           const EValue& value) {}
};

}  // namespace vkrt
