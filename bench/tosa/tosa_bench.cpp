// tosa_bench: GMAC/s (CONV2D, DEPTHWISE_CONV2D) and Gelem/s (RESCALE) of the TOSA CPU kernels
// on int8 MobileNetV2 224x224 layer shapes: the kernels as the VGF CPU executor calls them
// (conv2d(), depthwise_conv2d(), rescale(): the vectorised int8 paths) against the reference
// loops (detail::conv2d_reference, ...) in the same run, then a summary with the ratio. The
// "fused" column is the convolution with its per-channel RESCALE to int8 and a ReLU6 CLAMP as
// one call (conv2d_rescale, depthwise_conv2d_rescale), as the executor runs MobileNetV2: the
// RESCALE is the engine's output stage (tosa::conv_requantize), the GEMM's weights packed with it.
//
//   build/bench/tosa/tosa_bench                      # all layers
//   build/bench/tosa/tosa_bench --benchmark_repetitions=3   # on a busy machine: best of 3
//   build/bench/tosa/tosa_bench --fused_rounding=single     # the fused RESCALE rounds once (ExecuTorch's Arm backend)
//   build/bench/tosa/tosa_bench --fused_output_stage=off    # the fused RESCALE in bands of int32 sums
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "compute/isa.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vkrt/thread_pool.h"

namespace vkrt::tosa {
namespace {

enum class Kind { kConv, kDepthwise, kRescale };

// The fused chains' RESCALE: its rounding, and whether it is the engine's output stage (else
// the int32 sums go through it in bands).
struct FusedOptions {
  bool single_round = false;
  bool output_stage = true;
};
FusedOptions g_fused;

struct Layer {
  const char* name;
  Kind kind;
  int64_t hw;      // input height = width
  int64_t ic, oc;  // channels in / out (depthwise: oc = ic; rescale: ic elements per pixel)
  int64_t k, stride;
  // "Same" padding as TOSA needs it exact: k/2 after, and before too at stride 1 (a stride-2
  // 3x3 over an even size pads only after, as PyTorch-exported MobileNetV2 graphs do).
  int64_t pad_before() const { return stride == 1 ? k / 2 : 0; }
  int64_t pad_after() const { return k / 2; }
  int64_t out_hw() const { return (hw - 1 + pad_before() + pad_after() - (k - 1)) / stride + 1; }
  double work() const {  // MACs, or elements for RESCALE
    const double pixels = double(out_hw() * out_hw());
    if (kind == Kind::kConv) return pixels * double(oc * k * k * ic);
    if (kind == Kind::kDepthwise) return pixels * double(ic * k * k);
    return double(hw * hw * ic);
  }
};

// MobileNetV2 (224x224) layers: the stem, expand / depthwise / project convolutions of early,
// middle and late blocks, the last 1x1, and the requantization after a large convolution.
const Layer kLayers[] = {
    {"stem_3x3s2_3to32", Kind::kConv, 224, 3, 32, 3, 2},
    {"b1_dw_3x3_32", Kind::kDepthwise, 112, 32, 32, 3, 1},
    {"b1_project_1x1_32to16", Kind::kConv, 112, 32, 16, 1, 1},
    {"b2_expand_1x1_16to96", Kind::kConv, 112, 16, 96, 1, 1},
    {"b2_dw_3x3s2_96", Kind::kDepthwise, 112, 96, 96, 3, 2},
    {"b3_dw_3x3s2_144", Kind::kDepthwise, 56, 144, 144, 3, 2},
    {"b6_dw_3x3s2_192", Kind::kDepthwise, 28, 192, 192, 3, 2},
    {"b7_expand_1x1_64to384", Kind::kConv, 14, 64, 384, 1, 1},
    {"b7_dw_3x3_384", Kind::kDepthwise, 14, 384, 384, 3, 1},
    {"b7_project_1x1_384to64", Kind::kConv, 14, 384, 64, 1, 1},
    {"b13_dw_3x3s2_576", Kind::kDepthwise, 14, 576, 576, 3, 2},
    {"b16_dw_3x3_960", Kind::kDepthwise, 7, 960, 960, 3, 1},
    {"b16_project_1x1_960to160", Kind::kConv, 7, 960, 160, 1, 1},
    {"last_1x1_320to1280", Kind::kConv, 7, 320, 1280, 1, 1},
    {"rescale_112x112x96_to_int8", Kind::kRescale, 112, 96, 96, 1, 1},
};

struct LayerData {
  std::vector<int8_t> input, weight;
  std::vector<int32_t> bias, acc;
  std::vector<int8_t> out8;
  std::vector<int32_t> multiplier, shift;
  std::vector<int64_t> in_shape, w_shape, b_shape, out_shape;
  ConvAttr attrs;
  RescaleAttr rescale_attrs;

