// CMSIS-NN arm_softmax_s16: int16 input and output (Q15 probabilities), with two 513-entry
// lookup tables interpolated linearly: exp(x) on [−10, 0] and 1/(1 + x) on [0, 1], built as
// TFLite's gen_lut builds them (tensorflow/lite/kernels/internal/common.h, TFLite 2.6, the
// version CMSIS-NN's test data names). No ExecuTorch cortex_m op feeds int16 into softmax;
// this is the A16 kernel CMSIS-NN offers, checked against its `softmax_s16` vector.
//
// Per row: d = requantize(x − max, input_multiplier, input_left_shift) + 32767, saturated to
// int16; e = exp_lut(d); sum = Σ e; 1/sum from the second table at the sum's top 16 bits;
// out = round(e · (1/sum) / 2^(31 − clz(sum))).
//
// Defined here where the C code is not: a row longer than 65536 elements (the int32 sum of
// 32767-valued terms could overflow) is refused with InvalidArgument; rows of zero elements
// produce nothing. One deliberate difference: CMSIS casts the final value to int16 without
// saturating, so an element that takes the whole probability (a row of one element) comes out
// as −32768; we saturate it to 32767, as the Q15 output means (docs/cortex-m-kernels.md).
#pragma once

#include <cstdint>

#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct SoftmaxS16Params {
  int64_t rows = 0;
  int32_t row_size = 0;
  int32_t input_multiplier = 0;
  int32_t input_left_shift = 0;  // as arm_nn_requantize's shift: negative shifts right
};

inline constexpr int32_t kSoftmaxS16MaxRow = 65536;

Status softmax_s16(const SoftmaxS16Params& p, const int16_t* input, int16_t* output);

// The tables (513 entries each), for tests: exp on [−10, 0] and 1/(1 + x) on [0, 1] in Q15.
const int16_t* softmax_s16_exp_table();
const int16_t* softmax_s16_reciprocal_table();

}  // namespace vkrt::cortex_m
