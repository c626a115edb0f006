// Sample programs whose work is one VgfBackend delegate (a TOSA graph in a VGF file), so that
// `executor_runner` runs them on the Vulkan executor (or the CPU one): make_sample_programs
// writes them when the VGF part is built.
#pragma once

#include <cstdint>
#include <vector>

#include "vkrt/error.h"

namespace vkrt::samples {

// int8 in [batch, resolution, resolution, 3] -> VgfBackend(MobileNetV2-shaped int8 graph,
// mobilenet_v2_graph.h, seed 1) -> int8 logits. No CPU kernel around the delegate.
Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(int64_t batch, int64_t resolution);

}  // namespace vkrt::samples
