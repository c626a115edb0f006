// int8 CONV2D (tosa.md §6) on the compute core's GEMM (cpu_fallback/compute/gemm_s8.h): one
// row of A per output pixel (its window, im2col), one row of B per output channel (the weights
// as they are laid out, [OC][KH·KW·IC]), and C the int32 accumulators:
//   out[p][oc] = bias[oc] + Σ_t (x[p][t] − input_zp)·(w[oc][t] − weight_zp)   (mod 2^32)
// with a_offset = −input_zp and b_offset = −weight_zp. Padding taps are filled with input_zp,
// so that they contribute exactly 0, as the reference loops skip them. All sums wrap modulo
// 2^32 on every ISA path, as the reference loops' do, so the result is the same at any size.
//
// Memory: the GEMM's scratch comes from the caller (ConvResources::scratch, sized by
// conv2d_scratch_bytes), and weights that are constants can be packed once ahead
// (conv2d_pack_weights). Without enough scratch the caller runs the reference loops.
//
// conv2d_rescale (CONV2D → RESCALE → CLAMP, fused by the VGF CPU executor) runs the same GEMM
// with the requantize as its output stage where the RESCALE is that (ConvRequantize): int8
// straight from the accumulators. Other RESCALEs run in bands of output pixels, each worker with
// its own band of int32 sums in scratch, rescaled (and clamped) while in cache. Either way the
// int32 tensor is never written.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "compute/exec.h"
#include "compute/gemm_s8.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/rescale_rows.h"
#include "vkrt/kernel.h"

