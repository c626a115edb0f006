// fp32 CONV2D and DEPTHWISE_CONV2D (tosa.md §6) fast paths; the reference loops (conv2d.cpp)
// sum each output in one scalar chain, which no compiler vectorises without reordering floats.
//
// CONV2D runs on the compute core's fp32 GEMM (compute/gemm_f32.h): one row of A per output
// pixel (its window, im2col; the input itself for a 1x1 window with stride 1 and no padding),
// B the weights as [KH·KW·IC][OC] (transposed from TOSA's [OC][KH][KW][IC], once at load where
// they are constants: conv2d_pack_weights), then the bias added to each sum. Padding taps are
// zeros in A, where the reference loops skip them: the same sum for finite weights (0·w = ±0
// adds nothing), NaN instead of the reference's finite value where a weight at a padding tap is
// infinite. The GEMM sums each output in one chain of fused multiply-adds in tap order, the
// reference with separate multiplies and adds: the two differ by float rounding only (the tests
// bound it as gemm_f32's tests do).
//
// Both can end with a CLAMP of their output (the chain the VGF CPU executor fuses), applied to
// each band of output pixels as it is finished, while it is in cache.
//
// DEPTHWISE_CONV2D accumulates each output pixel's channels side by side, tap after tap in the
// reference's order (padding taps skipped), so the channel loop vectorises at the ISA level's
// width; each output is the reference's sequence of float operations (this file is compiled
// without contracting a·b + c into fused multiply-adds).
#include <algorithm>
#include <array>
#include <cstring>

#include "compute/gemm_f32.h"
#include "compute/isa.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/kernel_util.h"

namespace vkrt::tosa::detail {
namespace {

struct Fp32Conv {
  int64_t N, IH, IW, IC, OH, OW, OC, KH, KW, taps;
  bool direct;  // 1x1 window, stride 1, no padding: A is the input as it is
};

Fp32Conv describe(const TensorRef& input, const TensorRef& weight, const TensorRef& output, const ConvAttr& a) {
  Fp32Conv c{input.dim(0), input.dim(1), input.dim(2), input.dim(3), output.dim(1), output.dim(2),
             weight.dim(0), weight.dim(1), weight.dim(2), 0, false};
  c.taps = c.KH * c.KW * c.IC;
  c.direct = c.KH == 1 && c.KW == 1 && a.stride[0] == 1 && a.stride[1] == 1 &&
             a.pad[0] == 0 && a.pad[1] == 0 && a.pad[2] == 0 && a.pad[3] == 0;
  return c;
}

bool fp32_operands(const TensorRef& input, const TensorRef& weight) {
  return input.dtype == DType::Fp32 && weight.dtype == DType::Fp32 && weight.rank() == 4;
}

size_t weights_bytes(const TensorRef& weight) { return size_t(weight.num_elements()) * sizeof(float); }

// TOSA's [OC][KH·KW·IC] into the GEMM's B, [KH·KW·IC][OC].
void transpose_weights(const TensorRef& weight, float* b) {
  const int64_t oc_count = weight.dim(0), taps = weight.dim(1) * weight.dim(2) * weight.dim(3);
  const float* w = weight.as<const float>();
  for (int64_t oc = 0; oc < oc_count; ++oc)
    for (int64_t t = 0; t < taps; ++t) b[t * oc_count + oc] = w[oc * taps + t];
}

// Fills the im2col rows of output pixels [first, first + count) (flattened over N, OH, OW).
void im2col(const Fp32Conv& c, const ConvAttr& a, const float* in, int64_t first, int64_t count, float* rows) {
  const int64_t kw_bytes = c.IC * int64_t(sizeof(float));
  for (int64_t r = 0; r < count; ++r) {
    const int64_t p = first + r, n = p / (c.OH * c.OW), oy = p / c.OW % c.OH, ox = p % c.OW;
    float* row = rows + r * c.taps;
    for (int64_t ky = 0; ky < c.KH; ++ky) {
      const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
      for (int64_t kx = 0; kx < c.KW; ++kx) {
        float* dst = row + (ky * c.KW + kx) * c.IC;
        const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
        if (y < 0 || y >= c.IH || x < 0 || x >= c.IW)
          std::memset(dst, 0, size_t(kw_bytes));
        else
          std::memcpy(dst, in + ((n * c.IH + y) * c.IW + x) * c.IC, size_t(kw_bytes));
      }
    }
  }
}

// Output pixels one GEMM call takes: about 256 KiB of A rows and C rows together, so that the
// epilogue finds the sums in cache; never fewer than 16 (a GEMM tile's rows).
int64_t band_pixels(const Fp32Conv& c) {
  const int64_t pixels = c.N * c.OH * c.OW;
  return std::min(pixels, std::max<int64_t>(16, (int64_t(256) << 10) / ((c.taps + c.OC) * 4)));
}

size_t im2col_bytes(const Fp32Conv& c) { return c.direct ? 0 : size_t(band_pixels(c) * c.taps) * sizeof(float); }

// What follows the sums, on finished rows of output pixels: the bias, then the CLAMP the VGF CPU
// executor fused into the convolution (conv2d_clamp), if any, while the rows are in cache.
struct Epilogue {
  const float* bias;
  bool per_channel;
  const ClampAttr* clamp;

