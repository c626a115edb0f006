// A recorded sequence of compute dispatches: descriptor sets allocated and written once, the
// command buffer recorded once (with a barrier only where a dispatch reads or overwrites a
// buffer range that an earlier dispatch since the last barrier wrote, or writes a range an
// earlier one read), then submitted as many times as needed. Optional per-dispatch GPU
// timestamps for profiling.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vgf/vulkan/context.h"
#include "vgf/vulkan/pipeline.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;  // bytes; 0 is bound as a 16-byte dummy range
};

struct Dispatch {
  const ComputePipeline* pipeline = nullptr;
  std::vector<BufferRange> bindings;  // binding i = bindings[i]
  std::vector<bool> writes;           // per binding: written by the shader
  std::array<uint8_t, kPushConstantBytes> push{};
  uint32_t groups_x = 1, groups_y = 1;
  std::string label;  // op name(s) for the profile table
};

// An optional buffer copy before the first / after the last dispatch (staging on devices whose
// device-local memory is not host-visible).
struct Copy {
  VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;
  VkDeviceSize src_offset = 0, dst_offset = 0, size = 0;
};

struct DispatchTiming {
  std::string label;
  double gpu_ns = 0.0;
};

class CommandProgram {
 public:
  ~CommandProgram();
  CommandProgram(const CommandProgram&) = delete;
  CommandProgram& operator=(const CommandProgram&) = delete;

  // Records everything once. `timestamps`: write a GPU timestamp around every dispatch.
  static Result<std::unique_ptr<CommandProgram>> record(const std::shared_ptr<Context>& ctx,
                                                        std::vector<Dispatch> dispatches,
                                                        std::vector<Copy> copies_in,
                                                        std::vector<Copy> copies_out,
                                                        bool timestamps);

  // Submits and waits. Device loss and timeouts come back as errors.
  Status submit_and_wait();

  size_t dispatch_count() const { return dispatches_.size(); }
  size_t barrier_count() const { return barrier_count_; }
  // Per-dispatch GPU times of the last submit (empty without timestamps).
  std::vector<DispatchTiming> last_timings() const;

 private:
  CommandProgram() = default;
  std::shared_ptr<Context> ctx_;
  std::vector<Dispatch> dispatches_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  size_t barrier_count_ = 0;
};

// Workgroup counts for `invocations` one-dimensional invocations of `workgroup_size`-wide
// workgroups, split over x and y so neither exceeds the device limit.
void grid_for(uint64_t invocations, uint32_t workgroup_size, const DeviceFeatures& features, uint32_t* x,
              uint32_t* y);

}  // namespace vkrt::vulkan
