// highway_bench: our hand-written intrinsics against the same kernels written once with Google
// Highway 1.0.3 (hwy_kernels.cpp), at each x86 ISA level our code has on this CPU, for the rule
// "use Highway where it comes within 1.2x of the intrinsics" (docs/simd-choice.md).
//
//   level        ours (compute::ScopedIsa)              Highway (dispatch restricted to)
//   avx512vnni   VPDPBUSD GEMM, VNNI depthwise          HWY_AVX3_DL
//   avx512bw     AVX-512BW rows; GEMM: the AVX2 path    HWY_AVX3
//   avx2         AVX2 rows and GEMM                     HWY_AVX2
//
// Kernels: (a) the CMSIS-NN output stage, int32 → int8 with per-channel multiplier and shift
// (compute::requantize_row_s8: AVX-512 or the portable loop; at avx2 also the AVX2 helpers of
// simd_avx2.h that our AVX2 GEMM and depthwise rows use, as a row); (b) a depthwise 3x3 layer,
// channel multiplier 1, through cortex_m::depthwise_conv2d_s8; (c) the int8 GEMM
// (compute::gemm_s8, B packed ahead as a loaded method does) at MobileNetV2 1x1-conv shapes.
// All single-threaded. Before timing, every Highway kernel is checked against ours at every
// level, byte for byte; the bench aborts on a difference.
//
// Run: build-*/bench/highway/highway_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// The summary takes, per benchmark, the best (minimum) CPU time of the repetitions (the "_min"
// aggregate; its rate column is the lowest of the repetitions' rates, the summary's is the rate
// of the best time) and also prints the ratios from the median CPU times and the best wall times.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "arith/fixed_point.h"
#include "compute/gemm_s8.h"
#include "compute/isa.h"
#include "compute/requantize_row.h"
#include "compute/simd_avx2.h"
#include "cortex_m/depthwise_conv2d.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy_kernels.h"

namespace vkrt::bench_hwy {
namespace {

using compute::GemmS8;
using compute::Isa;
using compute::RequantizeRow;
using cortex_m::DepthwiseConv2dParams;

struct Level {
  Isa isa;
  int64_t (*hwy_target)();
  const char* name;      // ours
  const char* hwy_name;  // Highway's
};
const Level kLevels[] = {
    {Isa::Avx512vnni, target_avx3_dl, "avx512vnni", "AVX3_DL"},
    {Isa::Avx512bw, target_avx3, "avx512bw", "AVX3"},
    {Isa::Avx2, target_avx2, "avx2", "AVX2"},
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "highway_bench: %s\n", what.c_str());
  std::exit(1);
}

// Pins our level and Highway's target for a scope; fails loudly if either is refused.
class Pin {
 public:
  explicit Pin(const Level& level) : isa_(level.isa) {
    if (!isa_.ok()) fail(std::string("cannot pin ISA level ") + level.name);
    const std::string got = select_target(level.hwy_target());
    if (got != level.hwy_name) fail("Highway runs " + got + " where " + level.hwy_name + " was asked for");
  }
  ~Pin() { select_target(0); }

