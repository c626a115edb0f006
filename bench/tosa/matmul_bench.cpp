// matmul_bench: GMAC/s of TOSA MATMUL as the VGF CPU executor runs it (tosa::matmul: int8 on the
// compute core's int8 GEMM, int16 on its int16 GEMM, fp32 on its fp32 GEMM) against the reference
// loops it replaced
// (detail::matmul_reference), side by side, one thread, on attention-like shapes. Not a test.
//
//   build/bench/tosa/matmul_bench
//   build/bench/tosa/matmul_bench --benchmark_filter=int8
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "compute/isa.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

struct Shape {
  const char* name;
  int64_t n, h, c, w;
  double macs() const { return double(n) * h * c * w; }
};

// A ViT-S/16 head's scores (Q·Kᵀ) and values (P·V), 6 heads of 64 over 197 tokens, and a
// one-row product (a decoder step).
const Shape kShapes[] = {
    {"vit_scores_6x197x64x197", 6, 197, 64, 197},
    {"vit_values_6x197x197x64", 6, 197, 197, 64},
    {"decode_1x1x512x512", 1, 1, 512, 512},
};

template <typename T>
void bench(benchmark::State& state, const Shape* s, DType dtype, bool reference) {
  std::mt19937 rng(1);
  std::vector<T> a(size_t(s->n * s->h * s->c)), b(size_t(s->n * s->c * s->w));
  for (auto& v : a) v = T(int(rng() % 200) - 100) / T(dtype == DType::Fp32 ? 64 : 1);
  for (auto& v : b) v = T(int(rng() % 200) - 100) / T(dtype == DType::Fp32 ? 64 : 1);
  using Out = std::conditional_t<std::is_same_v<T, float>, float, std::conditional_t<sizeof(T) == 2, int64_t, int32_t>>;
  std::vector<Out> out(size_t(s->n * s->h * s->w));
  const int64_t a_shape[3] = {s->n, s->h, s->c}, b_shape[3] = {s->n, s->c, s->w}, o_shape[3] = {s->n, s->h, s->w};
  const TensorRef A{dtype, a_shape, a.data()}, B{dtype, b_shape, b.data()};
  const DType out_type = dtype == DType::Fp32 ? DType::Fp32 : dtype == DType::Int16 ? DType::Int48 : DType::Int32;
  const TensorRef O{out_type, o_shape, out.data()};
  const MatmulAttr zp{dtype == DType::Int8 ? 3 : 0, dtype == DType::Int8 ? -2 : 0};
  std::vector<uint8_t> scratch(matmul_scratch_bytes(A, B, zp, O, 1));
  for (auto _ : state) {
    if (reference) {
      detail::matmul_reference(A, B, zp, O);
    } else if (Status st = matmul(A, B, zp, O, nullptr, scratch); !st.is_ok()) {
      std::fprintf(stderr, "matmul_bench: %s\n", st.message().c_str());
      std::abort();
    }
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(s->macs() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace
}  // namespace vkrt::tosa

int main(int argc, char** argv) {
  using namespace vkrt::tosa;
  std::printf("matmul_bench: CPU %s, ISA level %s (pin with VKRT_CPU_ISA)\n", vkrt::compute::cpu_model_name().c_str(),
              vkrt::compute::isa_name(vkrt::compute::active_isa()));
  for (const Shape& s : kShapes) {
    const std::string name = s.name;
    benchmark::RegisterBenchmark(("int8/" + name + "/gemm").c_str(), bench<int8_t>, &s, DType::Int8, false);
    benchmark::RegisterBenchmark(("int8/" + name + "/reference").c_str(), bench<int8_t>, &s, DType::Int8, true);
    benchmark::RegisterBenchmark(("int16/" + name + "/gemm").c_str(), bench<int16_t>, &s, DType::Int16, false);
    benchmark::RegisterBenchmark(("int16/" + name + "/reference").c_str(), bench<int16_t>, &s, DType::Int16, true);
    benchmark::RegisterBenchmark(("fp32/" + name + "/gemm").c_str(), bench<float>, &s, DType::Fp32, false);
    benchmark::RegisterBenchmark(("fp32/" + name + "/reference").c_str(), bench<float>, &s, DType::Fp32, true);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
