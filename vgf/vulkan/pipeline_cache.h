// A VkPipelineCache persisted on disk, one file per device and driver.
//
// File: <dir>/vkrt-pipelines-<deviceUUID hex>-<driverVersion hex>.bin holding our own header
// (magic "VKRTPC01", device UUID, driver version, vendor/device id, payload size, FNV-1a hash
// of the payload) followed by the driver's vkGetPipelineCacheData bytes. Before the payload is
// handed to the driver, both our header and the driver's own header (Vulkan spec, "Pipeline
// Cache": length, version ONE, vendorID, deviceID, pipelineCacheUUID) are checked against the
// device; a corrupt, truncated or foreign file is ignored (an empty cache is used) and
// overwritten at the next save. Saving writes a temporary file and renames it (atomic).
//
// Directory: option "VgfBackend.pipeline_cache_dir", else $VKRT_VULKAN_CACHE_DIR, else
// $XDG_CACHE_HOME/vkrt, else $HOME/.cache/vkrt; "off" disables persistence.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vgf/vulkan/context.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

// Why a cache file was (not) used; for tests and the benchmark's cold/warm report.
enum class CacheLoadResult { Disabled, NoFile, Loaded, RejectedCorrupt, RejectedForeign };
const char* cache_load_result_name(CacheLoadResult r);

// Checks a cache file's bytes against the device. Returns the driver payload on success.
CacheLoadResult validate_cache_file(std::span<const uint8_t> file, const DeviceInfo& device,
                                    std::span<const uint8_t>* payload);
// Our file bytes for a driver payload.
std::vector<uint8_t> encode_cache_file(std::span<const uint8_t> payload, const DeviceInfo& device);

class PipelineCache {
 public:
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // dir: "" = default location (see above); "off" = in memory only.
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

// The default cache directory (see the header comment); "" when none can be determined.
std::string default_pipeline_cache_dir();

// FNV-1a 64 of `bytes` (the cache files' checksum).
uint64_t fnv1a(std::span<const uint8_t> bytes);
// Writes a temporary file next to `path` and renames it over `path` (readers never see half a
// file); creates the directory. AccessFailed on I/O errors.
Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace vkrt::vulkan
