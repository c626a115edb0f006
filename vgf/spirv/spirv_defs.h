// SPIR-V numbers the graph reader and writer use (SPIRV-Headers spirv.core.grammar.json @0d25db97;
// ARM graph/tensor opcodes from vgf-format.md §6.1).
#pragma once

#include <cstdint>

namespace vkrt::vgf::spirv {

inline constexpr uint32_t kMagic = 0x07230203u;
inline constexpr uint32_t kHeaderWords = 5;

enum Opcode : uint16_t {
  OpName = 5,
  OpExtension = 10,
  OpExtInstImport = 11,
  OpExtInst = 12,
  OpMemoryModel = 14,
  OpCapability = 17,
  OpTypeVoid = 19,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeArray = 28,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpConstantTrue = 41,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpConstantNull = 46,
  OpSpecConstantTrue = 48,
  OpSpecConstantFalse = 49,
  OpSpecConstant = 50,
  OpSpecConstantComposite = 51,
  OpVariable = 59,
  OpDecorate = 71,
  OpCompositeExtract = 81,
  OpTypeTensorARM = 4163,
  OpGraphConstantARM = 4181,
  OpGraphEntryPointARM = 4182,
  OpGraphARM = 4183,
  OpGraphInputARM = 4184,
  OpGraphSetOutputARM = 4185,
  OpGraphEndARM = 4186,
  OpTypeGraphARM = 4190,
  OpConstantCompositeReplicateEXT = 4461,
  OpSpecConstantCompositeReplicateEXT = 4462,
};

enum Decoration : uint32_t { DecorationBinding = 33, DecorationDescriptorSet = 34 };
enum StorageClass : uint32_t { StorageClassUniformConstant = 0 };
enum Capability : uint32_t {
  CapabilityMatrix = 0,
  CapabilityShader = 1,
  CapabilityFloat16 = 9,
  CapabilityInt64 = 11,
  CapabilityInt16 = 22,
  CapabilityInt8 = 39,
  CapabilityTensorsARM = 4174,
  CapabilityGraphARM = 4191,
  CapabilityVulkanMemoryModel = 5345,
  CapabilityReplicatedCompositesEXT = 6024,
};
enum FPEncoding : uint32_t { FPEncodingBFloat16KHR = 0, FPEncodingFloat8E4M3EXT = 4214, FPEncodingFloat8E5M2EXT = 4215 };
inline constexpr uint32_t kAddressingLogical = 0;
inline constexpr uint32_t kMemoryModelVulkan = 3;
inline constexpr const char* kTosaImportName = "TOSA.001000.1";

}  // namespace vkrt::vgf::spirv
