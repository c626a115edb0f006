#include "vgf/vulkan/context.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "vgf/vulkan/device_select.h"
#include "vgf/vulkan/variant_select.h"

namespace vkrt::vulkan {
namespace {

std::atomic<uint64_t> g_validation_messages{0};

VKAPI_ATTR VkBool32 VKAPI_CALL count_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT /*types*/,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* /*user*/) {
  if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    g_validation_messages.fetch_add(1);
    std::fprintf(stderr, "vkrt vulkan validation: %s\n",
                 data && data->pMessage ? data->pMessage : "(no message)");
  }
  return VK_FALSE;
}

Status load_vulkan() {
  static VkResult result = volkInitialize();
  if (result != VK_SUCCESS) {
    return make_error(Error::NotFound, "Vulkan loader (libvulkan.so.1) not found: ", vk_result_name(result));
  }
  return Status::ok();
}

// VK_KHR_cooperative_matrix (Vulkan registry vk.xml, 1.3.255+). Debian bookworm's 1.3.239 headers
// predate it, so the two structures and the query are declared here with the registry's values.
constexpr VkStructureType kCoopmatFeaturesKhrSType = VkStructureType(1000506000);
constexpr VkStructureType kCoopmatPropertiesKhrSType = VkStructureType(1000506001);
constexpr int32_t kScopeSubgroupKhr = 3;
struct CoopmatFeaturesKhr {
  VkStructureType sType = kCoopmatFeaturesKhrSType;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct CoopmatPropertiesKhr {
  VkStructureType sType = kCoopmatPropertiesKhrSType;
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  int32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  int32_t scope = 0;  // VkScopeKHR
};
using GetCoopmatPropertiesKhr = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CoopmatPropertiesKhr*);

// The subgroup-scope, non-saturating shapes the device lists (the only kind the shaders use).
std::vector<CooperativeMatrixShape> coopmat_khr_shapes(VkInstance instance, VkPhysicalDevice device) {
  auto query = reinterpret_cast<GetCoopmatPropertiesKhr>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  std::vector<CooperativeMatrixShape> shapes;
  if (!query) return shapes;
  uint32_t count = 0;
  if (query(device, &count, nullptr) != VK_SUCCESS) return shapes;
  std::vector<CoopmatPropertiesKhr> props(count);
  if (query(device, &count, props.data()) != VK_SUCCESS) return shapes;
  props.resize(count);
  for (const auto& p : props) {
    if (p.scope != kScopeSubgroupKhr || p.saturatingAccumulation) continue;
    shapes.push_back({p.MSize, p.NSize, p.KSize, p.AType, p.BType, p.CType, p.ResultType});
  }
  return shapes;
}

bool has_extension(const std::vector<VkExtensionProperties>& exts, const char* name) {
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

DeviceKind kind_of(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceKind::DiscreteGpu;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceKind::IntegratedGpu;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DeviceKind::VirtualGpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceKind::Cpu;
    default: return DeviceKind::Other;
  }
}

