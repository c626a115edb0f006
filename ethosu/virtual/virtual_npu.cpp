#include "ethosu/virtual/virtual_npu.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ethosu/virtual/operations.h"

namespace vkrt::ethosu::virtual_npu {

const char* cmd0_name(uint16_t opcode) {
  switch (static_cast<Cmd0>(opcode)) {
    case Cmd0::OpStop: return "OP_STOP";
    case Cmd0::OpIrq: return "OP_IRQ";
    case Cmd0::OpConv: return "OP_CONV";
    case Cmd0::OpDepthwise: return "OP_DEPTHWISE";
    case Cmd0::OpPool: return "OP_POOL";
    case Cmd0::OpElementwise: return "OP_ELEMENTWISE";
    case Cmd0::OpResize: return "OP_RESIZE";
    case Cmd0::OpDmaStart: return "OP_DMA_START";
    case Cmd0::OpDmaWait: return "OP_DMA_WAIT";
    case Cmd0::OpKernelWait: return "OP_KERNEL_WAIT";
    case Cmd0::OpPmuMask: return "OP_PMU_MASK";
    case Cmd0::IfmPadTop: return "IFM_PAD_TOP";
    case Cmd0::IfmPadLeft: return "IFM_PAD_LEFT";
    case Cmd0::IfmPadRight: return "IFM_PAD_RIGHT";
    case Cmd0::IfmPadBottom: return "IFM_PAD_BOTTOM";
    case Cmd0::IfmDepthM1: return "IFM_DEPTH_M1";
    case Cmd0::IfmPrecision: return "IFM_PRECISION";
    case Cmd0::IfmUpscale: return "IFM_UPSCALE";
    case Cmd0::IfmZeroPoint: return "IFM_ZERO_POINT";
    case Cmd0::IfmWidth0M1: return "IFM_WIDTH0_M1";
    case Cmd0::IfmHeight0M1: return "IFM_HEIGHT0_M1";
    case Cmd0::IfmHeight1M1: return "IFM_HEIGHT1_M1";
    case Cmd0::IfmIbEnd: return "IFM_IB_END";
    case Cmd0::IfmRegion: return "IFM_REGION";
    case Cmd0::OfmWidthM1: return "OFM_WIDTH_M1";
    case Cmd0::OfmHeightM1: return "OFM_HEIGHT_M1";
    case Cmd0::OfmDepthM1: return "OFM_DEPTH_M1";
    case Cmd0::OfmPrecision: return "OFM_PRECISION";
    case Cmd0::OfmBlkWidthM1: return "OFM_BLK_WIDTH_M1";
    case Cmd0::OfmBlkHeightM1: return "OFM_BLK_HEIGHT_M1";
    case Cmd0::OfmBlkDepthM1: return "OFM_BLK_DEPTH_M1";
    case Cmd0::OfmZeroPoint: return "OFM_ZERO_POINT";
    case Cmd0::OfmWidth0M1: return "OFM_WIDTH0_M1";
    case Cmd0::OfmHeight0M1: return "OFM_HEIGHT0_M1";
    case Cmd0::OfmHeight1M1: return "OFM_HEIGHT1_M1";
    case Cmd0::OfmRegion: return "OFM_REGION";
    case Cmd0::KernelWidthM1: return "KERNEL_WIDTH_M1";
    case Cmd0::KernelHeightM1: return "KERNEL_HEIGHT_M1";
    case Cmd0::KernelStride: return "KERNEL_STRIDE";
    case Cmd0::ParallelMode: return "PARALLEL_MODE";
    case Cmd0::AccFormat: return "ACC_FORMAT";
    case Cmd0::Activation: return "ACTIVATION";
    case Cmd0::ActivationMin: return "ACTIVATION_MIN";
    case Cmd0::ActivationMax: return "ACTIVATION_MAX";
    case Cmd0::WeightRegion: return "WEIGHT_REGION";
    case Cmd0::ScaleRegion: return "SCALE_REGION";
    case Cmd0::AbStart: return "AB_START";
    case Cmd0::BlockDep: return "BLOCKDEP";
    case Cmd0::Dma0SrcRegion: return "DMA0_SRC_REGION";
    case Cmd0::Dma0DstRegion: return "DMA0_DST_REGION";
    case Cmd0::Dma0Size0: return "DMA0_SIZE0";
    case Cmd0::Dma0Size1: return "DMA0_SIZE1";
    case Cmd0::Ifm2Broadcast: return "IFM2_BROADCAST";
    case Cmd0::Ifm2Scalar: return "IFM2_SCALAR";
    case Cmd0::Ifm2Precision: return "IFM2_PRECISION";
    case Cmd0::Ifm2ZeroPoint: return "IFM2_ZERO_POINT";
    case Cmd0::Ifm2Width0M1: return "IFM2_WIDTH0_M1";
    case Cmd0::Ifm2Height0M1: return "IFM2_HEIGHT0_M1";
    case Cmd0::Ifm2Height1M1: return "IFM2_HEIGHT1_M1";
    case Cmd0::Ifm2IbStart: return "IFM2_IB_START";
    case Cmd0::Ifm2Region: return "IFM2_REGION";
  }
  return nullptr;
}

const char* cmd1_name(uint16_t opcode) {
  switch (static_cast<Cmd1>(opcode)) {
    case Cmd1::IfmBase0: return "IFM_BASE0";
    case Cmd1::IfmBase1: return "IFM_BASE1";
    case Cmd1::IfmBase2: return "IFM_BASE2";
    case Cmd1::IfmBase3: return "IFM_BASE3";
    case Cmd1::IfmStrideX: return "IFM_STRIDE_X";
    case Cmd1::IfmStrideY: return "IFM_STRIDE_Y";
    case Cmd1::IfmStrideC: return "IFM_STRIDE_C";
    case Cmd1::OfmBase0: return "OFM_BASE0";
    case Cmd1::OfmBase1: return "OFM_BASE1";
    case Cmd1::OfmBase2: return "OFM_BASE2";
    case Cmd1::OfmBase3: return "OFM_BASE3";
    case Cmd1::OfmStrideX: return "OFM_STRIDE_X";
    case Cmd1::OfmStrideY: return "OFM_STRIDE_Y";
    case Cmd1::OfmStrideC: return "OFM_STRIDE_C";
    case Cmd1::WeightBase: return "WEIGHT_BASE";
    case Cmd1::WeightLength: return "WEIGHT_LENGTH";
    case Cmd1::ScaleBase: return "SCALE_BASE";
    case Cmd1::ScaleLength: return "SCALE_LENGTH";
    case Cmd1::OfmScale: return "OFM_SCALE";
    case Cmd1::OpaScale: return "OPA_SCALE";
    case Cmd1::OpbScale: return "OPB_SCALE";
    case Cmd1::Dma0Src: return "DMA0_SRC";
    case Cmd1::Dma0Dst: return "DMA0_DST";
    case Cmd1::Dma0Len: return "DMA0_LEN";
    case Cmd1::Dma0Skip0: return "DMA0_SKIP0";
    case Cmd1::Dma0Skip1: return "DMA0_SKIP1";
    case Cmd1::Ifm2Base0: return "IFM2_BASE0";
    case Cmd1::Ifm2Base1: return "IFM2_BASE1";
    case Cmd1::Ifm2Base2: return "IFM2_BASE2";
    case Cmd1::Ifm2Base3: return "IFM2_BASE3";
    case Cmd1::Ifm2StrideX: return "IFM2_STRIDE_X";
    case Cmd1::Ifm2StrideY: return "IFM2_STRIDE_Y";
    case Cmd1::Ifm2StrideC: return "IFM2_STRIDE_C";
    case Cmd1::Weight1Base: return "WEIGHT1_BASE";
    case Cmd1::Weight1Length: return "WEIGHT1_LENGTH";
    case Cmd1::Scale1Base: return "SCALE1_BASE";
    case Cmd1::Scale1Length: return "SCALE1_LENGTH";
  }
  return nullptr;
}

size_t shram_bytes(const NpuArch& arch) {
  return size_t((arch.config_register >> 8) & 0xFF) * 1024;
}

namespace {

uint32_t word_at(std::span<const uint8_t> stream, size_t index) {
  uint32_t w;
  std::memcpy(&w, stream.data() + index * 4, 4);
  return w;
}

// OP_DMA_START: a 1-D copy between regions or into internal memory (LUTs). The 2-D and 3-D modes
// (DMA0_SRC_REGION bits 9-10, strides DMA0_SKIP0/1) are not used by Vela for U55/U65 and are
// refused by name.
Status run_dma(const RegisterFile& regs, const NpuMemory& memory, const NpuArch& arch,
               const MemoryModel& memory_model, RunCounters& counters) {
  const uint16_t src_region = regs.get(Cmd0::Dma0SrcRegion);
  const uint16_t dst_region = regs.get(Cmd0::Dma0DstRegion);
  if (((src_region >> 9) & 3) != 0 || ((dst_region >> 9) & 3) != 0) {
    return make_error(Error::NotSupported, "2-D/3-D DMA (stride mode ", (src_region >> 9) & 3,
                      "/", (dst_region >> 9) & 3, ") is not supported by the virtual NPU");
  }
  const uint64_t length = regs.address(Cmd1::Dma0Len);
  const uint64_t src = regs.address(Cmd1::Dma0Src);
  const uint64_t dst = regs.address(Cmd1::Dma0Dst);
  const uint8_t* from = nullptr;
  if (src_region & 0x100) {
    if (src > memory.shram_size || length > memory.shram_size - src) {
      return make_error(Error::InvalidProgram, "DMA source ", src, "..", src + length,
                        " outside internal memory (", memory.shram_size, " bytes)");
    }
    from = memory.shram + src;
  } else {
    auto p = memory.span(src_region & 7, src, length, "DMA source");
    if (!p.ok()) return p.status();
    from = *p;
  }
  uint8_t* to = nullptr;
  if (dst_region & 0x100) {
    if (dst > memory.shram_size || length > memory.shram_size - dst) {
      return make_error(Error::InvalidProgram, "DMA destination ", dst, "..", dst + length,
                        " outside internal memory (", memory.shram_size, " bytes)");
    }
    to = memory.shram + dst;
  } else {
    auto p = memory.span(dst_region & 7, dst, length, "DMA destination");
    if (!p.ok()) return p.status();
    to = *p;
  }
  std::memmove(to, from, size_t(length));
  counters.dma_transfers++;
  counters.dma_bytes += length;
  OperationCost cost;
  cost.is_dma = true;
  cost.read_bytes[(src_region & 0x100) ? kMaxRegions : (src_region & 7)] = length;
  cost.write_bytes[(dst_region & 0x100) ? kMaxRegions : (dst_region & 7)] = length;
  const OperationCycles cycles = operation_cycles(cost, arch, memory_model);
  counters.estimated_cycles += cycles.total;
  counters.estimated_npu_cycles += cycles.compute;
  return Status::ok();
}

std::string describe_command(std::span<const uint8_t> stream, size_t word) {
  const uint32_t w = word_at(stream, word);
  const uint16_t op = w & kOpcodeMask;
  const bool cmd1 = (w & kCommandKindMask) == kCmd1Flag;
  const char* name = cmd1 ? cmd1_name(op) : cmd0_name(op);
  char buf[96];
  if (name != nullptr) {
    std::snprintf(buf, sizeof buf, "command %s (0x%03x) at byte 0x%zx", name, unsigned(op), word * 4);
  } else {
    std::snprintf(buf, sizeof buf, "%s opcode 0x%03x at byte 0x%zx", cmd1 ? "cmd1" : "cmd0", unsigned(op), word * 4);
  }
  return buf;
}

}  // namespace

Status charge_work(const OperationContext& ctx, uint64_t work, const char* what) {
  if (work > ctx.work_left) {
    return make_error(Error::OutOfResources, what, " needs ", work,
                      " units of work, more than the virtual NPU allows per inference");
  }
  ctx.work_left -= work;
  return Status::ok();
}

Status run_command_stream(std::span<const uint8_t> command_stream, const NpuArch& arch,
                          NpuMemory& memory, RunCounters* counters_out, const RunLimits& limits,
                          WeightCache* weight_cache) {
  if (arch.product == NpuProduct::U85) {
    return make_error(Error::NotSupported, "Ethos-U85 streams are not supported: the virtual NPU runs Ethos-U55 and ",
                      "Ethos-U65 command streams, and this one is for ", arch.to_string(),
                      " (no compiler for U85 streams is available to test against)");
  }
  if (command_stream.size() % 4 != 0) {
    return make_error(Error::InvalidProgram, "command stream of ", command_stream.size(),
                      " bytes is not whole 32-bit words");
  }
  if (memory.shram == nullptr || memory.shram_size < shram_bytes(arch)) {
    return make_error(Error::InvalidArgument, "the virtual NPU needs ", shram_bytes(arch),
                      " bytes of internal memory for ", arch.to_string());
  }
  RegisterFile regs;
  RunCounters counters;
  uint64_t work_left = limits.max_work;
  const MemoryModel memory_model = default_memory_model(arch);
  const OperationContext ctx{regs, memory, arch, counters, memory_model, weight_cache, work_left};
  const size_t words = command_stream.size() / 4;
  for (size_t i = 0; i < words;) {
    const size_t at = i;
    const uint32_t w = word_at(command_stream, i++);
    const uint16_t op = w & kOpcodeMask;
    const uint16_t param = uint16_t(w >> 16);
    counters.commands++;
    if ((w & kCommandKindMask) == kCmd1Flag) {
      if (i >= words) {
        return make_error(Error::InvalidProgram, "virtual NPU: ", describe_command(command_stream, at),
                          ": the stream ends inside this two-word command");
      }
      if (cmd1_name(op) == nullptr) {
        return make_error(Error::InvalidProgram, "virtual NPU: unknown ", describe_command(command_stream, at),
                          " (not an Ethos-U55/U65 register)");
      }
      regs.cmd1_payload[op] = word_at(command_stream, i++);
      regs.cmd1_param[op] = param;
      regs.cmd1_written[op] = true;
      continue;
    }
    if ((w & kCommandKindMask) != 0) {
      char word_text[16];
      std::snprintf(word_text, sizeof word_text, "0x%08x", w);
      return make_error(Error::InvalidProgram, "virtual NPU: word ", word_text, " at byte ", at * 4,
                        " has command kind ", (w >> 14) & 3, " (only 0, one word, and 1, two words, exist)");
    }
    if (cmd0_name(op) == nullptr) {
      return make_error(Error::InvalidProgram, "virtual NPU: unknown ", describe_command(command_stream, at),
                        " (not an Ethos-U55/U65 operation or register)");
    }
    if (static_cast<Cmd0>(op) == Cmd0::OpResize) {
      return make_error(Error::InvalidProgram, "virtual NPU: ", describe_command(command_stream, at),
                        " is an Ethos-U85 operation");
    }
    if (op >= 0x100) {
      regs.cmd0[op] = param;
      continue;
    }
    Status status;
    switch (static_cast<Cmd0>(op)) {
      case Cmd0::OpStop:
        if (counters_out) *counters_out = counters;
        return Status::ok();
      case Cmd0::OpConv:
        status = run_convolution(ctx, false);
        break;
      case Cmd0::OpDepthwise:
        status = run_convolution(ctx, true);
        break;
      case Cmd0::OpPool:
        if (param > uint16_t(PoolOp::ReduceSum)) {
          status = make_error(Error::InvalidProgram, "pooling mode ", param, " does not exist on ",
                              npu_product_name(arch.product));
        } else {
          status = run_pooling(ctx, PoolOp(param));
        }
        break;
      case Cmd0::OpElementwise:
        if (param > uint16_t(ElementwiseOp::Shl)) {
          status = make_error(Error::InvalidProgram, "elementwise function ", param,
                              " does not exist on ", npu_product_name(arch.product));
        } else {
          status = run_elementwise(ctx, ElementwiseOp(param));
        }
        break;
      case Cmd0::OpDmaStart:
        status = run_dma(regs, memory, arch, memory_model, counters);
        break;
      default:  // IRQ, waits and the PMU mask: the virtual NPU finishes everything in order.
        break;
    }
    if (!status.is_ok()) {
      return std::move(status).with_context("virtual NPU: " + describe_command(command_stream, at));
    }
  }
  return make_error(Error::InvalidProgram, "virtual NPU: the command stream has no OP_STOP");
}

std::string disassemble(std::span<const uint8_t> command_stream) {
  std::string out;
  const size_t words = command_stream.size() / 4;
  char line[128];
  for (size_t i = 0; i < words;) {
    const size_t at = i;
    const uint32_t w = word_at(command_stream, i++);
    const uint16_t op = w & kOpcodeMask;
    const uint16_t param = uint16_t(w >> 16);
    if ((w & kCommandKindMask) == kCmd1Flag) {
      const char* name = cmd1_name(op);
      if (name == nullptr || i >= words) break;
      const uint32_t payload = word_at(command_stream, i++);
      const auto r = static_cast<Cmd1>(op);
      if (r == Cmd1::OfmScale || r == Cmd1::OpaScale || r == Cmd1::OpbScale) {
        std::snprintf(line, sizeof line, "0x%04zx %s scale=%u shift=%u\n", at * 4, name, payload,
                      unsigned(param & 0x3F));
      } else {
        std::snprintf(line, sizeof line, "0x%04zx %s %llu\n", at * 4, name,
                      (unsigned long long)((uint64_t(param & 0xFF) << 32) | payload));
      }
    } else {
      const char* name = (w & kCommandKindMask) == 0 ? cmd0_name(op) : nullptr;
      if (name == nullptr) break;
      std::snprintf(line, sizeof line, "0x%04zx %s %u\n", at * 4, name, unsigned(param));
    }
    out += line;
  }
  return out;
}

}  // namespace vkrt::ethosu::virtual_npu
