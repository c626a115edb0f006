// Packed int8 dot products for the *_dot_* variants (docs/vulkan-executor.md "Fast variants").
//
// glslang 12 (Debian bookworm) has no GL_EXT_integer_dot_product, so the SPIR-V instruction is
// declared directly through GL_EXT_spirv_intrinsics (vulkan.md §4):
//   OpSDotKHR = 4450 (SPV_KHR_integer_dot_product), capabilities DotProductKHR = 6019 and
//   DotProductInput4x8BitPackedKHR = 6018; the literal operand 0 = PackedVectorFormat4x8BitKHR
//   (SPIRV-Headers spirv.core.grammar.json).
// The non-saturating OpSDotKHR is used on purpose: a dot of four int8 pairs always fits int32
// (|sum| <= 4 * 128 * 128), and the running sum is an ordinary (wrapping) OpIAdd, exactly like
// the portable variants. OpSDotAccSatKHR would saturate the accumulator instead (vulkan.md §4).
// The device must enable shaderIntegerDotProduct (vgf/vulkan/context.cpp does when present).
#extension GL_EXT_spirv_intrinsics : require

spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_4x8_packed(int a, int b, spirv_literal int packed_format);

// Sum of the four signed bytes of a times the four signed bytes of b.
int sdot4(int a, int b) { return sdot_4x8_packed(a, b, 0); }

// Four int8 ones: sdot4(x, ONES4) is the sum of x's four bytes (for zero-point corrections).
#define ONES4 0x01010101

// Packs four int8 values (lane 0 = lowest byte, the memory order of a little-endian word).
int pack4(int8_t b0, int8_t b1, int8_t b2, int8_t b3) { return pack32(i8vec4(b0, b1, b2, b3)); }

// The word with `v` in its first `lanes` bytes (1..4) and zero above.
int replicate_lanes(int v, int lanes) {
  int word = pack4(int8_t(v), int8_t(v), int8_t(v), int8_t(v));
  return lanes >= 4 ? word : (word & int((1u << uint(8 * lanes)) - 1u));
}