const char* type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer builds (the CI's ASan suite). Allocations the Vulkan loader, the drivers (Mesa,
// LLVM) and the layers keep until the process exits are not ours to fix; they are suppressed by
// library name below. LSan names a library only while it is mapped, and the loader unloads the
// driver and the layers at vkDestroyInstance, before the leak check at exit: their allocations
// would then show as "<unknown module>" (lavapipe on AVX-512 hosts keeps 128 bytes from
// instance creation), so sanitizer builds keep every one that is loaded mapped until exit.
constexpr const char* kVulkanRuntimeLibraries[] = {
    "libvulkan.so.1",           "libvulkan_lvp.so",        "libvulkan_radeon.so",
    "libvulkan_intel.so",       "libvulkan_intel_hasvk.so", "libVkLayer_khronos_validation.so",
    "libVkLayer_MESA_device_select.so"};

void keep_vulkan_libraries_mapped() {
  // RTLD_NOLOAD: only those already loaded; the handle is never closed.
  for (const char* library : kVulkanRuntimeLibraries) (void)dlopen(library, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
void keep_vulkan_libraries_mapped() {}
#endif

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// Read by LeakSanitizer at start-up where it is defined: every program that links the Vulkan
// executor (tests, executor_runner, benchmarks) gets it.
extern "C" [[gnu::used]] const char* __lsan_default_suppressions() {
  return "leak:libvulkan.so\nleak:libvulkan_lvp.so\nleak:libLLVM\nleak:libVkLayer_khronos_validation.so\n"
         "leak:libVkLayer_MESA_device_select.so\nleak:libvulkan_radeon.so\nleak:libvulkan_intel.so\n"
         "leak:libvulkan_intel_hasvk.so\nleak:libnvidia\n";
}
#endif

const char* vk_result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VK_ERROR (unknown code)";
  }
}

Status vk_status(VkResult result, std::string_view what) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
      return make_error(Error::MemoryAllocationFailed, std::string(what), ": out of memory (",
                        vk_result_name(result), ")");
    case VK_ERROR_DEVICE_LOST:
      return make_error(Error::InvalidState, std::string(what), ": Vulkan device lost (",
                        vk_result_name(result), ")");
    default:
      return make_error(Error::Internal, std::string(what), " failed: ", vk_result_name(result),
                        " (", int(result), ")");
  }
}

uint64_t Context::validation_message_count() { return g_validation_messages.load(); }

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<std::shared_ptr<Context>> Context::create(const ContextOptions& options) {
  std::shared_ptr<Context> ctx(new Context());
  VKRT_RETURN_IF_ERROR(ctx->init(options));
  return ctx;
}

ContextOptions context_options(const VgfOptions& options) {
  ContextOptions c;
  c.device_selector = options.device;
  c.validation = options.validation;
  c.cooperative_matrix = options.variants != VgfVariants::Dot && options.variants != VgfVariants::Portable;
  return c;
}

Result<std::shared_ptr<Context>> Context::shared(const ContextOptions& options) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, bool, bool>, std::weak_ptr<Context>> contexts;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(options.device_selector, options.validation, options.cooperative_matrix);
  if (auto existing = contexts[key].lock()) return existing;
  VKRT_ASSIGN_OR_RETURN(auto ctx, create(options));
  contexts[key] = ctx;
  return ctx;
}