  void add_bias(float* rows, int64_t pixels, int64_t channels) const {
    for (int64_t p = 0; p < pixels; ++p, rows += channels) {
      if (per_channel)
        for (int64_t c = 0; c < channels; ++c) rows[c] += bias[c];
      else
        for (int64_t c = 0; c < channels; ++c) rows[c] += bias[0];
    }
  }
  void apply_clamp(float* values, int64_t count) const {
    if (clamp == nullptr) return;
    const float lo = float(clamp->min_fp), hi = float(clamp->max_fp);
    if (clamp->nan_mode == NanMode::Ignore)
      for (int64_t i = 0; i < count; ++i) values[i] = clamp_f32(values[i], lo, hi, true);
    else
      for (int64_t i = 0; i < count; ++i) values[i] = clamp_f32(values[i], lo, hi, false);
  }
};

// One output pixel of a depthwise convolution with one output per channel (M = 1, every
// MobileNet): block by block of channels, the sums over the pixel's `taps` (input pixel, weights
// of the tap; padding taps left out, in the reference's order) stay in registers, then the bias
// is added. The body is compiled once per ISA level below, at that level's vector width.
struct DepthwiseTap {
  const float* input;
  const float* weights;
};

// The sums of channels [c0, c0 + kLanes·kVectors) in kVectors vector registers of kLanes floats
// (GCC vector types: the width the function's ISA level has; loops over the registers fully
// unrolled, so that GCC keeps them in registers rather than in a stack array).
template <int kLanes, int kVectors>
[[gnu::always_inline]] inline void depthwise_block(const DepthwiseTap* taps, int64_t tap_count, int64_t c0,
                                                   const float* bias, bool per_channel, float* out) {
  typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
  Vec acc[kVectors];
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) acc[v] = Vec{};
  for (int64_t t = 0; t < tap_count; ++t) {
    #pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      Vec i, k;
      std::memcpy(&i, taps[t].input + c0 + v * kLanes, sizeof(Vec));
      std::memcpy(&k, taps[t].weights + c0 + v * kLanes, sizeof(Vec));
      acc[v] += i * k;
    }
  }
  #pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    Vec b;
    if (per_channel)
      std::memcpy(&b, bias + c0 + v * kLanes, sizeof(Vec));
    else
      b = Vec{} + bias[0];
    acc[v] += b;
    std::memcpy(out + c0 + v * kLanes, &acc[v], sizeof(Vec));
  }
}

// kLanes·4 channels at a time, then kLanes, then one (the sums of one channel in a float).
template <int kLanes>
[[gnu::always_inline]] inline void depthwise_pixel_body(const DepthwiseTap* taps, int64_t tap_count, int64_t C,
                                                       const float* bias, bool per_channel, float* out) {
  int64_t c0 = 0;
  for (; c0 + 4 * kLanes <= C; c0 += 4 * kLanes)
    depthwise_block<kLanes, 4>(taps, tap_count, c0, bias, per_channel, out);
  for (; c0 + kLanes <= C; c0 += kLanes) depthwise_block<kLanes, 1>(taps, tap_count, c0, bias, per_channel, out);
  for (; c0 < C; ++c0) {
    float acc = 0;
    for (int64_t t = 0; t < tap_count; ++t) acc += taps[t].input[c0] * taps[t].weights[c0];
    out[c0] = acc + bias[per_channel ? c0 : 0];
  }
}

