// GMAC/s of the A16W8 convolutions (cpu_fallback/compute/conv_s16.h) at every ISA level this CPU
// has, on one and two threads, with CMSIS-NN's 64-bit output stage: DS-CNN's layers (the
// keyword-spotting network CMSIS-NN's 16x8 kernels are tuned for), a general 3x3 convolution,
// MobileNetV2-sized depthwise layers and two fully connected ones. Side by side in the same run,
// "loop": one output at a time with an int64 sum, the form cortex_m's s16 kernels and TOSA's int16
// convolutions had before the compute core took them. Not a test.
//
// Each figure is the fastest of many calls (about 0.2 s of work per row): on a shared machine
// noise only ever slows a call down, so the minimum is the figure that repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/conv_s16.h"
#include "compute/exec.h"
#include "compute/isa.h"
#include "vkrt/thread_pool.h"

namespace {

using namespace vkrt::compute;

struct Layer {
  const char* name;
  bool depthwise;
  int32_t in_h, in_w, in_ch, out_ch, kernel_h, kernel_w, stride, pad_h, pad_w;
};
constexpr Layer kLayers[] = {
    {"dscnn 10x4/2 49x10x1->64", false, 49, 10, 1, 64, 10, 4, 2, 4, 1},
    {"dscnn 1x1 25x5 64->64", false, 25, 5, 64, 64, 1, 1, 1, 0, 0},
    {"dscnn dw 3x3 25x5x64", true, 25, 5, 64, 64, 3, 3, 1, 1, 1},
    {"3x3 28x28 32->64", false, 28, 28, 32, 64, 3, 3, 1, 1, 1},
    {"mnv2 1x1 56x56 24->144", false, 56, 56, 24, 144, 1, 1, 1, 0, 0},
    {"mnv2 dw 3x3 56x56x144", true, 56, 56, 144, 144, 3, 3, 1, 1, 1},
    {"fc 1x1280->1000", false, 1, 1, 1280, 1000, 1, 1, 1, 0, 0},
    {"dscnn fc 1x64->12", false, 1, 1, 64, 12, 1, 1, 1, 0, 0},
};

struct Operands {
  ConvS16 c;
  std::vector<int16_t> input, output;
  std::vector<int8_t> weight;
  std::vector<int64_t> bias;
  std::vector<int32_t> multiplier, shift;
  double macs;
};

Operands operands_of(const Layer& l) {
  Operands o;
  ConvS16Shape& s = o.c.shape;
  s.in_h = l.in_h, s.in_w = l.in_w, s.in_ch = l.in_ch, s.out_ch = l.out_ch;
  s.kernel_h = l.kernel_h, s.kernel_w = l.kernel_w, s.stride_h = s.stride_w = l.stride;
  s.pad_top = l.pad_h, s.pad_left = l.pad_w;
  s.out_h = (l.in_h + 2 * l.pad_h - l.kernel_h) / l.stride + 1;
  s.out_w = (l.in_w + 2 * l.pad_w - l.kernel_w) / l.stride + 1;
  std::mt19937 rng(1);
  o.input.resize(size_t(l.in_h) * l.in_w * l.in_ch);
  for (auto& v : o.input) v = int16_t(rng());
  o.weight.resize(size_t(l.kernel_h) * l.kernel_w * l.out_ch * (l.depthwise ? 1 : l.in_ch));
  for (auto& v : o.weight) v = int8_t(rng());
  for (int32_t j = 0; j < l.out_ch; ++j) {
    o.bias.push_back(int64_t(rng() % 200001) - 100000);
    o.multiplier.push_back(int32_t(1u << 30) + int32_t(rng() % 65536));
    o.shift.push_back(-12);
  }
  o.output.resize(size_t(s.out_h) * s.out_w * l.out_ch);
  o.c.input = o.input.data(), o.c.weight = o.weight.data();
  o.c.out.bias64 = o.bias.data(), o.c.out.multiplier = o.multiplier.data(), o.c.out.shift = o.shift.data();
  o.c.out.out16 = o.output.data();
  o.macs = double(s.out_h) * s.out_w * l.out_ch * l.kernel_h * l.kernel_w * (l.depthwise ? 1 : l.in_ch);
  return o;
}

// One output at a time, its products summed in int64, then the output stage.
void loop_form(const Layer& l, const ConvS16& c) {
  const ConvS16Shape& s = c.shape;
  for (int32_t oy = 0; oy < s.out_h; ++oy)
    for (int32_t ox = 0; ox < s.out_w; ++ox)
      for (int32_t oc = 0; oc < s.out_ch; ++oc) {
        int64_t acc = 0;
        for (int32_t ky = 0; ky < s.kernel_h; ++ky) {
          const int32_t iy = oy * s.stride_h - s.pad_top + ky;
          if (iy < 0 || iy >= s.in_h) continue;
          for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
            const int32_t ix = ox * s.stride_w - s.pad_left + kx;
            if (ix < 0 || ix >= s.in_w) continue;
            const int16_t* in = c.input + (int64_t(iy) * s.in_w + ix) * s.in_ch;
            if (l.depthwise) {
              acc += int32_t(in[oc]) * c.weight[(int64_t(ky) * s.kernel_w + kx) * s.out_ch + oc];
            } else {
              const int8_t* w = c.weight + ((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * s.in_ch;
              for (int32_t i = 0; i < s.in_ch; ++i) acc += int32_t(in[i]) * w[i];
            }
          }
        }
        const int32_t v = vkrt::arith::requantize_s64(vkrt::arith::wrap_add64(acc, c.out.bias64[oc]),
                                                      vkrt::arith::reduce_multiplier(c.out.multiplier[oc]), c.out.shift[oc]);
        c.out.out16[(int64_t(oy) * s.out_w + ox) * s.out_ch + oc] = int16_t(std::clamp(v, -32768, 32767));
      }
}

// The fastest call's GMAC/s.
template <typename Call>
double best_rate(double macs, const Call& call) {
  double best = 1e30;
  const int calls = int(2e9 / macs) + 3;  // about 0.2 s at 10 GMAC/s
  for (int i = 0; i < calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return macs / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: conv_s16_bench [--filter TEXT]\n"
                  "GMAC/s of compute::conv_s16 and depthwise_s16 (A16W8) at every ISA level this CPU has, one and\n"
                  "two threads, fastest of many calls, with one-output-at-a-time int64 loops in the same run.\n"
                  "  --filter TEXT   only the layers whose name contains TEXT\n");
      return 0;
    }
    if (arg == "--filter" && i + 1 < argc) {
      filter = argv[++i];
      continue;
    }
    std::fprintf(stderr, "conv_s16_bench: unknown argument '%s' (see --help)\n", arg.c_str());
    return 1;
  }
  vkrt::ThreadPool two(2);
  std::printf("CPU: %s; GMAC/s, the fastest of many calls\n", cpu_model_name().c_str());
  std::printf("%-26s %-11s %9s %9s %9s %11s\n", "layer", "level", "1 thread", "2 threads", "loop", "1t / loop");
  for (const Layer& l : kLayers) {
    if (std::string(l.name).find(filter) == std::string::npos) continue;
    Operands o = operands_of(l);
    const double loop = best_rate(o.macs, [&] { loop_form(l, o.c); });
    for (Isa isa : available_isas()) {
      ScopedIsa pin(isa);
      double rate[2];
      for (int threads : {1, 2}) {
        std::vector<uint8_t> scratch(conv_s16_scratch_bytes(o.c.shape, threads));
        const Exec exec{scratch, threads == 2 ? &two : nullptr};
        rate[threads - 1] = best_rate(o.macs, [&] { l.depthwise ? depthwise_s16(o.c, exec) : conv_s16(o.c, exec); });
      }
      std::printf("%-26s %-11s %9.2f %9.2f %9.2f %11.2f\n", l.name, isa_name(isa), rate[0], rate[1], loop, rate[0] / loop);
    }
  }
  return 0;
}
