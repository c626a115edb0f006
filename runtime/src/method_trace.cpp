// A method's events for its EventTracer (vkrt/event_tracer.h), named and nested as upstream's
// runtime records them (shared/docs/etdump.md): per kernel call "native_call_<op>.<overload>"
// inside "OPERATOR_CALL", per delegate call its steps inside "DELEGATE_CALL", "MOVE_CALL",
// "JF_CALL" and "FREE_CALL" for the rest. Only runs when a tracer is set.
#include "method_impl.h"

namespace vkrt {

namespace {
// Chains other than the first are not supported by vkrt's programs, so every instruction is in 0.
constexpr int32_t kChain = 0;

// "aten::add.out" -> "native_call_add.out": upstream's generated kernel wrappers name the
// event after the operator without its namespace.
std::string kernel_event_name(const std::string& op) {
  const size_t colon = op.rfind("::");
  return "native_call_" + (colon == std::string::npos ? op : op.substr(colon + 2));
}

// A kernel call's out tensors. A KernelCall's arguments are the schema's (the keyword-only outs
// last) and then one return slot (shared/docs/pte-format.md §9.5): for a single out the slot is
// that tensor, for several a tensor list of them. Any other slot: the tensors just before it.
std::span<EValue* const> kernel_outputs(std::span<EValue* const> args) {
  if (args.empty() || !args.back()) return {};
  const EValue& ret = *args.back();
  if (ret.is_tensor()) return args.last(1);
  if (ret.is_tensor_list()) return ret.boxed_items();
  size_t n = 0;
  while (n + 1 < args.size() && args[args.size() - 2 - n] && args[args.size() - 2 - n]->is_tensor()) ++n;
  return args.subspan(args.size() - 1 - n, n);
}

const char* op_event_name(InstructionEntry::Kind kind) {
  switch (kind) {
    case InstructionEntry::Kind::Kernel: return "OPERATOR_CALL";
    case InstructionEntry::Kind::Delegate: return "DELEGATE_CALL";
    case InstructionEntry::Kind::Move: return "MOVE_CALL";
    case InstructionEntry::Kind::JumpFalse: return "JF_CALL";
    case InstructionEntry::Kind::Free: return "FREE_CALL";
  }
  return "UNKNOWN_CALL";
}
}  // namespace

void MethodImpl::trace_load(uint64_t start_ns) {
  // The planned buffers are the memory a method asks for at load: one allocator, one event each.
  const int32_t planned = tracer->track_allocator("planned_memory");
  for (size_t size : planned_sizes_) tracer->allocation_event(planned, size);
  tracer->profile_event(runtime_event("Method::init", -1, 0, start_ns, trace_now_ns()));
}

Status MethodImpl::run_traced(InstructionEntry& in, size_t& pc) {
  const int32_t id = int32_t(pc);
  const uint64_t op_start = trace_now_ns();
  const uint64_t call_start = trace_now_ns();
  Status s = run_instruction(in, pc);
  const uint64_t call_end = trace_now_ns();
  if (in.kind == InstructionEntry::Kind::Kernel) {
    tracer->profile_event(runtime_event(kernel_event_name(in.name), kChain, id, call_start, call_end));
    // One debug event per out argument, as upstream's kernel wrappers log them.
    if (s.is_ok() && tracer->logs_values())
      for (const EValue* out : kernel_outputs(in.args))
        if (out) tracer->debug_event(kernel_event_name(in.name), kChain, id, *out);
  } else if (in.kind == InstructionEntry::Kind::Delegate && s.is_ok()) {
    const DelegateEntry& d = delegates_[in.delegate];
    // A step the backend placed on the tracer clock stays where it is; one with only a duration
    // ran after the step before it (the first at the call's start).
    uint64_t t = call_start;
    for (const DelegateProfileEntry& step : d.backend->profile(*d.handle)) {
      const uint64_t dur = step.time_ms > 0 ? uint64_t(step.time_ms * 1e6) : 0;
      const bool placed = step.end_ns != 0;
      // As upstream's log_profiling_delegate: no name, the step's string id.
      ProfileEventInfo e = runtime_event({}, kChain, id, placed ? step.start_ns : t, placed ? step.end_ns : t + dur);
      e.delegate_debug_id_str = step.name;
      e.delegate_debug_metadata = step.metadata;
      tracer->profile_event(e);
      t = e.end_ns;
    }
    // Upstream logs every argument of a delegate call: its arguments do not say which are outputs.
    if (tracer->logs_values())
      for (const EValue* arg : in.args)
        if (arg) tracer->debug_event("DELEGATE_CALL", kChain, id, *arg);
  }
  tracer->profile_event(runtime_event(op_event_name(in.kind), kChain, id, op_start, trace_now_ns()));
  return s;
}

}  // namespace vkrt
