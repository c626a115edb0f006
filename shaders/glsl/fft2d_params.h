// Push constants of fft2d.comp (FFT2D and RFFT2D), one declaration for both sides: GLSL sees a
// push_constant block named `p`, C++ (the Vulkan lowering, the tests) a struct of the same
// 32-bit fields in the same order, so the byte layouts agree (std430: 4-byte scalars packed).
#ifndef VKRT_SHADER_FFT2D_PARAMS_H
#define VKRT_SHADER_FFT2D_PARAMS_H

// Fft2dParams::flags
#define FFT2D_INVERSE 1u     // exp(+i...) instead of exp(-i...) (FFT2D inverse = true)
#define FFT2D_REAL_INPUT 2u  // RFFT2D: input_imag is zero and not read; zero imaginary output
                             // at (0 or H/2, 0 or W/2)

#ifdef __cplusplus
#include <cstdint>
namespace vkrt::shaders {
#define VKRT_FFT_U32 uint32_t
struct Fft2dParams {
#else
#define VKRT_FFT_U32 uint
layout(push_constant) uniform Fft2dParams {
#endif
  VKRT_FFT_U32 batches;     // N
  VKRT_FFT_U32 height;      // H, a power of two
  VKRT_FFT_U32 width;       // W of the input, a power of two
  VKRT_FFT_U32 out_width;   // W (FFT2D) or W/2 + 1 (RFFT2D)
  VKRT_FFT_U32 table_size;  // L = max(H, W): entries of the twiddle buffer
  VKRT_FFT_U32 flags;       // FFT2D_INVERSE | FFT2D_REAL_INPUT
#ifdef __cplusplus
};
static_assert(sizeof(Fft2dParams) == 24, "Fft2dParams must match the GLSL block");
}  // namespace vkrt::shaders
#else
} p;
#endif
#undef VKRT_FFT_U32

#endif  // VKRT_SHADER_FFT2D_PARAMS_H
