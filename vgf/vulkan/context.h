// The Vulkan instance and logical device one process shares between all Vulkan executors.
//
// Created once through volk (the loader is opened at run time, so a machine without
// libvulkan.so.1 gets a NotFound error, never a link failure), with the device's features
// probed once (DeviceFeatures) and the optional Khronos validation layer (VgfOptions::validation:
// VgfBackend.validation, VKRT_VULKAN_VALIDATION) whose messages are counted so tests can assert there were none.
#pragma once

#include <volk.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/vgf.h"

namespace vkrt::vulkan {

// Component types of a cooperative-matrix shape (VkComponentTypeKHR values, Vulkan 1.3.255+;
// Debian bookworm's headers predate VK_KHR_cooperative_matrix).
enum class CoopmatType : int32_t { Float16 = 0, Float32 = 1, Sint8 = 3, Sint32 = 5, Uint8 = 7, Uint32 = 9 };

// One VkCooperativeMatrixPropertiesKHR entry at subgroup scope: A [M][K] x B [K][N] + C -> result.
struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  int32_t a_type = -1, b_type = -1, c_type = -1, result_type = -1;  // VkComponentTypeKHR
  bool matches(uint32_t m_, uint32_t n_, uint32_t k_, CoopmatType in, CoopmatType acc) const {
    return m == m_ && n == n_ && k == k_ && a_type == int32_t(in) && b_type == int32_t(in) &&
           c_type == int32_t(acc) && result_type == int32_t(acc);
  }
};

// What the chosen device can do; probed once at context creation. Shader variants are chosen
// from these (docs/vulkan-executor.md "Features and variants").
struct DeviceFeatures {
  bool storage_buffer_8bit = false;    // storageBuffer8BitAccess
  bool storage_buffer_16bit = false;   // storageBuffer16BitAccess
  bool shader_int8 = false;            // int8 arithmetic
  bool shader_int16 = false;
  bool shader_int64 = false;
  bool shader_float16 = false;         // fp16 arithmetic
  bool integer_dot_product = false;    // shaderIntegerDotProduct enabled
  bool integer_dot_4x8_accelerated = false;  // packed 4x8 signed (or acc-sat) is accelerated
  // VK_KHR_cooperative_matrix enabled on the device (feature cooperativeMatrix, with
  // vulkanMemoryModel, which glslang's coopmat SPIR-V declares), and the subgroup-scope shapes it
  // lists (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR). Empty when not enabled.
  bool cooperative_matrix_khr = false;
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;
  bool cooperative_matrix_khr_offered = false;  // the device has it (enabled or not)
  bool cooperative_matrix_nv = false;  // VK_NV_cooperative_matrix offered (reported, not used)
  bool maintenance4 = false;
  // A CPU implementation (lavapipe): variants that need matrix hardware are not chosen by default.
  bool cpu_device = false;
  uint32_t subgroup_size = 0;
  bool subgroup_arithmetic = false;
  bool subgroup_shuffle = false;
  uint32_t max_shared_memory_bytes = 0;
  uint32_t max_push_constants_bytes = 0;
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_count{};
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_memory_allocation_size = 0;  // VkPhysicalDeviceVulkan11Properties
  uint64_t min_storage_buffer_offset_alignment = 16;
  uint32_t max_storage_buffers_per_stage = 0;
  bool timestamps = false;             // compute queue supports timestamps
  double timestamp_period_ns = 0.0;
  uint32_t timestamp_valid_bits = 0;
  // A memory type is DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED: the arena is used
  // with no staging copies (buffer.h: a discrete GPU's uncached BAR window does not count).
  bool unified_memory = false;
  bool memory_budget = false;          // VK_EXT_memory_budget (enabled): heap usage as the driver counts it
};

struct DeviceInfo {
  std::string name;
  std::string driver_name;
  std::string driver_info;
  uint32_t api_version = 0;
  uint32_t driver_version = 0;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  std::array<uint8_t, VK_UUID_SIZE> device_uuid{};
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
};

struct ContextOptions {
  // Index or name substring; empty = the default ranking (device_select.h).
  std::string device_selector;
  // Enable the Khronos validation layer.
  bool validation = false;
  // Enable VK_KHR_cooperative_matrix where the device offers it. Off when the variant policy asks
  // for no cooperative-matrix variant (VgfVariants::Dot / Portable): validation layers older than
  // the extension (Debian bookworm's 1.3.239) then see a device they know.
  bool cooperative_matrix = true;
};

// The context options of a load's VgfOptions (device, validation, variants).
ContextOptions context_options(const VgfOptions& options);

class Context {
 public:
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // A new context. NotFound when there is no Vulkan loader or device, or the selector matches
  // none; NotSupported when the device lacks what every shader needs (8/16-bit storage,
  // int8/int16 arithmetic, Vulkan 1.2).
  static Result<std::shared_ptr<Context>> create(const ContextOptions& options);
  // The process-wide context for a selector (created on first use, kept while anyone holds it).
  static Result<std::shared_ptr<Context>> shared(const ContextOptions& options);

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const DeviceFeatures& features() const { return features_; }
  const DeviceInfo& info() const { return info_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_properties_; }
  // Bytes of the device-local heaps in use by this process as the driver counts them
  // (VK_EXT_memory_budget heapUsage: buffers, pipelines, pools, driver-internal allocations);
  // 0 where the device lacks the extension. Benchmarks read it around prepare() and runs.
  uint64_t device_local_heap_usage() const;
  bool validation_enabled() const { return validation_enabled_; }
  // With the layer: its synchronization validation too (barrier hazards), where offered.
  bool sync_validation_enabled() const { return sync_validation_; }

  // Validation-layer messages (warnings and errors) seen by any context of this process.
  static uint64_t validation_message_count();

  // A one-line description: "llvmpipe (...) [cpu], Vulkan 1.3.230, driver llvmpipe, subgroup 8, ..."
  std::string describe() const;

 private:
  Context() = default;
  Status init(const ContextOptions& options);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  DeviceFeatures features_;
  DeviceInfo info_;
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  bool validation_enabled_ = false;
  bool sync_validation_ = false;
};

// "VK_ERROR_DEVICE_LOST", ... for messages.
const char* vk_result_name(VkResult result);
// Maps a failed VkResult to a Status: out-of-memory -> MemoryAllocationFailed, device lost ->
// InvalidState ("device lost"), others -> Internal; the message names `what`.
Status vk_status(VkResult result, std::string_view what);

}  // namespace vkrt::vulkan

// Returns a Status from the enclosing function when a Vulkan call fails.
#define VKRT_VK_RETURN_IF_ERROR(call, what)                         \
  do {                                                              \
    VkResult vkrt_vk_result_ = (call);                              \
    if (vkrt_vk_result_ != VK_SUCCESS) return ::vkrt::vulkan::vk_status(vkrt_vk_result_, what); \
  } while (0)
