// TFLite's int8/uint8 reference arithmetic, bit-exact, for the virtual Ethos-U NPU's tests: the
// Prepare-time parameter computations (QuantizeMultiplier, activation ranges, padding, the LUTs and
// fixed-point parameters of the activations) and the per-operator kernels that run_tflite_reference
// (tflite_reference.h) dispatches to.
//
// Written for vkrt from the published semantics of tensorflow/lite/kernels/internal/
// (common.h, quantization_util.cc, reference/*.h, reference/integer_ops/*.h) and of the kernels'
// Prepare steps (tensorflow/lite/kernels/*.cc); the fixed-point primitives are the project's own
// (cpu_fallback/arith/fixed_point.h), which equal gemmlowp's.
//
// Which TFLite semantics, where versions differ (see also tflite_reference.cpp):
//  * Requantisation: the default build's double rounding (TFLITE_SINGLE_ROUNDING off), which is what
//    CMSIS-NN and Vela reproduce.
//  * LOGISTIC, TANH (int8/uint8): the float lookup table of TFLite's activations.cc
//    (PopulateLookupTable: float math, std::round), which TFLite's reference *and* generic kernels
//    use today; Vela builds the same table in double precision (ties could differ, none seen).
//  * SOFTMAX (int8/uint8): the fixed-point reference_ops::Softmax (gemmlowp exp_on_negative_values,
//    Q5.26 input, 12 accumulation bits, diff_min), as in TFLite Micro and CMSIS-NN arm_softmax_s8, and
//    as Vela's softmax.py decomposes it for the NPU. (TFLite's interpreter uses a float exp table for
//    8-bit softmax instead; it is not what Vela claims bit-exactness with.)
//  * HARD_SWISH: reference_ops::HardSwish (16-bit fixed point), LEAKY_RELU: QuantizeLeakyRelu; both
//    are what Vela's LUTs are generated from.
//  * MEAN (int8): TFLite's reduce.cc: for a 4-D input reduced over axes {1, 2} with keep_dims (the
//    conformance model), reference_integer_ops::Mean (rescale the sum, then divide rounding half away
//    from zero); otherwise reference_ops::QuantizedMeanOrSum (1/n folded into the multiplier; TFLite
//    Micro's only int8 path today). TFLite's third path (equal input/output quantisation, not 4-D
//    {1, 2}) is not distinguished.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ethosu/tflite/tflite_model.h"

namespace vkrt::ethosu::tflite::ref {

// ---- quantisation helpers ------------------------------------------------------------------------

// A quantised multiplier: real ≈ multiplier · 2^(shift − 31), multiplier in [2^30, 2^31) or 0.
struct Multiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

// TFLite QuantizeMultiplier: frexp, round half away from zero, 2^31 renormalised to 2^30 with
// shift + 1, shifts below −31 flushed to (0, 0). `real` must be finite and >= 0.
Multiplier quantize_multiplier(double real);
// TFLite MultiplyByQuantizedMultiplier (double rounding):
// RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x · 2^max(shift,0), m), max(−shift, 0)).
int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift);
inline int32_t multiply_by_quantized_multiplier(int32_t x, Multiplier m) {
  return multiply_by_quantized_multiplier(x, m.multiplier, m.shift);
}

// TFLite CalculateActivationRangeQuantized: [qmin, qmax] narrowed by the fused activation
// (zp + round(bound / scale), float arithmetic).
struct Range {
  int32_t min = 0;
  int32_t max = 0;
};
Range activation_range(Activation act, float out_scale, int32_t out_zp, int32_t qmin, int32_t qmax);

// kernels/padding.h: ComputeOutSize and ComputePaddingWithOffset.
int compute_out_size(Padding padding, int image_size, int filter_size, int stride, int dilation);
int compute_padding(int stride, int dilation, int in_size, int filter_size, int out_size);

// ---- convolutions, fully connected, pooling (NHWC) -----------------------------------------------

// One output-stage description shared by the convolutions and fully connected: offsets as TFLite's
// kernels take them (input_offset = −input zp, filter_offset = −filter zp, output_offset = +output
// zp), per-channel (or one) multipliers, and the activation range.
struct OutputStage {
  int32_t input_offset = 0;
  int32_t filter_offset = 0;
  int32_t output_offset = 0;
  std::vector<Multiplier> multipliers;  // one per output channel, or one for all
  Range act;
  const Multiplier& at(int channel) const { return multipliers.size() == 1 ? multipliers[0] : multipliers[size_t(channel)]; }
};

