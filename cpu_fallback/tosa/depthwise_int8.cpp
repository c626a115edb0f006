// int8 DEPTHWISE_CONV2D (tosa.md §6) on the compute core's depthwise engine
// (compute/depthwise_s8.h), int32 sums out:
//
//   out[n,oy,ox,c·M+m] = bias + Σ_{ky,kx} (in[n,iy,ix,c] − input_zp)·(w[ky,kx,c,m] − weight_zp)
//
// The engine's weights [kh][kw][out_ch] are TOSA's [KH,KW,C,M] as they lie, its input_offset is
// −input_zp, and padding taps (skipped by the engine) are the reference's zero terms. A
// weight_zp other than 0 keeps the reference loops: the engine has no weight offset.
//
// depthwise_conv2d_rescale (DEPTHWISE_CONV2D → RESCALE → CLAMP, fused by the VGF CPU executor)
// runs the engine with its int8 output stage where the RESCALE is the CMSIS requantize
// (ConvRequantize), as the cortex_m depthwise does; other RESCALEs in bands of output rows, each
// worker with its own band of int32 sums in scratch, rescaled (and clamped) while in cache.
// Either way the int32 tensor is never written.
#include <algorithm>
#include <vector>

#include "compute/depthwise_s8.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/rescale_rows.h"

namespace vkrt::tosa::detail {
namespace {

// The engine's parameters (int32 sizes), or false where the shapes or zero points do not fit it.
bool engine_params(const TensorRef& input, const TensorRef& weight, const ConvAttr& a, const TensorRef& output,
                   compute::DepthwiseS8Params* p) {
  if (input.dtype != DType::Int8 || a.weight_zp != 0) return false;
  for (const TensorRef* t : {&input, &weight, &output})
    for (int64_t d : t->shape)
      if (d > INT32_MAX) return false;
  if (output.dim(3) > INT32_MAX) return false;
  p->batches = int32_t(input.dim(0)), p->in_h = int32_t(input.dim(1)), p->in_w = int32_t(input.dim(2));
  p->in_ch = int32_t(input.dim(3)), p->ch_mult = int32_t(weight.dim(3));
  p->out_h = int32_t(output.dim(1)), p->out_w = int32_t(output.dim(2));
  p->kernel_h = int32_t(weight.dim(0)), p->kernel_w = int32_t(weight.dim(1));
  // Attributes are bounded by kMaxWindowParam (check_window_attrs).
  p->stride_h = int32_t(a.stride[0]), p->stride_w = int32_t(a.stride[1]);
  p->dilation_h = int32_t(a.dilation[0]), p->dilation_w = int32_t(a.dilation[1]);
  p->pad_h = int32_t(a.pad[0]), p->pad_w = int32_t(a.pad[2]);  // top, left; bottom and right follow from out_h/w
  p->input_offset = int32_t(-a.input_zp);
  return true;
}

}  // namespace

bool depthwise_conv2d_int8_engine(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                  const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
                                  std::span<uint8_t> scratch) {
  compute::DepthwiseS8Params p;
  if (!engine_params(input, weight, attrs, output, &p)) return false;
  const bool bias_per_channel = bias.dim(0) == output.dim(3);
  compute::DepthwiseS8Output to;
  to.s32 = output.as<int32_t>();
  const compute::Exec exec{scratch, runner};
  compute::depthwise_s8(p, input.as<const int8_t>(), weight.as<const int8_t>(),
                        bias_per_channel ? bias.as<const int32_t>() : nullptr, to, exec);
  if (!bias_per_channel) add_broadcast_bias(bias, output);
  return true;
}

compute::DepthwiseS8Params with_output_stage(compute::DepthwiseS8Params p, const ConvRequantize& rq) {
  p.output_offset = rq.output_offset;
  p.activation_min = rq.act_min, p.activation_max = rq.act_max;
  p.single_round = rq.single_round;
  return p;
}

// The engine's int8 output stage for the chain, where `rq` is its requantize per channel, the
// bias is one per channel (a broadcast one is added to int32 sums, which this form never has),
// and the engine runs it faster than the bands would (compute::depthwise_s8_int8_output_pays).
bool requantize_fits(const compute::DepthwiseS8Params& p, const TensorRef& bias, const ConvRequantize* rq) {
  return rq != nullptr && rq->per_channel && int64_t(rq->multiplier.size()) == p.out_ch() &&
         rq->shift.size() == rq->multiplier.size() && bias.dim(0) == p.out_ch() &&
         compute::depthwise_s8_int8_output_pays(with_output_stage(p, *rq));
}

// The chain as one engine call with the int8 output stage, when `rq` was derived from these
// RESCALE and CLAMP attributes; false, writing nothing, where it was not or the scratch is short.
bool depthwise_requantize_int8(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                               const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                               const ClampAttr* clamp_attrs, const TensorRef& output, ParallelRunner* runner,
                               std::span<uint8_t> scratch, const ConvRequantize* rq, Try mode) {
  compute::DepthwiseS8Params p;
  if (rq == nullptr || rq->rescale != &rescale_attrs || rq->clamp != clamp_attrs || output.dtype != DType::Int8 ||
      !engine_params(input, weight, attrs, sums, &p) || !requantize_fits(p, bias, rq))
    return false;
  if (mode == Try::Probe) return true;
  p = with_output_stage(p, *rq);
  const compute::Exec exec{scratch, runner};
  if (scratch.size() < compute::depthwise_s8_scratch_bytes(p, /*int32_sums=*/false, exec.num_threads())) return false;
  compute::DepthwiseS8Output to;
  to.s8 = output.as<int8_t>();
  to.multiplier = rq->multiplier.data();
  to.shift = rq->shift.data();
  compute::depthwise_s8(p, input.as<const int8_t>(), weight.as<const int8_t>(), bias.as<const int32_t>(), to, exec);
  return true;
}

// The fused bands: output rows [oy0, oy0 + rows) of image n as an engine call of their own (one
// image, the input rows they read, the top padding they still see).
struct DepthwiseBands {
  compute::DepthwiseS8Params p;  // the whole layer
  int64_t rows = 0, bands_per_image = 0, bands = 0;
  int workers = 1;
  size_t rescale_bytes = 0, sums_bytes = 0, worker_bytes = 0;

