// A VkBuffer with its own VkDeviceMemory (one allocation per buffer: an executor has only a few —
// the intermediate arena, the constants, staging — so a sub-allocator is not needed).
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "vgf/vulkan/context.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class MemoryKind {
  DeviceLocal,  // fastest for the GPU; host-visible too where the host reads it cached (unified memory)
  HostStaging,  // host-visible and coherent (cached where offered), for copies in and out
};

// The memory types to try for a buffer of `kind` among those `type_bits` allows, best first.
// DeviceLocal: device-local memory that the host maps coherent and cached (unified memory:
// integrated GPUs, lavapipe), used with no staging copy; then other device-local memory,
// types the host cannot map first: a discrete GPU's host-visible VRAM window (the BAR; on
// NVIDIA often a 256 MiB heap) is uncached, and host reads from uncached memory are two orders
// of magnitude slower (ExecuTorch's Vulkan backend measured ~170x on readback, PR 18291; VMA's
// "Recommended usage patterns" keeps readback in HOST_CACHED memory); then any type.
// HostStaging: host-visible and coherent, cached first, system memory before device memory.
std::vector<uint32_t> memory_type_candidates(const VkPhysicalDeviceMemoryProperties& props, uint32_t type_bits,
                                             MemoryKind kind);

class Buffer {
 public:
  Buffer() = default;
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;

  // Storage + transfer usage, in the first of memory_type_candidates whose heap can hold it and
  // whose allocation succeeds. Errors: MemoryAllocationFailed (out of device/host memory in
  // every candidate, or a size above maxMemoryAllocationSize), NotSupported (no memory type).
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