 private:
  compute::ScopedIsa isa_;
};

// ---- (a) output stage ----------------------------------------------------------------------------

// Our AVX2 output-stage helpers (simd_avx2.h, used by the AVX2 GEMM and depthwise rows) as a row:
// 16 lanes per step, the tail through the stack. requantize_row_s8 itself has no AVX2 path.
VKRT_TARGET_AVX2 inline __m256i load_params(const RequantizeRow& spec, const int32_t* p, int i) {
  return spec.per_channel ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)) : _mm256_set1_epi32(p[0]);
}
VKRT_TARGET_AVX2 void requantize_row_avx2_helpers(const RequantizeRow& spec, const int32_t* acc, int first_channel,
                                                  int count, int8_t* out) {
  namespace simd = compute::simd;
  const __m256i offset = _mm256_set1_epi32(spec.output_offset);
  const __m256i lo = _mm256_set1_epi32(spec.activation_min), hi = _mm256_set1_epi32(spec.activation_max);
  const int32_t* mult = spec.multiplier + (spec.per_channel ? first_channel : 0);
  const int32_t* shift = spec.shift + (spec.per_channel ? first_channel : 0);
  int i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i a0 = simd::requantize_x8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i)),
                                           load_params(spec, mult, i), load_params(spec, shift, i));
    const __m256i a1 = simd::requantize_x8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 8)),
                                           load_params(spec, mult, i + 8), load_params(spec, shift, i + 8));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), simd::narrow_s8x16(a0, a1, offset, lo, hi));
  }
  if (i < count) {
    const int n = count - i;
    alignas(32) int32_t a[16] = {}, m[16] = {}, s[16] = {};
    std::memcpy(a, acc + i, size_t(n) * 4);
    for (int t = 0; t < n; ++t) {
      m[t] = spec.per_channel ? mult[i + t] : mult[0];
      s[t] = spec.per_channel ? shift[i + t] : shift[0];
    }
    const __m256i a0 = simd::requantize_x8(_mm256_load_si256(reinterpret_cast<const __m256i*>(a)),
                                           _mm256_load_si256(reinterpret_cast<const __m256i*>(m)),
                                           _mm256_load_si256(reinterpret_cast<const __m256i*>(s)));
    const __m256i a1 = simd::requantize_x8(_mm256_load_si256(reinterpret_cast<const __m256i*>(a + 8)),
                                           _mm256_load_si256(reinterpret_cast<const __m256i*>(m + 8)),
                                           _mm256_load_si256(reinterpret_cast<const __m256i*>(s + 8)));
    alignas(16) int8_t bytes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes), simd::narrow_s8x16(a0, a1, offset, lo, hi));
    std::memcpy(out + i, bytes, size_t(n));
  }
}

// One output row of the 56x56x144 depthwise layer: 56 pixels × 144 channels of accumulators.
struct RequantizeData {
  static constexpr int kPixels = 56, kChannels = 144;
  std::vector<int32_t> acc, mult, shift;
  std::vector<int8_t> out;
  RequantizeRow spec;
  RequantizeData() {
    std::mt19937 rng(11);
    acc.resize(size_t(kPixels) * kChannels);
    for (auto& v : acc) v = int32_t(rng() % 400001) - 200000;
    mult.resize(kChannels);
    shift.resize(kChannels);
    for (int c = 0; c < kChannels; ++c) {
      mult[size_t(c)] = 1200000000 + int32_t(rng() % 800000000);
      shift[size_t(c)] = -9 - c % 3;
    }
    out.resize(acc.size());
    spec.multiplier = mult.data();
    spec.shift = shift.data();
    spec.output_offset = -5;
  }
  double elements() const { return double(acc.size()); }
};

enum class RequantizeImpl { kOurs, kOursAvx2Helpers, kHighway };

void run_requantize(RequantizeImpl impl, const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                    int8_t* out) {
  switch (impl) {
    case RequantizeImpl::kOurs: compute::requantize_row_s8(spec, acc, first_channel, count, out); break;
    case RequantizeImpl::kOursAvx2Helpers: requantize_row_avx2_helpers(spec, acc, first_channel, count, out); break;
    case RequantizeImpl::kHighway: bench_hwy::requantize_row_s8(spec, acc, first_channel, count, out); break;
  }
}

