#include "vkrt/memory_budget.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <string>

namespace vkrt {
namespace {

// "8589934592 bytes (8.0 GiB)": exact, and readable at a glance.
std::string describe_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::string out = std::to_string(bytes) + " bytes";
  if (bytes < 1024) return out;
  double value = double(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), " (%.1f %s)", value, kUnits[unit]);
  return out + buf;
}

}  // namespace

Status MemoryBudget::reserve(uint64_t bytes, std::string_view what) {
  const uint64_t left = limit_ - used_;  // used_ never exceeds limit_
  if (bytes > left)
    return make_error(Error::MemoryAllocationFailed, what, " needs ", describe_bytes(bytes), " but the memory budget has ",
                      describe_bytes(left), " left of ", describe_bytes(limit_),
                      " (raise it with LoadOptions::memory_budget_bytes or executor_runner --memory_budget)");
  used_ += bytes;
  return Status::ok();
}

uint64_t default_memory_budget_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t(1) << 30;
  return uint64_t(pages) / 2 * uint64_t(page_size);
}

Result<uint64_t> parse_byte_count(std::string_view text, std::string_view what) {
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [next, ec] = std::from_chars(begin, end, value);
  std::string_view suffix(next, size_t(end - next));
  int shift = -1;
  if (ec == std::errc() && next != begin) {
    if (suffix.empty()) shift = 0;
    for (auto [names, bits] : {std::pair{"kK", 10}, std::pair{"mM", 20}, std::pair{"gG", 30}, std::pair{"tT", 40}}) {
      if (suffix.empty() || std::string_view(names).find(suffix[0]) == std::string_view::npos) continue;
      const std::string_view rest = suffix.substr(1);
      if (rest.empty() || rest == "iB" || rest == "ib") shift = bits;
    }
  }
  if (shift < 0)
    return make_error(Error::InvalidArgument, what, ": '", text,
                      "' is not a byte count (a number, optionally followed by K, M, G or T)");
  if (shift > 0 && value > (UINT64_MAX >> shift))
    return make_error(Error::InvalidArgument, what, ": '", text, "' is more than 2^64 bytes");
  return value << shift;
}

}  // namespace vkrt
