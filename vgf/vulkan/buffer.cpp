#include "vgf/vulkan/buffer.h"

#include <utility>

namespace vkrt::vulkan {
namespace {

// Index of the first memory type allowed by `type_bits` that has all of `required`, preferring
// one that also has `preferred`; -1 when none.
int find_memory_type(const VkPhysicalDeviceMemoryProperties& props, uint32_t type_bits,
                     VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  int fallback = -1;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return int(i);
    if (fallback < 0) fallback = int(i);
  }
  return fallback;
}

}  // namespace

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
  int type = -1;
  if (kind == MemoryKind::DeviceLocal) {
    // Prefer device-local memory that the host can also see (unified memory: no staging).
    type = find_memory_type(props, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type < 0) type = find_memory_type(props, req.memoryTypeBits, 0, 0);
  } else {
    type = find_memory_type(props, req.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  }
  if (type < 0) {
    return make_error(Error::NotSupported, "no Vulkan memory type for a ", bytes, "-byte buffer");
  }
  const uint32_t heap = props.memoryTypes[type].heapIndex;
  if (req.size > props.memoryHeaps[heap].size) {
    return make_error(Error::MemoryAllocationFailed, "Vulkan buffer of ", req.size,
                      " bytes exceeds its memory heap (", props.memoryHeaps[heap].size, " bytes)");
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = uint32_t(type);
  VkResult r = vkAllocateMemory(dev, &mai, nullptr, &b.memory_);
  if (r != VK_SUCCESS) {
    return vk_status(r, "vkAllocateMemory(" + std::to_string(req.size) + " bytes)");
  }
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