namespace vkrt::tosa::detail {
namespace {

// The operands as the im2col callback reads them.
struct Im2col {
  const int8_t* input;
  int64_t IH, IW, IC, OH, OW, KH, KW;
  const ConvAttr* a;
  int8_t pad_byte;  // input_zp: (x − input_zp) = 0 at padding taps
};

// Row r of A: output pixel (n, oy, ox)'s window, tap t = (ky·KW + kx)·IC + c. A window of one
// kernel row that lies wholly inside the input is read in place; others are gathered into tmp,
// a kernel row at a time where its columns are one run of the input row.
const int8_t* window_row(const void* ctx, int64_t r, int8_t* tmp) {
  const Im2col& m = *static_cast<const Im2col*>(ctx);
  const ConvAttr& a = *m.a;
  const int64_t n = r / (m.OH * m.OW), oy = r / m.OW % m.OH, ox = r % m.OW;
  const int64_t y0 = oy * a.stride[0] - a.pad[0], x0 = ox * a.stride[1] - a.pad[2];
  const int64_t x_last = x0 + (m.KW - 1) * a.dilation[1];
  if (m.KH == 1 && (m.KW == 1 || a.dilation[1] == 1) && y0 >= 0 && y0 < m.IH && x0 >= 0 && x_last < m.IW)
    return m.input + ((n * m.IH + y0) * m.IW + x0) * m.IC;
  int8_t* dst = tmp;
  const bool columns_contiguous = (m.KW == 1 || a.dilation[1] == 1) && x0 >= 0 && x_last < m.IW;
  const size_t kernel_row_bytes = size_t(m.KW * m.IC);
  for (int64_t ky = 0; ky < m.KH; ++ky) {
    const int64_t y = y0 + ky * a.dilation[0];
    if (y < 0 || y >= m.IH) {  // a whole kernel row of padding
      std::memset(dst, m.pad_byte, kernel_row_bytes);
      dst += kernel_row_bytes;
      continue;
    }
    if (columns_contiguous) {  // the kernel row's taps are one run of the input row
      std::memcpy(dst, m.input + ((n * m.IH + y) * m.IW + x0) * m.IC, kernel_row_bytes);
      dst += kernel_row_bytes;
      continue;
    }
    for (int64_t kx = 0; kx < m.KW; ++kx, dst += m.IC) {
      const int64_t x = x0 + kx * a.dilation[1];
      if (x < 0 || x >= m.IW)
        std::memset(dst, m.pad_byte, size_t(m.IC));
      else
        std::memcpy(dst, m.input + ((n * m.IH + y) * m.IW + x) * m.IC, size_t(m.IC));
    }
  }
  return tmp;
}

// The product for these operands (`im2col` must outlive it). Where the bias is one value for
// every channel, the GEMM runs without it and conv2d_int8_gemm adds it afterwards.
compute::GemmS8 conv_gemm(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                          const TensorRef& output, Im2col* im2col) {
  const int64_t OC = weight.dim(0), KH = weight.dim(1), KW = weight.dim(2), IC = weight.dim(3);
  *im2col = Im2col{input.as<const int8_t>(), input.dim(1), input.dim(2), IC, output.dim(1), output.dim(2), KH, KW, &a,
                   int8_t(a.input_zp)};
  compute::GemmS8 g;
  g.m = output.dim(0) * output.dim(1) * output.dim(2);
  g.n = int32_t(OC);
  g.k = int32_t(KH * KW * IC);
  const bool pointwise = KH == 1 && KW == 1 && a.stride[0] == 1 && a.stride[1] == 1 && a.pad[0] == 0 &&
                         a.pad[1] == 0 && a.pad[2] == 0 && a.pad[3] == 0;
  if (pointwise) {  // every row of A is an input pixel
    g.a = im2col->input;
    g.a_stride = IC;
  } else {
    g.a_row = window_row;
    g.a_ctx = im2col;
  }
  g.b = weight.as<const int8_t>();
  g.b_stride = g.k;
  g.bias = bias.dim(0) == OC ? bias.as<const int32_t>() : nullptr;
  g.a_offset = int32_t(-a.input_zp);
  g.b_offset = int32_t(-a.weight_zp);
  g.out.per_channel = true;  // no output stage: C is int32
  g.c32 = output.as<int32_t>();
  g.c_stride = OC;
  return g;
}

// g with the requantize as its output stage, writing int8 `output` in place of the int32 sums.
compute::GemmS8 with_requantize(compute::GemmS8 g, const ConvRequantize& rq, int8_t* output) {
  g.out = compute::RequantizeRow{rq.multiplier.data(), rq.shift.data(), rq.per_channel, rq.output_offset,
                                 rq.act_min, rq.act_max, rq.single_round};
  g.c32 = nullptr;
  g.c = output;
  return g;
}

// Whether rq is the output stage of a convolution with these weights and bias: one multiplier
// per output channel (or one for all), and a bias per channel (a broadcast one is added to the
// int32 sums, which this form never has).
bool requantize_fits(const ConvRequantize& rq, const TensorRef& weight, const TensorRef& bias) {
  const size_t channels = size_t(weight.dim(0));
  return bias.dim(0) == weight.dim(0) && rq.multiplier.size() == (rq.per_channel ? channels : 1) &&
         rq.shift.size() == rq.multiplier.size();
}

// The GEMM's sizes are int32 (n, k) and its rows int64; these shapes are far below.
bool gemm_applies(const TensorRef& input, const TensorRef& weight) {
  const int64_t k = weight.dim(1) * weight.dim(2) * weight.dim(3);
  return input.dtype == DType::Int8 && k > 0 && k <= INT32_MAX / 2 && weight.dim(0) <= INT32_MAX;
}

// The product of the weights alone (what packing reads): a one-pixel input and output stand in
// for the activations.
// With rq (that requantize_fits), the product with its output stage.
struct WeightsOnly {
  int64_t in_shape[4], out_shape[4];
  Im2col im2col;
  compute::GemmS8 g;
  WeightsOnly(const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs, const ConvRequantize* rq)
      : in_shape{1, weight.dim(1), weight.dim(2), weight.dim(3)}, out_shape{1, 1, 1, weight.dim(0)} {
    g = conv_gemm(TensorRef{DType::Int8, in_shape, nullptr}, weight, bias, attrs,
                  TensorRef{DType::Int32, out_shape, nullptr}, &im2col);
    if (rq) g = with_requantize(g, *rq, nullptr);
  }
};

// Rows [first, first + m) of a convolution's A: the band's row r is the image's row first + r.
struct BandRows {
  const Im2col* im2col;
  int64_t first;
};
const int8_t* band_window_row(const void* ctx, int64_t r, int8_t* tmp) {
  const BandRows& b = *static_cast<const BandRows*>(ctx);
  return window_row(b.im2col, b.first + r, tmp);
}

// The fused kernel's work: bands of `band` output pixels over `workers` workers, each with
// `worker_bytes` of scratch (its int32 sums, then its GEMM scratch), after `packed_bytes` of B
// packed once per call when the caller has not packed it ahead.
struct FusedBands {
  compute::GemmS8 g;  // the whole product; a band's is g with m = band rows from `first`
  Im2col im2col;
  int64_t band = 0, bands = 0;
  int workers = 1;
  size_t packed_bytes = 0, rescale_bytes = 0, sums_bytes = 0, worker_bytes = 0;