  explicit LayerData(const Layer& l) {
    std::mt19937 rng(1);
    std::uniform_int_distribution<int> byte(-128, 127);
    const int64_t o = l.out_hw();
    attrs.input_zp = -128;  // as the int8 graphs exported from PyTorch: a ReLU6 output's zp
    attrs.pad[0] = attrs.pad[2] = l.pad_before();
    attrs.pad[1] = attrs.pad[3] = l.pad_after();
    attrs.stride[0] = attrs.stride[1] = l.stride;
    if (l.kind == Kind::kRescale) {
      in_shape = {1, l.hw, l.hw, l.ic};
      acc.resize(size_t(l.hw * l.hw * l.ic));
      std::uniform_int_distribution<int32_t> sums(-200000, 200000);
      for (auto& v : acc) v = sums(rng);
      out8.resize(acc.size());
      std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
      for (int64_t c = 0; c < l.ic; ++c) multiplier.push_back(m(rng)), shift.push_back(40);
      rescale_attrs.multiplier = multiplier;
      rescale_attrs.shift.assign(shift.begin(), shift.end());
      rescale_attrs.scale32 = true;
      rescale_attrs.rounding_mode = RoundingMode::DoubleRound;
      rescale_attrs.per_channel = true;
      rescale_attrs.output_zp = -128;
      return;
    }
    in_shape = {1, l.hw, l.hw, l.ic};
    input.resize(size_t(l.hw * l.hw * l.ic));
    for (auto& v : input) v = int8_t(byte(rng));
    if (l.kind == Kind::kConv) {
      w_shape = {l.oc, l.k, l.k, l.ic};
      weight.resize(size_t(l.oc * l.k * l.k * l.ic));
    } else {
      w_shape = {l.k, l.k, l.ic, 1};
      weight.resize(size_t(l.k * l.k * l.ic));
    }
    for (auto& v : weight) v = int8_t(byte(rng));
    b_shape = {l.oc};
    bias.assign(size_t(l.oc), 1234);
    out_shape = {1, o, o, l.oc};
    acc.resize(size_t(o * o * l.oc));
  }

  // CONV2D's GEMM resources, as the VGF CPU executor gives them: weights packed once, scratch
  // for one thread.
  std::vector<uint8_t> packed, scratch;
  const void* packed_weights = nullptr;
  ConvResources conv_resources() {
    if (scratch.empty()) {
      packed.resize(conv2d_packed_weights_bytes(w_ref(), b_ref(), attrs));
      if (!packed.empty()) packed_weights = conv2d_pack_weights(w_ref(), b_ref(), attrs, packed);
      scratch.resize(conv2d_scratch_bytes(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape), 1, packed_weights) + 1);
    }
    return ConvResources{scratch, packed_weights};
  }

