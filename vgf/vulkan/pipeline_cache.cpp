#include "vgf/vulkan/pipeline_cache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vkrt::vulkan {
namespace {

// Reads exactly `n` bytes at the current offset; false on error or early end of file.
bool read_exact(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    const size_t chunk = n < (size_t(1) << 20) ? n : (size_t(1) << 20);
    const ssize_t got = ::read(fd, p, chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= size_t(got);
  }
  return true;
}

bool write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const size_t chunk = n < (size_t(1) << 20) ? n : (size_t(1) << 20);
    const ssize_t put = ::write(fd, p, chunk);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put;
    n -= size_t(put);
  }
  return true;
}

std::string hex(std::span<const uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace

PipelineCache::~PipelineCache() {
  if (cache_) vkDestroyPipelineCache(ctx_->device(), cache_, nullptr);
}

Result<std::unique_ptr<PipelineCache>> PipelineCache::open(const std::shared_ptr<Context>& ctx,
                                                           const std::string& dir_option) {
  std::unique_ptr<PipelineCache> cache(new PipelineCache());
  cache->ctx_ = ctx;
  const std::string& dir = dir_option;  // resolved by parse_vgf_options
  std::vector<uint8_t> file;
  std::span<const uint8_t> payload;
  if (dir.empty() || dir == "off") {
    cache->load_result_ = CacheLoadResult::Disabled;
  } else {
    const DeviceInfo& info = ctx->info();
    char version[16];
    std::snprintf(version, sizeof(version), "%08x", info.driver_version);
    cache->path_ = dir + "/vkrt-pipelines-" + hex(info.device_uuid) + "-" + version + ".bin";
    // Header first (magic, device, payload size against the file size), payload only then.
    auto header_ok = [&info](std::span<const uint8_t> header, uint64_t file_size) {
      return pipeline_cache_header_ok(header, file_size, info);
    };
    const CacheFileRead read =
        read_cache_file(cache->path_, kMaxCacheFileBytes, kPipelineCacheHeaderBytes, header_ok, &file);
    switch (read) {
      case CacheFileRead::NoFile: cache->load_result_ = CacheLoadResult::NoFile; break;
      case CacheFileRead::Ok:
        cache->load_result_ = validate_cache_file(file, info, &payload);
        if (cache->load_result_ != CacheLoadResult::Loaded) payload = {};
        break;
      case CacheFileRead::Invalid:
        // Validated from the header alone (no payload read): the same verdict a full read gives.
        cache->load_result_ = validate_cache_file(file, info, &payload);
        if (cache->load_result_ == CacheLoadResult::Loaded) cache->load_result_ = CacheLoadResult::RejectedCorrupt;
        payload = {};
        break;
      case CacheFileRead::NotRegular:
      case CacheFileRead::TooLarge:
      case CacheFileRead::IoError:
        std::fprintf(stderr, "vkrt: vulkan: pipeline cache %s is %s; continuing without it\n",
                     cache->path_.c_str(),
                     read == CacheFileRead::NotRegular ? "not a regular file"
                     : read == CacheFileRead::TooLarge ? "larger than the 256 MiB cap"
                                                       : "unreadable");
        cache->load_result_ = CacheLoadResult::RejectedCorrupt;
        break;
    }
  }
  VkPipelineCacheCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  pci.initialDataSize = payload.size();
  pci.pInitialData = payload.empty() ? nullptr : payload.data();
  VKRT_VK_RETURN_IF_ERROR(vkCreatePipelineCache(ctx->device(), &pci, nullptr, &cache->cache_),
                          "vkCreatePipelineCache");
  return cache;
}

Status PipelineCache::save() {
  if (path_.empty()) return Status::ok();
  size_t size = 0;
  VKRT_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(ctx_->device(), cache_, &size, nullptr),
                          "vkGetPipelineCacheData");
  std::vector<uint8_t> data(size);
  VKRT_VK_RETURN_IF_ERROR(vkGetPipelineCacheData(ctx_->device(), cache_, &size, data.data()),
                          "vkGetPipelineCacheData");
  data.resize(size);
  return write_file_atomically(path_, encode_cache_file(data, ctx_->info()));
}

CacheFileRead read_cache_file_impl(const std::string& path, uint64_t max_bytes, size_t header_bytes,
                                   bool (*header_ok)(void*, std::span<const uint8_t>, uint64_t),
                                   void* ctx, std::vector<uint8_t>* out) {
  out->clear();
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? CacheFileRead::NoFile : CacheFileRead::IoError;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return CacheFileRead::IoError;
  if (!S_ISREG(st.st_mode)) return CacheFileRead::NotRegular;
  const uint64_t size = uint64_t(st.st_size);
  if (size > max_bytes) return CacheFileRead::TooLarge;
  const size_t head = size < header_bytes ? size_t(size) : header_bytes;
  out->resize(head);
  if (!read_exact(fd, out->data(), head)) {
    out->clear();
    return CacheFileRead::IoError;
  }
  if (!header_ok(ctx, *out, size)) return CacheFileRead::Invalid;
  out->resize(size_t(size));
  if (!read_exact(fd, out->data() + head, size_t(size) - head)) {
    out->clear();
    return CacheFileRead::IoError;
  }
  return CacheFileRead::Ok;
}

Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  // A name no other writer has (mkstemp creates it exclusively): processes sharing the directory
  // may have equal pids when they live in different pid namespaces (containers sharing a cache
  // volume), and two writers on one temporary file would rename a mix of both into place.
  std::string tmp = path + ".tmpXXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return make_error(Error::AccessFailed, "cannot create ", tmp, ": ", std::strerror(errno));
  const char* failed = nullptr;
  int err = 0;
  if (::fchmod(fd, 0644) != 0) {  // mkstemp makes it 0600; the cache is as readable as before
    failed = "chmod";
  } else if (!write_all(fd, bytes.data(), bytes.size())) {
    failed = "write";
  } else if (::fsync(fd) != 0) {
    failed = "fsync";
  }
  if (failed) err = errno;
  if (::close(fd) != 0 && !failed) {
    failed = "close";
    err = errno;
  }
  if (failed) {
    ::unlink(tmp.c_str());
    return make_error(Error::AccessFailed, "cannot ", failed, " ", tmp, ": ", err ? std::strerror(err) : "short write");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    return make_error(Error::AccessFailed, "cannot rename ", tmp, " to ", path, ": ", std::strerror(err));
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan
