#include "vkrt/module.h"

#include "api_boundary.h"
#include "method_impl.h"
#include "method_meta.h"
#include "program.h"
#include "vkrt/thread_pool.h"

namespace vkrt {

using detail::guard_api;

namespace {
Status method_not_found(const Program& program, std::string_view name) {
  std::string names;
  for (const auto& n : program.method_names()) names += (names.empty() ? "" : ", ") + n;
  return make_error(Error::NotFound, "method '", name, "' not found; the program has: ", names);
}
}  // namespace

// ---- Method: thin public wrapper over MethodImpl ----

Method::Method(std::unique_ptr<MethodImpl> impl) : impl_(std::move(impl)) {}
Method::~Method() = default;
const MethodMeta& Method::meta() const { return impl_->meta; }
Status Method::set_input(size_t index, const EValue& value) {
  return guard_api("Method::set_input", [&] { return impl_->set_input(index, value); });
}
EValue& Method::input(size_t index) { return impl_->values[size_t(impl_->inputs[index])]; }
size_t Method::num_inputs() const { return impl_->inputs.size(); }
Status Method::execute() {
  return guard_api("Method::execute", [&] { return impl_->execute(); });
}
size_t Method::num_outputs() const { return impl_->outputs.size(); }
const EValue& Method::output(size_t index) const { return impl_->values[size_t(impl_->outputs[index])]; }
Status Method::set_output_data_ptr(size_t index, void* data, size_t nbytes) {
  return guard_api("Method::set_output_data_ptr", [&] { return impl_->set_output_data_ptr(index, data, nbytes); });
}
const MethodLoadStats& Method::load_stats() const { return impl_->stats; }
const std::vector<std::string>& Method::notices() const { return impl_->notices; }
const std::vector<std::string>& Method::placements() const { return impl_->placements; }
size_t Method::temp_high_water() const { return impl_->temp.high_water(); }
void Method::set_profiling(bool enabled) {
  impl_->profiling = enabled;
  for (auto& p : impl_->profile) p.calls = 0, p.total_ms = 0;
}
const std::vector<Method::InstructionProfile>& Method::profile() const { return impl_->profile; }
void Method::set_event_tracer(EventTracer* tracer) { impl_->tracer = tracer; }

// ---- Module ----

Module::Module(std::unique_ptr<Program> program, LoadOptions options)
    : program_(std::move(program)), options_(std::move(options)) {
  if (options_.num_threads > 1) threads_ = std::make_unique<ThreadPool>(options_.num_threads);
}
Module::~Module() {
  methods_.clear();  // delegates are destroyed before the program they point into
}

Result<std::unique_ptr<Module>> Module::load(const std::string& path, LoadOptions options) {
  return guard_api("Module::load", [&]() -> Result<std::unique_ptr<Module>> {
    VKRT_ASSIGN_OR_RETURN(auto file, FileData::map(path));
    std::shared_ptr<FileData> data;
    if (!options.data_path.empty()) {
      VKRT_ASSIGN_OR_RETURN(data, FileData::map(options.data_path));
    }
    VKRT_ASSIGN_OR_RETURN(auto program, Program::load(std::move(file), std::move(data)));
    return std::unique_ptr<Module>(new Module(std::move(program), std::move(options)));
  });
}

Result<std::unique_ptr<Module>> Module::load_from_buffer(std::span<const uint8_t> bytes, LoadOptions options,
                                                         std::span<const uint8_t> data_file) {
  return guard_api("Module::load_from_buffer", [&]() -> Result<std::unique_ptr<Module>> {
    std::shared_ptr<FileData> data;
    if (!data_file.empty()) {
      data = FileData::borrow(data_file);
    } else if (!options.data_path.empty()) {
      VKRT_ASSIGN_OR_RETURN(data, FileData::map(options.data_path));
    }
    VKRT_ASSIGN_OR_RETURN(auto program, Program::load(FileData::borrow(bytes), std::move(data)));
    return std::unique_ptr<Module>(new Module(std::move(program), std::move(options)));
  });
}

const std::vector<std::string>& Module::method_names() const { return program_->method_names(); }

Result<MethodMeta> Module::method_meta(std::string_view name) const {
  return guard_api("Module::method_meta", [&]() -> Result<MethodMeta> {
    const auto* plan = program_->find_plan(name);
    if (!plan) return method_not_found(*program_, name);
    return build_method_meta(*program_, *plan);
  });
}

Result<Method*> Module::load_method(std::string_view name) {
  return guard_api("Module::load_method", [&]() -> Result<Method*> {
    for (auto& [n, m] : methods_)
      if (n == name) return m.get();
    const auto* plan = program_->find_plan(name);
    if (!plan) return method_not_found(*program_, name);
    // Upstream records loading as its own run: Method::init inside Program::load_method.
    EventTracer* tracer = options_.event_tracer;
    const uint64_t t0 = tracer ? trace_now_ns() : 0;
    if (tracer) tracer->begin_run("Default");
    VKRT_ASSIGN_OR_RETURN(auto impl, MethodImpl::load(*program_, *plan, options_, threads_.get()));
    methods_.emplace_back(std::string(name), std::unique_ptr<Method>(new Method(std::move(impl))));
    if (tracer) tracer->profile_event(runtime_event("Program::load_method", -1, 0, t0, trace_now_ns()));
    return methods_.back().second.get();
  });
}

}  // namespace vkrt
