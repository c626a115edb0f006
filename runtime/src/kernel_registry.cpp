#include <algorithm>
#include <cstdio>

#include "api_boundary.h"
#include "vkrt/kernel.h"

namespace vkrt {

void* TempAllocator::allocate(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  uintptr_t base = reinterpret_cast<uintptr_t>(base_);
  uintptr_t start = (base + used_ + alignment - 1) & ~(uintptr_t(alignment) - 1);
  size_t offset = start - base;
  if (offset > size_ || bytes > size_ - offset) return nullptr;
  used_ = offset + bytes;
  high_water_ = std::max(high_water_, used_);
  return base_ + offset;
}

void* KernelContext::try_allocate_temp(size_t bytes, size_t alignment) {
  return temp_ ? temp_->allocate(bytes, alignment) : nullptr;
}

Result<void*> KernelContext::allocate_temp(size_t bytes, size_t alignment) {
  void* p = try_allocate_temp(bytes, alignment);
  if (!p)
    return make_error(Error::MemoryAllocationFailed, "temp pool exhausted: asked for ", bytes,
                      " bytes, pool is ", temp_ ? temp_->capacity() : 0,
                      " bytes (raise LoadOptions::temp_pool_bytes)");
  return p;
}

void KernelContext::parallel_for(int count, const std::function<void(int)>& task) const {
  if (parallel_ && parallel_->num_threads() > 1 && count > 1) {
    parallel_->run(count, task);
    return;
  }
  for (int i = 0; i < count; ++i) task(i);
}

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = new KernelRegistry();  // never destroyed: used by static registrars
  return *registry;
}

Status KernelRegistry::add(std::string_view name, KernelFunction fn, KernelPrepareFunction prepare) {
  return detail::guard_api("KernelRegistry::add", [&]() -> Status {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                               [](const KernelEntry& e, std::string_view n) { return e.name < n; });
    if (it != entries_.end() && it->name == name)
      return make_error(Error::RegistrationAlreadyRegistered, "kernel ", name, " is already registered");
    if (!fn) return make_error(Error::InvalidArgument, "kernel ", name, " has no function");
    entries_.insert(it, KernelEntry{std::string(name), fn, prepare});
    return Status::ok();
  });
}

const KernelEntry* KernelRegistry::entry(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const KernelEntry& e, std::string_view n) { return e.name < n; });
  return (it != entries_.end() && it->name == name) ? &*it : nullptr;
}

KernelFunction KernelRegistry::find(std::string_view name) const {
  const KernelEntry* e = entry(name);
  return e ? e->fn : nullptr;
}

KernelPrepareFunction KernelRegistry::find_prepare(std::string_view name) const {
  const KernelEntry* e = entry(name);
  return e ? e->prepare : nullptr;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

detail::KernelRegistrar::KernelRegistrar(const char* name, KernelFunction fn, KernelPrepareFunction prepare) {
  Status s = KernelRegistry::global().add(name, fn, prepare);
  // Static initialisation cannot return an error; a duplicate is a build mistake, so say so.
  if (!s.is_ok()) fprintf(stderr, "vkrt: %s\n", s.to_string().c_str());
}

}  // namespace vkrt
