// Private: what CONV2D, DEPTHWISE_CONV2D and TRANSPOSE_CONV2D share (tosa.md §6): the dtype
// combinations, the zero-point rules and the per-type accumulate/finalize policy.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "compute/exec.h"

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa::detail {

// Largest pad / stride / dilation / kernel attribute accepted. TOSA's level limits are far
// lower (MAX_KERNEL 8192, MAX_STRIDE 8192); this bound only keeps window arithmetic in int64.
inline constexpr int64_t kMaxWindowParam = int64_t(1) << 20;

// Checks the operands' ranks (input, weight and output `rank`, bias 1), the dtype combination,
// acc_type, the zero points and the bias length against `out_channels`. Channel matching and
// the output shape are checked by the op. rank is 4 for the 2-D convolutions, 5 for CONV3D.
Status check_conv_operands(const char* op, const TensorRef& input, const TensorRef& weight,
                           const TensorRef& bias, const TensorRef& output, AccType acc_type,
                           int64_t input_zp, int64_t weight_zp, int64_t out_channels, int rank = 4);

// Zero point rule of TOSA 1.0 (tosa.md §1): 0 unless the type is Int8, and within Int8's range.
Status check_zero_point(const char* op, const char* what, DType type, int64_t zp);

// Accumulation policy per input dtype:
//   Int8 : products (|p| <= 255 * 255) summed in int32 with wrapping adds, exactly the device's
//          modulo-2^32 accumulator (and vectorisable)
//   Int16: products summed in int64 (wrapping instead of overflowing on absurd shapes), result
//          clamped to the int48 range, stored in int64
//   Fp32 : summed in float
template <typename TIn> struct ConvPolicy;
template <> struct ConvPolicy<int8_t> {
  using Weight = int8_t;
  using Acc = int32_t;
  using Out = int32_t;
  static Acc add(Acc acc, Acc product) { return int32_t(uint32_t(acc) + uint32_t(product)); }
  static Out finish(Acc acc, Out bias) { return add(acc, bias); }
};
template <> struct ConvPolicy<int16_t> {
  using Weight = int8_t;
  using Acc = int64_t;
  using Out = int64_t;  // Int48
  static Acc add(Acc acc, Acc product) { return int64_t(uint64_t(acc) + uint64_t(product)); }
  static Out finish(Acc acc, Out bias) { return clamp_int48(clamp_int48(acc) + clamp_int48(bias)); }
};
template <> struct ConvPolicy<float> {
  using Weight = float;
  using Acc = float;
  using Out = float;
  static Acc add(Acc acc, Acc product) { return acc + product; }
  static Out finish(Acc acc, Out bias) { return acc + bias; }
};

// Largest number of taps whose int8 products (each at most 255 * 255 = 65025 in magnitude, zero
// points taken off) always sum inside int32: floor(2^31 / 65025). The fast paths' exactness bound.
inline constexpr int64_t kMaxExactTaps = 33025;
// Below this many multiply-adds a convolution runs on the calling thread: a parallel dispatch
// costs tens of microseconds.
inline constexpr double kParallelMinMacs = 1 << 20;

// The operands of one fast-path call, for the row-band functions.
struct ConvJob {
  const TensorRef* input;
  const TensorRef* weight;
  const TensorRef* bias;
  const ConvAttr* attrs;
  const TensorRef* output;
};

// A row-band function: output rows [row_begin, row_end) of (n, oy) pairs.
using ConvRows = void (*)(const ConvJob& job, int64_t row_begin, int64_t row_end);

// Runs `rows_fn` over all of the job's output rows, split over `runner` (may be null) when
// the convolution has at least kParallelMinMacs multiply-adds; `taps` is one output's products.
inline void run_conv_rows(const ConvJob& job, int64_t taps, ParallelRunner* runner, ConvRows rows_fn) {
  const TensorRef& output = *job.output;
  const int64_t rows = output.dim(0) * output.dim(1);
  const double macs = double(rows) * double(output.dim(2) * output.dim(3)) * double(taps);
  split_over_threads(runner, rows, macs, kParallelMinMacs,
                     [&job, rows_fn](int64_t begin, int64_t end) { rows_fn(job, begin, end); });
}

// The int8 CONV2D on the compute core's GEMM (conv2d_int8.cpp): false, writing nothing, where
// it does not apply (another dtype) or the scratch is short of conv2d_scratch_bytes.
// Operands are checked by the caller.
bool conv2d_int8_gemm(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& output, ParallelRunner* runner, const ConvResources& resources);

// The int8 DEPTHWISE_CONV2D on the compute core's depthwise engine (depthwise_int8.cpp): false,
// writing nothing, where it does not apply (another dtype, a weight zero point). Without
// enough scratch (depthwise_conv2d_scratch_bytes) the engine takes its scratch-free paths.
// Operands are checked by the caller.
bool depthwise_conv2d_int8_engine(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                  const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
                                  std::span<uint8_t> scratch);

// How a fused chain's forms below are called. Run: compute, or return false, writing nothing,
// where the form does not apply or the scratch is short. Probe: compute nothing, and return
// whether the form applies, taking the chain's *_scratch_bytes of scratch as given (the VGF CPU
// executor asks so before it places the chain's intermediate tensors: a chain that runs fused
// never writes them, and they then get no bytes).
enum class Try : uint8_t { Run, Probe };

// The int16 CONV2D and DEPTHWISE_CONV2D on the compute core's A16W8 convolutions
// (conv2d_int16.cpp): false, writing nothing, where they do not apply (another dtype, a size past
// int32). CONV2D's GEMM-shaped path takes conv2d_int16_scratch_bytes of scratch (without it, the
// core's one-output-at-a-time loop), and weights packed ahead (conv2d_int16_pack_weights, into
// conv2d_int16_packed_weights_bytes of memory: 0 where the ISA level has no panel form) when
// they are constants. Operands are checked by the caller.
size_t conv2d_int16_packed_weights_bytes(const TensorRef& weight);
const void* conv2d_int16_pack_weights(const TensorRef& weight, const ConvAttr& attrs, std::span<uint8_t> memory);
size_t conv2d_int16_scratch_bytes(const TensorRef& input, const TensorRef& weight, const ConvAttr& attrs,
                                  const TensorRef& output, int threads, const void* packed_weights);
bool conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                  const TensorRef& output, ParallelRunner* runner, const ConvResources& resources);
bool depthwise_conv2d_int16(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner);
// The chains CONV2D / DEPTHWISE_CONV2D → RESCALE → (CLAMP) of an A16W8 network in one pass, the
// RESCALE (scale16, int48 to signed int16, input zero point 0) and the CLAMP (bounds within
// int16) as the core's output stage: `sums` (the int48 tensor) is not written, `output` is the
// chain's result. False, writing nothing, where the chain is not that. CONV2D takes the same
// scratch as conv2d_int16. Operands are checked by the caller.
bool conv2d_int16_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                          const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale,
                          const ClampAttr* clamp, const TensorRef& output, ParallelRunner* runner,
                          const ConvResources& resources, Try mode = Try::Run);
