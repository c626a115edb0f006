// cortex_m_bench: speed of the cortex_m int8 kernels on MobileNetV2 and DS-CNN layer shapes.
//
// For every layer: our kernel on 1 and 2 threads, the reference loops of the test tree (the
// oracle), and XNNPACK's QS8 operator (a speed peer, not bit-exact: it requantizes in float)
// on 1 and 2 threads. Each benchmark reports GMAC/s (pooling: GAdd/s); a summary table with the
// ratios is printed after the run. Scratch is allocated once per layer, outside the timing, as
// the runtime plans it ahead. Run: build-*/bench/cortex_m/cortex_m_bench [--benchmark_filter=...]
#include <algorithm>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cortex_m/avg_pool2d.h"
#include "cortex_m/conv2d.h"
#include "compute/isa.h"
#include "cortex_m/cpu_features.h"
#include "cortex_m/depthwise_conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/max_pool2d.h"
#include "cortex_m/reference/reference_ops.h"
#include "compute/simd_avx512.h"
#include "vkrt/thread_pool.h"
#include "xnnpack_isa.h"

#if VKRT_BENCH_XNNPACK
#include <pthreadpool.h>
#include <xnnpack.h>
#endif

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::cortex_m::reference;

enum class Kind { kConv, kDepthwise, kFullyConnected, kAvgPool, kMaxPool };

struct Layer {
  const char* name;
  Kind kind;
  int h, w, cin, cout, k, stride, pad;
  int out_h() const { return kind == Kind::kAvgPool ? 1 : (h + 2 * pad - k) / stride + 1; }
  int out_w() const { return kind == Kind::kAvgPool ? 1 : (w + 2 * pad - k) / stride + 1; }
  double macs() const {
    switch (kind) {
      case Kind::kConv: return double(out_h()) * out_w() * cout * k * k * cin;
      case Kind::kDepthwise: return double(out_h()) * out_w() * cout * k * k;
      case Kind::kFullyConnected: return double(cin) * cout;
      case Kind::kAvgPool: return double(h) * w * cin;
      case Kind::kMaxPool: return double(out_h()) * out_w() * cin * k * k;
    }
    return 0;
  }
};

// MobileNetV2 (224x224) and DS-CNN keyword spotting (49x10 MFCC, S: 64 and L: 276 channels).
const Layer kLayers[] = {
    {"mnv2/pw_56x56_24to144", Kind::kConv, 56, 56, 24, 144, 1, 1, 0},
    {"mnv2/pw_28x28_192to32", Kind::kConv, 28, 28, 192, 32, 1, 1, 0},
    {"mnv2/pw_14x14_96to576", Kind::kConv, 14, 14, 96, 576, 1, 1, 0},
    {"mnv2/pw_7x7_320to1280", Kind::kConv, 7, 7, 320, 1280, 1, 1, 0},
    {"mnv2/dw3x3_112x112x96_s2", Kind::kDepthwise, 112, 112, 96, 96, 3, 2, 1},
    {"mnv2/dw3x3_56x56x144", Kind::kDepthwise, 56, 56, 144, 144, 3, 1, 1},
    {"mnv2/dw3x3_14x14x576", Kind::kDepthwise, 14, 14, 576, 576, 3, 1, 1},
    {"mnv2/fc_1280to1000", Kind::kFullyConnected, 1, 1, 1280, 1000, 1, 1, 0},
    {"mnv2/avgpool_7x7x1280", Kind::kAvgPool, 7, 7, 1280, 1280, 7, 1, 0},
    {"dscnn_s/pw_25x5_64to64", Kind::kConv, 25, 5, 64, 64, 1, 1, 0},
    {"dscnn_s/dw3x3_25x5x64", Kind::kDepthwise, 25, 5, 64, 64, 3, 1, 1},
    {"dscnn_s/fc_64to12", Kind::kFullyConnected, 1, 1, 64, 12, 1, 1, 0},
    {"dscnn_s/avgpool_25x5x64", Kind::kAvgPool, 25, 5, 64, 64, 25, 1, 0},
    {"dscnn_l/pw_25x5_276to276", Kind::kConv, 25, 5, 276, 276, 1, 1, 0},
    {"dscnn_l/dw3x3_25x5x276", Kind::kDepthwise, 25, 5, 276, 276, 3, 1, 1},
    {"dscnn_l/avgpool_25x5x276", Kind::kAvgPool, 25, 5, 276, 276, 25, 1, 0},
    // ResNet-18/50's max pool after the 7x7 stem (no MobileNetV2 or DS-CNN layer pools by maximum).
    {"resnet/maxpool3x3s2_112x112x64", Kind::kMaxPool, 112, 112, 64, 64, 3, 2, 1},
};

