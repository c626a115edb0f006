// Method execution (shared/docs/pte-format.md §9.4–9.5): set inputs, run the instruction
// chain, hand out outputs. Nothing here allocates from the heap.
#include <chrono>
#include <cmath>
#include <cstring>

#include "method_impl.h"

namespace vkrt {

namespace {
constexpr uint64_t kMaxInstructionsPerExecute = 10'000'000;  // upstream's limit

std::string sizes_str(std::span<const int32_t> s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
}  // namespace

Status MethodImpl::set_input(size_t index, const EValue& value) {
  if (index >= inputs.size())
    return make_error(Error::InvalidArgument, "input index ", index, " out of range (", inputs.size(), " inputs)");
  EValue& slot = values[size_t(inputs[index])];
  if (value.tag() != slot.tag())
    return make_error(Error::InvalidArgument, "input ", index, ": expected ", tag_name(slot.tag()), ", got ",
                      tag_name(value.tag()));
  switch (slot.tag()) {
    case Tag::None:
      break;
    case Tag::Int:
      if (value.to_int() != slot.to_int())
        return make_error(Error::InvalidArgument, "input ", index, ": Int input must equal the traced value ",
                          slot.to_int(), ", got ", value.to_int());
      break;
    case Tag::Bool:
      if (value.to_bool() != slot.to_bool())
        return make_error(Error::InvalidArgument, "input ", index, ": Bool input must equal the traced value");
      break;
    case Tag::String:
      if (value.to_string() != slot.to_string())
        return make_error(Error::InvalidArgument, "input ", index, ": String input must equal the traced value");
      break;
    case Tag::Double: {
      double want = slot.to_double(), got = value.to_double();
      if (!(std::fabs(want - got) <= 1e-4 + 1e-5 * std::fabs(want)))
        return make_error(Error::InvalidArgument, "input ", index, ": Double input must equal the traced value ",
                          want, " (within 1e-4 + 1e-5*|v|), got ", got);
      break;
    }
    case Tag::Tensor: {
      Tensor& dst = slot.to_tensor();
      const Tensor& src = value.to_tensor();
      if (src.dtype() != dst.dtype())
        return make_error(Error::InvalidArgument, "input ", index, ": expected ", scalar_type_name(dst.dtype()),
                          ", got ", scalar_type_name(src.dtype()));
      if (src.rank() != dst.rank())
        return make_error(Error::InvalidArgument, "input ", index, ": expected rank ", dst.rank(), ", got ",
                          src.rank());
      for (int d = 0; d < dst.rank(); ++d)
        if (src.dim_order()[d] != dst.dim_order()[d])
          return make_error(Error::InvalidArgument, "input ", index, ": dim order differs from the program's");
      Status rs = dst.resize(src.sizes());
      if (!rs.is_ok())
        return make_error(Error::InvalidArgument, "input ", index, ": sizes ", sizes_str(src.sizes()),
                          " do not fit the program's ", sizes_str(dst.sizes()), ": ", rs.message());
      if (src.nbytes() > 0 && !src.data())
        return make_error(Error::InvalidArgument, "input ", index, ": tensor has no data");
      if (!meta.inputs[index].memory_planned && reinterpret_cast<uintptr_t>(src.data()) % src.element_size() != 0)
        return make_error(Error::InvalidArgument, "input ", index, ": data is not aligned to its ",
                          src.element_size(), "-byte elements");
      if (meta.inputs[index].memory_planned) {
        // "Planned" includes a constant (data_buffer_idx without allocation_info, as upstream
        // counts it): its bytes are the mapped, read-only program, and a damaged file can make
        // one an input. Refused rather than written.
        const size_t value = size_t(inputs[index]);
        if (value < constant_values_.size() && constant_values_[value])
          return make_error(Error::InvalidArgument, "input ", index, ": the program's value ", value,
                            " is a constant; it cannot be set");
        if (src.nbytes() > 0 && !dst.data())
          return make_error(Error::InvalidArgument, "input ", index, ": the program gives it no memory");
        if (src.data() != dst.data() && src.nbytes() > 0) memcpy(dst.data(), src.data(), src.nbytes());
      } else {
        dst.set_data(src.data());  // shared: the caller keeps it alive
        dst.set_capacity_bytes(src.nbytes());
      }
      break;
    }
    default:
      return make_error(Error::NotSupported, "input ", index, ": ", tag_name(slot.tag()),
                        " inputs cannot be set");
  }
  input_is_set[index] = true;
  return Status::ok();
}

Status MethodImpl::set_output_data_ptr(size_t index, void* data, size_t nbytes) {
  if (index >= outputs.size())
    return make_error(Error::InvalidArgument, "output index ", index, " out of range (", outputs.size(), ")");
  EValue& v = values[size_t(outputs[index])];
  if (!v.is_tensor()) return make_error(Error::InvalidArgument, "output ", index, " is not a tensor");
  if (meta.outputs[index].memory_planned)
    return make_error(Error::InvalidState, "output ", index, " is memory-planned; its data pointer cannot be set");
  if (nbytes < v.to_tensor().capacity_bytes())
    return make_error(Error::InvalidArgument, "output ", index, " needs ", v.to_tensor().capacity_bytes(),
                      " bytes, buffer has ", nbytes);
  v.to_tensor().set_data(data);
  return Status::ok();
}

Status MethodImpl::run_instruction(InstructionEntry& in, size_t& pc) {
  switch (in.kind) {
    case InstructionEntry::Kind::Kernel: {
      KernelContext kctx(&temp, threads_, in.kernel_state);
      Status s = in.kernel(kctx, in.args);
      ++pc;
      return s;
    }
    case InstructionEntry::Kind::Delegate: {
      KernelContext kctx(&temp, threads_);
      BackendExecuteContext ctx{meta.name, &kctx, profiling || tracer != nullptr};
      DelegateEntry& d = delegates_[in.delegate];
      Status s = d.backend->execute(ctx, *d.handle, in.args);
      ++pc;
      return s;
    }
    case InstructionEntry::Kind::Move:
      values[size_t(in.b)] = values[size_t(in.a)];
      ++pc;
      return Status::ok();
    case InstructionEntry::Kind::JumpFalse: {
      const EValue& c = values[size_t(in.a)];
      bool cond;
      if (c.is_bool()) {
        cond = c.to_bool();
      } else if (c.is_tensor() && c.to_tensor().dtype() == ScalarType::Bool) {
        const Tensor& t = c.to_tensor();
        cond = true;
        const bool* p = t.data_as<const bool>();
        for (int64_t k = 0; k < t.numel() && cond; ++k) cond = p[k];
      } else {
        return make_error(Error::InvalidProgram, "jump condition is ", tag_name(c.tag()),
                          ", expected Bool or a Bool tensor");
      }
      pc = cond ? pc + 1 : size_t(in.b);
      return Status::ok();
    }
    case InstructionEntry::Kind::Free:
      values[size_t(in.a)].to_tensor().set_data(nullptr);
      ++pc;
      return Status::ok();
  }
  return make_error(Error::Internal, "bad instruction kind");
}

Status MethodImpl::execute() {
  for (size_t i = 0; i < input_is_set.size(); ++i)
    if (!input_is_set[i]) return make_error(Error::InvalidArgument, "Input ", i, " has not been set.");
  size_t pc = 0;
  uint64_t steps = 0;
  const size_t n = instructions_.size();
  const uint64_t trace_start = tracer ? trace_now_ns() : 0;
  if (tracer) tracer->begin_run("Execute");
  while (pc < n) {
    if (++steps > kMaxInstructionsPerExecute)
      return make_error(Error::InvalidState, "method ", meta.name, " ran more than ", kMaxInstructionsPerExecute,
                        " instructions (endless loop?)");
    InstructionEntry& in = instructions_[pc];
    const size_t this_pc = pc;
    Status s;
    if (profiling) {  // the profile table, and the events too when traced
      auto t0 = std::chrono::steady_clock::now();
      s = tracer ? run_traced(in, pc) : run_instruction(in, pc);
      profile[this_pc].total_ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      ++profile[this_pc].calls;
      if (in.kind == InstructionEntry::Kind::Delegate && s.is_ok()) {
        const DelegateEntry& d = delegates_[in.delegate];
        profile[this_pc].delegate_steps = d.backend->profile(*d.handle);  // profiling only: may allocate
      }
    } else if (tracer) {
      s = run_traced(in, pc);
    } else {
      s = run_instruction(in, pc);
    }
    temp.reset();
    if (!s.is_ok())
      return std::move(s).with_context("method " + meta.name + ", instruction " + std::to_string(this_pc) + " (" +
                                       in.name + ")");
  }
  if (tracer)
    tracer->profile_event(runtime_event("Method::execute", -1, 0, trace_start, trace_now_ns()));
  return Status::ok();
}

}  // namespace vkrt
