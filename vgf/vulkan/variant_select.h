// Shader variants chosen by device feature (docs/vulkan-executor.md "Fast variants").
//
// Every op has a portable variant (shaders/variants.cmake). Faster variants
// (shaders/variants_fast.cmake) are used only where the device has what they need and is
// reported to run it fast, as ncnn and ggml decide (vulkan.md §5):
//   *_dot_i8_*  packed int8 dot products (OpSDotKHR): needs shaderIntegerDotProduct enabled;
//               chosen automatically only when the packed 4x8 form is reported accelerated.
//   matmul_coopmat_i8_*  int8 MATMUL on NV cooperative matrices (tensor cores). UNTESTED on a real
//               device, so never automatic: only with VKRT_VULKAN_VARIANTS=coopmat, and only
//               where DeviceFeatures::cooperative_matrix_nv_int8, 32-wide subgroups and subgroup
//               arithmetic + shuffle are present.
// The policy can be forced with the env var VKRT_VULKAN_VARIANTS:
//   auto (default)  as above
//   dot             the dot variants whenever the device has shaderIntegerDotProduct, accelerated
//                   or not (tests run them on lavapipe, where it is emulated)
//   portable        never a fast variant
//   coopmat         as dot, plus the cooperative-matrix MATMUL where the device has it
#pragma once

#include <cstddef>
#include <string_view>

#include "vgf/ir/graph.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/op_lowering.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class VariantPolicy { Auto, Dot, Portable, Coopmat };

// "auto" | "dot" | "portable" | "coopmat" (case-sensitive); InvalidArgument naming the text
// otherwise.
Result<VariantPolicy> parse_variant_policy(std::string_view text);
// The policy from VKRT_VULKAN_VARIANTS (unset or empty = Auto); InvalidArgument when malformed.
Result<VariantPolicy> variant_policy_from_env();

// Whether the int8 packed dot-product variants may be used on a device with these features.
bool use_int8_dot_variants(const DeviceFeatures& features, VariantPolicy policy);
// Whether the int8 cooperative-matrix MATMUL variant may be used.
bool use_int8_coopmat_matmul(const DeviceFeatures& features, VariantPolicy policy);

// Rewrites a lowered portable int8 CONV2D or MATMUL dispatch (`d->shader` "conv2d_i8_*" or
// "matmul_i8_*", push constants filled up to `push_bytes`) into its dot-product variant when the
// policy and device allow it and the op's operands permit it (CONV2D: constant weights); packs
// weights into the constant buffer where the variant needs words. Any other dispatch, or one the
// fast variant cannot take, is left unchanged. Errors: InvalidArgument for a malformed
// VKRT_VULKAN_VARIANTS, InvalidProgram when a constant's size does not match its shape.
Status select_int8_variant(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes,
                           PendingDispatch* d);

}  // namespace vkrt::vulkan