bool depthwise_conv2d_int16_rescale(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                                    const ConvAttr& attrs, const TensorRef& sums, const RescaleAttr& rescale,
                                    const ClampAttr* clamp, const TensorRef& output, ParallelRunner* runner,
                                    Try mode = Try::Run);

// The fp32 CONV2D on the compute core's fp32 GEMM and the fp32 DEPTHWISE_CONV2D
// (conv2d_fp32.cpp): false, writing nothing, where they do not apply (another dtype) or, for
// CONV2D, the scratch is short of conv2d_fp32_scratch_bytes. Operands are checked by the caller.
// CONV2D takes its weights transposed once ahead where they are constants
// (conv2d_fp32_pack_weights, conv2d_fp32_packed_weights_bytes of memory: 0 for another dtype),
// else transposes them into the scratch on every call.
// `clamp` (not null): a CLAMP of the output applied as each band is finished (conv2d_clamp).
bool conv2d_fp32_gemm(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
                      const TensorRef& output, ParallelRunner* runner, const ConvResources& resources,
                      const ClampAttr* clamp = nullptr, Try mode = Try::Run);
size_t conv2d_fp32_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& output,
                                 const ConvAttr& attrs, int threads, const void* packed_weights);
size_t conv2d_fp32_packed_weights_bytes(const TensorRef& weight);
const void* conv2d_fp32_pack_weights(const TensorRef& weight, std::span<uint8_t> memory);
bool depthwise_conv2d_fp32(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                           const ConvAttr& attrs, const TensorRef& output, ParallelRunner* runner,
                           const ClampAttr* clamp = nullptr, Try mode = Try::Run);

// Adds a bias of one element to every output, wrapping as ConvPolicy<int8_t>::finish: the
// compute core takes per-channel biases only.
inline void add_broadcast_bias(const TensorRef& bias, const TensorRef& output) {
  const int32_t b = bias.as<const int32_t>()[0];
  int32_t* out = output.as<int32_t>();
  for (int64_t i = 0, count = output.num_elements(); i < count; ++i) out[i] = ConvPolicy<int8_t>::add(out[i], b);
}

// Runs run_band(worker, band) for every band < bands on up to `workers` workers (at most
// threads_of(runner); `worker` indexes per-worker scratch), each claiming the next band when it
// is done with one (compute::Exec::parallel_chunks): a worker on a slower core takes fewer.
// False when a band reports an error: the operands were checked by the caller, so none does;
// should one, the caller runs the unfused kernels, which report it.
template <typename RunBand>
bool run_bands(int workers, int64_t bands, ParallelRunner* runner, const RunBand& run_band) {
  std::atomic<bool> ok{true};
  compute::Exec{{}, runner}.parallel_chunks(workers, bands, bands, [&](int worker, int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1 && ok.load(std::memory_order_relaxed); ++b)
      if (!run_band(worker, b).is_ok()) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load();
}

}  // namespace vkrt::tosa::detail