// Inputs, weights and requantization parameters of one layer (random but typical ranges).
struct LayerData {
  const Layer& layer;
  std::vector<int8_t> input, weight, output;
  std::vector<int32_t> bias, mult, shift;
  Conv2dParams conv;
  DepthwiseConv2dParams dw;
  LinearParams fc;
  PoolParams pool;
  // Convolution and FC weights packed once, as a loaded method does for constant weights
  // (null: packed on every call, or a CPU without the packed path).
  std::vector<uint8_t> packed_memory;
  const GemmS8PackedB* packed = nullptr;

  LayerData(const Layer& l, bool pack_ahead) : layer(l) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> byte(-128, 127), b32(-20000, 20000);
    input.resize(size_t(l.h) * l.w * l.cin);
    for (auto& v : input) v = int8_t(byte(rng));
    const size_t weights = l.kind == Kind::kConv ? size_t(l.cout) * l.k * l.k * l.cin
                           : l.kind == Kind::kDepthwise ? size_t(l.k) * l.k * l.cout
                                                        : size_t(l.cout) * l.cin;
    weight.resize(weights);
    for (auto& v : weight) v = int8_t(byte(rng));
    bias.resize(l.cout);
    mult.resize(l.cout);
    shift.resize(l.cout);
    for (int c = 0; c < l.cout; ++c) {
      bias[c] = b32(rng);
      mult[c] = 1200000000 + int32_t(rng() % 800000000);
      shift[c] = -9 - int32_t(c % 3);
    }
    output.resize(size_t(l.out_h()) * l.out_w() * l.cout);
    conv.in_h = l.h, conv.in_w = l.w, conv.in_ch = l.cin, conv.out_ch = l.cout, conv.out_h = l.out_h(),
    conv.out_w = l.out_w(), conv.kernel_h = conv.kernel_w = l.k, conv.stride_h = conv.stride_w = l.stride,
    conv.pad_h = conv.pad_w = l.pad, conv.input_offset = 128, conv.output_offset = -5;
    dw.in_h = l.h, dw.in_w = l.w, dw.in_ch = l.cin, dw.ch_mult = 1, dw.out_h = l.out_h(), dw.out_w = l.out_w(),
    dw.kernel_h = dw.kernel_w = l.k, dw.stride_h = dw.stride_w = l.stride, dw.pad_h = dw.pad_w = l.pad,
    dw.input_offset = 128, dw.output_offset = -5;
    fc.batches = 1, fc.in_features = l.cin, fc.out_features = l.cout, fc.input_offset = 128,
    fc.output_offset = -5, fc.multiplier = mult[0], fc.shift = shift[0];
    pool.in_h = l.h, pool.in_w = l.w, pool.channels = l.cin, pool.out_h = l.out_h(), pool.out_w = l.out_w();
    const bool global = l.kind == Kind::kAvgPool;  // the average pools are global
    pool.kernel_h = global ? l.h : l.k, pool.kernel_w = global ? l.w : l.k;
    pool.stride_h = pool.stride_w = l.stride, pool.pad_h = pool.pad_w = l.pad;
    if (pack_ahead && l.kind == Kind::kConv) {
      packed_memory.resize(conv2d_s8_packed_bytes(conv));
      packed = conv2d_s8_pack_weights(conv, weight.data(), bias.data(), mult.data(), shift.data(), packed_memory);
    } else if (pack_ahead && l.kind == Kind::kFullyConnected) {
      packed_memory.resize(linear_s8_packed_bytes(fc));
      packed = linear_s8_pack_weights(fc, weight.data(), bias.data(), nullptr, packed_memory);
    }
  }

  size_t scratch_bytes(int threads) const {
    switch (layer.kind) {
      case Kind::kConv: return conv2d_s8_scratch_bytes(conv, threads, packed);
      case Kind::kDepthwise: return depthwise_conv2d_s8_scratch_bytes(dw, threads);
      case Kind::kFullyConnected: return linear_s8_scratch_bytes(fc, threads, packed);
      case Kind::kAvgPool: return avg_pool2d_scratch_bytes(pool, threads);
      case Kind::kMaxPool: return 0;
    }
    return 0;
  }

  void run_kernel(const Exec& exec) {
    switch (layer.kind) {
      case Kind::kConv:
        conv2d_s8(conv, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), output.data(), exec,
                  packed);
        break;
      case Kind::kDepthwise:
        depthwise_conv2d_s8(dw, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), output.data(), exec);
        break;
      case Kind::kFullyConnected:
        linear_s8(fc, input.data(), weight.data(), bias.data(), nullptr, output.data(), exec, packed);
        break;
      case Kind::kAvgPool:
        (void)avg_pool2d_s8(pool, input.data(), output.data(), exec);
        break;
      case Kind::kMaxPool:
        (void)max_pool2d_s8(pool, input.data(), output.data(), exec);
        break;
    }
  }

  void run_reference() {
    switch (layer.kind) {
      case Kind::kConv:
        ref::conv2d_s8(conv, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), output.data());
        break;
      case Kind::kDepthwise:
        ref::depthwise_conv2d_s8(dw, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), output.data());
        break;
      case Kind::kFullyConnected:
        ref::fully_connected_s8(fc, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), false,
                                output.data());
        break;
      case Kind::kAvgPool:
        ref::avg_pool2d_s8(pool, input.data(), output.data());
        break;
      case Kind::kMaxPool:
        ref::max_pool2d_s8(pool, input.data(), output.data());
        break;
    }
  }
};

