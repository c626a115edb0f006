#include "vgf/vulkan/buffer.h"

#include <algorithm>
#include <string>
#include <utility>

namespace vkrt::vulkan {
std::vector<uint32_t> memory_type_candidates(const VkPhysicalDeviceMemoryProperties& props, uint32_t type_bits,
                                             MemoryKind kind) {
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags kMapped = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  // Each tier: the flags a type must have, and those it must not; earlier tiers first.
  struct Tier {
    VkMemoryPropertyFlags with, without;
  };
  std::vector<Tier> tiers;
  if (kind == MemoryKind::DeviceLocal) {
    tiers = {{kLocal | kMapped | kCached, 0}, {kLocal, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT}, {kLocal, 0}, {0, 0}};
  } else {
    tiers = {{kMapped | kCached, 0}, {kMapped, kLocal}, {kMapped, 0}};
  }
  std::vector<uint32_t> out;
  const uint32_t count = std::min<uint32_t>(props.memoryTypeCount, VK_MAX_MEMORY_TYPES);
  for (const Tier& tier : tiers) {
    for (uint32_t i = 0; i < count; ++i) {
      const VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
      if (!(type_bits & (1u << i)) || (flags & tier.with) != tier.with || (flags & tier.without)) continue;
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
  }
  return out;
}

Buffer::~Buffer() { release(); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = std::move(other.ctx_);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    allocated_ = std::exchange(other.allocated_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
    coherent_ = std::exchange(other.coherent_, false);
  }
  return *this;
}

void Buffer::release() {
  if (!ctx_) return;
  VkDevice dev = ctx_->device();
  if (mapped_) vkUnmapMemory(dev, memory_);
  if (buffer_) vkDestroyBuffer(dev, buffer_, nullptr);
  if (memory_) vkFreeMemory(dev, memory_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  ctx_.reset();
}

Result<Buffer> Buffer::create(const std::shared_ptr<Context>& ctx, size_t bytes, MemoryKind kind) {
  Buffer b;
  b.ctx_ = ctx;
  b.size_ = bytes == 0 ? 16 : bytes;  // zero-sized buffers are invalid in Vulkan
  VkDevice dev = ctx->device();
  // Refuse sizes the device cannot allocate before asking the driver (an oversized request is
  // a validation error, not just a failed call).
  const uint64_t limit = ctx->features().max_memory_allocation_size;
  if (limit != 0 && b.size_ > limit) {
    return make_error(Error::MemoryAllocationFailed, "Vulkan buffer of ", b.size_,
                      " bytes exceeds the device's maxMemoryAllocationSize (", limit, ")");
  }
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = b.size_;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VKRT_VK_RETURN_IF_ERROR(vkCreateBuffer(dev, &bci, nullptr, &b.buffer_), "vkCreateBuffer");

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b.buffer_, &req);
  const auto& props = ctx->memory_properties();
  const std::vector<uint32_t> types = memory_type_candidates(props, req.memoryTypeBits, kind);
  if (types.empty()) {
    return make_error(Error::NotSupported, "no Vulkan memory type for a ", bytes, "-byte buffer");
  }
  // The first candidate that holds it; a full or small heap (a BAR window) passes to the next.
  Status failure = Status::ok();
  uint32_t type = 0;
  for (uint32_t candidate : types) {
    const VkMemoryHeap& heap = props.memoryHeaps[props.memoryTypes[candidate].heapIndex];
    if (req.size > heap.size) {
      failure = make_error(Error::MemoryAllocationFailed, "Vulkan buffer of ", req.size,
                           " bytes exceeds its memory heap (", heap.size, " bytes)");
      continue;
    }
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = candidate;
    VkResult r = vkAllocateMemory(dev, &mai, nullptr, &b.memory_);
    if (r == VK_SUCCESS) {
      type = candidate;
      failure = Status::ok();
      break;
    }
    b.memory_ = VK_NULL_HANDLE;
    failure = vk_status(r, "vkAllocateMemory(" + std::to_string(req.size) + " bytes)");
    if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY && r != VK_ERROR_OUT_OF_HOST_MEMORY) break;
  }
  if (!failure.is_ok()) return failure;
  b.allocated_ = req.size;
  VKRT_VK_RETURN_IF_ERROR(vkBindBufferMemory(dev, b.buffer_, b.memory_, 0), "vkBindBufferMemory");
  VkMemoryPropertyFlags flags = props.memoryTypes[type].propertyFlags;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void* p = nullptr;
    VKRT_VK_RETURN_IF_ERROR(vkMapMemory(dev, b.memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    b.mapped_ = static_cast<uint8_t*>(p);
    b.coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  }
  return b;
}

}  // namespace vkrt::vulkan
