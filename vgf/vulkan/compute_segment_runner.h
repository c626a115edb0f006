// The Vulkan runner of a VGF COMPUTE segment (contract: vgf/compute_segment.h): the segment's
// SPIR-V compute shader as a compute pipeline, its descriptor sets bound to device buffers and
// images, one vkCmdDispatch of the segment's dispatch_shape. The library registers
// make_compute_segment_runner with vgf::register_compute_segment_factory from a static
// initialiser (link vkrt_vgf_vulkan whole). docs/vulkan-executor.md "COMPUTE segments".
//
// Create (all the checking and all the allocation):
//  * refused by name: a segment that is not COMPUTE, a module that is GRAPH or has no SPIR-V
//    (GLSL/HLSL source is NotSupported), constants (InvalidProgram, as ExecuTorch's VgfBackend),
//    a zero workgroup count, SPIR-V that spirv-val rejects or whose entry point, bindings, image
//    formats, texel types or push-constant block do not match the VGF's tables;
//  * device limits (NotSupported): maxComputeWorkGroupCount/Size/Invocations,
//    maxPushConstantsSize, maxBoundDescriptorSets, the per-stage descriptor counts,
//    maxStorageBufferRange, maxImageDimension2D and the format's features for the usage
//    (vkGetPhysicalDeviceFormatProperties / ImageFormatProperties);
//  * descriptor types: STORAGE_BUFFER -> a storage buffer of the resource's bytes; STORAGE_IMAGE,
//    SAMPLED_IMAGE, COMBINED_IMAGE_SAMPLER -> a 2D image of the resource's format and [H,W]
//    extent (shape [1,H,W,C] or [H,W,C]) in layout GENERAL, with a VkSampler from the resource's
//    SamplerConfig for a combined image sampler; TENSOR_ARM and every other type -> NotSupported.
// run(): host tensors in (into mapped device memory where it is host-visible and coherent, else
// through one staging buffer; images by vkCmdCopyBufferToImage of packed pixel rows), one submit
// of the command buffer recorded at create, wait, host tensors out. No heap allocation.
//
// Options (typed, VgfOptions): device, validation, pipeline_cache_dir, profile (GPU timestamps
// around the dispatch: op_profile() has one entry "COMPUTE <segment name>"), zero_copy = false
// (staging even on unified memory).
#pragma once

#include <cstddef>
#include <memory>

#include "vgf/compute_segment.h"
#include "vgf/format/vgf_file.h"
#include "vkrt/backend.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

// The ComputeSegmentFactory of the Vulkan library (what vgf::compute_segment_factory() returns
// when this library is linked).
Result<std::unique_ptr<vgf::ComputeSegmentRunner>> make_compute_segment_runner(const vgf::VgfFile& file,
                                                                               size_t segment,
                                                                               const VgfOptions& options);

}  // namespace vkrt::vulkan
