// An int8 MobileNetV2-shaped TOSA graph built through the IR (vgf/ir/graph.h): the layer shapes
// of MobileNetV2 1.0 (Sandler et al. 2018, Table 2) with random weights and requantization
// parameters, lowered the way the Arm TOSA flow lowers quantized PyTorch: every convolution is
// CONV2D/DEPTHWISE_CONV2D -> RESCALE (-> CLAMP for ReLU6); residual adds are RESCALE x2 ->
// ADD (int32) -> RESCALE; the head is AVG_POOL2D, a 1x1 CONV2D classifier and RESHAPE.
#pragma once

#include <cstdint>

#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"

namespace vkrt::samples {

struct MobileNetV2Options {
  int64_t batch = 1;
  int64_t resolution = 224;  // multiple of 32
  uint32_t seed = 1;
};

vgf::Graph build_mobilenet_v2_int8(const MobileNetV2Options& options);

}  // namespace vkrt::samples
