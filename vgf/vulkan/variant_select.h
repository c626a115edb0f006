// Shader variants chosen by device feature (docs/vulkan-executor.md "Fast variants").
//
// Every op has a portable variant (shaders/variants.cmake). Faster variants
// (shaders/variants_fast.cmake) are used only where the device has what they need and is
// reported to run it fast, as ncnn and ggml decide (vulkan.md §5):
//   *_dot_i8_*  packed int8 dot products (OpSDotKHR): needs shaderIntegerDotProduct enabled;
//               chosen automatically only when the packed 4x8 form is reported accelerated.
//   matmul_coopmat<layout>_*, conv2d_1x1_coopmat<layout>_*  int8 and fp16 MATMUL and int8
//               1x1 CONV2D on KHR cooperative matrices (tensor cores): where the build embeds
//               them (glslang >= 14), the device lists the layout's shape at subgroup scope, its
//               subgroups have the layout's width and its workgroup and shared memory fit the
//               limits; by default not on CPU implementations (lavapipe emulates them). The
//               wide layout (16w / 8w, 256 invocations) is used where the GEMM fills at
//               least 256 of its blocks, else the 64-invocation one (16 / 8).
// VgfOptions::coopmat (VgfBackend.coopmat, VKRT_VULKAN_COOPMAT) = 16w|16|16b|16x|16y|16z|8w|8|8b
// names the cooperative-matrix layout to use where it fits (16b, 16x, 16y, 16z and 8b are tuning
// candidates used only when named). LoweringContext::set_variants carries it and the policy,
// VgfOptions::variants (VgfBackend.variants, VKRT_VULKAN_VARIANTS):
//   auto (default)  as above
//   dot             the dot variants whenever the device has shaderIntegerDotProduct, accelerated
//                   or not (tests run them on lavapipe, where it is emulated)
//   portable        never a fast variant
//   coopmat         as dot, plus the cooperative-matrix MATMUL wherever it fits, CPU devices
//                   included (tests run it on lavapipe)
#pragma once

#include <cstddef>
#include <string_view>

#include "vgf/ir/graph.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/op_lowering.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

using VariantPolicy = VgfVariants;

// "auto" | "dot" | "portable" | "coopmat" (case-sensitive; "" = auto): parse_vgf_variants.
inline Result<VariantPolicy> parse_variant_policy(std::string_view text) { return parse_vgf_variants(text); }

// Whether the int8 packed dot-product variants may be used on a device with these features.
bool use_int8_dot_variants(const DeviceFeatures& features, VariantPolicy policy);
// Whether a cooperative-matrix MATMUL variant fits and may be used, for int8 (else fp16) inputs;
// `layout` as VgfOptions::coopmat ("" = by GEMM size).
bool use_coopmat_matmul(const DeviceFeatures& features, VariantPolicy policy, bool int8,
                        std::string_view layout = {});

// Rewrites a lowered portable dispatch into its fast variant when the policy and device allow it
// and the op's operands permit it: int8 MATMUL ("matmul_i8_*") and fp16 MATMUL ("matmul_f16")
// into the cooperative-matrix variant, else int8 CONV2D ("conv2d_i8_*", constant weights) and
// MATMUL into the dot-product variant, packing weights into the constant buffer where that
// variant reads words. `push_bytes`: how much of the push constants the portable lowering
// filled. The policy and layout are ctx.variants() and ctx.coopmat_layout(). Any other dispatch,
// or one no fast variant can take, is left unchanged. Errors: InvalidArgument for a layout that
// names none, InvalidProgram when a constant's size does not match its shape.
Status select_fast_variant(const vgf::Op& op, LoweringContext& ctx, size_t push_bytes,
                           PendingDispatch* d);

}  // namespace vkrt::vulkan
