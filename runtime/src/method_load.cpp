// Method loading: values, memory planning, delegates and instructions
// (shared/docs/pte-format.md §9.1–9.3). Every index read from the file is range-checked here
// so that execute() can trust them.
#include <chrono>
#include <cstring>
#include <new>

#include "method_impl.h"
#include "method_meta.h"

namespace vkrt {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
constexpr size_t kPlannedAlignment = 64;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s.empty() ? "(none)" : s;
}
}  // namespace

MethodImpl::~MethodImpl() {
  for (auto& d : delegates_)
    if (d.backend && d.handle) d.backend->destroy(std::move(d.handle));
}

Result<std::unique_ptr<MethodImpl>> MethodImpl::load(const Program& program, const fb::ExecutionPlan& plan,
                                                     const LoadOptions& options, ParallelRunner* threads) {
  auto t0 = std::chrono::steady_clock::now();
  const uint64_t trace_start_ns = options.event_tracer ? trace_now_ns() : 0;
  std::unique_ptr<MethodImpl> m(new MethodImpl());
  m->program_ = &program;
  m->plan_ = &plan;
  m->threads_ = threads;
  VKRT_ASSIGN_OR_RETURN(m->meta, build_method_meta(program, plan));
  const std::string ctx = "method " + m->meta.name;

  // Report everything missing at once, before any expensive delegate init.
  std::vector<std::string> missing_ops, missing_backends;
  for (const auto& op : m->meta.operators)
    if (!KernelRegistry::global().find(op)) missing_ops.push_back(op);
  for (const auto& id : m->meta.backends) {
    Backend* b = BackendRegistry::global().find(id);
    if (!b || !b->is_available()) missing_backends.push_back(id);
  }
  // One error names both lists; its code is the backend's (NotFound) when a backend is missing,
  // else OperatorMissing.
  std::string backends_part, ops_part;
  if (!missing_backends.empty())
    backends_part = "backend" + std::string(missing_backends.size() > 1 ? "s " : " ") + join(missing_backends) +
                    " not available (registered: " + join(BackendRegistry::global().names()) + ")";
  if (!missing_ops.empty())
    ops_part = "missing operator" + std::string(missing_ops.size() > 1 ? "s " : " ") + join(missing_ops) + " (" +
               std::to_string(KernelRegistry::global().names().size()) + " kernels registered)";
  if (!backends_part.empty() || !ops_part.empty())
    return make_error(missing_backends.empty() ? Error::OperatorMissing : Error::NotFound, ctx, ": ", backends_part,
                      !backends_part.empty() && !ops_part.empty() ? "; " : "", ops_part);

  m->budget_ = MemoryBudget(options.memory_budget_bytes ? options.memory_budget_bytes : default_memory_budget_bytes());
  Status s = m->plan_buffers();
  if (s.is_ok()) s = m->parse_values(options);
  if (s.is_ok()) s = m->check_lists();
  if (s.is_ok()) s = m->resolve_instructions();
  if (!s.is_ok()) return std::move(s).with_context(ctx);

  for (int32_t i : *plan.inputs()) m->inputs.push_back(i);
  for (int32_t i : *plan.outputs()) m->outputs.push_back(i);
  m->input_is_set.assign(m->inputs.size(), false);
  for (size_t i = 0; i < m->inputs.size(); ++i) {
    // Inputs that need no data (None) count as set.
    if (m->values[size_t(m->inputs[i])].is_none()) m->input_is_set[i] = true;
  }

  s = m->budget_.reserve(options.temp_pool_bytes, "the temp pool (LoadOptions::temp_pool_bytes)");
  if (!s.is_ok()) return std::move(s).with_context(ctx);
  m->temp_pool_.reset(new (std::nothrow) uint8_t[options.temp_pool_bytes + 64]);
  if (!m->temp_pool_ && options.temp_pool_bytes)
    return make_error(Error::MemoryAllocationFailed, ctx, ": cannot allocate the ", options.temp_pool_bytes,
                      "-byte temp pool");
  m->temp = TempAllocator(m->temp_pool_.get(), options.temp_pool_bytes);

  s = m->prepare_kernels();
  if (!s.is_ok()) return std::move(s).with_context(ctx);

  auto t_delegates = std::chrono::steady_clock::now();
  s = m->init_delegates(options);
  if (!s.is_ok()) return std::move(s).with_context(ctx);
  m->stats.delegate_init_ms = ms_since(t_delegates);
  m->stats.total_ms = ms_since(t0);
  m->stats.budgeted_bytes = m->budget_.used();
  m->stats.memory_budget_bytes = m->budget_.limit();
  m->profile.resize(m->instructions_.size());
  for (size_t i = 0; i < m->instructions_.size(); ++i) m->profile[i].name = m->instructions_[i].name;
  m->tracer = options.event_tracer;
  if (m->tracer) m->trace_load(trace_start_ns);
  return m;
}