  size_t scratch_bytes() const { return rescale_bytes + size_t(workers) * worker_bytes + 64; }

  // Band b's engine parameters and input pointer.
  compute::DepthwiseS8Params band(int64_t b, const int8_t* input, const int8_t** band_input, int64_t* first_row) const {
    const int64_t n = b / bands_per_image, oy0 = b % bands_per_image * rows;
    compute::DepthwiseS8Params q = p;
    q.batches = 1;
    q.out_h = int32_t(std::min<int64_t>(rows, p.out_h - oy0));
    const int64_t start = oy0 * p.stride_h - p.pad_h;  // the band's first window row
    const int8_t* image = input + n * int64_t(p.in_h) * p.in_w * p.in_ch;
    if (start >= 0) {
      q.pad_h = 0;
      q.in_h = int32_t(std::max<int64_t>(p.in_h - start, 0));
      *band_input = q.in_h > 0 ? image + start * p.in_w * p.in_ch : image;
    } else {
      q.pad_h = int32_t(-start);
      *band_input = image;
    }
    *first_row = n * p.out_h + oy0;
    return q;
  }
};

DepthwiseBands depthwise_bands(const compute::DepthwiseS8Params& p, int threads) {
  DepthwiseBands d;
  d.p = p;
  const int64_t row_elements = std::max<int64_t>(int64_t(p.out_w) * p.out_ch(), 1);
  // About 64 KiB of int32 sums per band (L2-resident while it is rescaled).
  d.rows = std::clamp<int64_t>((int64_t(64) << 10) / (4 * row_elements), 1, std::max(p.out_h, 1));
  // Several bands per worker, so that the workers claiming them come out even (a 14x14 layer of
  // 384 channels is 5 bands of 3 rows by cache size: 9 rows against 5 on two workers); at least
  // 2 rows, which the VNNI engine computes from one interleave of the input (and it packs the
  // weights again for every band).
  if (threads > 1) d.rows = std::min<int64_t>(d.rows, std::max(2, p.out_h / (4 * threads)));
  d.bands_per_image = (p.out_h + d.rows - 1) / d.rows;
  d.bands = d.bands_per_image * p.batches;
  d.workers = int(std::clamp<int64_t>(d.bands, 1, std::max(threads, 1)));
  compute::DepthwiseS8Params one_band = p;
  one_band.batches = 1;
  one_band.out_h = int32_t(d.rows);
  d.rescale_bytes = compute::align_up(rescale_rows_bytes(p.out_ch()));
  d.sums_bytes = compute::align_up(size_t(d.rows) * size_t(row_elements) * sizeof(int32_t));
  d.worker_bytes = d.sums_bytes + compute::align_up(compute::depthwise_s8_scratch_bytes(one_band, true, 1));
  return d;
}

bool depthwise_rescale_int8_bands(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                  const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                                  const ClampAttr* clamp_attrs, const TensorRef& output, ParallelRunner* runner,
                                  std::span<uint8_t> scratch, Try mode) {
  compute::DepthwiseS8Params p;
  if (!engine_params(input, weight, attrs, sums, &p) || p.out_h <= 0 || p.out_w <= 0 || p.out_ch() <= 0) return false;
  if (mode == Try::Probe) return true;
  const int threads = threads_of(runner);
  const DepthwiseBands d = depthwise_bands(p, threads);
  if (scratch.size() < d.scratch_bytes()) return false;
  uint8_t* base = reinterpret_cast<uint8_t*>(compute::align_up(reinterpret_cast<uintptr_t>(scratch.data())));
  const int64_t channels = p.out_ch(), row_elements = int64_t(p.out_w) * channels;
  const size_t out_element = dtype_size(output.dtype);
  const bool bias_per_channel = bias.dim(0) == channels;
  // The epilogue's constants, filled once here and read by every worker.
  const RescaleRows epilogue(rescale_attrs, output.dtype, clamp_attrs, channels, std::span(base, d.rescale_bytes));
  return run_bands(d.workers, d.bands, runner, [&](int worker, int64_t b) {
    uint8_t* mine = base + d.rescale_bytes + size_t(worker) * d.worker_bytes;
    compute::DepthwiseS8Output to;
    to.s32 = reinterpret_cast<int32_t*>(mine);
    compute::Exec exec;  // one thread per band: the bands are the parallelism
    exec.scratch = std::span(mine + d.sums_bytes, d.worker_bytes - d.sums_bytes);
    const int8_t* band_input = nullptr;
    int64_t first_row = 0;
    const compute::DepthwiseS8Params q = d.band(b, input.as<const int8_t>(), &band_input, &first_row);
    compute::depthwise_s8(q, band_input, weight.as<const int8_t>(), bias_per_channel ? bias.as<const int32_t>() : nullptr,
                          to, exec);
    const int64_t band_shape[2] = {int64_t(q.out_h) * p.out_w, channels};
    const TensorRef band_in{DType::Int32, band_shape, to.s32};
    if (!bias_per_channel) add_broadcast_bias(bias, band_in);
    const TensorRef band_out{output.dtype, band_shape,
                             output.as<uint8_t>() + size_t(first_row * row_elements) * out_element};
    return epilogue.run(band_in, band_out);
  });
}

}  // namespace vkrt::tosa::detail