void set_rate(benchmark::State& state, const Layer& layer) {
  state.counters["GMAC/s"] = benchmark::Counter(layer.macs() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bench_kernel(benchmark::State& state, const Layer* layer, int threads, bool pack_ahead) {
  LayerData data(*layer, pack_ahead);
  vkrt::ThreadPool runner(threads);
  std::vector<uint8_t> scratch(data.scratch_bytes(threads) + 64);
  Exec exec;
  exec.scratch = scratch;
  exec.runner = &runner;
  for (auto _ : state) {
    data.run_kernel(exec);
    benchmark::DoNotOptimize(data.output.data());
  }
  set_rate(state, *layer);
}

// The machine's own two-thread ceiling for this layer: two whole single-thread calls at once,
// one per thread, each with its own data, output and scratch (no work shared, nothing to
// wait for but the slower of the two). A split of one call cannot scale better than this.
void bench_two_independent(benchmark::State& state, const Layer* layer) {
  LayerData a(*layer, true), b(*layer, true);
  vkrt::ThreadPool runner(2);
  std::vector<uint8_t> sa(a.scratch_bytes(1) + 64), sb(b.scratch_bytes(1) + 64);
  Exec ea, eb;
  ea.scratch = sa;
  eb.scratch = sb;
  for (auto _ : state) {
    runner.run(2, [&](int t) { if (t == 0) a.run_kernel(ea); else b.run_kernel(eb); });
    benchmark::DoNotOptimize(a.output.data());
  }
  state.counters["GMAC/s"] = benchmark::Counter(2 * layer->macs() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bench_reference(benchmark::State& state, const Layer* layer) {
  LayerData data(*layer, false);
  for (auto _ : state) {
    data.run_reference();
    benchmark::DoNotOptimize(data.output.data());
  }
  set_rate(state, *layer);
}

#if VKRT_BENCH_XNNPACK
void bench_xnnpack(benchmark::State& state, const Layer* layer, int threads) {
  LayerData data(*layer, false);
  const Layer& l = *layer;
  pthreadpool_t pool = pthreadpool_create(size_t(threads));
  xnn_operator_t op = nullptr;
  xnn_status status = xnn_status_success;
  const float in_scale = 0.05f, w_scale = 0.01f, out_scale = 0.2f;
  switch (l.kind) {
    case Kind::kConv:
      status = xnn_create_convolution2d_nhwc_qs8(l.pad, l.pad, l.pad, l.pad, l.k, l.k, l.stride, l.stride, 1, 1, 1,
                                                 l.cin, l.cout, l.cin, l.cout, -128, in_scale, w_scale,
                                                 data.weight.data(), data.bias.data(), -5, out_scale, -128, 127, 0, &op);
      if (status == xnn_status_success)
        status = xnn_setup_convolution2d_nhwc_qs8(op, 1, l.h, l.w, data.input.data(), data.output.data(), pool);
      break;
    case Kind::kDepthwise: {
      // XNNPACK's depthwise weights are [1, kh, kw, channels] for groups = channels, as ours.
      status = xnn_create_convolution2d_nhwc_qs8(l.pad, l.pad, l.pad, l.pad, l.k, l.k, l.stride, l.stride, 1, 1,
                                                 uint32_t(l.cin), 1, 1, l.cin, l.cout, -128, in_scale, w_scale,
                                                 data.weight.data(), data.bias.data(), -5, out_scale, -128, 127,
                                                 XNN_FLAG_DEPTHWISE_CONVOLUTION, &op);
      if (status == xnn_status_success)
        status = xnn_setup_convolution2d_nhwc_qs8(op, 1, l.h, l.w, data.input.data(), data.output.data(), pool);
      break;
    }
    case Kind::kFullyConnected:
      status = xnn_create_fully_connected_nc_qs8(l.cin, l.cout, l.cin, l.cout, -128, in_scale, w_scale,
                                                 data.weight.data(), data.bias.data(), -5, out_scale, -128, 127, 0, &op);
      if (status == xnn_status_success)
        status = xnn_setup_fully_connected_nc_qs8(op, 1, data.input.data(), data.output.data(), pool);
      break;
    case Kind::kAvgPool:
      status = xnn_create_global_average_pooling_nwc_qs8(l.cin, l.cin, l.cin, -128, in_scale, -128, in_scale, -128,
                                                         127, 0, &op);
      if (status == xnn_status_success)
        status = xnn_setup_global_average_pooling_nwc_qs8(op, 1, size_t(l.h) * l.w, data.input.data(),
                                                          data.output.data(), pool);
      break;
    case Kind::kMaxPool:
      status = xnn_create_max_pooling2d_nhwc_s8(l.pad, l.pad, l.pad, l.pad, l.k, l.k, l.stride, l.stride, 1, 1,
                                                l.cin, l.cin, l.cin, -128, 127, 0, &op);
      if (status == xnn_status_success)
        status = xnn_setup_max_pooling2d_nhwc_s8(op, 1, l.h, l.w, data.input.data(), data.output.data(), pool);
      break;
  }
  if (status != xnn_status_success) {
    state.SkipWithError("XNNPACK operator setup failed");
  } else {
    for (auto _ : state) {
      xnn_run_operator(op, pool);
      benchmark::DoNotOptimize(data.output.data());
    }
    set_rate(state, l);
  }
  if (op) xnn_delete_operator(op);
  pthreadpool_destroy(pool);
}
#endif

// The machine's own ceiling: VPDPBUSD on registers only (8 independent chains, no memory), on
// one thread and on two at once. If two vCPUs share one physical core's vector units, two
// threads cannot beat one by much, whatever the kernel does.
#if defined(__x86_64__)
VKRT_TARGET_AVX512VNNI int32_t vnni_register_loop(int64_t steps) {
  __m512i acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (int64_t s = 0; s < steps; ++s)
    for (int i = 0; i < 8; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  __m512i sum = acc[0];
  for (int i = 1; i < 8; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  return _mm512_reduce_add_epi32(sum);
}

void bench_vnni_peak(benchmark::State& state, int threads) {
  if (!cpu_features().avx512vnni) {
    state.SkipWithError("no AVX-512 VNNI");
    return;
  }
  vkrt::ThreadPool runner(threads);
  constexpr int64_t kSteps = 1 << 16;
  std::vector<int32_t> sink(size_t(threads), 0);
  for (auto _ : state) {
    runner.run(threads, [&](int t) { sink[size_t(t)] += vnni_register_loop(kSteps); });
    benchmark::DoNotOptimize(sink.data());
  }
  state.counters["GMAC/s"] = benchmark::Counter(double(threads) * kSteps * 8 * 64 / 1e9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
#endif

// Collects GMAC/s per "layer/variant" for the summary (the best of the repetitions).
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const auto it = r.counters.find("GMAC/s");
      std::string name = r.benchmark_name();
      const std::string suffix = "/real_time";
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        name.resize(name.size() - suffix.size());
      // With --benchmark_repetitions, the best repetition: on a shared machine the noise only
      // ever slows a run down, so the fastest is the closest to what the code can do.
      if (it != r.counters.end() && !r.error_occurred && r.run_type == Run::RT_Iteration)
        rates[name] = std::max(rates[name], it->second.value);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rates;
};

// The path a layer of this kind runs at the active ISA level (docs/cortex-m-kernels.md,
// "Optimized paths"), for the summary.
const char* path_of(Kind kind) {
  using compute::Isa;
  const bool vnni = compute::has(Isa::Avx512vnni);
  switch (kind) {
    case Kind::kConv:
    case Kind::kFullyConnected:
      if (vnni) return "vnni gemm";
      if (compute::has(Isa::Avx512bw)) return "avx512bw gemm";
      if (compute::has(Isa::Avx2)) return "avx2 gemm";
      if (compute::has(Isa::Dotprod)) return "sdot gemm";
      if (compute::has(Isa::Neon)) return "neon gemm";
      return "portable";
    case Kind::kDepthwise:
      if (vnni) return "vnni";
      if (compute::has(Isa::Avx512bw)) return "avx512bw rows";
      if (compute::has(Isa::Avx2)) return "avx2 rows";
      if (compute::has(Isa::Neon)) return "neon rows";
      return "portable";
    case Kind::kAvgPool:
    case Kind::kMaxPool:
      if (compute::has(Isa::Avx512bw)) return "avx512bw rows";
      if (compute::has(Isa::Avx2)) return "avx2 rows";
      return "portable";
  }
  return "";
}

void print_summary(const std::map<std::string, double>& rates, const std::string& xnnpack_level) {
  auto get = [&](const std::string& name) {
    const auto it = rates.find(name);
    return it == rates.end() ? 0.0 : it->second;
  };
  std::printf("\nSummary (GMAC/s; pooling counts additions). CPU: %s; ours at ISA level %s (of: ",
              compute::cpu_model_name().c_str(), compute::isa_name(compute::active_isa()));
  for (compute::Isa isa : compute::available_isas()) std::printf(" %s", compute::isa_name(isa));
  std::printf("; pin with VKRT_CPU_ISA). XNNPACK: %s.\n", xnnpack_level.c_str());
  double load[3] = {0, 0, 0};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = 0;
    std::fclose(f);
  }
  std::printf("Wall time, each the best of the repetitions "
              "(--benchmark_repetitions). Load average %.1f on %u cores.\n",
              load[0], std::thread::hardware_concurrency());
  std::printf("ours: weights packed once (as a loaded method runs); pc: packed on every call (1x1 conv, FC).\n");
  const double peak1 = get("machine/vnni_registers/threads:1"), peak2 = get("machine/vnni_registers/threads:2");
  if (peak1 > 0)
    std::printf("Machine ceiling (VPDPBUSD on registers): 1 thread %.1f, 2 threads %.1f GMAC/s, 2t/1t %.2f.\n", peak1,
                peak2, peak2 / peak1);
  std::printf("ind2/1t: two independent single-thread calls at once against one (the layer's own two-thread ceiling).\n");
  std::printf("%-30s %-13s %8s %8s %8s %8s %8s %9s %8s %8s %8s %6s %7s %8s %6s\n", "layer", "path", "MMAC", "ours_1t",
              "ours_2t", "pc_1t", "pc_2t", "ref_1t", "xnn_1t", "xnn_2t", "ours/ref", "2t/1t", "ind2/1t", "ours/xnn", "xnn2/1");
  for (const Layer& l : kLayers) {
    const std::string n = l.name;
    const double k1 = get(n + "/ours/threads:1"), k2 = get(n + "/ours/threads:2"), r = get(n + "/reference");
    const double p1 = get(n + "/ours_packing_per_call/threads:1"), p2 = get(n + "/ours_packing_per_call/threads:2");
    const double x1 = get(n + "/xnnpack/threads:1"), x2 = get(n + "/xnnpack/threads:2");
    const double i2 = get(n + "/independent_x2");
    if (k1 == 0 && r == 0) continue;
    std::printf("%-30s %-13s %8.2f %8.2f %8.2f %8.2f %8.2f %9.3f %8.2f %8.2f %8.1f %6.2f %7.2f %8.2f %6.2f\n", l.name,
                path_of(l.kind), l.macs() / 1e6, k1, k2, p1, p2, r, x1, x2, r > 0 ? k1 / r : 0.0, k1 > 0 ? k2 / k1 : 0.0,
                k1 > 0 ? i2 / k1 : 0.0, x1 > 0 ? k1 / x1 : 0.0, x1 > 0 ? x2 / x1 : 0.0);
  }
}

}  // namespace
}  // namespace vkrt::cortex_m

int main(int argc, char** argv) {
  using namespace vkrt::cortex_m;
  std::string error;
  const std::string xnnpack_level = vkrt::bench::cap_xnnpack_isa(&error);
  if (!error.empty()) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  if (!vkrt::compute::isa_environment_error().empty()) {
    std::fprintf(stderr, "error: %s\n", vkrt::compute::isa_environment_error().c_str());
    return 1;
  }
#if VKRT_BENCH_XNNPACK
  if (xnn_initialize(nullptr) != xnn_status_success) std::fprintf(stderr, "xnn_initialize failed\n");
#endif
#if defined(__x86_64__)
  benchmark::RegisterBenchmark("machine/vnni_registers/threads:1", bench_vnni_peak, 1)->UseRealTime();
  benchmark::RegisterBenchmark("machine/vnni_registers/threads:2", bench_vnni_peak, 2)->UseRealTime();
#endif
  for (const Layer& l : kLayers) {
    const std::string n = l.name;
    // Wall time throughout (so that 2t/1t compares like with like); run with
    // --benchmark_repetitions=N on a shared machine: the summary keeps the best repetition.
    benchmark::RegisterBenchmark((n + "/ours/threads:1").c_str(), bench_kernel, &l, 1, true)->UseRealTime();
    benchmark::RegisterBenchmark((n + "/ours/threads:2").c_str(), bench_kernel, &l, 2, true)->UseRealTime();
    if (l.kind == Kind::kConv || l.kind == Kind::kFullyConnected) {
      benchmark::RegisterBenchmark((n + "/ours_packing_per_call/threads:1").c_str(), bench_kernel, &l, 1, false)->UseRealTime();
      benchmark::RegisterBenchmark((n + "/ours_packing_per_call/threads:2").c_str(), bench_kernel, &l, 2, false)
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark((n + "/reference").c_str(), bench_reference, &l)->UseRealTime();
    if ((l.kind == Kind::kConv || l.kind == Kind::kFullyConnected) && l.macs() >= 1e6)
      benchmark::RegisterBenchmark((n + "/independent_x2").c_str(), bench_two_independent, &l)->UseRealTime();
#if VKRT_BENCH_XNNPACK
    benchmark::RegisterBenchmark((n + "/xnnpack/threads:1").c_str(), bench_xnnpack, &l, 1)->UseRealTime();
    benchmark::RegisterBenchmark((n + "/xnnpack/threads:2").c_str(), bench_xnnpack, &l, 2)->UseRealTime();
#endif
  }
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary(reporter.rates, xnnpack_level);
  benchmark::Shutdown();
  return 0;
}
