// Sample programs whose work is one VgfBackend delegate (a TOSA graph in a VGF file), so that
// `executor_runner` runs them on the Vulkan executor (or the CPU one): make_sample_programs
// writes them when the VGF part is built. The graphs are written as VGFs and wrapped into
// programs with the public VGF API (vkrt/vgf.h, VgfModel::to_pte). Inputs and outputs are the graph's own types (int8,
// int16 or float); no CPU kernel around the delegate.
#pragma once

#include <cstdint>
#include <vector>

#include "mobilenet_v2_graph.h"
#include "vkrt/error.h"

namespace vkrt::samples {

// [batch, resolution, resolution, 3] -> VgfBackend(MobileNetV2-shaped graph of `precision`,
// mobilenet_v2_graph.h, seed 1) -> [batch, 1000] logits.
Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(int64_t batch, int64_t resolution,
                                                      Precision precision = Precision::Int8);
// The same for any options (the seed, the rounding of its RESCALEs).
Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(const MobileNetV2Options& options);

// [1, 32, 32, 3] -> VgfBackend(build_small_cnn(precision)) -> [1, 10].
Result<std::vector<uint8_t>> small_cnn_vgf_program(Precision precision);

// The same small CNN as a bare VGF file (for `executor_runner model.vgf` and the VGF API).
Result<std::vector<uint8_t>> small_cnn_vgf(Precision precision);

}  // namespace vkrt::samples
