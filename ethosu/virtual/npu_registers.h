// The Ethos-U55/U65 command stream as registers: opcode numbers, the register file a stream writes,
// and the bit fields the operations read (docs/ethos-u.md §6; names as in Arm's Ethos-U55 register
// description that Vela's generator uses).
//
// A command stream is a list of register writes (cmd0: one word with a 16-bit value; cmd1: two
// words, a 16-bit parameter and a 32-bit payload) and operations (OP_CONV, OP_POOL, ...) that run
// with the registers as they are. Registers persist from operation to operation, and Vela omits
// writes of unchanged values, so the virtual NPU keeps the whole file.
#pragma once

#include <array>
#include <cstdint>

namespace vkrt::ethosu::virtual_npu {

// cmd0 opcodes: operations, then registers with a 16-bit value.
enum class Cmd0 : uint16_t {
  OpStop = 0x000, OpIrq = 0x001, OpConv = 0x002, OpDepthwise = 0x003, OpPool = 0x005,
  OpElementwise = 0x006, OpResize = 0x007 /* U85 */, OpDmaStart = 0x010, OpDmaWait = 0x011,
  OpKernelWait = 0x012, OpPmuMask = 0x013,
  IfmPadTop = 0x100, IfmPadLeft = 0x101, IfmPadRight = 0x102, IfmPadBottom = 0x103,
  IfmDepthM1 = 0x104, IfmPrecision = 0x105, IfmUpscale = 0x107, IfmZeroPoint = 0x109,
  IfmWidth0M1 = 0x10A, IfmHeight0M1 = 0x10B, IfmHeight1M1 = 0x10C, IfmIbEnd = 0x10D,
  IfmRegion = 0x10F,
  OfmWidthM1 = 0x111, OfmHeightM1 = 0x112, OfmDepthM1 = 0x113, OfmPrecision = 0x114,
  OfmBlkWidthM1 = 0x115, OfmBlkHeightM1 = 0x116, OfmBlkDepthM1 = 0x117, OfmZeroPoint = 0x118,
  OfmWidth0M1 = 0x11A, OfmHeight0M1 = 0x11B, OfmHeight1M1 = 0x11C, OfmRegion = 0x11F,
  KernelWidthM1 = 0x120, KernelHeightM1 = 0x121, KernelStride = 0x122, ParallelMode = 0x123,
  AccFormat = 0x124, Activation = 0x125, ActivationMin = 0x126, ActivationMax = 0x127,
  WeightRegion = 0x128, ScaleRegion = 0x129, AbStart = 0x12D, BlockDep = 0x12F,
  Dma0SrcRegion = 0x130, Dma0DstRegion = 0x131, Dma0Size0 = 0x132, Dma0Size1 = 0x133,
  Ifm2Broadcast = 0x180, Ifm2Scalar = 0x181, Ifm2Precision = 0x185, Ifm2ZeroPoint = 0x189,
  Ifm2Width0M1 = 0x18A, Ifm2Height0M1 = 0x18B, Ifm2Height1M1 = 0x18C, Ifm2IbStart = 0x18D,
  Ifm2Region = 0x18F,
};

// cmd1 opcodes: registers with a 32-bit payload (addresses take 8 more bits from the parameter).
enum class Cmd1 : uint16_t {
  IfmBase0 = 0x000, IfmBase1 = 0x001, IfmBase2 = 0x002, IfmBase3 = 0x003,
  IfmStrideX = 0x004, IfmStrideY = 0x005, IfmStrideC = 0x006,
  OfmBase0 = 0x010, OfmBase1 = 0x011, OfmBase2 = 0x012, OfmBase3 = 0x013,
  OfmStrideX = 0x014, OfmStrideY = 0x015, OfmStrideC = 0x016,
  WeightBase = 0x020, WeightLength = 0x021, ScaleBase = 0x022, ScaleLength = 0x023,
  OfmScale = 0x024, OpaScale = 0x025, OpbScale = 0x026,
  Dma0Src = 0x030, Dma0Dst = 0x031, Dma0Len = 0x032, Dma0Skip0 = 0x033, Dma0Skip1 = 0x034,
  Ifm2Base0 = 0x080, Ifm2Base1 = 0x081, Ifm2Base2 = 0x082, Ifm2Base3 = 0x083,
  Ifm2StrideX = 0x084, Ifm2StrideY = 0x085, Ifm2StrideC = 0x086,
  Weight1Base = 0x090, Weight1Length = 0x091, Scale1Base = 0x092, Scale1Length = 0x093,
};

inline constexpr uint32_t kOpcodeMask = 0x3FF;
inline constexpr uint32_t kCmd1Flag = 0x4000;   // bits 14-15 = 01: a two-word command
inline constexpr uint32_t kCommandKindMask = 0xC000;

// The name of an opcode ("OP_CONV", "IFM_BASE0"), or nullptr for one U55/U65 do not have.
const char* cmd0_name(uint16_t opcode);
const char* cmd1_name(uint16_t opcode);

// Every register a stream can write. cmd0 values are 16 bits; cmd1 values keep the 32-bit payload
// and the 16-bit parameter (addresses are param[7:0] << 32 | payload; scales keep the shift in it).
struct RegisterFile {
  std::array<uint16_t, 1024> cmd0{};
  std::array<uint32_t, 1024> cmd1_payload{};
  std::array<uint16_t, 1024> cmd1_param{};
  std::array<bool, 1024> cmd1_written{};