using DepthwisePixel = void (*)(const DepthwiseTap*, int64_t, int64_t, const float*, bool, float*);

void depthwise_pixel_baseline(const DepthwiseTap* taps, int64_t n, int64_t C, const float* b, bool pc, float* o) {
  depthwise_pixel_body<4>(taps, n, C, b, pc, o);
}

#if defined(__x86_64__)
// The file is compiled with -ffp-contract=off: no level fuses a multiply into an add.
__attribute__((target("avx2"))) void depthwise_pixel_avx2(const DepthwiseTap* taps, int64_t n, int64_t C,
                                                          const float* b, bool pc, float* o) {
  depthwise_pixel_body<8>(taps, n, C, b, pc, o);
}
__attribute__((target("avx512f"))) void depthwise_pixel_avx512(const DepthwiseTap* taps, int64_t n, int64_t C,
                                                              const float* b, bool pc, float* o) {
  depthwise_pixel_body<16>(taps, n, C, b, pc, o);
}
#endif

DepthwisePixel depthwise_pixel_for_isa() {
#if defined(__x86_64__)
  if (compute::has(compute::Isa::Avx512bw)) return depthwise_pixel_avx512;
  if (compute::has(compute::Isa::Avx2)) return depthwise_pixel_avx2;
#endif
  return depthwise_pixel_baseline;
}

}  // namespace

size_t conv2d_fp32_packed_weights_bytes(const TensorRef& weight) {
  return weight.dtype == DType::Fp32 && weight.rank() == 4 ? weights_bytes(weight) : 0;
}

const void* conv2d_fp32_pack_weights(const TensorRef& weight, std::span<uint8_t> memory) {
  const size_t bytes = conv2d_fp32_packed_weights_bytes(weight);
  if (bytes == 0 || memory.size() < bytes) return nullptr;
  transpose_weights(weight, reinterpret_cast<float*>(memory.data()));
  return memory.data();
}

// Threads split the bands between them, each with its own im2col rows, where there are several
// bands; a convolution of one band (a 7x7 layer) gives the threads to the GEMM instead.
int band_workers(const Fp32Conv& c, int threads) {
  const int64_t bands = (c.N * c.OH * c.OW + band_pixels(c) - 1) / band_pixels(c);
  return int(std::max<int64_t>(1, std::min<int64_t>(threads, bands)));
}

size_t conv2d_fp32_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& output,
                                 const ConvAttr& attrs, int threads, const void* packed_weights) {
  const Fp32Conv c = describe(input, weight, output, attrs);
  // Aligned to 64 bytes after the weights, and at least one byte: 0 means "no fast path".
  const size_t b = packed_weights ? 0 : (weights_bytes(weight) + 63) / 64 * 64;
  return std::max<size_t>(1, b + im2col_bytes(c) * size_t(band_workers(c, threads)));
}

bool conv2d_fp32_gemm(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& output, ParallelRunner* runner, const ConvResources& resources,
                      const ClampAttr* clamp, Try mode) {
  if (!fp32_operands(input, weight)) return false;
  if (mode == Try::Probe) return true;
  const int threads = threads_of(runner);
  if (resources.scratch.size() <
      conv2d_fp32_scratch_bytes(input, weight, output, attrs, threads, resources.packed_weights))
    return false;
  const Fp32Conv c = describe(input, weight, output, attrs);
  uint8_t* scratch = resources.scratch.data();
  const float* b = static_cast<const float*>(resources.packed_weights);
  if (b == nullptr) {
    transpose_weights(weight, reinterpret_cast<float*>(scratch));
    b = reinterpret_cast<const float*>(scratch);
    scratch += (weights_bytes(weight) + 63) / 64 * 64;
  }
  const float* in = input.as<const float>();
  float* out = output.as<float>();
  const Epilogue epilogue{bias.as<const float>(), bias.dim(0) == c.OC, clamp};
  const int64_t pixels = c.N * c.OH * c.OW, band = band_pixels(c);
  const int64_t bands = (pixels + band - 1) / band;
  // Band `index` of output pixels: its GEMM, then the epilogue while the sums are in cache.
  auto run_band = [&](int64_t index, float* rows, const compute::Exec& exec) {
    compute::GemmF32 g;
    const int64_t first = index * band;
    g.m = std::min(band, pixels - first), g.n = c.OC, g.k = c.taps;
    if (c.direct) {
      g.a = in + first * c.IC;
    } else {
      im2col(c, attrs, in, first, g.m, rows);
      g.a = rows;
    }
    g.lda = c.taps, g.b = b, g.ldb = c.OC, g.c = out + first * c.OC, g.ldc = c.OC;
    compute::gemm_f32(g, exec);
    // The bias last, as the reference loops add it to the finished sum; then the CLAMP.
    epilogue.add_bias(g.c, g.m, c.OC);
    epilogue.apply_clamp(g.c, g.m * c.OC);
  };
  float* rows = reinterpret_cast<float*>(scratch);
  const int workers = band_workers(c, threads);
  if (workers <= 1) {
    const compute::Exec exec{{}, runner};
    for (int64_t i = 0; i < bands; ++i) run_band(i, rows, exec);
    return true;
  }
  const int64_t rows_per_worker = int64_t(im2col_bytes(c) / sizeof(float));
  return run_bands(workers, bands, runner, [&](int worker, int64_t band_index) {
    run_band(band_index, rows + worker * rows_per_worker, compute::Exec{});
    return Status::ok();
  });
}

