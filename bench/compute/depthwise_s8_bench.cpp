// GMAC/s of the int8 depthwise engine (cpu_fallback/compute/depthwise_s8.h) on one thread, at
// every ISA level this CPU has, on MobileNetV2's depthwise layers and DS-CNN-L's (276 channels:
// not a multiple of a vector). Both output stages: the int32 sums (TOSA's bands) and the CMSIS-NN
// requantize to int8 (cortex_m). Not a test.
//
// Each figure is the fastest of many calls (about 0.2 s of work per layer): on a shared machine
// noise only ever slows a call down, so the minimum is the figure that repeats. Compare two
// builds by running both binaries alternately: `depthwise_s8_bench [--levels avx2,avx512bw]`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compute/depthwise_s8.h"
#include "compute/exec.h"
#include "compute/isa.h"

namespace {

using namespace vkrt::compute;

struct Layer {
  const char* name;
  int32_t size_h, size_w, channels, stride;
};
constexpr Layer kLayers[] = {
    {"mnv2 3x3 112x112x32", 112, 112, 32, 1}, {"mnv2 3x3/2 112x112x96", 112, 112, 96, 2},
    {"mnv2 3x3 56x56x144", 56, 56, 144, 1},   {"mnv2 3x3 14x14x384", 14, 14, 384, 1},
    {"mnv2 3x3 7x7x960", 7, 7, 960, 1},       {"dscnn_l 3x3 25x5x276", 25, 5, 276, 1},
};

// The fastest call's GMAC/s.
double best_rate(const Layer& l, bool int8_output) {
  DepthwiseS8Params p;
  p.in_h = l.size_h, p.in_w = l.size_w, p.in_ch = l.channels;
  p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = l.stride, p.pad_h = p.pad_w = 1;
  p.out_h = (l.size_h - 1) / l.stride + 1, p.out_w = (l.size_w - 1) / l.stride + 1;
  p.input_offset = 3, p.output_offset = -5;
  const size_t outputs = size_t(p.out_h) * size_t(p.out_w) * size_t(l.channels);
  std::mt19937 rng(1);
  std::vector<int8_t> input(size_t(l.size_h) * size_t(l.size_w) * size_t(l.channels)), weight(9 * size_t(l.channels));
  for (int8_t& v : input) v = int8_t(rng());
  for (int8_t& v : weight) v = int8_t(rng());
  std::vector<int32_t> bias(size_t(l.channels)), multiplier(size_t(l.channels)), shift(size_t(l.channels), -9);
  for (size_t c = 0; c < bias.size(); ++c) bias[c] = int32_t(rng() % 2001) - 1000, multiplier[c] = int32_t(1u << 30) + int32_t(rng() % 65536);
  std::vector<int8_t> out8(outputs);
  std::vector<int32_t> out32(outputs);
  DepthwiseS8Output to;
  if (int8_output) {
    to.s8 = out8.data(), to.multiplier = multiplier.data(), to.shift = shift.data();
  } else {
    to.s32 = out32.data();
  }
  std::vector<uint8_t> scratch(depthwise_s8_scratch_bytes(p, !int8_output, 1));
  Exec exec;
  exec.scratch = scratch;
  const double macs = double(outputs) * 9;
  double best = 1e30;
  const int calls = int(2e9 / macs) + 3;  // about 0.2 s at 10 GMAC/s
  for (int i = 0; i < calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    depthwise_s8(p, input.data(), weight.data(), bias.data(), to, exec);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return macs / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Isa> levels(available_isas().begin(), available_isas().end());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: depthwise_s8_bench [--levels LEVEL,LEVEL...]\n"
                  "GMAC/s of compute::depthwise_s8 on one thread, fastest of many calls, at every ISA level\n"
                  "this CPU has (or the listed ones), int32 sums and int8 output.\n");
      return 0;
    }
    if (arg == "--levels" && i + 1 == argc) {
      std::fprintf(stderr, "depthwise_s8_bench: --levels needs a comma-separated list (avx2,avx512bw,...)\n");
      return 1;
    }
    if (arg == "--levels") {
      levels.clear();
      std::string list = argv[++i];
      for (size_t start = 0; start <= list.size();) {
        const size_t end = std::min(list.find(',', start), list.size());
        Isa isa;
        if (!parse_isa(list.substr(start, end - start), &isa)) {
          std::fprintf(stderr, "depthwise_s8_bench: unknown ISA level '%s'\n", list.substr(start, end - start).c_str());
          return 1;
        }
        levels.push_back(isa);
        start = end + 1;
      }
      continue;
    }
    std::fprintf(stderr, "depthwise_s8_bench: unknown argument '%s' (see --help)\n", arg.c_str());
    return 1;
  }
  std::printf("CPU: %s; one thread; GMAC/s, the fastest of many calls\n", cpu_model_name().c_str());
  std::printf("%-24s %-11s %10s %10s\n", "layer", "level", "int32", "int8");
  for (Isa isa : levels) {
    ScopedIsa pin(isa);
    if (!pin.ok()) {
      std::fprintf(stderr, "depthwise_s8_bench: this CPU lacks %s\n", isa_name(isa));
      return 1;
    }
    for (const Layer& l : kLayers)
      std::printf("%-24s %-11s %10.2f %10.2f\n", l.name, isa_name(isa), best_rate(l, false), best_rate(l, true));
  }
  return 0;
}