  uint16_t get(Cmd0 r) const { return cmd0[static_cast<uint16_t>(r)]; }
  int16_t get_signed(Cmd0 r) const { return static_cast<int16_t>(get(r)); }
  uint32_t payload(Cmd1 r) const { return cmd1_payload[static_cast<uint16_t>(r)]; }
  uint16_t param(Cmd1 r) const { return cmd1_param[static_cast<uint16_t>(r)]; }
  // A 40-bit address or length.
  uint64_t address(Cmd1 r) const {
    return (uint64_t(param(r) & 0xFF) << 32) | payload(r);
  }
  bool written(Cmd1 r) const { return cmd1_written[static_cast<uint16_t>(r)]; }
};

// Enumerations (U55/U65).
enum class ElementwiseOp : uint8_t {
  Mul = 0, Add = 1, Sub = 2, Min = 3, Max = 4, LeakyRelu = 5, Abs = 6, Clz = 7, Shr = 8, Shl = 9,
};
enum class PoolOp : uint8_t { Max = 0, Average = 1, ReduceSum = 2 };
enum class RoundingMode : uint8_t { Tfl = 0, Truncate = 1, Natural = 2 };
enum class Upscale : uint8_t { None = 0, Nearest = 1, Zeros = 2 };  // zeros: transposed convolution

// Bits of the precision registers.
//   IFM/IFM2_PRECISION: bit 0 signed, bits 2-3 size (0 8-bit, 1 16-bit, 2 32-bit), bit 6 NHCWB16,
//     bits 8-9 the operand an elementwise ADD/SUB scales (0 none, 1 OPA, 2 OPB).
//   OFM_PRECISION: bit 0 signed, bits 1-2 size, bit 6 NHCWB16, bit 8 the OFM_SCALE register instead
//     of the per-channel scale stream, bits 14-15 the rounding mode.
// IFM2_BROADCAST: bit 0 height, 1 width, 2 channels broadcast, bit 6 operands reversed, bit 7 the
//   IFM2_SCALAR register is the second operand.
// ACTIVATION: bits 0-11 the function (0 none, 3 tanh, 4 sigmoid, 16 + n LUT slot n), bits 12-13
//   the clip range.
// KERNEL_STRIDE: bit 0 (stride x − 1) low bit, bit 1 (stride y − 1) low bit, bit 2 part-kernel
//   first, bit 3 dilation x − 1, bit 4 dilation y − 1, bits 6-7 (stride x − 1) >> 1, bits 9-10
//   (stride y − 1) >> 1.
// DMA0_SRC/DST_REGION: bits 0-2 the region, bit 8 internal memory (SHRAM).

}  // namespace vkrt::ethosu::virtual_npu
