// Generated SPIR-V kept on disk between runs, so that a warm init skips glslang, the expensive
// part of preparing a fused elementwise chain (elementwise_fusion.h). It lives next to the
// pipeline cache file (pipeline_cache.h) and is used only when that one is.
//
// File <dir>/vkrt-chain-<module name>.spv (layout and checks: cache_file.h):
//   "VKRTSPV1" | u64 FNV-1a of everything after this field | u32 source bytes | u32 SPIR-V words
//   | the GLSL source | the SPIR-V words
// A module name is only a 64-bit hash of the source, so a hit also requires the stored source
// to equal the one being compiled. The file is untrusted: only a regular file of at most 64 MiB
// is opened, its header is read first and its sizes checked against the file size before the
// rest is read, the checksum must match, and the words pass SPIRV-Tools validation before they reach the
// driver. Any failure is a miss: the source is compiled again and the file rewritten.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vkrt::vulkan {

class SpirvDiskCache {
 public:
  explicit SpirvDiskCache(std::string dir) : dir_(std::move(dir)) {}

  // The stored words for (name, source), or nothing (absent, corrupt, foreign, invalid).
  std::optional<std::vector<uint32_t>> load(std::string_view name, std::string_view source) const;
  // Best effort (a cache): I/O errors are ignored, and a failed write leaves the previous file
  // in place (write_file_atomically). Names outside [A-Za-z0-9_] are not stored.
  void store(std::string_view name, std::string_view source, std::span<const uint32_t> words) const;

  // The file a module lives in ("" for a name that cannot be a file name).
  std::string path(std::string_view name) const;

 private:
  std::string dir_;
};

}  // namespace vkrt::vulkan
