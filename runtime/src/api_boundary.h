// The exception boundary of the public API: no exception crosses it (DESIGN.md, "Errors").
//
// Inside the runtime, std::string and the containers report exhausted memory the only way they
// can, by throwing std::bad_alloc; every owner is RAII, so the throw unwinds without a leak. Each
// public entry point that returns Status or Result<T> runs its body through guard_api, which
// turns std::bad_alloc into MemoryAllocationFailed and anything else into Internal.
#pragma once

#include <utility>

#include "vkrt/error.h"

namespace vkrt::detail {

// The Status for the exception being handled, prefixed by `where` ("Module::load"). Call only
// from a catch handler. Never throws: when even the message cannot be allocated, it carries a
// short fixed message that fits the string's inline buffer.
Status status_from_current_exception(const char* where) noexcept;

// Runs `body` (returning Status or Result<T>) and returns what it returns, or the caught
// exception as a Status.
template <typename Body>
auto guard_api(const char* where, Body&& body) noexcept -> decltype(std::forward<Body>(body)()) {
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    return status_from_current_exception(where);
  }
}

}  // namespace vkrt::detail