namespace vkrt::tosa {

size_t depthwise_conv2d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                      const ConvAttr& attrs, const TensorRef& output, int threads) {
  compute::DepthwiseS8Params p;
  if (!check_depthwise_conv2d(input, weight, bias, attrs, output).is_ok() ||
      !detail::engine_params(input, weight, attrs, output, &p))
    return 0;
  return compute::depthwise_s8_scratch_bytes(p, /*int32_sums=*/true, threads);
}

size_t depthwise_conv2d_rescale_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                              const ConvAttr& attrs, const TensorRef& unbound_sums, int threads,
                                              const ConvRequantize* requantize) {
  const TensorRef sums = detail::chain_intermediate_for_checks(unbound_sums);  // may come without bytes
  compute::DepthwiseS8Params p;
  if (!check_depthwise_conv2d(input, weight, bias, attrs, sums).is_ok() ||
      !detail::engine_params(input, weight, attrs, sums, &p))
    return 0;
  if (detail::requantize_fits(p, bias, requantize))  // one engine call, int8 out
    return compute::depthwise_s8_scratch_bytes(detail::with_output_stage(p, *requantize), false, threads);
  return std::max(depthwise_conv2d_scratch_bytes(input, weight, bias, attrs, sums, threads),
                  detail::depthwise_bands(p, threads).scratch_bytes());
}