struct ConvGeometry {
  int batches = 1, in_h = 0, in_w = 0, in_ch = 0;
  int out_h = 0, out_w = 0, out_ch = 0;
  int filter_h = 1, filter_w = 1;
  int stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int pad_h = 0, pad_w = 0;
};

// reference_integer_ops::ConvPerChannel / reference_ops::Conv (uint8): filter [out_ch][fh][fw][in_ch].
template <typename T>
void conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter, const int32_t* bias,
            T* output);
// reference_integer_ops::DepthwiseConvPerChannel: filter [1][fh][fw][out_ch], out_ch = in_ch · multiplier.
template <typename T>
void depthwise_conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter,
                      const int32_t* bias, T* output);
// reference_integer_ops::TransposeConv: filter [out_ch][fh][fw][in_ch]; g.in_* is the op's input,
// g.out_* its output; pads as TFLite computes them for TRANSPOSE_CONV.
template <typename T>
void transpose_conv2d(const ConvGeometry& g, const OutputStage& s, const T* input, const T* filter,
                      const int32_t* bias, T* output);
// reference_integer_ops::FullyConnected: input [batches][depth], filter [out][depth].
template <typename T>
void fully_connected(int batches, int depth, int out_features, const OutputStage& s, const T* input,
                     const T* filter, const int32_t* bias, T* output);

struct PoolGeometry {
  int batches = 1, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  int filter_h = 1, filter_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
// reference_integer_ops::AveragePool: sum over in-bounds taps, rounded half away from zero, clamped.
template <typename T>
void average_pool(const PoolGeometry& g, Range act, const T* input, T* output);
template <typename T>
void max_pool(const PoolGeometry& g, Range act, const T* input, T* output);

// ---- softmax (fixed-point reference) -------------------------------------------------------------

struct SoftmaxParams {
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int diff_min = 0;
};
// PreprocessSoftmaxScaling(beta, input_scale, 5) and diff_min = −CalculateInputRadius(5, shift).
SoftmaxParams prepare_softmax(double beta, double input_scale);
// gemmlowp exp_on_negative_values for Q5.26 input (a <= 0), result Q0.31.
int32_t exp_on_negative_values(int32_t a_q5_26);
// gemmlowp one_over_one_plus_x_for_x_in_0_1 (Q0.31 in and out).
int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a_q0_31);
// reference_ops::Softmax over `rows` rows of `depth` elements; false when the row sum leaves the
// range TFLite checks (exponent outside [0, 31]).
template <typename T>
bool softmax(const SoftmaxParams& p, int rows, int depth, const T* input, T* output);

// ---- element-wise activations --------------------------------------------------------------------

// TFLite activations.cc PopulateLookupTable<T>: float dequantise, transform, std::round, clamp.
enum class LutFunction { Logistic, Tanh };
template <typename T>
std::array<T, 256> make_lut(LutFunction f, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp);

// TFLite HardSwishPrepare + reference_ops::HardSwish.
struct HardSwishParams {
  int32_t input_zero_point = 0;
  int32_t output_zero_point = 0;
  int16_t reluish_multiplier_fixedpoint_int16 = 0;
  int reluish_multiplier_exponent = 0;
  int16_t output_multiplier_fixedpoint_int16 = 0;
  int output_multiplier_exponent = 0;
};
// False when TFLite's Prepare would fail (output multiplier exponent > 0).
bool prepare_hard_swish(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, HardSwishParams* p);
template <typename T>
T hard_swish(const HardSwishParams& p, T x);

// TFLite LeakyReluPrepare + reference_ops::QuantizeLeakyRelu.
struct LeakyReluParams {
  int32_t input_offset = 0;   // input zp
  int32_t output_offset = 0;  // output zp
  Multiplier alpha;
  Multiplier identity;
};
LeakyReluParams prepare_leaky_relu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float alpha);
template <typename T>
T leaky_relu(const LeakyReluParams& p, T x);

// ADD / SUB (TFLite PrepareGeneralSubOp / add.cc, 8-bit): left_shift 20, inputs rescaled to twice
// the larger input scale. False when a multiplier leaves the range TFLite checks.
struct AddParams {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  int left_shift = 20;
  Multiplier input1, input2, output;
  Range act;
};
bool prepare_add(float s1, int32_t zp1, float s2, int32_t zp2, float so, int32_t zpo, Range act, AddParams* p);
int32_t add_sub_value(const AddParams& p, int32_t x1, int32_t x2, bool subtract);

}  // namespace vkrt::ethosu::tflite::ref