void bench_requantize(benchmark::State& state, const Level* level, RequantizeImpl impl) {
  RequantizeData data;
  Pin pin(*level);
  const int C = RequantizeData::kChannels;
  for (auto _ : state) {
    for (int px = 0; px < RequantizeData::kPixels; ++px)
      run_requantize(impl, data.spec, data.acc.data() + size_t(px) * C, 0, C, data.out.data() + size_t(px) * C);
    benchmark::DoNotOptimize(data.out.data());
    benchmark::ClobberMemory();
  }
  state.counters["Gelem/s"] = benchmark::Counter(data.elements() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- (b) depthwise ---------------------------------------------------------------------------------

struct DwShape {
  const char* name;
  int h, w, c, stride;
};
const DwShape kDwShapes[] = {
    {"mnv2_dw3x3_56x56x144_s1", 56, 56, 144, 1},
    {"mnv2_dw3x3_14x14x576_s1", 14, 14, 576, 1},
};

struct DepthwiseData {
  DepthwiseConv2dParams p;
  std::vector<int8_t> input, weight, out;
  std::vector<int32_t> bias, mult, shift;
  std::vector<uint8_t> scratch;
  DepthwiseData(int h, int w, int c, int stride, int pad, int dilation, int32_t in_off, int32_t out_off, int32_t lo,
                int32_t hi, uint32_t seed, bool wide_bias = false) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(-128, 127);
    p.in_h = h, p.in_w = w, p.in_ch = c, p.ch_mult = 1, p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = stride, p.pad_h = p.pad_w = pad, p.dilation_h = p.dilation_w = dilation;
    p.out_h = (h + 2 * pad - dilation * 2 - 1) / stride + 1;
    p.out_w = (w + 2 * pad - dilation * 2 - 1) / stride + 1;
    p.input_offset = in_off, p.output_offset = out_off, p.activation_min = lo, p.activation_max = hi;
    input.resize(size_t(h) * w * c);
    for (auto& v : input) v = int8_t(byte(rng));
    weight.resize(size_t(9) * c);
    for (auto& v : weight) v = int8_t(byte(rng));
    bias.resize(size_t(c));
    mult.resize(size_t(c));
    shift.resize(size_t(c));
    for (int i = 0; i < c; ++i) {
      bias[size_t(i)] = wide_bias ? int32_t(rng()) : int32_t(rng() % 40001) - 20000;
      mult[size_t(i)] = wide_bias ? int32_t(rng() | 1u) : 1200000000 + int32_t(rng() % 800000000);
      shift[size_t(i)] = wide_bias ? int32_t(rng() % 40) - 31 : -9 - i % 3;
    }
    out.resize(size_t(p.out_h) * p.out_w * c);
    scratch.resize(cortex_m::depthwise_conv2d_s8_scratch_bytes(p, 1) + 64);
  }
  double macs() const { return double(p.out_h) * p.out_w * p.in_ch * 9; }
  void run_ours() {
    compute::Exec exec;
    exec.scratch = scratch;
    cortex_m::depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), out.data(),
                                  exec);
  }
  void run_highway() {
    depthwise_conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), out.data());
  }
};

