// cortex_m::softmax — CMSIS-NN arm_softmax_s8 and arm_softmax_s8_s16 (cortex-m-ops.md §4.7):
// input scaled to Q5.26, gemmlowp exp_on_negative_values, 12 accumulation bits.
//
// Edge behaviour the C code leaves undefined (defined here, docs/cortex-m-kernels.md): the row
// sum is kept unsigned and wide (the C int32 sum overflows from 4096 maximal elements); sums of
// 2^32 or more drop low bits into the final shift; when that shift (bits_over_unit) exceeds 31
// (int8 output: rows whose sum reaches 2^28, i.e. >= 512 maximal elements) the quotient of a
// value below 2^31 by >= 2^32 rounds to 0, so every output of the row is the minimum (-128);
// the real-valued result is then at most half an output step above it. A row of one element
// gives 127 (int8) / 32767 (int16); a row of 4096 equal elements gives -128 (int8) and
// -32752 = round(65536/4096) - 32768 (int16).
#pragma once

#include <cstdint>

namespace vkrt::cortex_m {

struct SoftmaxParams {
  int64_t rows = 0;
  int32_t row_size = 0;
  int32_t input_multiplier = 0;
  int32_t input_left_shift = 0;  // >= 0
  int32_t diff_min = 0;          // <= 0
};

void softmax_s8(const SoftmaxParams& p, const int8_t* input, int8_t* output);
void softmax_s8_s16(const SoftmaxParams& p, const int8_t* input, int16_t* output);

}  // namespace vkrt::cortex_m