  // The fused chain's operands: a per-channel RESCALE (shifts 36-39) to int8 and a ReLU6-like
  // CLAMP, and the scratch for the runner's threads (one without a runner), as the executor
  // gives it.
  std::vector<int32_t> fused_multiplier, fused_shift;
  RescaleAttr fused_rescale;
  ClampAttr relu6;
  std::vector<uint8_t> fused_scratch, fused_packed;
  std::optional<ConvRequantize> fused_requantize;
  const void* fused_packed_weights = nullptr;
  void run_fused(const Layer& l, ParallelRunner* runner) {
    const int threads = runner ? runner->num_threads() : 1;
    const TensorRef sums = acc_ref(out_shape);
    if (fused_scratch.empty()) {
      std::mt19937 rng(2);
      std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
      for (int64_t c = 0; c < l.oc; ++c) fused_multiplier.push_back(m(rng)), fused_shift.push_back(36 + int32_t(c % 4));
      fused_rescale.multiplier = fused_multiplier;
      fused_rescale.shift.assign(fused_shift.begin(), fused_shift.end());
      fused_rescale.scale32 = true;
      fused_rescale.rounding_mode = g_fused.single_round ? RoundingMode::SingleRound : RoundingMode::DoubleRound;
      fused_rescale.per_channel = true;
      fused_rescale.output_zp = -128;
      relu6.min_int = -128, relu6.max_int = 40;
      out8.resize(acc.size());
      if (g_fused.output_stage) fused_requantize = conv_requantize(fused_rescale, &relu6, DType::Int8);
      if (l.kind == Kind::kConv) {  // the weights packed with the output stage, as the executor plans them
        const ConvRequantize* rq = fused_requantize ? &*fused_requantize : nullptr;
        fused_packed.resize(conv2d_packed_weights_bytes(w_ref(), b_ref(), attrs, rq));
        if (!fused_packed.empty()) fused_packed_weights = conv2d_pack_weights(w_ref(), b_ref(), attrs, fused_packed, rq);
      }
      fused_scratch.resize(1 + (l.kind == Kind::kConv
                                    ? conv2d_rescale_scratch_bytes(in_ref(), w_ref(), b_ref(), attrs, sums, threads,
                                                                   fused_packed_weights,
                                                                   fused_requantize ? &*fused_requantize : nullptr)
                                    : depthwise_conv2d_rescale_scratch_bytes(
                                          in_ref(), w_ref(), b_ref(), attrs, sums, threads,
                                          fused_requantize ? &*fused_requantize : nullptr)));
    }
    const TensorRef out_ref{DType::Int8, out_shape, out8.data()};
    if (l.kind == Kind::kConv)
      check(conv2d_rescale(in_ref(), w_ref(), b_ref(), attrs, sums, fused_rescale, out_ref, &relu6, out_ref, runner,
                           ConvResources{fused_scratch, fused_packed_weights,
                                         fused_requantize ? &*fused_requantize : nullptr}));
    else
      check(depthwise_conv2d_rescale(in_ref(), w_ref(), b_ref(), attrs, sums, fused_rescale, out_ref, &relu6, out_ref,
                                     runner, fused_scratch, fused_requantize ? &*fused_requantize : nullptr));
  }

  // DEPTHWISE_CONV2D's scratch for one thread, as the executor gives it.
  std::span<uint8_t> depthwise_scratch() {
    if (scratch.empty())
      scratch.resize(depthwise_conv2d_scratch_bytes(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape), 1) + 1);
    return scratch;
  }

  TensorRef in_ref() { return {DType::Int8, in_shape, input.data()}; }
  TensorRef w_ref() { return {DType::Int8, w_shape, weight.data()}; }
  TensorRef b_ref() { return {DType::Int32, b_shape, bias.data()}; }
  TensorRef acc_ref(const std::vector<int64_t>& shape) { return {DType::Int32, shape, acc.data()}; }

  static void check(const Status& s) {
    if (s.is_ok()) return;
    std::fprintf(stderr, "tosa_bench: %s\n", s.message().c_str());
    std::abort();
  }

  void run(const Layer& l, bool reference) {
    switch (l.kind) {
      case Kind::kConv:
        if (reference) detail::conv2d_reference(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape));
        else check(conv2d(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape), nullptr, conv_resources()));
        break;
      case Kind::kDepthwise:
        if (reference) detail::depthwise_conv2d_reference(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape));
        else check(depthwise_conv2d(in_ref(), w_ref(), b_ref(), attrs, acc_ref(out_shape), nullptr, depthwise_scratch()));
        break;
      case Kind::kRescale: {
        const TensorRef out{DType::Int8, in_shape, out8.data()};
        if (reference) detail::rescale_reference(acc_ref(in_shape), rescale_attrs, out);
        else check(rescale(acc_ref(in_shape), rescale_attrs, out));
        break;
      }
    }
  }
};

