#include "vgf/vulkan/cache_file.h"

#include <cstring>

namespace vkrt::vulkan {
namespace {

constexpr char kPipelineMagic[8] = {'V', 'K', 'R', 'T', 'P', 'C', '0', '1'};
constexpr char kChainMagic[8] = {'V', 'K', 'R', 'T', 'S', 'P', 'V', '1'};
// The driver's header (Vulkan spec, VkPipelineCacheHeaderVersionOne): 16 + UUID bytes.
constexpr size_t kVkHeaderBytes = 16 + VK_UUID_SIZE;

// Little-endian hosts only (Linux x86-64 / aarch64).
uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

const char* cache_load_result_name(CacheLoadResult r) {
  switch (r) {
    case CacheLoadResult::Disabled: return "disabled";
    case CacheLoadResult::NoFile: return "no file";
    case CacheLoadResult::Loaded: return "loaded";
    case CacheLoadResult::RejectedCorrupt: return "rejected (corrupt)";
    case CacheLoadResult::RejectedForeign: return "rejected (other device or driver)";
  }
  return "unknown";
}

bool pipeline_cache_header_ok(std::span<const uint8_t> header, uint64_t file_size, const DeviceInfo& device) {
  if (header.size() < kPipelineCacheHeaderBytes || std::memcmp(header.data(), kPipelineMagic, 8) != 0) return false;
  if (std::memcmp(header.data() + 8, device.device_uuid.data(), VK_UUID_SIZE) != 0) return false;
  return read_u64(header.data() + 36) == file_size - kPipelineCacheHeaderBytes;
}

CacheLoadResult validate_cache_file(std::span<const uint8_t> file, const DeviceInfo& device,
                                    std::span<const uint8_t>* payload) {
  if (file.size() < kPipelineCacheHeaderBytes || std::memcmp(file.data(), kPipelineMagic, 8) != 0) {
    return CacheLoadResult::RejectedCorrupt;
  }
  const uint8_t* p = file.data() + 8;
  if (std::memcmp(p, device.device_uuid.data(), VK_UUID_SIZE) != 0 ||
      read_u32(p + 16) != device.driver_version || read_u32(p + 20) != device.vendor_id ||
      read_u32(p + 24) != device.device_id) {
    return CacheLoadResult::RejectedForeign;
  }
  uint64_t size = read_u64(p + 28);
  uint64_t hash = read_u64(p + 36);
  if (size != file.size() - kPipelineCacheHeaderBytes) return CacheLoadResult::RejectedCorrupt;
  std::span<const uint8_t> data = file.subspan(kPipelineCacheHeaderBytes);
  if (fnv1a(data) != hash) return CacheLoadResult::RejectedCorrupt;
  // The driver's own header, checked before the driver sees the bytes.
  if (data.size() < kVkHeaderBytes) return CacheLoadResult::RejectedCorrupt;
  uint32_t header_length = read_u32(data.data());
  uint32_t header_version = read_u32(data.data() + 4);
  if (header_length < kVkHeaderBytes || header_length > data.size() ||
      header_version != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
    return CacheLoadResult::RejectedCorrupt;
  }
  if (read_u32(data.data() + 8) != device.vendor_id || read_u32(data.data() + 12) != device.device_id ||
      std::memcmp(data.data() + 16, device.pipeline_cache_uuid.data(), VK_UUID_SIZE) != 0) {
    return CacheLoadResult::RejectedForeign;
  }
  *payload = data;
  return CacheLoadResult::Loaded;
}

std::vector<uint8_t> encode_cache_file(std::span<const uint8_t> payload, const DeviceInfo& device) {
  // Written field by field into the sized buffer (GCC 12 warns falsely on small vector inserts).
  std::vector<uint8_t> out(kPipelineCacheHeaderBytes + payload.size());
  uint8_t* p = out.data();
  auto put = [&p](const void* field, size_t bytes) {
    std::memcpy(p, field, bytes);
    p += bytes;
  };
  const uint64_t payload_bytes = payload.size(), hash = fnv1a(payload);
  put(kPipelineMagic, 8);
  put(device.device_uuid.data(), VK_UUID_SIZE);
  put(&device.driver_version, 4);
  put(&device.vendor_id, 4);
  put(&device.device_id, 4);
  put(&payload_bytes, 8);
  put(&hash, 8);
  if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
  return out;
}

bool chain_cache_header_ok(std::span<const uint8_t> header, uint64_t file_size) {
  if (header.size() < kChainCacheHeaderBytes || std::memcmp(header.data(), kChainMagic, 8) != 0) return false;
  const uint64_t source_bytes = read_u32(header.data() + 16), word_count = read_u32(header.data() + 20);
  return word_count != 0 && file_size == kChainCacheHeaderBytes + source_bytes + 4 * word_count;
}

std::optional<ChainCacheEntry> decode_chain_cache_file(std::span<const uint8_t> file) {
  if (!chain_cache_header_ok(file, file.size())) return std::nullopt;
  if (fnv1a(file.subspan(16)) != read_u64(file.data() + 8)) return std::nullopt;
  const size_t source_bytes = read_u32(file.data() + 16);
  ChainCacheEntry entry;
  entry.source = std::string_view(reinterpret_cast<const char*>(file.data() + kChainCacheHeaderBytes), source_bytes);
  entry.words = file.subspan(kChainCacheHeaderBytes + source_bytes);
  return entry;
}

std::vector<uint8_t> encode_chain_cache_file(std::string_view source, std::span<const uint32_t> words) {
  std::vector<uint8_t> out(kChainCacheHeaderBytes + source.size() + words.size_bytes());
  const uint32_t source_bytes = uint32_t(source.size()), word_count = uint32_t(words.size());
  std::memcpy(out.data(), kChainMagic, 8);
  std::memcpy(out.data() + 16, &source_bytes, 4);
  std::memcpy(out.data() + 20, &word_count, 4);
  if (!source.empty()) std::memcpy(out.data() + kChainCacheHeaderBytes, source.data(), source.size());
  if (!words.empty()) std::memcpy(out.data() + kChainCacheHeaderBytes + source.size(), words.data(), words.size_bytes());
  const uint64_t checksum = fnv1a(std::span<const uint8_t>(out).subspan(16));
  std::memcpy(out.data() + 8, &checksum, 8);
  return out;
}

uint64_t fnv1a(std::span<const uint8_t> bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace vkrt::vulkan
