// THE CONTRACT for COMPUTE segments of a VGF (vgf-format.md §2 SegmentInfo, §5.3): a ready SPIR-V
// compute shader with its descriptor bindings, push-constant ranges and a dispatch shape. The
// graph executors run GRAPH segments; a COMPUTE segment needs a device that runs shaders, so its
// runner comes from the Vulkan library, which registers a factory here (the core VGF library does
// not link Vulkan). Without a registered factory a COMPUTE segment is refused by name.
//
// Data crosses the contract in host memory, as with GraphExecutor: the model runner
// (vgf/model/model_runner.h) owns one host tensor per resource and hands the segment its
// inputs and outputs in the order of VgfSegment::inputs / VgfSegment::outputs.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vgf/format/vgf_file.h"
#include "vkrt/backend.h"
#include "vkrt/error.h"
#include "vkrt/tensor.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {

class ComputeSegmentRunner {
 public:
  virtual ~ComputeSegmentRunner() = default;

  // The device that runs the shader, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) [cpu]".
  virtual std::string device_name() const = 0;
  // True where that device is a CPU implementation of Vulkan (lavapipe).
  virtual bool software_device() const = 0;

  // Runs the shader once. inputs[i] holds resource segment.inputs[i].mrt_index and outputs[j]
  // resource segment.outputs[j].mrt_index, as host tensors laid out by resource_host_type()
  // (packed row-major; images as [1,H,W,C] or [H,W,C] pixels of C components). An output tensor
  // may also be an input of the same segment (an alias group); the runner reads all inputs
  // before writing outputs back.
  virtual Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) = 0;

  // GPU time of the last run's dispatch, when the runner profiles (VgfOptions::profile).
  virtual std::vector<DelegateProfileEntry> op_profile() const { return {}; }
};

// Creates the runner of COMPUTE segment `segment` of `file` (which must outlive it): shader
// module, pipeline, descriptor set layout from the segment's set_infos and the resources'
// descriptor types, push-constant ranges, device buffers and images. Errors name the segment:
// NotSupported for what the device or runner cannot bind, InvalidProgram for a segment that
// breaks the format's rules. `options`: the load's (device, validation, profile, zero_copy,
// pipeline_cache_dir); read during the call only.
using ComputeSegmentFactory = Result<std::unique_ptr<ComputeSegmentRunner>> (*)(
    const VgfFile& file, size_t segment, const VgfOptions& options);

// Registers the factory (the Vulkan library does, from a static initialiser); the first one
// registered stays. Thread-compatible.
void register_compute_segment_factory(ComputeSegmentFactory factory);
// Null when no factory is registered (the Vulkan library is not linked).
ComputeSegmentFactory compute_segment_factory();

// Host element type and shape of a resource: single-component formats as the graph executors
// take them (dtype_to_scalar_type of dtype_from_vk_format), multi-component (image) formats as
// their component type (R8G8B8A8_UINT -> Byte, R32G32B32A32_SFLOAT -> Float, ...). Rank-0
// resources are [1] (§4); dynamic dimensions stay kDynamicDim. Images must be [1,H,W,C] or
// [H,W,C] with C the format's component count. Errors (InvalidProgram) name the resource.
struct ResourceHostType {
  ScalarType scalar = ScalarType::Byte;
  std::vector<int64_t> shape;
};
Result<ResourceHostType> resource_host_type(const VgfFile& file, uint32_t mrt_index);

}  // namespace vkrt::vgf
