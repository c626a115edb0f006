// gemm_ops_bench: GMAC/s of the TOSA ops that run as GEMMs on the compute core, as the VGF CPU
// executor runs them, against the reference loops they replaced, side by side, one thread: MATMUL
// (int8 on the int8 GEMM, int16 on the int16 GEMM, fp32 on the fp32 GEMM) on attention-like
// shapes, TRANSPOSE_CONV2D (int8, int16 and fp32: the GEMM or the A16W8 convolution, and a
// scatter) on decoder shapes, and CONV3D on a C3D block (int8: the int8 GEMM over gathered
// windows; int16 and fp32: CONV2D over depth-stacked channels). Not a test.
//
//   build/bench/tosa/gemm_ops_bench
//   build/bench/tosa/gemm_ops_bench --benchmark_filter=transpose
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <type_traits>
#include <vector>

#include "compute/isa.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

// A kernel that refuses the bench's own operands is a bug in the bench.
void check(const Status& st) {
  if (st.is_ok()) return;
  std::fprintf(stderr, "gemm_ops_bench: %s\n", st.message().c_str());
  std::abort();
}

// Times `reference` (the reference loops) or `kernel` (the op's fast path, its Status checked)
// and reports `macs` multiply-adds a call as GMAC/s.
template <typename Reference, typename Kernel>
void time_op(benchmark::State& state, double macs, bool use_reference, const Reference& reference,
             const Kernel& kernel) {
  for (auto _ : state) {
    if (use_reference)
      reference();
    else
      check(kernel());
    benchmark::ClobberMemory();
  }
  state.counters["GMAC/s"] = benchmark::Counter(macs / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

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
  time_op(
      state, s->macs(), reference, [&] { detail::matmul_reference(A, B, zp, O); },
      [&] { return matmul(A, B, zp, O, nullptr, scratch); });
}

// The dtypes of a convolution over T activations: weights, sums (bias and output), accumulator.
template <typename T>
struct ConvTypes {
  static constexpr bool kFloat = std::is_same_v<T, float>, kWide = std::is_same_v<T, int16_t>;
  using Weight = std::conditional_t<kFloat, float, int8_t>;
  using Sum = std::conditional_t<kFloat, float, std::conditional_t<kWide, int64_t, int32_t>>;
  static constexpr DType kIn = kFloat ? DType::Fp32 : kWide ? DType::Int16 : DType::Int8;
  static constexpr DType kWeight = kFloat ? DType::Fp32 : DType::Int8;
  static constexpr DType kSum = kFloat ? DType::Fp32 : kWide ? DType::Int48 : DType::Int32;
  static constexpr AccType kAcc = kFloat ? AccType::Fp32 : kWide ? AccType::Int48 : AccType::Int32;
};

// TRANSPOSE_CONV2D: a U-Net decoder's 2x2 stride-2 upsampling and a 3x3 stride-2 one.
struct TransposeShape {
  const char* name;
  int64_t ih, iw, ic, oc, k, stride, pad;  // out_pad −pad on every side
  int64_t out(int64_t in) const { return (in - 1) * stride - 2 * pad + k; }
  double macs() const { return double(ih) * iw * ic * oc * k * k; }
};
const TransposeShape kTransposeShapes[] = {
    {"unet_up_28x28x128_to_64_k2s2", 28, 28, 128, 64, 2, 2, 0},
    {"decoder_14x14x96_to_48_k3s2p1", 14, 14, 96, 48, 3, 2, 1},
};

template <typename T>
void bench_transpose(benchmark::State& state, const TransposeShape* s, bool reference) {
  using C = ConvTypes<T>;
  std::mt19937 rng(2);
  std::vector<T> in(size_t(s->ih * s->iw * s->ic));
  std::vector<typename C::Weight> w(size_t(s->oc * s->k * s->k * s->ic));
  for (auto& v : in) v = T(int(rng() % 200) - 100) / T(C::kFloat ? 64 : 1);
  for (auto& v : w) v = typename C::Weight(int(rng() % 200) - 100) / typename C::Weight(C::kFloat ? 64 : 1);
  std::vector<typename C::Sum> bias(size_t(s->oc), 7), out(size_t(s->out(s->ih) * s->out(s->iw) * s->oc));
  const int64_t in_shape[4] = {1, s->ih, s->iw, s->ic}, w_shape[4] = {s->oc, s->k, s->k, s->ic}, b_shape[1] = {s->oc};
  const int64_t o_shape[4] = {1, s->out(s->ih), s->out(s->iw), s->oc};
  const TensorRef I{C::kIn, in_shape, in.data()}, W{C::kWeight, w_shape, w.data()};
  const TensorRef B{C::kSum, b_shape, bias.data()}, O{C::kSum, o_shape, out.data()};
  TransposeConvAttr a;
  a.acc_type = C::kAcc;
  a.stride[0] = a.stride[1] = int(s->stride);
  for (int& p : a.out_pad) p = -int(s->pad);
  a.input_zp = std::is_same_v<T, int8_t> ? -3 : 0;
  std::vector<uint8_t> scratch(transpose_conv2d_scratch_bytes(I, W, B, a, O, 1));
  time_op(
      state, s->macs(), reference, [&] { detail::transpose_conv2d_reference(I, W, B, a, O); },
      [&] { return transpose_conv2d(I, W, B, a, O, nullptr, scratch); });
}

// CONV3D: a C3D block's 3x3x3 convolution, 8x28x28x64 → 64, padding 1 (int8: the int8 GEMM over
// gathered windows; int16 and fp32: CONV2D over depth-stacked channels).
template <typename T>
void bench_conv3d(benchmark::State& state, bool reference) {
  using C = ConvTypes<T>;
  const int64_t D = 8, H = 28, W = 28, Ch = 64, OC = 64;
  std::mt19937 rng(3);
  std::vector<T> in(size_t(D * H * W * Ch));
  std::vector<typename C::Weight> w(size_t(OC * 27 * Ch));
  for (auto& v : in) v = T(int(rng() % 200) - 100) / T(C::kFloat ? 64 : 1);
  for (auto& v : w) v = typename C::Weight(int(rng() % 200) - 100) / typename C::Weight(C::kFloat ? 64 : 1);
  std::vector<typename C::Sum> bias(size_t(OC), 5), out(size_t(D * H * W * OC));
  const int64_t in_shape[5] = {1, D, H, W, Ch}, w_shape[5] = {OC, 3, 3, 3, Ch}, b_shape[1] = {OC};
  const int64_t o_shape[5] = {1, D, H, W, OC};
  const TensorRef I{C::kIn, in_shape, in.data()}, Wt{C::kWeight, w_shape, w.data()};
  const TensorRef B{C::kSum, b_shape, bias.data()}, O{C::kSum, o_shape, out.data()};
  ConvAttr a;
  a.pad = {1, 1, 1, 1, 1, 1};
  a.acc_type = C::kAcc;
  a.input_zp = std::is_same_v<T, int8_t> ? -5 : 0;
  std::vector<uint8_t> scratch(conv3d_scratch_bytes(I, Wt, B, a, O, 1));
  time_op(
      state, double(D * H * W * OC * 27 * Ch), reference, [&] { detail::conv3d_reference(I, Wt, B, a, O); },
      [&] { return conv3d(I, Wt, B, a, O, nullptr, scratch); });
}

}  // namespace
}  // namespace vkrt::tosa