Status MethodImpl::plan_buffers() {
  // Every size is counted before any buffer is allocated: a file asking for too much fails
  // without having taken anything.
  for (size_t i = 0; i < meta.planned_buffer_sizes.size(); ++i)
    VKRT_RETURN_IF_ERROR(budget_.reserve(uint64_t(meta.planned_buffer_sizes[i]), "planned buffer " + std::to_string(i)));
  for (int64_t size : meta.planned_buffer_sizes) {
    // Zeroed so that runs are deterministic even for values a program reads before writing;
    // calloc maps large buffers as untouched zero pages, so memory becomes resident only
    // where the program writes.
    std::unique_ptr<uint8_t, FreeDeleter> buf(static_cast<uint8_t*>(std::calloc(size_t(size) + kPlannedAlignment, 1)));
    if (!buf)
      return make_error(Error::MemoryAllocationFailed, "cannot allocate planned buffer ", planned_buffers_.size(),
                        " (", size, " bytes)");
    planned_buffers_.push_back(std::move(buf));
    planned_sizes_.push_back(size_t(size));
  }
  return Status::ok();
}

Status MethodImpl::parse_tensor(size_t index, const fb::Tensor& t, Tensor& out) {
  VKRT_RETURN_IF_ERROR(place_tensor_data(index, t, out));
  // Kernels load elements with typed loads: every tensor must be aligned to its element size.
  // Writers align constants to 16 and planned offsets to 16, so only a damaged file trips this.
  if (out.data() && reinterpret_cast<uintptr_t>(out.data()) % out.element_size() != 0)
    return make_error(Error::InvalidProgram, "value ", index, ": tensor data is not aligned to its ",
                      out.element_size(), "-byte elements");
  return Status::ok();
}

Status MethodImpl::place_tensor_data(size_t index, const fb::Tensor& t, Tensor& out) {
  VKRT_ASSIGN_OR_RETURN(out, parse_tensor_layout(t, index));
  const size_t nbytes = out.nbytes();
  const auto* alloc = t.allocation_info();
  void* planned = nullptr;
  if (alloc) {
    uint32_t id = alloc->memory_id();
    uint64_t offset = uint64_t(alloc->memory_offset_low()) | (uint64_t(alloc->memory_offset_high()) << 32);
    if (id == 0 || id - 1 >= planned_buffers_.size())
      return make_error(Error::MemoryAllocationFailed, "value ", index, ": memory_id ", id, " out of range (",
                        planned_buffers_.size(), " planned buffers)");
    uint64_t end = 0;
    if (__builtin_add_overflow(offset, uint64_t(nbytes), &end) || end > planned_sizes_[id - 1])
      return make_error(Error::MemoryAllocationFailed, "value ", index, ": ", nbytes, " bytes at offset ", offset,
                        " run past planned buffer ", id - 1, " (", planned_sizes_[id - 1], " bytes)");
    uint8_t* base = planned_buffers_[id - 1].get();
    base += (kPlannedAlignment - reinterpret_cast<uintptr_t>(base) % kPlannedAlignment) % kPlannedAlignment;
    planned = base + offset;
  }

  const auto* extra = t.extra_tensor_info();
  if (extra && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    if (!extra->fully_qualified_name())
      return make_error(Error::InvalidProgram, "value ", index, ": external tensor without a name");
    std::string fqn = extra->fully_qualified_name()->str();
    const ExternalData* ext = program_->external_data();
    const ExternalEntry* e = ext ? ext->find(fqn) : nullptr;
    if (!e)
      return make_error(ext ? Error::NotFound : Error::InvalidExternalData, "value ", index, ": external tensor '",
                        fqn, "' not found", ext ? " in the .ptd file" : " (no .ptd data file was given: --data_path)");
    if (e->has_layout) {
      bool sizes_match = e->sizes.size() == size_t(out.rank());
      for (size_t i = 0; sizes_match && i < e->sizes.size(); ++i) sizes_match = e->sizes[i] == out.size(int(i));
      if (e->dtype != out.dtype() || !sizes_match)
        return make_error(Error::InvalidExternalData, "value ", index, ": external tensor '", fqn,
                          "' layout in the .ptd file does not match the program");
    }
    if (e->bytes.size() < nbytes)
      return make_error(Error::InvalidExternalData, "value ", index, ": external tensor '", fqn, "' has ",
                        e->bytes.size(), " bytes, needs ", nbytes);
    if (planned) {
      memcpy(planned, e->bytes.data(), nbytes);
      out.set_data(planned);
    } else {
      out.set_data(const_cast<uint8_t*>(e->bytes.data()));  // constants are read-only by contract
      mark_constant(index);
    }
    return Status::ok();
  }

  uint32_t buffer_idx = t.data_buffer_idx();
  if (buffer_idx > 0 && !alloc) {
    VKRT_ASSIGN_OR_RETURN(const uint8_t* data, program_->constant_data(buffer_idx, nbytes));
    out.set_data(const_cast<uint8_t*>(data));  // constants are used in place, never written
    mark_constant(index);
  } else if (buffer_idx > 0) {
    VKRT_ASSIGN_OR_RETURN(auto init, program_->mutable_data(buffer_idx, nbytes));
    memcpy(planned, init.data(), nbytes);
    out.set_data(planned);
  } else if (alloc) {
    out.set_data(planned);
  }
  return Status::ok();
}

