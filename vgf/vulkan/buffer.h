// A VkBuffer with its own VkDeviceMemory (one allocation per buffer: an executor has only a few —
// the intermediate arena, the constants, staging — so a sub-allocator is not needed).
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "vgf/vulkan/context.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class MemoryKind {
  DeviceLocal,  // fastest for the GPU; host-visible too on unified-memory devices (lavapipe)
  HostStaging,  // host-visible and coherent, for copies in and out
};

class Buffer {
 public:
  Buffer() = default;
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;

  // Storage + transfer usage. Errors: MemoryAllocationFailed (out of device/host memory or a
  // size above maxMemoryAllocationSize), NotSupported (no suitable memory type).
  static Result<Buffer> create(const std::shared_ptr<Context>& ctx, size_t bytes, MemoryKind kind);

  VkBuffer handle() const { return buffer_; }
  size_t size() const { return size_; }
  // Bytes of device memory behind the buffer (its memory requirements: size plus the driver's
  // rounding).
  uint64_t allocated_bytes() const { return allocated_; }
  // Host pointer when the memory is host-visible (persistently mapped), else nullptr.
  uint8_t* mapped() const { return mapped_; }
  bool host_coherent() const { return coherent_; }

 private:
  void release();

  std::shared_ptr<Context> ctx_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  size_t size_ = 0;
  uint64_t allocated_ = 0;
  uint8_t* mapped_ = nullptr;
  bool coherent_ = false;
};

}  // namespace vkrt::vulkan
