// A TFLite interpreter with TFLite's int8/uint8 reference-kernel semantics, bit-exact, for the virtual
// Ethos-U NPU's tests: runs a model's subgraph 0 operator by operator on the host.
//
// Operators: ABS, ADD, AVERAGE_POOL_2D, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D, DEQUANTIZE,
// FULLY_CONNECTED, HARD_SWISH, LEAKY_RELU, LOGISTIC, MAXIMUM, MAX_POOL_2D, MEAN, MINIMUM, MUL, PACK,
// PAD, QUANTIZE, RELU, RELU6, RELU_N1_TO_1, RESHAPE, RESIZE_BILINEAR (int8), SHAPE, SLICE, SOFTMAX,
// SPLIT, STRIDED_SLICE, SUB, TANH, TRANSPOSE_CONV, UNPACK; 8-bit quantised tensors (int8 and uint8;
// int32 for the shape plumbing). Which TFLite version's semantics each follows is documented in
// tflite_reference_ops.h. Anything else (another operator or type, a CUSTOM operator such as
// Vela's "ethos-u", a malformed operator) gives an error naming the operator and its index.
//
// Shapes are the model's static tensor shapes; an operator whose computed output shape disagrees
// with the model's output tensor is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ethosu/tflite/tflite_model.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::tflite {

// Runs a CUSTOM operator the reference does not know (Vela's "ethos-u", on the virtual NPU):
// operators[op_index], given every tensor's bytes so far (indexed like model.tensors; empty where
// none yet); returns the bytes of the operator's outputs, in its order.
using CustomOperator = std::function<Result<std::vector<std::vector<uint8_t>>>(
    size_t op_index, const std::vector<std::vector<uint8_t>>& tensors)>;

// `inputs[i]` holds the raw bytes of tensor model.inputs[i] (exactly its byte_size()); returns the
// raw bytes of each tensor in model.outputs, in order. CUSTOM operators run through `custom` where
// it is given (an error otherwise).
Result<std::vector<std::vector<uint8_t>>> run_tflite_reference(const Model& model,
                                                               const std::vector<std::vector<uint8_t>>& inputs,
                                                               const CustomOperator& custom = {});

// The same, returning every tensor's bytes after the run (indexed like model.tensors; constants
// included, empty for tensors that were never written), for tests that compare intermediates.
Result<std::vector<std::vector<uint8_t>>> run_tflite_reference_all(const Model& model,
                                                                   const std::vector<std::vector<uint8_t>>& inputs);

}  // namespace vkrt::ethosu::tflite