Status MethodImpl::parse_values(const LoadOptions&) {
  const auto* fvalues = plan_->values();
  const size_t n = fvalues ? fvalues->size() : 0;
  values.assign(n, EValue());
  tensors_.assign(n, Tensor());  // one slot per value keeps the pointers stable
  auto index_list = [&](const flatbuffers::Vector<int32_t>* items, size_t i, bool optional) -> Status {
    std::vector<EValue*> ptrs;
    for (flatbuffers::uoffset_t k = 0; items && k < items->size(); ++k) {
      int32_t idx = items->Get(k);
      if (optional && idx == -1) {
        ptrs.push_back(nullptr);
        continue;
      }
      if (idx < 0 || size_t(idx) >= n)
        return make_error(Error::InvalidProgram, "value ", i, ": list item ", k, " refers to value ", idx, " of ", n);
      ptrs.push_back(&values[size_t(idx)]);
    }
    pointer_lists_.push_back(std::move(ptrs));
    return Status::ok();
  };

  for (size_t i = 0; i < n; ++i) {
    const auto* ev = fvalues->Get(flatbuffers::uoffset_t(i));
    // The verifier accepts a union tag without its table; every case below needs the table.
    if (ev->val_type() != fb::KernelTypes::NONE && !ev->val())
      return make_error(Error::InvalidProgram, "value ", i, " has type tag ", int(ev->val_type()), " but no value");
    switch (ev->val_type()) {
      case fb::KernelTypes::NONE:
      case fb::KernelTypes::Null:
        break;
      case fb::KernelTypes::Int:
        values[i] = EValue::from_int(ev->val_as_Int()->int_val());
        break;
      case fb::KernelTypes::Bool:
        values[i] = EValue::from_bool(ev->val_as_Bool()->bool_val());
        break;
      case fb::KernelTypes::Double:
        values[i] = EValue::from_double(ev->val_as_Double()->double_val());
        break;
      case fb::KernelTypes::String: {
        const auto* s = ev->val_as_String()->string_val();
        values[i] = EValue::from_string(s ? s->string_view() : std::string_view());
        break;
      }
      case fb::KernelTypes::Tensor:
        VKRT_RETURN_IF_ERROR(parse_tensor(i, *ev->val_as_Tensor(), tensors_[i]));
        values[i] = EValue::from_tensor(&tensors_[i]);
        break;
      case fb::KernelTypes::IntList: {
        // Items are indices of boxed Int values (pte-format.md §5).
        const auto* items = ev->val_as_IntList()->items();
        std::vector<EValue*> ptrs;
        for (flatbuffers::uoffset_t k = 0; items && k < items->size(); ++k) {
          int64_t idx = load_element(items, k);
          if (idx < 0 || uint64_t(idx) >= n)
            return make_error(Error::InvalidProgram, "value ", i, ": IntList item ", k, " refers to value ", idx,
                              " of ", n);
          ptrs.push_back(&values[size_t(idx)]);
        }
        pointer_lists_.push_back(std::move(ptrs));
        values[i] = EValue::from_int_list(pointer_lists_.back());
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = ev->val_as_DoubleList()->items();
        double_lists_.emplace_back();
        for (size_t k = 0; items && k < items->size(); ++k) double_lists_.back().push_back(load_element(items, k));
        values[i] = EValue::from_double_list(double_lists_.back());
        break;
      }
      case fb::KernelTypes::BoolList: {
        const auto* items = ev->val_as_BoolList()->items();
        size_t count = items ? items->size() : 0;
        auto bools = std::make_unique<bool[]>(count + 1);  // owned before the list can grow (and throw)
        bool_lists_.push_back(std::move(bools));
        for (size_t k = 0; k < count; ++k) bool_lists_.back()[k] = items->Get(flatbuffers::uoffset_t(k)) != 0;
        values[i] = EValue::from_bool_list({bool_lists_.back().get(), count});
        break;
      }
      case fb::KernelTypes::TensorList:
        VKRT_RETURN_IF_ERROR(index_list(ev->val_as_TensorList()->items(), i, false));
        values[i] = EValue::from_tensor_list(pointer_lists_.back());
        break;
      case fb::KernelTypes::OptionalTensorList:
        VKRT_RETURN_IF_ERROR(index_list(ev->val_as_OptionalTensorList()->items(), i, true));
        values[i] = EValue::from_optional_tensor_list(pointer_lists_.back());
        break;
      default:
        return make_error(Error::InvalidProgram, "value ", i, " has unknown type tag ", int(ev->val_type()));
    }
  }
  return Status::ok();
}