  size_t scratch_bytes() const { return packed_bytes + rescale_bytes + size_t(workers) * worker_bytes; }
};

// About 64 KiB of int32 sums per band (L2-resident while it is rescaled), 16 to 1024 pixels.
int64_t band_pixels(int64_t channels) {
  return std::clamp<int64_t>((int64_t(64) << 10) / (4 * std::max<int64_t>(channels, 1)), 16, 1024) / 16 * 16;
}

FusedBands fused_bands(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                       const TensorRef& sums, int threads, const void* packed_weights) {
  FusedBands f;
  f.g = conv_gemm(input, weight, bias, attrs, sums, &f.im2col);
  f.g.packed_b = static_cast<const compute::GemmS8PackedB*>(packed_weights);
  f.band = std::min<int64_t>(band_pixels(f.g.n), std::max<int64_t>(f.g.m, 1));
  if (threads > 1) {
    // Several bands per worker, whole 8-row GEMM tiles, so that the workers claiming them come
    // out even: by cache size alone a 7x7 layer (49 rows) of 1280 channels is bands of 16, 16,
    // 16 and 1 (two workers: 32 rows against 17), and one of 64 channels a single band.
    constexpr int64_t kBandsPerWorker = 4, kTileRows = 8;
    const int64_t even = (f.g.m + kBandsPerWorker * threads - 1) / (kBandsPerWorker * threads);
    f.band = std::min(f.band, std::max(kTileRows, (even + kTileRows - 1) / kTileRows * kTileRows));
  }
  f.bands = (f.g.m + f.band - 1) / f.band;
  f.workers = int(std::clamp<int64_t>(f.bands, 1, std::max(threads, 1)));
  // A per-call packing of B for every band would cost more than the fusion saves: pack once.
  if (packed_weights == nullptr) f.packed_bytes = compute::align_up(compute::gemm_s8_packed_b_bytes(f.g));
  compute::GemmS8 one_band = f.g;  // sized with the caller's packed B; without one, generously
  one_band.m = f.band;
  f.rescale_bytes = compute::align_up(rescale_rows_bytes(f.g.n));
  f.sums_bytes = compute::align_up(size_t(f.band) * size_t(f.g.n) * sizeof(int32_t));
  f.worker_bytes = f.sums_bytes + compute::align_up(compute::gemm_s8_scratch_bytes(one_band, 1));
  return f;
}

}  // namespace

bool conv2d_int8_gemm(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& output, ParallelRunner* runner, const ConvResources& resources) {
  if (!gemm_applies(input, weight)) return false;
  Im2col im2col;
  compute::GemmS8 g = conv_gemm(input, weight, bias, attrs, output, &im2col);
  g.packed_b = static_cast<const compute::GemmS8PackedB*>(resources.packed_weights);
  const compute::Exec exec{resources.scratch, runner};
  // The scratch the fast path wants for these threads; the minimum (one row) runs the portable loop.
  if (resources.scratch.size() < compute::gemm_s8_scratch_bytes(g, exec.num_threads())) return false;
  compute::gemm_s8(g, exec);
  if (g.bias == nullptr && bias.dim(0) == 1) add_broadcast_bias(bias, output);
  return true;
}

// The chain as one GEMM with the requantize as its output stage (see the file comment), when
// resources.requantize was derived from these RESCALE and CLAMP attributes; false, writing
// nothing, where it was not, where the GEMM does not apply or the scratch is short.
bool conv2d_requantize_int8(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                            const ClampAttr* clamp_attrs, const TensorRef& output, ParallelRunner* runner,
                            const ConvResources& resources, Try mode) {
  const ConvRequantize* rq = resources.requantize;
  if (rq == nullptr || rq->rescale != &rescale_attrs || rq->clamp != clamp_attrs || output.dtype != DType::Int8 ||
      !gemm_applies(input, weight) || !requantize_fits(*rq, weight, bias))
    return false;
  if (mode == Try::Probe) return true;
  Im2col im2col;
  compute::GemmS8 g = with_requantize(conv_gemm(input, weight, bias, attrs, sums, &im2col), *rq, output.as<int8_t>());
  g.packed_b = static_cast<const compute::GemmS8PackedB*>(resources.packed_weights);
  const compute::Exec exec{resources.scratch, runner};
  if (resources.scratch.size() < compute::gemm_s8_scratch_bytes(g, exec.num_threads())) return false;
  compute::gemm_s8(g, exec);
  return true;
}

// The fused bands (see the file comment): false, writing nothing, where the GEMM does not apply
// or the scratch is short.
bool conv2d_rescale_int8_bands(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                               const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                               const ClampAttr* clamp_attrs, const TensorRef& output, ParallelRunner* runner,
                               const ConvResources& resources, Try mode) {
  if (!gemm_applies(input, weight)) return false;
  if (mode == Try::Probe) return true;
  const int threads = threads_of(runner);
  FusedBands f = fused_bands(input, weight, bias, attrs, sums, threads, resources.packed_weights);
  if (resources.scratch.size() < f.scratch_bytes() + 64) return false;
  uint8_t* base = reinterpret_cast<uint8_t*>(compute::align_up(reinterpret_cast<uintptr_t>(resources.scratch.data())));
  if (f.packed_bytes > 0) f.g.packed_b = compute::gemm_s8_pack_b(f.g, std::span(base, f.packed_bytes));
  const int64_t channels = f.g.n;
  const size_t out_element = dtype_size(output.dtype);
  const bool broadcast_bias = f.g.bias == nullptr && bias.dim(0) == 1;
  // The epilogue's constants, filled once here and read by every worker.
  const RescaleRows epilogue(rescale_attrs, output.dtype, clamp_attrs, channels,
                             std::span(base + f.packed_bytes, f.rescale_bytes));
  return run_bands(f.workers, f.bands, runner, [&](int worker, int64_t b) {
    uint8_t* mine = base + f.packed_bytes + f.rescale_bytes + size_t(worker) * f.worker_bytes;
    int32_t* band_sums = reinterpret_cast<int32_t*>(mine);
    compute::Exec exec;  // one thread per band: the bands are the parallelism
    exec.scratch = std::span(mine + f.sums_bytes, f.worker_bytes - f.sums_bytes);
    const int64_t first = b * f.band, rows = std::min(f.band, f.g.m - first);
    compute::GemmS8 g = f.g;
    BandRows band_rows{&f.im2col, first};
    g.m = rows;
    if (g.a_row) g.a_ctx = &band_rows, g.a_row = band_window_row;
    else g.a += first * g.a_stride;
    g.c32 = band_sums;
    compute::gemm_s8(g, exec);
    const int64_t band_shape[2] = {rows, channels};
    const TensorRef band_in{DType::Int32, band_shape, band_sums};
    if (broadcast_bias) add_broadcast_bias(bias, band_in);
    const TensorRef band_out{output.dtype, band_shape, output.as<uint8_t>() + size_t(first * channels) * out_element};
    return epilogue.run(band_in, band_out);
  });
}

}  // namespace vkrt::tosa::detail

