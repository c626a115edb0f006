// libFuzzer target for the two Vulkan cache files read from disk (cache_file.h): the input is a
// file's bytes, checked as a pipeline cache file (header check, then the whole file against a
// fixed device; a file that passes has its payload read as the driver's header says) and as a
// SPIR-V chain cache file (header check and decode). No device is needed: every check is pure.
// The chain cache's words are validated by SPIRV-Tools after decode (spirv_disk_cache.cpp); that
// third-party validator is fuzzed upstream and not here. Any crash or sanitizer report is a bug.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "vgf/vulkan/cache_file.h"
#include "vgf/vulkan/fuzz/fuzz_device.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt::vulkan;
  static const DeviceInfo device = fuzzing::fuzz_device();
  const std::span<const uint8_t> file(data, size);
  const std::span<const uint8_t> head = file.first(std::min(size, kPipelineCacheHeaderBytes));
  (void)pipeline_cache_header_ok(head, size, device);
  std::span<const uint8_t> payload;
  if (validate_cache_file(file, device, &payload) == CacheLoadResult::Loaded) {
    // What a driver would read first: the header length it was told is in bounds.
    uint32_t header_length;
    std::memcpy(&header_length, payload.data(), 4);
    volatile uint8_t last = payload[header_length - 1];
    (void)last;
  }
  (void)chain_cache_header_ok(file.first(std::min(size, kChainCacheHeaderBytes)), size);
  if (auto entry = decode_chain_cache_file(file)) {
    volatile size_t sum = 0;
    for (char c : entry->source) sum = sum + uint8_t(c);
    for (uint8_t b : entry->words) sum = sum + b;
  }
  return 0;
}