void bench_depthwise(benchmark::State& state, const Level* level, const DwShape* s, bool highway) {
  DepthwiseData data(s->h, s->w, s->c, s->stride, 1, 1, 128, -5, -128, 127, 7);
  Pin pin(*level);
  for (auto _ : state) {
    if (highway)
      data.run_highway();
    else
      data.run_ours();
    benchmark::DoNotOptimize(data.out.data());
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(data.macs() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- (c) GEMM --------------------------------------------------------------------------------------

struct GemmShape {
  const char* name;
  int m, n, k;
};
const GemmShape kGemmShapes[] = {
    {"mnv2_pw_56x56_24to144", 56 * 56, 144, 24},
    {"mnv2_pw_14x14_96to576", 14 * 14, 576, 96},
    {"mnv2_pw_7x7_320to1280", 7 * 7, 1280, 320},
};

struct GemmData {
  GemmS8 g;
  std::vector<int8_t> a, b, c;
  std::vector<int32_t> bias, mult, shift;
  std::vector<uint8_t> packed_memory, scratch;
  PackedB hwy_packed;
  GemmData(int m, int n, int k, int32_t a_off, int32_t b_off, int32_t out_off, int32_t lo, int32_t hi, uint32_t seed,
           bool wide = false) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(-128, 127);
    a.resize(size_t(m) * k);
    for (auto& v : a) v = int8_t(byte(rng));
    b.resize(size_t(n) * k);
    for (auto& v : b) v = int8_t(byte(rng));
    c.resize(size_t(m) * n);
    bias.resize(size_t(n));
    mult.resize(size_t(n));
    shift.resize(size_t(n));
    for (int j = 0; j < n; ++j) {
      bias[size_t(j)] = wide ? int32_t(rng()) : int32_t(rng() % 40001) - 20000;
      mult[size_t(j)] = wide ? int32_t(rng() | 1u) : 1200000000 + int32_t(rng() % 800000000);
      shift[size_t(j)] = wide ? int32_t(rng() % 40) - 31 : -9 - j % 3;
    }
    g.m = m, g.n = n, g.k = k;
    g.a = a.data(), g.a_stride = k, g.b = b.data(), g.b_stride = k, g.bias = bias.data();
    g.a_offset = a_off, g.b_offset = b_off;
    g.out.multiplier = mult.data(), g.out.shift = shift.data(), g.out.per_channel = true;
    g.out.output_offset = out_off, g.out.activation_min = lo, g.out.activation_max = hi;
    g.c = c.data(), g.c_stride = n;
  }
  double macs() const { return double(g.m) * g.n * g.k; }
  // Packs B for ours at the active level (as conv2d_s8_pack_weights does at load).
  void pack_ours() {
    g.packed_b = nullptr;
    packed_memory.assign(compute::gemm_s8_packed_b_bytes(g) + 64, 0);
    g.packed_b = compute::gemm_s8_pack_b(g, packed_memory);
    scratch.assign(compute::gemm_s8_scratch_bytes(g, 1) + 64, 0);
  }
  void pack_highway() {
    bench_hwy::gemm_s8_pack_b(g, &hwy_packed);
    scratch.assign(bench_hwy::gemm_s8_scratch_bytes(g) + 64, 0);
  }
  void run_ours() {
    compute::Exec exec;
    exec.scratch = scratch;
    compute::gemm_s8(g, exec);
  }
  void run_highway() {
    if (!bench_hwy::gemm_s8(g, hwy_packed, scratch.data())) fail("Highway B packed for another target");
  }
};

void bench_gemm(benchmark::State& state, const Level* level, const GemmShape* s, bool highway) {
  GemmData data(s->m, s->n, s->k, 128, 0, -5, -128, 127, 5);
  Pin pin(*level);
  if (highway)
    data.pack_highway();
  else
    data.pack_ours();
  for (auto _ : state) {
    if (highway)
      data.run_highway();
    else
      data.run_ours();
    benchmark::DoNotOptimize(data.c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(data.macs() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- bit-exactness -----------------------------------------------------------------------------

void expect_same(const std::vector<int8_t>& ours, const std::vector<int8_t>& theirs, const std::string& what) {
  for (size_t i = 0; i < ours.size(); ++i)
    if (ours[i] != theirs[i])
      fail("NOT bit-exact: " + what + ": byte " + std::to_string(i) + " ours " + std::to_string(ours[i]) +
           " Highway " + std::to_string(theirs[i]));
}

void check_requantize(const Level& level) {
  std::mt19937 rng(3);
  const int32_t edges[] = {0, 1, -1, 2, -2, 1 << 30, -(1 << 30), arith::kInt32Max, arith::kInt32Min,
                           arith::kInt32Max - 1, arith::kInt32Min + 1, 12345, -12345};
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + int(rng() % 100), first = int(rng() % 20);
    const size_t elems = size_t(count), params = size_t(first + count);
    std::vector<int32_t> acc(elems), mult(params), shift(params);
    for (auto& v : acc) v = rng() % 4 == 0 ? edges[rng() % std::size(edges)] : int32_t(rng()) >> (rng() % 24);
    for (auto& v : mult) v = rng() % 8 == 0 ? edges[rng() % std::size(edges)] : int32_t(rng());
    for (auto& v : shift) v = int32_t(rng() % 81) - 40;  // beyond [-31, 31]: clamped like arith::requantize
    RequantizeRow spec;
    spec.multiplier = mult.data();
    spec.shift = shift.data();
    spec.per_channel = trial % 5 != 0;
    spec.output_offset = int32_t(rng() % 256) - 128;
    spec.activation_min = int32_t(rng() % 128) - 128;
    spec.activation_max = int32_t(rng() % 128);
    std::vector<int8_t> want(elems), ours(elems, 0), hwy(elems, 1), helpers(elems, 2);
    for (int i = 0; i < count; ++i) {
      const int c = spec.per_channel ? first + i : 0;
      want[size_t(i)] = int8_t(arith::clamp_activation(
          arith::wrap_add(arith::requantize(acc[size_t(i)], mult[size_t(c)], shift[size_t(c)]), spec.output_offset),
          spec.activation_min, spec.activation_max));
    }
    {
      Pin pin(level);
      compute::requantize_row_s8(spec, acc.data(), first, count, ours.data());
      bench_hwy::requantize_row_s8(spec, acc.data(), first, count, hwy.data());
      if (compute::has(Isa::Avx2)) requantize_row_avx2_helpers(spec, acc.data(), first, count, helpers.data());
      else helpers = want;
    }
    const std::string what = std::string("requantize at ") + level.name + " trial " + std::to_string(trial);
    expect_same(want, ours, what + " (ours vs arith::requantize)");
    expect_same(want, helpers, what + " (our AVX2 helpers vs arith::requantize)");
    expect_same(ours, hwy, what);
  }
}

// The depthwise layer by its definition (cortex_m/depthwise_conv2d.cpp's header), one output at a time.
std::vector<int8_t> depthwise_reference(const DepthwiseData& d) {
  const DepthwiseConv2dParams& p = d.p;
  std::vector<int8_t> out(d.out.size());
  for (int32_t oy = 0; oy < p.out_h; ++oy)
    for (int32_t ox = 0; ox < p.out_w; ++ox)
      for (int32_t c = 0; c < p.in_ch; ++c) {
        int32_t acc = d.bias[size_t(c)];
        for (int32_t ky = 0; ky < p.kernel_h; ++ky)
          for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
            const int32_t iy = oy * p.stride_h - p.pad_h + ky * p.dilation_h;
            const int32_t ix = ox * p.stride_w - p.pad_w + kx * p.dilation_w;
            if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
            const int32_t x = d.input[(size_t(iy) * p.in_w + size_t(ix)) * size_t(p.in_ch) + size_t(c)];
            acc = arith::wrap_add(acc, arith::wrap_mul(x + p.input_offset,
                                                       d.weight[(size_t(ky) * p.kernel_w + size_t(kx)) * size_t(p.in_ch) + size_t(c)]));
          }
        const int32_t v = arith::requantize(acc, d.mult[size_t(c)], d.shift[size_t(c)]);
        out[(size_t(oy) * p.out_w + size_t(ox)) * size_t(p.in_ch) + size_t(c)] =
            int8_t(arith::clamp_activation(arith::wrap_add(v, p.output_offset), p.activation_min, p.activation_max));
      }
  return out;
}

void check_depthwise(const Level& level) {
  struct Case {
    int h, w, c, stride, pad, dilation;
    int32_t in_off, out_off, lo, hi;
    bool wide;
  };
  const Case cases[] = {
      {56, 56, 144, 1, 1, 1, 128, -5, -128, 127, false}, {14, 14, 576, 1, 1, 1, 128, -5, -128, 127, false},
      {23, 17, 96, 2, 1, 1, 128, 3, -128, 127, false},   {9, 11, 20, 1, 1, 1, -127, 7, -100, 90, true},
      {12, 10, 40, 1, 2, 2, 0, -128, -128, 0, true},     {7, 5, 33, 2, 0, 1, 5, 127, 0, 127, true},
      {5, 9, 1, 1, 1, 1, 128, 0, -128, 127, true},
  };
  uint32_t seed = 100;
  for (const Case& k : cases) {
    DepthwiseData ours(k.h, k.w, k.c, k.stride, k.pad, k.dilation, k.in_off, k.out_off, k.lo, k.hi, ++seed, k.wide);
    DepthwiseData hwy = ours;
    std::fill(hwy.out.begin(), hwy.out.end(), int8_t(0x5A));
    {
      Pin pin(level);
      ours.run_ours();
      hwy.run_highway();
    }
    const std::string what = std::string("depthwise at ") + level.name + " " + std::to_string(k.h) + "x" +
                             std::to_string(k.w) + "x" + std::to_string(k.c) + " s" + std::to_string(k.stride) + " d" +
                             std::to_string(k.dilation);
    expect_same(depthwise_reference(ours), ours.out, what + " (reference loop vs ours)");
    expect_same(ours.out, hwy.out, what);
  }
}

void check_gemm(const Level& level) {
  struct Case {
    int m, n, k;
    int32_t a_off, b_off, out_off, lo, hi;
    bool wide;
  };
  const Case cases[] = {
      {56 * 56, 144, 24, 128, 0, -5, -128, 127, false}, {49, 1280, 320, 128, 0, -5, -128, 127, false},
      {196, 576, 96, 128, 0, -5, -128, 127, false},     {37, 100, 27, 3, 5, 11, -90, 100, true},
      {5, 17, 1, -127, -7, 0, -128, 127, true},         {70, 33, 65, 128, 127, -128, -128, 0, true},
      {1, 48, 300, 0, 0, 127, 0, 127, true},
  };
  uint32_t seed = 200;
  for (const Case& k : cases) {
    GemmData ours(k.m, k.n, k.k, k.a_off, k.b_off, k.out_off, k.lo, k.hi, ++seed, k.wide);
    GemmData hwy = ours;
    hwy.g.a = hwy.a.data(), hwy.g.b = hwy.b.data(), hwy.g.bias = hwy.bias.data(), hwy.g.c = hwy.c.data();
    hwy.g.out.multiplier = hwy.mult.data(), hwy.g.out.shift = hwy.shift.data();
    GemmData portable = ours;
    portable.g.c = portable.c.data();
    std::fill(hwy.c.begin(), hwy.c.end(), int8_t(0x5A));
    std::vector<uint8_t> tmp(compute::gemm_s8_min_scratch_bytes(portable.g) + 1);
    compute::gemm_s8_portable(portable.g, tmp);
    {
      Pin pin(level);
      ours.pack_ours();
      ours.run_ours();
      hwy.pack_highway();
      hwy.run_highway();
    }
    const std::string what = std::string("gemm at ") + level.name + " m" + std::to_string(k.m) + " n" +
                             std::to_string(k.n) + " k" + std::to_string(k.k);
    expect_same(portable.c, ours.c, what + " (ours vs gemm_s8_portable)");
    expect_same(ours.c, hwy.c, what);
  }
}

// ---- reporting -----------------------------------------------------------------------------------

// Work per iteration (elements or MACs) by benchmark name, for the summary.
std::map<std::string, double>& work_of() {
  static std::map<std::string, double> w;
  return w;
}

std::string base_name(std::string name) {
  for (const char* suffix : {"_min", "_median", "_mean", "_stddev", "_cv"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) name.resize(name.size() - s.size());
  }
  const std::string rt = "/real_time";
  if (name.size() > rt.size() && name.compare(name.size() - rt.size(), rt.size(), rt) == 0) name.resize(name.size() - rt.size());
  return name;
}

// Per benchmark: the best (minimum) CPU time per iteration of the repetitions, the median CPU
// time, and the best wall time, in ns. CPU time is the figure compared: on a shared machine the
// wall time also counts the time the thread waited for a core.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal (--benchmark_color applies to the library's own reporter only).
  CollectingReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = base_name(r.run_name.str());
      const double to_ns = 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      const double cpu = r.GetAdjustedCPUTime() * to_ns, wall = r.GetAdjustedRealTime() * to_ns;
      if (r.run_type == Run::RT_Iteration || r.aggregate_name == "min") {
        keep_min(best_cpu, name, cpu);
        keep_min(best_wall, name, wall);
        if (r.run_type == Run::RT_Iteration && !median_cpu.count(name)) median_cpu[name] = cpu;
      }
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") median_cpu[name] = cpu;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> best_cpu, median_cpu, best_wall;

 private:
  static void keep_min(std::map<std::string, double>& m, const std::string& name, double v) {
    const auto it = m.find(name);
    if (it == m.end() || v < it->second) m[name] = v;
  }
};

void print_summary(const CollectingReporter& rep, const std::vector<const Level*>& levels) {
  // Work per iteration (in units of 1e9) over ns per iteration: G per second.
  auto rate = [&](const std::map<std::string, double>& t, const std::string& name) {
    const auto it = t.find(name);
    const auto w = work_of().find(name);
    return it == t.end() || w == work_of().end() || it->second <= 0 ? 0.0 : w->second / (it->second * 1e-9);
  };
  double load = 0;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  std::printf("\nSummary. CPU: %s. Highway %d.%d.%d, dynamic dispatch restricted to one target per level. "
              "One thread. Load average %.1f.\n",
              compute::cpu_model_name().c_str(), HWY_MAJOR, HWY_MINOR, HWY_PATCH, load);
  std::printf("ours, highway: rate from the best (minimum) CPU time of the repetitions. ratio = ours / Highway "
              "(above 1: ours faster);\n[med]: from the median CPU times; [wall]: from the best wall times. "
              "Rule: Highway where ratio <= 1.20.\n");
  std::printf("%-36s %-11s %-8s %9s %9s %7s %7s %7s  %s\n", "kernel", "ours@level", "hwy", "ours", "highway", "ratio",
              "[med]", "[wall]", "unit");
  auto row = [&](const std::string& kernel, const Level& l, const std::string& ours_name, const std::string& hwy_name,
                 const char* unit) {
    const double o = rate(rep.best_cpu, ours_name), h = rate(rep.best_cpu, hwy_name);
    const double om = rate(rep.median_cpu, ours_name), hm = rate(rep.median_cpu, hwy_name);
    const double ow = rate(rep.best_wall, ours_name), hw = rate(rep.best_wall, hwy_name);
    if (o == 0 && h == 0) return;
    std::printf("%-36s %-11s %-8s %9.3f %9.3f %7.2f %7.2f %7.2f  %s\n", kernel.c_str(), l.name, l.hwy_name, o, h,
                h > 0 ? o / h : 0.0, hm > 0 ? om / hm : 0.0, hw > 0 ? ow / hw : 0.0, unit);
  };
  for (const Level* l : levels) {
    const std::string p = std::string("requantize/144ch_x56px/") + l->name;
    row("requantize_row_s8 144ch x 56px", *l, p + "/ours", p + "/highway", "Gelem/s");
    if (l->isa == Isa::Avx2) row("  our AVX2 helpers as a row", *l, p + "/ours_avx2_helpers", p + "/highway", "Gelem/s");
  }
  for (const DwShape& s : kDwShapes)
    for (const Level* l : levels) {
      const std::string p = std::string("depthwise/") + s.name + "/" + l->name;
      row(std::string("dw ") + s.name, *l, p + "/ours", p + "/highway", "GMAC/s");
    }
  for (const GemmShape& s : kGemmShapes)
    for (const Level* l : levels) {
      const std::string p = std::string("gemm/") + s.name + "/" + l->name;
      row(std::string("gemm ") + s.name, *l, p + "/ours", p + "/highway", "GMAC/s");
    }
}

benchmark::internal::Benchmark* add(const std::string& name, double work, benchmark::internal::Benchmark* b) {
  work_of()[name] = work / 1e9;
  return b->ComputeStatistics("min", [](const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
  });
}

}  // namespace
}  // namespace vkrt::bench_hwy

int main(int argc, char** argv) {
  using namespace vkrt::bench_hwy;
  using vkrt::compute::Isa;
  std::printf("CPU: %s\n", vkrt::compute::cpu_model_name().c_str());
  std::printf("our ISA levels on this CPU:");
  for (Isa isa : vkrt::compute::available_isas()) std::printf(" %s", vkrt::compute::isa_name(isa));
  std::printf("\nHighway %d.%d.%d targets on this CPU:", HWY_MAJOR, HWY_MINOR, HWY_PATCH);
  for (int64_t t : {target_avx3_dl(), target_avx3(), target_avx2()})
    if (cpu_has_target(t)) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n");

  std::vector<const Level*> levels;
  for (const Level& l : kLevels) {
    bool ours = false;
    for (Isa isa : vkrt::compute::available_isas()) ours = ours || isa == l.isa;
    if (!ours || !cpu_has_target(l.hwy_target())) {
      std::printf("level %s / %s: not on this CPU, skipped\n", l.name, l.hwy_name);
      continue;
    }
    levels.push_back(&l);
  }
  if (levels.empty()) {
    std::printf("no level to compare on this CPU\n");
    return 0;
  }

  // Bit-exactness first: Highway against ours at every level, or no figures at all.
  for (const Level* l : levels) {
    check_requantize(*l);
    check_depthwise(*l);
    check_gemm(*l);
    std::printf("bit-exact at %s / %s: requantize (400 random rows), depthwise (7 layers), gemm (7 products)\n",
                l->name, l->hwy_name);
  }

  // ours and Highway next to each other, level by level, so that each ratio is measured close in time.
  for (const Level* l : levels) {
    const std::string p = std::string("requantize/144ch_x56px/") + l->name;
    const double elements = RequantizeData().elements();
    add(p + "/ours", elements, benchmark::RegisterBenchmark((p + "/ours").c_str(), bench_requantize, l, RequantizeImpl::kOurs));
    if (l->isa == Isa::Avx2)
      add(p + "/ours_avx2_helpers", elements,
          benchmark::RegisterBenchmark((p + "/ours_avx2_helpers").c_str(), bench_requantize, l,
                                       RequantizeImpl::kOursAvx2Helpers));
    add(p + "/highway", elements,
        benchmark::RegisterBenchmark((p + "/highway").c_str(), bench_requantize, l, RequantizeImpl::kHighway));
  }
  for (const DwShape& s : kDwShapes)
    for (const Level* l : levels) {
      const std::string p = std::string("depthwise/") + s.name + "/" + l->name;
      const double macs = double(s.h / s.stride) * (s.w / s.stride) * s.c * 9;
      add(p + "/ours", macs, benchmark::RegisterBenchmark((p + "/ours").c_str(), bench_depthwise, l, &s, false));
      add(p + "/highway", macs, benchmark::RegisterBenchmark((p + "/highway").c_str(), bench_depthwise, l, &s, true));
    }
  for (const GemmShape& s : kGemmShapes)
    for (const Level* l : levels) {
      const std::string p = std::string("gemm/") + s.name + "/" + l->name;
      const double macs = double(s.m) * s.n * s.k;
      add(p + "/ours", macs, benchmark::RegisterBenchmark((p + "/ours").c_str(), bench_gemm, l, &s, false));
      add(p + "/highway", macs, benchmark::RegisterBenchmark((p + "/highway").c_str(), bench_gemm, l, &s, true));
    }

  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_summary(reporter, levels);
  benchmark::Shutdown();
  return 0;
}