Status MethodImpl::check_lists() {
  for (size_t i = 0; i < values.size(); ++i) {
    const EValue& v = values[i];
    if (v.is_int_list()) {
      for (EValue* item : v.boxed_items())
        if (!item->is_int())
          return make_error(Error::InvalidProgram, "value ", i, ": IntList item is ", tag_name(item->tag()),
                            ", expected Int");
    } else if (v.is_tensor_list() || v.is_optional_tensor_list()) {
      for (EValue* item : v.boxed_items())
        if (item && !item->is_tensor())
          return make_error(Error::InvalidProgram, "value ", i, ": tensor list item is ", tag_name(item->tag()),
                            ", expected Tensor");
    }
  }
  return Status::ok();
}

std::span<EValue* const> MethodImpl::make_arg_span(const flatbuffers::Vector<int32_t>* indices, const char* what,
                                                   size_t instr_index, Status* error) {
  std::vector<EValue*> ptrs;
  for (flatbuffers::uoffset_t k = 0; indices && k < indices->size(); ++k) {
    int32_t idx = indices->Get(k);
    if (idx < 0 || size_t(idx) >= values.size()) {
      *error = make_error(Error::InvalidProgram, "instruction ", instr_index, " (", what, "): argument ", k,
                          " refers to value ", idx, " of ", values.size());
      return {};
    }
    ptrs.push_back(&values[size_t(idx)]);
  }
  pointer_lists_.push_back(std::move(ptrs));
  return pointer_lists_.back();
}

