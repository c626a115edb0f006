// In-process GLSL -> SPIR-V compilation for shaders generated at delegate init (fused
// elementwise chains, elementwise_fusion.h), with the glslang library (Debian glslang-dev) and
// validation of the result by SPIRV-Tools (the library behind spirv-val). Same target as the
// build-time shaders: Vulkan 1.2 / SPIR-V 1.5 (shaders/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::vulkan {

// Compiles one compute shader. `name` only labels errors. Errors:
//  * InvalidProgram: glslang rejected the source or the link; the message carries glslang's
//    info log ("ERROR: <name>:17: 'x' : undeclared identifier") so the failing line is named;
//  * Internal: SPIRV-Tools rejected the generated module (a glslang or generator bug).
// Thread-safe (glslang's process state is initialised once).
Result<std::vector<uint32_t>> compile_glsl_compute(std::string_view source, std::string_view name);

// Validates a SPIR-V module for Vulkan 1.2 with SPIRV-Tools (as spirv-val would). Internal with
// the validator's diagnostics when it is not valid; `label` names the module in the message.
Status validate_spirv(std::span<const uint32_t> words, std::string_view label);

}  // namespace vkrt::vulkan
