#include "vgf/vulkan/spirv_disk_cache.h"

#include <cstring>

#include "vgf/vulkan/cache_file.h"
#include "vgf/vulkan/glsl_compiler.h"
#include "vgf/vulkan/pipeline_cache.h"

namespace vkrt::vulkan {

std::string SpirvDiskCache::path(std::string_view name) const {
  if (dir_.empty() || name.empty() || name.size() > 64) return "";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return "";
  }
  return dir_ + "/vkrt-chain-" + std::string(name) + ".spv";
}

std::optional<std::vector<uint32_t>> SpirvDiskCache::load(std::string_view name, std::string_view source) const {
  const std::string file = path(name);
  if (file.empty()) return std::nullopt;
  // Header first (magic, sizes against the file size), then the rest; never more than the cap.
  std::vector<uint8_t> bytes;
  auto header_ok = [](std::span<const uint8_t> header, uint64_t file_size) {
    return chain_cache_header_ok(header, file_size);
  };
  if (read_cache_file(file, kMaxChainCacheFileBytes, kChainCacheHeaderBytes, header_ok, &bytes) != CacheFileRead::Ok)
    return std::nullopt;
  const std::optional<ChainCacheEntry> entry = decode_chain_cache_file(bytes);
  if (!entry || entry->source != source) return std::nullopt;  // corrupt, or same hash for other text
  std::vector<uint32_t> words(entry->words.size() / 4);
  std::memcpy(words.data(), entry->words.data(), entry->words.size());
  if (!validate_spirv(words, name).is_ok()) return std::nullopt;
  return words;
}

void SpirvDiskCache::store(std::string_view name, std::string_view source, std::span<const uint32_t> words) const {
  const std::string file = path(name);
  if (file.empty() || source.size() > kMaxChainCacheFileBytes || words.size() > kMaxChainCacheFileBytes / 4) return;
  (void)write_file_atomically(file, encode_chain_cache_file(source, words));
}

}  // namespace vkrt::vulkan
