#include <cstdio>

#include "api_boundary.h"
#include "vkrt/backend.h"

namespace vkrt {

void BackendOptions::set(std::string key, std::string value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

std::string_view BackendOptions::get(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return v;
  return {};
}

bool BackendOptions::has(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return true;
  return false;
}

BackendRegistry& BackendRegistry::global() {
  static BackendRegistry* registry = new BackendRegistry();  // never destroyed: used by static registrars
  return *registry;
}

Status BackendRegistry::add(std::string_view name, std::shared_ptr<Backend> backend) {
  return detail::guard_api("BackendRegistry::add", [&]() -> Status {
    if (!backend) return make_error(Error::InvalidArgument, "backend ", name, " is null");
    if (find(name))
      return make_error(Error::RegistrationAlreadyRegistered, "backend ", name, " is already registered");
    entries_.emplace_back(std::string(name), std::move(backend));
    return Status::ok();
  });
}

Backend* BackendRegistry::find(std::string_view name) const {
  for (const auto& [n, b] : entries_)
    if (n == name) return b.get();
  return nullptr;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, b] : entries_) out.push_back(n);
  return out;
}

detail::BackendRegistrar::BackendRegistrar(const char* name, std::shared_ptr<Backend> backend) {
  Status s = BackendRegistry::global().add(name, std::move(backend));
  if (!s.is_ok()) fprintf(stderr, "vkrt: %s\n", s.to_string().c_str());
}

}  // namespace vkrt