Status Context::init(const ContextOptions& options) {
  VKRT_RETURN_IF_ERROR(load_vulkan());

  // ---- Instance (with the validation layer on request). ----
  uint32_t loader_version = VK_API_VERSION_1_1;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  const uint32_t api = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version;

  const bool want_validation = options.validation;
  std::vector<const char*> layers;
  std::vector<const char*> instance_exts;
  if (want_validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> props(n);
    vkEnumerateInstanceLayerProperties(&n, props.data());
    for (const auto& p : props) {
      if (std::strcmp(p.layerName, "VK_LAYER_KHRONOS_validation") == 0) {
        layers.push_back("VK_LAYER_KHRONOS_validation");
        instance_exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        validation_enabled_ = true;
      }
    }
    // Synchronization validation too, where the layer offers VK_EXT_validation_features: core
    // validation does not check barriers, and the executor records only those that real
    // dependencies need (command_program.cpp), which a serial CPU device would never expose.
    if (validation_enabled_) {
      uint32_t m = 0;
      vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &m, nullptr);
      std::vector<VkExtensionProperties> layer_exts(m);
      vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &m, layer_exts.data());
      for (const auto& e : layer_exts) {
        if (std::strcmp(e.extensionName, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME) == 0) {
          instance_exts.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
          sync_validation_ = true;
        }
      }
    }
    if (!validation_enabled_) {
      std::fprintf(stderr, "vkrt vulkan: VK_LAYER_KHRONOS_validation requested but not installed\n");
    }
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkrt";
  app.pEngineName = "vkrt";
  app.apiVersion = api;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledLayerCount = uint32_t(layers.size());
  ici.ppEnabledLayerNames = layers.data();
  ici.enabledExtensionCount = uint32_t(instance_exts.size());
  ici.ppEnabledExtensionNames = instance_exts.data();
  VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  mci.pfnUserCallback = count_validation_message;
  if (validation_enabled_) ici.pNext = &mci;  // also catches instance creation messages
  const VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT validation_features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  validation_features.enabledValidationFeatureCount = 1;
  validation_features.pEnabledValidationFeatures = &sync;
  if (sync_validation_) {
    validation_features.pNext = ici.pNext;
    ici.pNext = &validation_features;
  }
  VkResult r = vkCreateInstance(&ici, nullptr, &instance_);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return make_error(Error::NotFound, "no Vulkan driver installed (vkCreateInstance: ",
                      vk_result_name(r), ")");
  }
  VKRT_VK_RETURN_IF_ERROR(r, "vkCreateInstance");
  keep_vulkan_libraries_mapped();
  // Device-level functions through the loader trampolines, so several devices can coexist.
  volkLoadInstance(instance_);
  if (validation_enabled_) {
    VKRT_VK_RETURN_IF_ERROR(vkCreateDebugUtilsMessengerEXT(instance_, &mci, nullptr, &messenger_),
                            "vkCreateDebugUtilsMessengerEXT");
  }

  // ---- Physical device. ----
  uint32_t count = 0;
  VKRT_VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  VKRT_VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance_, &count, devices.data()),
                          "vkEnumeratePhysicalDevices");
  std::vector<DeviceCandidate> candidates;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    candidates.push_back({p.deviceName, kind_of(p.deviceType)});
  }
  VKRT_ASSIGN_OR_RETURN(size_t chosen, choose_device(candidates, options.device_selector));
  physical_device_ = devices[chosen];

  // ---- Properties and features (probed once). ----
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_device_, &props);
  info_.name = props.deviceName;
  info_.api_version = props.apiVersion;
  info_.driver_version = props.driverVersion;
  info_.vendor_id = props.vendorID;
  info_.device_id = props.deviceID;
  info_.type = props.deviceType;
  std::memcpy(info_.pipeline_cache_uuid.data(), props.pipelineCacheUUID, VK_UUID_SIZE);
  if (props.apiVersion < VK_API_VERSION_1_2 || api < VK_API_VERSION_1_2) {
    return make_error(Error::NotSupported, "Vulkan device \"", info_.name,
                      "\" is Vulkan ", VK_API_VERSION_MAJOR(props.apiVersion), ".",
                      VK_API_VERSION_MINOR(props.apiVersion), "; the Vulkan executor needs 1.2");
  }
  const bool v13 = props.apiVersion >= VK_API_VERSION_1_3 && api >= VK_API_VERSION_1_3;

  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &ext_count, exts.data());

  VkPhysicalDeviceVulkan13Properties p13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties p12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan11Properties p11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &p11;
  p11.pNext = &p12;
  if (v13) p12.pNext = &p13;
  vkGetPhysicalDeviceProperties2(physical_device_, &props2);
  std::memcpy(info_.device_uuid.data(), p11.deviceUUID, VK_UUID_SIZE);
  info_.driver_name = p12.driverName;
  info_.driver_info = p12.driverInfo;

  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 feats2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  feats2.pNext = &f11;
  f11.pNext = &f12;
  if (v13) f12.pNext = &f13;
  // Only chained when the extension exists (its struct is invalid otherwise).
  const bool has_coopmat_khr = has_extension(exts, "VK_KHR_cooperative_matrix");
  CoopmatFeaturesKhr fcm;
  if (has_coopmat_khr) {
    fcm.pNext = feats2.pNext;
    feats2.pNext = &fcm;
  }
  vkGetPhysicalDeviceFeatures2(physical_device_, &feats2);

  DeviceFeatures& f = features_;
  f.storage_buffer_8bit = f12.storageBuffer8BitAccess;
  f.storage_buffer_16bit = f11.storageBuffer16BitAccess;
  f.shader_int8 = f12.shaderInt8;
  f.shader_int16 = feats2.features.shaderInt16;
  f.shader_int64 = feats2.features.shaderInt64;
  f.shader_float16 = f12.shaderFloat16;
  f.integer_dot_product = v13 && f13.shaderIntegerDotProduct;
  f.integer_dot_4x8_accelerated =
      f.integer_dot_product && (p13.integerDotProduct4x8BitPackedSignedAccelerated ||
                                p13.integerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated ||
                                p13.integerDotProduct4x8BitPackedMixedSignednessAccelerated);
  f.maintenance4 = v13 && f13.maintenance4;
  f.cooperative_matrix_nv = has_extension(exts, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  f.memory_budget = has_extension(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  // glslang declares the Vulkan memory model in every cooperative-matrix shader. Not enabled when
  // the options ask for no cooperative-matrix variant (ContextOptions::cooperative_matrix false:
  // VgfVariants::Dot or Portable): validation layers older than the extension (Debian
  // bookworm's 1.3.239) then see a device they know.
  const bool coopmat_declined = !options.cooperative_matrix;
  f.cooperative_matrix_khr_offered = has_coopmat_khr && fcm.cooperativeMatrix && f12.vulkanMemoryModel;
  if (f.cooperative_matrix_khr_offered && !coopmat_declined) {
    f.cooperative_matrix_shapes = coopmat_khr_shapes(instance_, physical_device_);
    f.cooperative_matrix_khr = !f.cooperative_matrix_shapes.empty();
  }
  f.cpu_device = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  f.subgroup_size = p11.subgroupSize;
  f.subgroup_arithmetic = (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0 &&
                          (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  f.subgroup_shuffle = (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0 &&
                       (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  f.max_shared_memory_bytes = props.limits.maxComputeSharedMemorySize;
  f.max_push_constants_bytes = props.limits.maxPushConstantsSize;
  f.max_workgroup_invocations = props.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) f.max_workgroup_count[i] = props.limits.maxComputeWorkGroupCount[i];
  f.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  f.max_memory_allocation_size = p11.maxMemoryAllocationSize;
  f.min_storage_buffer_offset_alignment = props.limits.minStorageBufferOffsetAlignment;
  f.max_storage_buffers_per_stage = props.limits.maxPerStageDescriptorStorageBuffers;
  f.timestamp_period_ns = props.limits.timestampPeriod;

  if (!f.storage_buffer_8bit || !f.storage_buffer_16bit || !f.shader_int8 || !f.shader_int16) {
    return make_error(Error::NotSupported, "Vulkan device \"", info_.name,
                      "\" lacks 8/16-bit storage buffers or int8/int16 arithmetic, which every "
                      "vkrt shader needs");
  }

  // ---- Queue: the first family with compute. ----
  uint32_t qf_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &qf_count, nullptr);
  std::vector<VkQueueFamilyProperties> qfs(qf_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &qf_count, qfs.data());
  bool found_queue = false;
  for (uint32_t i = 0; i < qf_count; ++i) {
    if (qfs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      f.timestamp_valid_bits = qfs[i].timestampValidBits;
      f.timestamps = qfs[i].timestampValidBits > 0 && props.limits.timestampPeriod > 0;
      found_queue = true;
      break;
    }
  }
  if (!found_queue) {
    return make_error(Error::NotSupported, "Vulkan device \"", info_.name, "\" has no compute queue");
  }

  vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_properties_);
  const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
    if ((memory_properties_.memoryTypes[i].propertyFlags & unified) == unified) f.unified_memory = true;
  }

  // ---- Logical device: enable only what was probed and is used. ----
  VkPhysicalDeviceVulkan13Features e13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enabled.pNext = &e11;
  e11.pNext = &e12;
  if (v13) e12.pNext = &e13;
  enabled.features.shaderInt16 = VK_TRUE;
  enabled.features.shaderInt64 = feats2.features.shaderInt64;
  e11.storageBuffer16BitAccess = VK_TRUE;
  e12.storageBuffer8BitAccess = VK_TRUE;
  e12.shaderInt8 = VK_TRUE;
  e12.shaderFloat16 = f12.shaderFloat16;
  e12.hostQueryReset = f12.hostQueryReset;
  e13.shaderIntegerDotProduct = f.integer_dot_product;
  e13.maintenance4 = f.maintenance4;
  // Cooperative matrices (KHR): enabled where the device lists a subgroup shape.
  std::vector<const char*> device_exts;
  if (f.memory_budget) device_exts.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  CoopmatFeaturesKhr ecm;
  if (f.cooperative_matrix_khr) {
    device_exts.push_back("VK_KHR_cooperative_matrix");
    ecm.cooperativeMatrix = VK_TRUE;
    e12.vulkanMemoryModel = VK_TRUE;
    ecm.pNext = enabled.pNext;
    enabled.pNext = &ecm;
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &enabled;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = uint32_t(device_exts.size());
  dci.ppEnabledExtensionNames = device_exts.empty() ? nullptr : device_exts.data();
  VKRT_VK_RETURN_IF_ERROR(vkCreateDevice(physical_device_, &dci, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  return Status::ok();
}

namespace {

const char* component_name(int32_t type) {
  switch (type) {
    case int32_t(CoopmatType::Float16): return "f16";
    case int32_t(CoopmatType::Float32): return "f32";
    case int32_t(CoopmatType::Sint8): return "s8";
    case int32_t(CoopmatType::Sint32): return "s32";
    case int32_t(CoopmatType::Uint8): return "u8";
    case int32_t(CoopmatType::Uint32): return "u32";
    default: return "?";
  }
}

// "KHR (s8->s32 16x16x32, f16->f32 16x16x16)", "NV (not used)" or "no".
std::string coopmat_summary(const DeviceFeatures& f) {
  if (!f.cooperative_matrix_khr) {
    if (f.cooperative_matrix_khr_offered) return "KHR offered, not enabled (variants dot or portable)";
    return f.cooperative_matrix_nv ? "NV (not used)" : "no";
  }
  std::string text = "KHR (";
  for (size_t i = 0; i < f.cooperative_matrix_shapes.size(); ++i) {
    const CooperativeMatrixShape& s = f.cooperative_matrix_shapes[i];
    if (i > 0) text += ", ";
    text += std::string(component_name(s.a_type)) + "->" + component_name(s.result_type) + " " +
            std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  }
  return text + ")";
}

}  // namespace

uint64_t Context::device_local_heap_usage() const {
  if (!features_.memory_budget) return 0;
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  props.pNext = &budget;
  vkGetPhysicalDeviceMemoryProperties2(physical_device_, &props);
  uint64_t used = 0;
  for (uint32_t h = 0; h < props.memoryProperties.memoryHeapCount && h < VK_MAX_MEMORY_HEAPS; ++h) {
    if (props.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) used += budget.heapUsage[h];
  }
  return used;
}

std::string Context::describe() const {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "%s [%s], Vulkan %u.%u.%u, driver %s %s, subgroup %u, int8-dot %s, coopmat %s, "
                "fp16 %s, unified memory %s",
                info_.name.c_str(), type_name(info_.type), VK_API_VERSION_MAJOR(info_.api_version),
                VK_API_VERSION_MINOR(info_.api_version), VK_API_VERSION_PATCH(info_.api_version),
                info_.driver_name.c_str(), info_.driver_info.c_str(), features_.subgroup_size,
                features_.integer_dot_4x8_accelerated ? "accelerated"
                : features_.integer_dot_product ? "emulated" : "no",
                coopmat_summary(features_).c_str(), features_.shader_float16 ? "yes" : "no",
                features_.unified_memory ? "yes" : "no");
  return buf;
}

}  // namespace vkrt::vulkan