namespace {
constexpr const char* kRescaleChain = "DEPTHWISE_CONV2D → RESCALE";

// Each op of the chain checked as alone, its intermediates stood in for where they have no bytes.
Status check_rescale_chain(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                           const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                           const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped) {
  const TensorRef checked_sums = detail::chain_intermediate_for_checks(sums);
  VKRT_RETURN_IF_ERROR(check_depthwise_conv2d(input, weight, bias, attrs, checked_sums));
  if (!clamp_attrs) return check_rescale(checked_sums, rescale_attrs, rescaled);
  const TensorRef checked_rescaled = detail::chain_intermediate_for_checks(rescaled);
  VKRT_RETURN_IF_ERROR(check_rescale(checked_sums, rescale_attrs, checked_rescaled));
  return check_clamp(checked_rescaled, *clamp_attrs, clamped);
}

// The chain's fused forms, in order of preference (see depthwise_conv2d_rescale).
bool rescale_chain_fused(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                         const TensorRef& sums, const RescaleAttr& rescale_attrs, const ClampAttr* clamp_attrs,
                         const TensorRef& output, ParallelRunner* runner, std::span<uint8_t> scratch,
                         const ConvRequantize* requantize, detail::Try mode) {
  return detail::depthwise_requantize_int8(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner,
                                           scratch, requantize, mode) ||
         detail::depthwise_rescale_int8_bands(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output,
                                              runner, scratch, mode) ||
         detail::depthwise_conv2d_int16_rescale(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output,
                                                runner, mode);
}
}  // namespace

bool depthwise_conv2d_rescale_fuses(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                    const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                                    const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                                    const ConvRequantize* requantize) {
  return check_rescale_chain(input, weight, bias, attrs, sums, rescale_attrs, rescaled, clamp_attrs, clamped).is_ok() &&
         rescale_chain_fused(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs,
                             clamp_attrs ? clamped : rescaled, nullptr, {}, requantize, detail::Try::Probe);
}

Status depthwise_conv2d_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale_attrs,
                                const TensorRef& rescaled, const ClampAttr* clamp_attrs, const TensorRef& clamped,
                                ParallelRunner* runner, std::span<uint8_t> scratch,
                                const ConvRequantize* requantize) {
  VKRT_RETURN_IF_ERROR(
      check_rescale_chain(input, weight, bias, attrs, sums, rescale_attrs, rescaled, clamp_attrs, clamped));
  const TensorRef& output = clamp_attrs ? clamped : rescaled;
  if (rescale_chain_fused(input, weight, bias, attrs, sums, rescale_attrs, clamp_attrs, output, runner, scratch,
                          requantize, detail::Try::Run))
    return Status::ok();
  VKRT_RETURN_IF_ERROR(detail::chain_intermediate_has_bytes(kRescaleChain, "sums", sums));
  if (clamp_attrs) VKRT_RETURN_IF_ERROR(detail::chain_intermediate_has_bytes(kRescaleChain, "rescaled", rescaled));
  VKRT_RETURN_IF_ERROR(depthwise_conv2d(input, weight, bias, attrs, sums, runner, scratch));
  VKRT_RETURN_IF_ERROR(rescale(sums, rescale_attrs, rescaled, runner));
  return clamp_attrs ? clamp(rescaled, *clamp_attrs, clamped) : Status::ok();
}

}  // namespace vkrt::tosa