int main(int argc, char** argv) {
  using namespace vkrt::tosa;
  std::printf("gemm_ops_bench: CPU %s, ISA level %s (pin with VKRT_CPU_ISA)\n", vkrt::compute::cpu_model_name().c_str(),
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
  for (const TransposeShape& s : kTransposeShapes) {
    const std::string name = std::string("transpose_conv/") + s.name;
    benchmark::RegisterBenchmark(("int8/" + name + "/gemm").c_str(), bench_transpose<int8_t>, &s, false);
    benchmark::RegisterBenchmark(("int8/" + name + "/reference").c_str(), bench_transpose<int8_t>, &s, true);
    benchmark::RegisterBenchmark(("int16/" + name + "/gemm").c_str(), bench_transpose<int16_t>, &s, false);
    benchmark::RegisterBenchmark(("int16/" + name + "/reference").c_str(), bench_transpose<int16_t>, &s, true);
    benchmark::RegisterBenchmark(("fp32/" + name + "/gemm").c_str(), bench_transpose<float>, &s, false);
    benchmark::RegisterBenchmark(("fp32/" + name + "/reference").c_str(), bench_transpose<float>, &s, true);
  }
  const std::string c3d = "/conv3d/c3d_8x28x28x64_to_64_k3/";
  benchmark::RegisterBenchmark(("int8" + c3d + "gemm").c_str(), bench_conv3d<int8_t>, false);
  benchmark::RegisterBenchmark(("int8" + c3d + "reference").c_str(), bench_conv3d<int8_t>, true);
  benchmark::RegisterBenchmark(("int16" + c3d + "stacked").c_str(), bench_conv3d<int16_t>, false);
  benchmark::RegisterBenchmark(("int16" + c3d + "reference").c_str(), bench_conv3d<int16_t>, true);
  benchmark::RegisterBenchmark(("fp32" + c3d + "stacked").c_str(), bench_conv3d<float>, false);
  benchmark::RegisterBenchmark(("fp32" + c3d + "reference").c_str(), bench_conv3d<float>, true);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
