// The virtual NPU's cycle model (ethosu/virtual/performance_model.h) against hand-computed costs,
// and the estimate the virtual driver reports for a real stream.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "ethosu/virtual/performance_model.h"

namespace vkrt::ethosu::virtual_npu {
namespace {

NpuArch arch(uint32_t config, uint32_t id) {
  auto a = decode_npu_arch(config, id);
  EXPECT_TRUE(a.ok());
  return *a;
}

const NpuArch kU55_128 = arch(0x00001807, 0x10060000);
const NpuArch kU65_256 = arch(0x10003008, 0x10060000);

TEST(PerformanceModel, ConvolutionIsComputeOrMemoryBound) {
  const MemoryModel memory = default_memory_model(kU55_128);
  OperationCost conv;
  conv.macs = 128 * 1000;                 // 1000 cycles at 128 MACs a cycle
  conv.read_bytes[kRegionScratch] = 800;  // 100 cycles of SRAM at 8 B/cycle
  conv.write_bytes[kRegionScratch] = 800;
  OperationCycles c = operation_cycles(conv, kU55_128, memory);
  EXPECT_EQ(c.compute, 1000u + 32u);        // MACs / 128 + the pipeline fill
  EXPECT_EQ(c.total, 1000u + 32u + 32u);    // compute-bound, plus SRAM read latency
  conv.read_bytes[kRegionWeights] = 4000;   // 4000 cycles of flash at 1 B/cycle
  c = operation_cycles(conv, kU55_128, memory);
  EXPECT_EQ(c.compute, 1032u);
  EXPECT_EQ(c.total, 4000u + 200u + 32u + 64u);  // memory-bound: flash + SRAM, fill, flash latency
  conv.depthwise = true;                    // a quarter of the MACs a cycle
  EXPECT_EQ(operation_cycles(conv, kU55_128, memory).compute, 4000u + 32u);
}

TEST(PerformanceModel, ElementwiseAndDma) {
  const MemoryModel memory = default_memory_model(kU65_256);
  OperationCost add;
  add.elementwise = true;
  add.elements = 1600;  // 256 MACs / 16 = 16 elements a cycle: 100 cycles
  EXPECT_EQ(operation_cycles(add, kU65_256, memory).compute, 100u + 4u);
  OperationCost dma;
  dma.is_dma = true;
  dma.read_bytes[kRegionWeights] = 1200;        // DRAM 12 B/cycle: 100 cycles, latency 250
  dma.write_bytes[kRegionFastScratch] = 1200;   // SRAM 16 B/cycle: 75 cycles
  const OperationCycles c = operation_cycles(dma, kU65_256, memory);
  EXPECT_EQ(c.compute, 0u);
  EXPECT_EQ(c.total, 175u + 250u);
}

// A real stream: Vela's U55-128 conv2d (3x3, 8x8x3 -> 6x6x2, 1944 MACs) has one DMA and one CONV.
TEST(PerformanceModel, RealConvolutionStream) {
  const char* dir = std::getenv("VKRT_CONFORMANCE_DIR");
  if (!dir) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set";
  auto model = tflite::load_tflite_file(std::string(dir) + "/ethos-u/tflite/vela-u55-128/test_conv2d_int8_vela.tflite");
  if (!model.ok() && model.status().code() == Error::NotFound) GTEST_SKIP() << model.status().message();
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto program = tflite::read_vela_npu_program(*model);
  ASSERT_TRUE(program.ok()) << program.status().message();
  std::vector<std::vector<uint8_t>> inputs{std::vector<uint8_t>(8 * 8 * 3, 1)};
  RunCounters counters;
  ASSERT_TRUE(tflite::run_vela_npu_program(*model, *program, inputs, &counters).ok());
  EXPECT_EQ(counters.operations, 1u);
  EXPECT_EQ(counters.dma_transfers, 1u);
  EXPECT_EQ(counters.macs, 6u * 6 * 2 * 3 * 3 * 3);
  EXPECT_EQ(counters.estimated_npu_cycles, (1944u + 127) / 128 + 32);
  EXPECT_GT(counters.estimated_cycles, counters.estimated_npu_cycles);
}

}  // namespace
}  // namespace vkrt::ethosu::virtual_npu
