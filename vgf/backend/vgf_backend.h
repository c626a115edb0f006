// VgfBackend: runs ExecuTorch delegate payloads that are VGF files (vgf-format.md §5), registered
// in the runtime's BackendRegistry as "VgfBackend" when vkrt_vgf_backend is linked whole.
//
// Options (BackendOptions, set by the embedding application or executor_runner):
//   "VgfBackend.executor" = "cpu" | "vulkan" | "auto" (default "auto": the Vulkan executor when
//       it is linked and finds a device and accepts the graph, else the CPU executor).
//
// init: decodes the VGF, builds the graph IR of every GRAPH segment from its SPIR-V module
// (graph constants from the constant section), infers shapes, and prepares one executor per
// segment. COMPUTE segments (ready SPIR-V compute shaders) are decoded but rejected with
// NotSupported: no executor runs them yet. Intermediate resources between segments are
// allocated at init (they need static shapes).
// execute: args are the delegate's inputs then outputs; model input k is the argument named by
// the VGF's model-input binding (the original input index), outputs map by position (§4). Types
// are checked against the resource formats, sizes against the resource shapes.
#pragma once

#include <string_view>

namespace vkrt::vgf {

inline constexpr std::string_view kVgfBackendName = "VgfBackend";
inline constexpr std::string_view kVgfExecutorOption = "VgfBackend.executor";

// Forces the registration (for programs that cannot link the library whole); idempotent.
void register_vgf_backend();

}  // namespace vkrt::vgf