namespace vkrt::tosa {

using namespace detail;

size_t conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, int threads, const void* packed_weights) {
  // Operands the kernel would refuse need nothing (and their sizes may not even be consistent).
  if (!check_conv2d(input, weight, bias, attrs, output).is_ok()) return 0;
  if (input.dtype == DType::Fp32) return conv2d_fp32_scratch_bytes(input, weight, output, attrs, threads, packed_weights);
  if (input.dtype == DType::Int16) return conv2d_int16_scratch_bytes(input, weight, attrs, output, threads, packed_weights);
  if (!gemm_applies(input, weight)) return 0;
  Im2col im2col;
  compute::GemmS8 g = conv_gemm(input, weight, bias, attrs, output, &im2col);
  g.packed_b = static_cast<const compute::GemmS8PackedB*>(packed_weights);
  return compute::gemm_s8_scratch_bytes(g, threads);
}

size_t conv2d_packed_weights_bytes(const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                                   const ConvRequantize* requantize) {
  if (weight.dtype == DType::Fp32) return conv2d_fp32_packed_weights_bytes(weight);
  if (attrs.acc_type == AccType::Int48) return conv2d_int16_packed_weights_bytes(weight);  // int16 activations
  if (weight.dtype != DType::Int8 || weight.rank() != 4 || bias.rank() != 1 ||
      !gemm_applies(TensorRef{DType::Int8, {}, nullptr}, weight) ||
      (requantize && !requantize_fits(*requantize, weight, bias)))
    return 0;
  return compute::gemm_s8_packed_b_bytes(WeightsOnly(weight, bias, attrs, requantize).g);
}

const void* conv2d_pack_weights(const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                                std::span<uint8_t> memory, const ConvRequantize* requantize) {
  if (weight.dtype == DType::Fp32) return conv2d_fp32_pack_weights(weight, memory);
  if (attrs.acc_type == AccType::Int48) return conv2d_int16_pack_weights(weight, attrs, memory);
  if (conv2d_packed_weights_bytes(weight, bias, attrs, requantize) == 0) return nullptr;
  return compute::gemm_s8_pack_b(WeightsOnly(weight, bias, attrs, requantize).g, memory);
}

