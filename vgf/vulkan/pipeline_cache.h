// A VkPipelineCache persisted on disk, one file per device and driver.
//
// File: <dir>/vkrt-pipelines-<deviceUUID hex>-<driverVersion hex>.bin holding our own header
// followed by the driver's vkGetPipelineCacheData bytes (layout and checks: cache_file.h). Before
// the payload is handed to the driver, both our header and the driver's own header are checked
// against the device; a corrupt, truncated or foreign file is ignored (an empty cache is used) and
// overwritten at the next save. Saving writes a temporary file and renames it (atomic).
// The file is untrusted: it must be a regular file of at most kMaxCacheFileBytes, and the header
// is read and checked (bounded reads) before the payload is; anything else at the path (a
// directory, a FIFO, an oversized file) is ignored with a one-line notice on stderr.
//
// Directory: VgfOptions::pipeline_cache_dir, which parse_vgf_options resolves (key
// VgfBackend.pipeline_cache_dir, else $VKRT_VULKAN_CACHE_DIR, else $XDG_CACHE_HOME/vkrt, else
// $HOME/.cache/vkrt); "" or "off" disables persistence.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "vgf/vulkan/cache_file.h"
#include "vgf/vulkan/context.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

class PipelineCache {
 public:
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // dir: the cache directory (VgfOptions::pipeline_cache_dir); "" or "off" = in memory only.
  static Result<std::unique_ptr<PipelineCache>> open(const std::shared_ptr<Context>& ctx,
                                                     const std::string& dir);
  VkPipelineCache handle() const { return cache_; }
  CacheLoadResult load_result() const { return load_result_; }
  const std::string& path() const { return path_; }
  // Writes the driver's current data to the file (no-op when disabled). Errors only on I/O
  // failures, which callers may ignore (a cache is an optimisation).
  Status save();

 private:
  PipelineCache() = default;
  std::shared_ptr<Context> ctx_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  CacheLoadResult load_result_ = CacheLoadResult::Disabled;
  std::string path_;
};

// Writes a temporary file next to `path` and renames it over `path` (readers never see half a
// file); creates the directory. Every write, the fsync and the close are checked; on any failure
// the temporary file is removed, `path` is left as it was, and AccessFailed is returned.
Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

// How reading an untrusted cache file went.
enum class CacheFileRead { Ok, NoFile, NotRegular, TooLarge, Invalid, IoError };
// Opens `path` without blocking (a FIFO never stalls), requires a regular file of at most
// `max_bytes`, reads the first `header_bytes` (fewer when the file is shorter) and passes them
// and the file size to `header_ok`; only when it accepts them is the rest read, with bounded
// reads, into `out` (the whole file). Never throws.
template <typename F>
CacheFileRead read_cache_file(const std::string& path, uint64_t max_bytes, size_t header_bytes,
                              F&& header_ok, std::vector<uint8_t>* out);
CacheFileRead read_cache_file_impl(const std::string& path, uint64_t max_bytes, size_t header_bytes,
                                   bool (*header_ok)(void*, std::span<const uint8_t>, uint64_t),
                                   void* ctx, std::vector<uint8_t>* out);
template <typename F>
CacheFileRead read_cache_file(const std::string& path, uint64_t max_bytes, size_t header_bytes,
                              F&& header_ok, std::vector<uint8_t>* out) {
  return read_cache_file_impl(
      path, max_bytes, header_bytes,
      [](void* c, std::span<const uint8_t> h, uint64_t size) { return (*static_cast<std::remove_reference_t<F>*>(c))(h, size); },
      &header_ok, out);
}

}  // namespace vkrt::vulkan
