// Private: the reference loops behind the vectorised paths, written straight from the spec's
// pseudocode (tosa.md §5, §6, §7). The public kernels use them wherever no fast path applies
// (int16, fp32, more taps than int32 sums hold exactly, RESCALE's scale16); tests and
// tosa_bench call them directly to compare the two. Operands must already be checked (the
// check_* functions of tosa_kernels.h).
#pragma once

#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa::detail {

void conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                      const ConvAttr& attrs, const TensorRef& output);
void depthwise_conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& attrs, const TensorRef& output);
void rescale_reference(const TensorRef& input, const RescaleAttr& attrs, const TensorRef& output);
void avg_pool2d_reference(const TensorRef& input, const PoolAttr& attrs, const TensorRef& output);
void matmul_reference(const TensorRef& a, const TensorRef& b, const MatmulAttr& attrs, const TensorRef& output);
void conv3d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& output);
void transpose_conv2d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const TransposeConvAttr& attrs, const TensorRef& output);

}  // namespace vkrt::tosa::detail