size_t conv2d_rescale_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                   const ConvAttr& attrs, const TensorRef& unbound_sums, int threads,
                                   const void* packed_weights, const ConvRequantize* requantize) {
  const TensorRef sums = chain_intermediate_for_checks(unbound_sums);  // may come without bytes
  // The bands are int8's; other types run CONV2D then RESCALE, CONV2D with its own scratch (int16).
  if (input.dtype != DType::Int8) return conv2d_scratch_bytes(input, weight, bias, attrs, sums, threads, packed_weights);
  const size_t unfused = conv2d_scratch_bytes(input, weight, bias, attrs, sums, threads, packed_weights);
  if (unfused == 0) return 0;  // not the int8 GEMM, or operands conv2d refuses
  if (requantize && requantize_fits(*requantize, weight, bias)) {  // one GEMM, its output int8
    Im2col im2col;
    compute::GemmS8 g = with_requantize(conv_gemm(input, weight, bias, attrs, sums, &im2col), *requantize, nullptr);
    g.packed_b = static_cast<const compute::GemmS8PackedB*>(packed_weights);
    return compute::gemm_s8_scratch_bytes(g, threads);
  }
  return std::max(unfused, fused_bands(input, weight, bias, attrs, sums, threads, packed_weights).scratch_bytes() + 64);
}

namespace {
constexpr const char* kRescaleChain = "CONV2D → RESCALE";

// Each op of the chain checked as alone, its intermediates stood in for where they have no bytes.
Status check_rescale_chain(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                           const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                           const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped) {
  const TensorRef checked_sums = chain_intermediate_for_checks(sums);
  VKRT_RETURN_IF_ERROR(check_conv2d(input, weight, bias, attrs, checked_sums));
  if (!clamp_attrs) return check_rescale(checked_sums, rescale_attrs, rescaled);
  const TensorRef checked_rescaled = chain_intermediate_for_checks(rescaled);
  VKRT_RETURN_IF_ERROR(check_rescale(checked_sums, rescale_attrs, checked_rescaled));
  return check_clamp(checked_rescaled, *clamp_attrs, clamped);
}

// The chain's fused forms, in order of preference (see conv2d_rescale).
bool rescale_chain_fused(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                         const TensorRef& sums, const RescaleAttr& rescale_attrs, const ClampAttr* clamp_attrs,
                         const TensorRef& output, ParallelRunner* runner, const ConvResources& resources, Try mode) {
  return conv2d_requantize_int8(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner, resources,
                                mode) ||
         conv2d_rescale_int8_bands(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner,
                                   resources, mode) ||
         conv2d_int16_rescale(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner, resources,
                              mode);
}
}  // namespace

bool conv2d_rescale_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                          const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                          const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                          const ConvResources& resources) {
  return check_rescale_chain(input, weight, bias, attrs, sums, rescale_attrs, rescaled, clamp_attrs, clamped).is_ok() &&
         rescale_chain_fused(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs,
                             clamp_attrs ? clamped : rescaled, nullptr, resources, Try::Probe);
}

Status conv2d_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& sums, const RescaleAttr& rescale_attrs, const TensorRef& rescaled,
                      const ClampAttr* clamp_attrs, const TensorRef& clamped, ParallelRunner* runner,
                      const ConvResources& resources) {
  VKRT_RETURN_IF_ERROR(
      check_rescale_chain(input, weight, bias, attrs, sums, rescale_attrs, rescaled, clamp_attrs, clamped));
  const TensorRef& output = clamp_attrs ? clamped : rescaled;
  if (rescale_chain_fused(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner, resources,
                          Try::Run))
    return Status::ok();
  VKRT_RETURN_IF_ERROR(chain_intermediate_has_bytes(kRescaleChain, "sums", sums));
  if (clamp_attrs) VKRT_RETURN_IF_ERROR(chain_intermediate_has_bytes(kRescaleChain, "rescaled", rescaled));
  VKRT_RETURN_IF_ERROR(conv2d(input, weight, bias, attrs, sums, runner, resources));
  VKRT_RETURN_IF_ERROR(rescale(sums, rescale_attrs, rescaled, runner));
  return clamp_attrs ? clamp(rescaled, *clamp_attrs, clamped) : Status::ok();
}

}  // namespace vkrt::tosa