enum class Mode { kKernel, kReference, kFused };

// threads > 1: the fused chain on a ThreadPool of that many (the executor's runner).
void bench_layer(benchmark::State& state, const Layer* layer, Mode mode, int threads) {
  LayerData data(*layer);
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  for (auto _ : state) {
    if (mode == Mode::kFused)
      data.run_fused(*layer, pool.get());
    else
      data.run(*layer, mode == Mode::kReference);
    benchmark::ClobberMemory();
  }
  state.counters["G/s"] = benchmark::Counter(layer->work() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// Keeps the best rate of each benchmark (over --benchmark_repetitions) for the summary.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      const auto it = r.counters.find("G/s");
      if (it == r.counters.end()) continue;
      std::string name = r.benchmark_name();
      if (const size_t suffix = name.rfind("/real_time"); suffix != std::string::npos) name.resize(suffix);
      double& best = rates[name];
      best = std::max(best, double(it->second));
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rates;
};

}  // namespace
}  // namespace vkrt::tosa

int main(int argc, char** argv) {
  using namespace vkrt::tosa;
  // Our flags first; the rest go to Google Benchmark.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fused_rounding=single" || arg == "--fused_rounding=double") {
      g_fused.single_round = arg.ends_with("=single");
    } else if (arg == "--fused_output_stage=on" || arg == "--fused_output_stage=off") {
      g_fused.output_stage = arg.ends_with("=on");
    } else if (arg.starts_with("--fused_")) {
      std::fprintf(stderr,
                   "tosa_bench: unknown option '%s' (--fused_rounding=single|double, --fused_output_stage=on|off)\n",
                   arg.c_str());
      return 1;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  for (const Layer& l : kLayers) {
    const std::string n = l.name;
    benchmark::RegisterBenchmark((n + "/kernel").c_str(), bench_layer, &l, Mode::kKernel, 1)->UseRealTime();
    if (l.kind != Kind::kRescale) {
      benchmark::RegisterBenchmark((n + "/fused").c_str(), bench_layer, &l, Mode::kFused, 1)->UseRealTime();
      benchmark::RegisterBenchmark((n + "/fused/threads:2").c_str(), bench_layer, &l, Mode::kFused, 2)->UseRealTime();
    }
    benchmark::RegisterBenchmark((n + "/reference").c_str(), bench_layer, &l, Mode::kReference, 1)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nSummary (GMAC/s for convolutions, Gelem/s for RESCALE; best repetition, one thread unless said). "
              "CPU: %s; ISA level %s (pin with VKRT_CPU_ISA); CONV2D on the compute core's GEMM, weights packed ahead\n",
              vkrt::compute::cpu_model_name().c_str(), vkrt::compute::isa_name(vkrt::compute::active_isa()));
  std::printf("fused: the convolution with RESCALE to int8 (%s rounding, %s) and CLAMP in one call, GMAC/s of the "
              "convolution; fused_2t: the same on two threads\n",
              g_fused.single_round ? "single" : "double",
              g_fused.output_stage ? "the engine's output stage" : "in bands of int32 sums");
  std::printf("%-30s %10s %10s %10s %10s %10s %8s %8s\n", "layer", "M work", "kernel", "fused", "fused_2t", "reference",
              "ratio", "2t/1t");
  for (const Layer& l : kLayers) {
    const std::string n = l.name;
    const double k = reporter.rates[n + "/kernel"], f = reporter.rates[n + "/fused"];
    const double f2 = reporter.rates[n + "/fused/threads:2"], r = reporter.rates[n + "/reference"];
    if (k == 0 && f == 0 && f2 == 0 && r == 0) continue;
    std::printf("%-30s %10.2f %10.3f %10.3f %10.3f %10.3f %8.1f %8.2f\n", l.name, l.work() / 1e6, k, f, f2, r,
                r > 0 ? k / r : 0.0, f > 0 ? f2 / f : 0.0);
  }
  benchmark::Shutdown();
  return 0;
}
