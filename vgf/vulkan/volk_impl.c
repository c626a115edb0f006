// volk's loader implementation, compiled into vkrt_vgf_vulkan (no link-time libvulkan dependency:
// volkInitialize() dlopens libvulkan.so.1 at run time).
// VK_NO_PROTOTYPES comes from the target's compile definitions.
#include <volk.c>
