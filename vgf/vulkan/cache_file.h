// The bytes of the two on-disk Vulkan caches, checked without a device: the pipeline cache file
// (pipeline_cache.h) and the SPIR-V chain cache file (spirv_disk_cache.h). Everything here is pure
// (no I/O, no Vulkan calls), so that the readers' checks are unit-tested and fuzzed
// (vgf/vulkan/fuzz/vulkan_cache_fuzzer.cpp) on any machine. Every byte is untrusted.
//
// Pipeline cache file: our header (magic "VKRTPC01", device UUID, driver version, vendor/device
// id, u64 payload size, u64 FNV-1a of the payload; 52 bytes) then the driver's
// vkGetPipelineCacheData bytes, whose own header (Vulkan spec, "Pipeline Cache": length, version
// ONE, vendorID, deviceID, pipelineCacheUUID) is checked against the device too.
// Chain cache file, little-endian: "VKRTSPV1" | u64 FNV-1a of everything after this field |
// u32 source bytes | u32 SPIR-V words | the GLSL source | the SPIR-V words.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vgf/vulkan/context.h"

namespace vkrt::vulkan {

// The largest pipeline cache file read (driver pipeline caches are a few MiB at most).
inline constexpr uint64_t kMaxCacheFileBytes = uint64_t(256) << 20;
inline constexpr size_t kPipelineCacheHeaderBytes = 52;

// Why a cache file was (not) used; for tests and the benchmark's cold/warm report.
enum class CacheLoadResult { Disabled, NoFile, Loaded, RejectedCorrupt, RejectedForeign };
const char* cache_load_result_name(CacheLoadResult r);

// The check made on the first kPipelineCacheHeaderBytes of a file (fewer when it is shorter)
// before the rest is read: magic, device UUID, payload size against the file size.
bool pipeline_cache_header_ok(std::span<const uint8_t> header, uint64_t file_size, const DeviceInfo& device);
// Checks a whole cache file's bytes against the device. Returns the driver payload on success.
CacheLoadResult validate_cache_file(std::span<const uint8_t> file, const DeviceInfo& device,
                                    std::span<const uint8_t>* payload);
// Our file bytes for a driver payload.
std::vector<uint8_t> encode_cache_file(std::span<const uint8_t> payload, const DeviceInfo& device);

// The largest chain cache file read (generated chains are a few KiB).
inline constexpr uint64_t kMaxChainCacheFileBytes = uint64_t(64) << 20;
inline constexpr size_t kChainCacheHeaderBytes = 8 + 8 + 4 + 4;

// The check on a chain cache file's header before the rest is read: magic, a non-zero word count,
// and sizes that add up to the file size.
bool chain_cache_header_ok(std::span<const uint8_t> header, uint64_t file_size);
// A chain cache file's contents; both spans point into the file's bytes.
struct ChainCacheEntry {
  std::string_view source;
  std::span<const uint8_t> words;  // 4 * word count bytes, not necessarily 4-aligned
};
// The entry of a whole file, or nothing when the header, sizes or checksum are wrong. The words
// are not validated as SPIR-V here (the caller does, before they reach a driver).
std::optional<ChainCacheEntry> decode_chain_cache_file(std::span<const uint8_t> file);
std::vector<uint8_t> encode_chain_cache_file(std::string_view source, std::span<const uint32_t> words);

// FNV-1a 64 of `bytes` (both files' checksum).
uint64_t fnv1a(std::span<const uint8_t> bytes);

}  // namespace vkrt::vulkan
