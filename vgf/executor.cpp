// Registry of graph-executor factories (see executor.h).
#include "vgf/executor.h"

#include <mutex>
#include <utility>

namespace vkrt::vgf {
namespace {

struct FactoryRegistry {
  std::mutex mutex;
  std::vector<std::pair<std::string, ExecutorFactory>> entries;
};

FactoryRegistry& registry() {
  static FactoryRegistry instance;  // function-local: safe from static-init order
  return instance;
}

ExecutorFactory find_factory(std::string_view name) {
  FactoryRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& [n, f] : r.entries) {
    if (n == name) return f;
  }
  return nullptr;
}

}  // namespace

bool host_type_compatible(DType dtype, ScalarType host) {
  if (dtype_to_scalar_type(dtype) == host) return true;
  if (dtype_is_float(dtype) || dtype == DType::Bool || host == ScalarType::Bool) return false;
  if (is_floating(host)) return false;
  return element_size(host) == dtype_storage_bytes(dtype);
}

Status register_executor_factory(std::string_view name, ExecutorFactory factory) {
  VKRT_CHECK_OR_RETURN(factory != nullptr, InvalidArgument, "executor factory '",
                       std::string(name), "' is null");
  FactoryRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& entry : r.entries) {
    VKRT_CHECK_OR_RETURN(entry.first != name, RegistrationAlreadyRegistered,
                         "graph executor '", std::string(name), "' is already registered");
  }
  r.entries.emplace_back(std::string(name), factory);
  return Status::ok();
}

bool has_executor_factory(std::string_view name) { return find_factory(name) != nullptr; }

std::vector<std::string> executor_factory_names() {
  FactoryRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.entries) names.push_back(entry.first);
  return names;
}

const VgfOptions& ExecutorOptions::default_vgf_options() {
  static const VgfOptions defaults;
  return defaults;
}

Result<std::unique_ptr<GraphExecutor>> create_executor(std::string_view name, const VgfOptions& options) {
  ExecutorFactory factory = find_factory(name);
  if (factory == nullptr) {
    std::string known;
    for (const std::string& n : executor_factory_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error(Error::NotFound, "graph executor '", std::string(name),
                      "' is not registered (registered: ", known.empty() ? "none" : known, ")");
  }
  return factory(options);
}

namespace detail {
ExecutorRegistrar::ExecutorRegistrar(const char* name, ExecutorFactory factory) {
  // A duplicate name is a build mistake; the first registration stays in effect.
  (void)register_executor_factory(name, factory);
}
}  // namespace detail

}  // namespace vkrt::vgf
