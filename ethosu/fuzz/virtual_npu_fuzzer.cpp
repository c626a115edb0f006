// libFuzzer target for the virtual Ethos-U NPU (ethosu/virtual/): the input (virtual_npu_fuzz_input.h)
// picks the NPU and the region sizes and carries a command stream and the start of region 0. The
// stream runs with run_command_stream on regions filled deterministically, under a work limit small
// enough that every input finishes in milliseconds; then the stream is disassembled, and region 0's
// bytes (from an offset the header gives) go straight to the weight decoder (decode_weight_stream with a layout from the header,
// mlw_decode, decode_scale_stream). Any crash, sanitizer report, leak or timeout is a bug; regression
// tests go to tests/ethosu/virtual/.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "ethosu/fuzz/virtual_npu_fuzz_input.h"
#include "ethosu/virtual/virtual_npu.h"
#include "ethosu/virtual/weight_decoder.h"

namespace {
using namespace vkrt;
using namespace vkrt::ethosu;

// 2^22 MACs plus elements: a few milliseconds of host time under the sanitizers.
constexpr uint64_t kMaxWork = uint64_t(1) << 22;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto input = fuzzing::parse_virtual_npu_input({data, size});
  if (!input) return 0;
  auto arch = decode_npu_arch(fuzzing::kArchConfigs[input->arch], fuzzing::kArchId);
  if (!arch.ok()) __builtin_trap();  // the table holds valid configurations only

  // Regions 0-3 as the header sizes them; region 0 starts with the input's flash bytes. Each is its
  // own allocation of exactly its size, so that ASan sees any access past its end.
  std::vector<std::vector<uint8_t>> regions(fuzzing::kFuzzRegions);
  virtual_npu::NpuMemory memory;
  for (int r = 0; r < fuzzing::kFuzzRegions; ++r) {
    const size_t bytes = input->region_bytes[size_t(r)];
    if (bytes == 0) continue;
    std::vector<uint8_t>& region = regions[size_t(r)];
    region.resize(bytes);
    for (size_t i = 0; i < bytes; ++i) region[i] = uint8_t(input->fill + i * 7 + size_t(r) * 61);
    if (r == 0) std::copy_n(input->flash.begin(), std::min(input->flash.size(), bytes), region.begin());
    memory.regions[size_t(r)] = {region.data(), region.size()};
  }
  std::vector<uint8_t> shram(virtual_npu::shram_bytes(*arch));
  memory.shram = shram.empty() ? nullptr : shram.data();
  memory.shram_size = shram.size();
  virtual_npu::RunLimits limits;
  limits.max_work = kMaxWork;
  virtual_npu::RunCounters counters;
  (void)virtual_npu::run_command_stream(input->stream, *arch, memory, &counters, limits);
  (void)virtual_npu::disassemble(input->stream);

  // The weight decoder on its own, over the flash bytes from the header's offset on.
  const auto layout = fuzzing::layout_from(input->layout, arch->product, int(arch->macs_per_cycle));
  (void)virtual_npu::weight_stream_value_count(layout);
  (void)virtual_npu::decode_weight_stream(input->weights, layout);
  (void)virtual_npu::mlw_decode(input->weights, int64_t(1) << 16);
  (void)virtual_npu::decode_scale_stream(input->weights, layout.ofm_depth);
  return 0;
}
