// libFuzzer target for ETDump files (vkrt/etdump.h): the input is decoded by read_etdump; what
// decodes is written again and must decode to the same runs. Any crash, sanitizer report or
// leak is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "vkrt/etdump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto etdump = vkrt::read_etdump(std::span<const uint8_t>(data, size));
  if (!etdump.ok()) return 0;
  auto again = vkrt::read_etdump(vkrt::write_etdump(*etdump));
  if (!again.ok() || again->runs.size() != etdump->runs.size()) std::abort();  // the writer lost something
  for (size_t r = 0; r < etdump->runs.size(); ++r)
    if (again->runs[r].events.size() != etdump->runs[r].events.size()) std::abort();
  return 0;
}