Status MethodImpl::resolve_instructions() {
  const auto* chains = plan_->chains();
  if (!chains || chains->size() == 0) return Status::ok();
  if (chains->size() > 1)
    return make_error(Error::NotSupported, "methods with ", chains->size(), " chains are not supported");
  const auto* instrs = chains->Get(0)->instructions();
  const size_t count = instrs ? instrs->size() : 0;
  const size_t num_values = values.size();
  auto value_ok = [&](int32_t v) { return v >= 0 && size_t(v) < num_values; };
  for (size_t i = 0; i < count; ++i) {
    const auto* in = instrs->Get(flatbuffers::uoffset_t(i));
    if (!in->instr_args())
      return make_error(Error::InvalidProgram, "instruction ", i, " has no arguments table");
    InstructionEntry e;
    Status err;
    switch (in->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const auto* k = in->instr_args_as_KernelCall();
        int32_t op = k->op_index();
        if (op < 0 || size_t(op) >= meta.operators.size())
          return make_error(Error::InvalidProgram, "instruction ", i, ": operator index ", op, " of ",
                            meta.operators.size());
        e.kind = InstructionEntry::Kind::Kernel;
        e.name = meta.operators[size_t(op)];
        e.kernel = KernelRegistry::global().find(e.name);
        e.args = make_arg_span(k->args(), e.name.c_str(), i, &err);
        break;
      }
      case fb::InstructionArguments::DelegateCall: {
        const auto* d = in->instr_args_as_DelegateCall();
        int32_t di = d->delegate_index();
        if (di < 0 || size_t(di) >= meta.backends.size())
          return make_error(Error::InvalidProgram, "instruction ", i, ": delegate index ", di, " of ",
                            meta.backends.size());
        e.kind = InstructionEntry::Kind::Delegate;
        e.delegate = uint32_t(di);
        e.name = "delegate:" + meta.backends[size_t(di)];
        e.args = make_arg_span(d->args(), e.name.c_str(), i, &err);
        break;
      }
      case fb::InstructionArguments::MoveCall: {
        const auto* mv = in->instr_args_as_MoveCall();
        if (!value_ok(mv->move_from()) || !value_ok(mv->move_to()))
          return make_error(Error::InvalidProgram, "instruction ", i, ": move ", mv->move_from(), " -> ",
                            mv->move_to(), " is out of range (", num_values, " values)");
        e.kind = InstructionEntry::Kind::Move;
        e.a = mv->move_from();
        e.b = mv->move_to();
        e.name = "move";
        break;
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const auto* j = in->instr_args_as_JumpFalseCall();
        if (!value_ok(j->cond_value_index()))
          return make_error(Error::InvalidProgram, "instruction ", i, ": condition value ", j->cond_value_index(),
                            " out of range");
        if (j->destination_instruction() < 0 || size_t(j->destination_instruction()) >= count)
          return make_error(Error::InvalidProgram, "instruction ", i, ": jump destination ",
                            j->destination_instruction(), " out of range (", count, " instructions)");
        e.kind = InstructionEntry::Kind::JumpFalse;
        e.a = j->cond_value_index();
        e.b = j->destination_instruction();
        e.name = "jump_false";
        break;
      }
      case fb::InstructionArguments::FreeCall: {
        const auto* f = in->instr_args_as_FreeCall();
        if (!value_ok(f->value_index()) || !values[size_t(f->value_index())].is_tensor())
          return make_error(Error::InvalidProgram, "instruction ", i, ": free of value ", f->value_index(),
                            ", which is not a tensor");
        e.kind = InstructionEntry::Kind::Free;
        e.a = f->value_index();
        e.name = "free";
        break;
      }
      default:
        return make_error(Error::InvalidProgram, "instruction ", i, " has unknown kind ", int(in->instr_args_type()));
    }
    if (!err.is_ok()) return err;
    instructions_.push_back(std::move(e));
  }
  return Status::ok();
}

namespace {
// What a prepare function may use: memory owned by the method, and which values are constants.
class MethodPrepareContext final : public KernelPrepareContext {
 public:
  MethodPrepareContext(std::span<const EValue> values, const std::vector<bool>& constant,
                       std::vector<std::unique_ptr<uint8_t[]>>& memory, MemoryBudget& budget, int threads)
      : values_(values), constant_(constant), memory_(memory), budget_(budget), threads_(threads) {}

