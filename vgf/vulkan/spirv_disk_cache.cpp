#include "vgf/vulkan/spirv_disk_cache.h"

#include <cstring>

#include "vgf/vulkan/glsl_compiler.h"
#include "vgf/vulkan/pipeline_cache.h"

namespace vkrt::vulkan {
namespace {

constexpr char kMagic[8] = {'V', 'K', 'R', 'T', 'S', 'P', 'V', '1'};
constexpr size_t kHeaderBytes = 8 + 8 + 4 + 4;
constexpr size_t kMaxFileBytes = size_t(64) << 20;  // generated chains are a few KiB

template <typename T>
void append(std::vector<uint8_t>& out, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

template <typename T>
T read_at(const std::vector<uint8_t>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

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
    if (header.size() < kHeaderBytes || std::memcmp(header.data(), kMagic, 8) != 0) return false;
    uint32_t source_bytes, word_count;
    std::memcpy(&source_bytes, header.data() + 16, 4);
    std::memcpy(&word_count, header.data() + 20, 4);
    return word_count != 0 && file_size == kHeaderBytes + uint64_t(source_bytes) + 4 * uint64_t(word_count);
  };
  if (read_cache_file(file, kMaxFileBytes, kHeaderBytes, header_ok, &bytes) != CacheFileRead::Ok) return std::nullopt;
  const uint64_t checksum = read_at<uint64_t>(bytes, 8);
  const uint64_t source_bytes = read_at<uint32_t>(bytes, 16);
  const uint64_t word_count = read_at<uint32_t>(bytes, 20);
  if (bytes.size() != kHeaderBytes + source_bytes + 4 * word_count || word_count == 0) return std::nullopt;
  if (fnv1a(std::span<const uint8_t>(bytes).subspan(16)) != checksum) return std::nullopt;
  const std::string_view stored(reinterpret_cast<const char*>(bytes.data() + kHeaderBytes), source_bytes);
  if (stored != source) return std::nullopt;  // same hash, other text: not ours
  std::vector<uint32_t> words(word_count);
  std::memcpy(words.data(), bytes.data() + kHeaderBytes + source_bytes, 4 * word_count);
  if (!validate_spirv(words, name).is_ok()) return std::nullopt;
  return words;
}

void SpirvDiskCache::store(std::string_view name, std::string_view source, std::span<const uint32_t> words) const {
  const std::string file = path(name);
  if (file.empty() || source.size() > kMaxFileBytes || words.size() > kMaxFileBytes / 4) return;
  std::vector<uint8_t> bytes(kMagic, kMagic + 8);
  append(bytes, uint64_t(0));  // checksum, filled below
  append(bytes, uint32_t(source.size()));
  append(bytes, uint32_t(words.size()));
  bytes.insert(bytes.end(), source.begin(), source.end());
  const auto* w = reinterpret_cast<const uint8_t*>(words.data());
  bytes.insert(bytes.end(), w, w + words.size_bytes());
  const uint64_t checksum = fnv1a(std::span<const uint8_t>(bytes).subspan(16));
  std::memcpy(bytes.data() + 8, &checksum, 8);
  (void)write_file_atomically(file, bytes);
}

}  // namespace vkrt::vulkan
