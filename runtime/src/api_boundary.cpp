#include "api_boundary.h"

#include <exception>
#include <new>
#include <string>

namespace vkrt::detail {

Status status_from_current_exception(const char* where) noexcept {
  Error code = Error::Internal;
  const char* what = "unknown exception";
  try {
    throw;
  } catch (const std::bad_alloc&) {
    code = Error::MemoryAllocationFailed;
    what = "out of memory";
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  try {
    return Status(code, std::string(where) + ": " + what);
  } catch (...) {
    // "out of memory" is short enough for std::string's inline buffer: no allocation.
    return Status(code, code == Error::MemoryAllocationFailed ? "out of memory" : "");
  }
}

}  // namespace vkrt::detail