  void* allocate_persistent(size_t bytes, size_t alignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || bytes > (size_t(1) << 40)) return nullptr;
    if (Status s = budget_.reserve(bytes, "prepared kernel state"); !s.is_ok()) {
      budget_failure_ = std::move(s);
      return nullptr;
    }
    std::unique_ptr<uint8_t[]> block(new (std::nothrow) uint8_t[bytes + alignment]);
    if (!block) return nullptr;
    const uintptr_t start = (reinterpret_cast<uintptr_t>(block.get()) + alignment - 1) & ~uintptr_t(alignment - 1);
    memory_.push_back(std::move(block));
    bytes_ += bytes;
    return reinterpret_cast<void*>(start);
  }
  bool is_constant(const EValue* value) const override {
    if (value < values_.data() || value >= values_.data() + values_.size()) return false;
    const size_t index = size_t(value - values_.data());
    return index < constant_.size() && constant_[index];
  }
  int num_threads() const override { return threads_; }
  size_t bytes() const { return bytes_; }
  // The budget's refusal when allocate_persistent returned nullptr for it (else ok): a more
  // useful error than the kernel's own "cannot allocate".
  const Status& budget_failure() const { return budget_failure_; }

 private:
  std::span<const EValue> values_;
  const std::vector<bool>& constant_;
  std::vector<std::unique_ptr<uint8_t[]>>& memory_;
  MemoryBudget& budget_;
  Status budget_failure_;
  int threads_;
  size_t bytes_ = 0;
};
}  // namespace

void MethodImpl::mark_constant(size_t index) {
  if (constant_values_.size() <= index) constant_values_.resize(index + 1, false);
  constant_values_[index] = true;
}

Status MethodImpl::prepare_kernels() {
  // A value that a move instruction overwrites is not constant, whatever it starts as.
  for (const InstructionEntry& in : instructions_)
    if (in.kind == InstructionEntry::Kind::Move && size_t(in.b) < constant_values_.size())
      constant_values_[size_t(in.b)] = false;
  MethodPrepareContext pctx(values, constant_values_, kernel_state_memory_, budget_,
                            threads_ ? threads_->num_threads() : 1);
  for (size_t i = 0; i < instructions_.size(); ++i) {
    InstructionEntry& in = instructions_[i];
    if (in.kind != InstructionEntry::Kind::Kernel || in.kernel == nullptr) continue;
    const KernelPrepareFunction prepare = KernelRegistry::global().find_prepare(in.name);
    if (prepare == nullptr) continue;
    pctx.set_state(nullptr);
    Status s = prepare(pctx, in.args);
    if (!s.is_ok() && !pctx.budget_failure().is_ok()) s = pctx.budget_failure();
    if (!s.is_ok()) return std::move(s).with_context("preparing instruction " + std::to_string(i) + " (" + in.name + ")");
    in.kernel_state = pctx.state();
    if (in.kernel_state) ++stats.prepared_instructions;
  }
  stats.prepared_bytes = pctx.bytes();
  return Status::ok();
}

Status MethodImpl::init_delegates(const LoadOptions& options) {
  const auto* fdelegates = plan_->delegates();
  const size_t n = fdelegates ? fdelegates->size() : 0;
  delegates_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto* d = fdelegates->Get(flatbuffers::uoffset_t(i));
    DelegateEntry& entry = delegates_[i];
    entry.id = meta.backends[i];
    entry.backend = BackendRegistry::global().find(entry.id);  // checked present in load()
    VKRT_ASSIGN_OR_RETURN(auto payload, program_->delegate_payload(d->processed()));
    std::vector<CompileSpec> specs;
    if (const auto* cs = d->compile_specs()) {
      for (const auto* spec : *cs) {
        CompileSpec c;
        if (spec->key()) c.key = spec->key()->string_view();
        if (spec->value()) c.value = {spec->value()->data(), spec->value()->size()};
        specs.push_back(c);
      }
    }
    BackendInitContext ctx;
    ctx.method_name = meta.name;
    ctx.named_data = &program_->named_data();
    ctx.options = &options.backend_options;
    ctx.memory_budget = &budget_;
    ctx.num_threads = threads_ ? threads_->num_threads() : 1;
    ctx.notices = &notices;
    ctx.placements = &placements;
    for (const auto& instr : instructions_) {
      if (instr.kind == InstructionEntry::Kind::Delegate && instr.delegate == i) {
        ctx.call_args = instr.args;
        break;
      }
    }
    auto handle = entry.backend->init(ctx, payload, specs);
    if (!handle.ok())
      return Status(handle.status().code(),
                    "delegate " + std::to_string(i) + " (" + entry.id + ") init failed: " + handle.status().message());
    entry.handle = std::move(handle).value();
  }
  return Status::ok();
}

}  // namespace vkrt