bool depthwise_conv2d_fp32(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                           const ConvAttr& a, const TensorRef& output, ParallelRunner* runner,
                           const ClampAttr* clamp, Try mode) {
  if (!fp32_operands(input, weight)) return false;
  if (mode == Try::Probe) return true;
  const float* in = input.as<const float>();
  const float* w = weight.as<const float>();
  const float* bias_data = bias.as<const float>();
  float* out = output.as<float>();
  const int64_t N = input.dim(0), IH = input.dim(1), IW = input.dim(2), C = input.dim(3);
  const int64_t KH = weight.dim(0), KW = weight.dim(1), M = weight.dim(3);
  const int64_t OH = output.dim(1), OW = output.dim(2), OC = C * M;
  const bool per_channel = bias.dim(0) == OC;
  const Epilogue epilogue{bias_data, per_channel, clamp};
  // One band of output rows per thread. With one output per channel (M = 1) and a window of at
  // most tap_capacity taps, depthwise_pixel for the ISA level; otherwise each pixel's sums build
  // up in the output itself.
  const DepthwisePixel pixel = depthwise_pixel_for_isa();
  constexpr int64_t tap_capacity = 64;
  split_over_threads(runner, N * OH, double(N * OH * OW * OC * KH * KW), kParallelMinMacs,
                     [&](int64_t r0, int64_t r1) {
    std::array<DepthwiseTap, tap_capacity> taps;
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / OH, oy = r % OH;
      for (int64_t ox = 0; ox < OW; ++ox) {
        float* o = out + (r * OW + ox) * OC;
        // Calls tap(input pixel, weights of the tap) for each tap inside the input, in order.
        auto for_each_tap = [&](const auto& tap) {
          for (int64_t ky = 0; ky < KH; ++ky) {
            const int64_t y = oy * a.stride[0] - a.pad[0] + ky * a.dilation[0];
            if (y < 0 || y >= IH) continue;  // padding taps contribute nothing, as in the reference
            for (int64_t kx = 0; kx < KW; ++kx) {
              const int64_t x = ox * a.stride[1] - a.pad[2] + kx * a.dilation[1];
              if (x < 0 || x >= IW) continue;
              tap(in + ((n * IH + y) * IW + x) * C, w + (ky * KW + kx) * OC);
            }
          }
        };
        if (M == 1 && tap_capacity >= KH * KW) {
          int64_t tap_count = 0;
          for_each_tap([&](const float* i, const float* k) { taps[tap_count++] = {i, k}; });
          pixel(taps.data(), tap_count, C, bias_data, per_channel, o);
        } else {
          std::fill(o, o + OC, 0.0f);
          for_each_tap([&](const float* i, const float* k) {
            for (int64_t ch = 0; ch < C; ++ch)
              for (int64_t m = 0; m < M; ++m) o[ch * M + m] += i[ch] * k[ch * M + m];
          });
          epilogue.add_bias(o, 1, OC);
        }
      }
      epilogue.apply_clamp(out + r * OW * OC, OW * OC);  // the row just written, in cache
    }
  });
  return true;
}

}  // namespace vkrt::tosa::detail
