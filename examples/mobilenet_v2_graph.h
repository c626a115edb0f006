// MobileNetV2-shaped TOSA graphs built through the IR (vgf/ir/graph.h), the samples of the Arm
// recipes' VGF flows: the layer shapes of MobileNetV2 1.0 (Sandler et al. 2018, Table 2) with
// deterministic random weights, lowered the way the Arm TOSA flow lowers PyTorch:
//   - INT8 (quantized): every convolution is CONV2D/DEPTHWISE_CONV2D (int32 accumulator) ->
//     RESCALE (-> CLAMP for ReLU6); residual adds are RESCALE x2 -> ADD (int32) -> RESCALE;
//   - A16W8 (int16 activations, int8 weights): the same with int48 accumulators and biases and
//     int16 activations (zero points 0, as TOSA requires for int16);
//   - FP32: convolutions with fp32 weights and biases, CLAMP [0, 6] for ReLU6, ADD for residuals.
// The head is AVG_POOL2D, a 1x1 CONV2D classifier and RESHAPE.
#pragma once

#include <cstdint>

#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"

namespace vkrt::samples {

enum class Precision { Int8, A16W8, Fp32 };

// "int8", "a16w8", "fp32".
const char* precision_name(Precision p);

struct MobileNetV2Options {
  int64_t batch = 1;
  int64_t resolution = 224;  // multiple of 32
  uint32_t seed = 1;
  Precision precision = Precision::Int8;
  // Integer precisions: every scale32 RESCALE rounds once (TOSA SINGLE_ROUND, the form
  // ExecuTorch's Arm backend emits) rather than twice (DOUBLE_ROUND, TFLite's and CMSIS-NN's).
  bool single_round = false;
};

vgf::Graph build_mobilenet_v2(const MobileNetV2Options& options);

// A small CNN for the A16W8 recipe (or any precision): [batch, 32, 32, 3] -> 3x3/2 conv (16,
// ReLU6) -> inverted residual block (expand 4x, depthwise 3x3, project to 16, residual add) ->
// 3x3/2 conv (32, ReLU6) -> global average pool -> 1x1 classifier -> [batch, 10].
vgf::Graph build_small_cnn(Precision precision, int64_t batch = 1, uint32_t seed = 1);

}  // namespace vkrt::samples
