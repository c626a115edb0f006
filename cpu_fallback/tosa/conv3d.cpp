// CONV3D (tosa.md §6): CONV2D with a depth axis. Input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC].
//
// int8 runs on the compute core's int8 GEMM given conv3d_scratch_bytes of scratch: a row of A per
// output voxel, its window gathered as the GEMM asks for the row (im2col), the taps in the
// padding set to the input zero point so that they add nothing, as the definition skips them;
// the zero points are the GEMM's offsets, its int32 sums wrap as the definition's.
//
// int16 and fp32 run as CONV2D (and so on the compute core's A16W8 convolution and fp32 GEMM)
// over depth-stacked channels: output depth od of batch n is the 2D convolution of the KD input
// slices its window reads, z = od·stride − pad_front + kd·dilation, laid side by side as the
// channels of one [IH][IW][KD·IC] image (a slice in the depth padding as zeros), by the weights
// reordered to [OC][KH][KW][KD·IC]; its output is the [OH][OW][OC] slab at [n][od], so a band of
// (n, od) pairs is one CONV2D's batch. The products are the definition's. int16 sums them exactly
// in int64 and then applies the int48 clamps, as the definition; its zero points are 0, so a
// zero tap adds nothing, as a skipped one. fp32 sums each output as conv2d_fp32 does (one FMA chain
// in [ky][kx][kd][ic] order), so the two differ by float rounding only; a zero tap adds ±0, as a
// skipped one, for finite weights (an infinite weight in the depth padding gives NaN there).
//
// Without the scratch (or with sizes past int32 for int8), the reference loops.
#include <algorithm>
#include <array>
#include <cstring>

#include "compute/exec.h"
#include "compute/gemm_s8.h"
#include "cpu_fallback/tosa/conv_common.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;
constexpr const char* kOp = "CONV3D";

template <typename TIn>
void conv3d_impl(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                 const TensorRef& output) {
  using P = ConvPolicy<TIn>;
  using Acc = typename P::Acc;
  const TIn* in = input.as<const TIn>();
  const typename P::Weight* w = weight.as<const typename P::Weight>();
  const typename P::Out* b = bias.as<const typename P::Out>();
  typename P::Out* out = output.as<typename P::Out>();
  const int64_t N = input.dim(0), ID = input.dim(1), IH = input.dim(2), IW = input.dim(3), IC = input.dim(4);
  const int64_t OC = weight.dim(0), KD = weight.dim(1), KH = weight.dim(2), KW = weight.dim(3);
  const int64_t OD = output.dim(1), OH = output.dim(2), OW = output.dim(3);
  const bool bias_per_channel = bias.dim(0) == OC;
  const Acc in_zp = Acc(a.input_zp), w_zp = Acc(a.weight_zp);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox)
          for (int64_t oc = 0; oc < OC; ++oc) {
            Acc acc = 0;
            for (int64_t kd = 0; kd < KD; ++kd) {
              const int64_t z = od * a.stride[0] - a.pad[0] + kd * a.dilation[0];
              if (z < 0 || z >= ID) continue;
              for (int64_t ky = 0; ky < KH; ++ky) {
                const int64_t y = oy * a.stride[1] - a.pad[2] + ky * a.dilation[1];
                if (y < 0 || y >= IH) continue;
                for (int64_t kx = 0; kx < KW; ++kx) {
                  const int64_t x = ox * a.stride[2] - a.pad[4] + kx * a.dilation[2];
                  if (x < 0 || x >= IW) continue;
                  const TIn* in_px = in + (((n * ID + z) * IH + y) * IW + x) * IC;
                  const auto* w_px = w + (((oc * KD + kd) * KH + ky) * KW + kx) * IC;
                  for (int64_t ic = 0; ic < IC; ++ic)
                    acc = P::add(acc, (Acc(in_px[ic]) - in_zp) * (Acc(w_px[ic]) - w_zp));
                }
              }
            }
            out[(((n * OD + od) * OH + oy) * OW + ox) * OC + oc] = P::finish(acc, b[bias_per_channel ? oc : 0]);
          }
}

// An int8 CONV3D as the GEMM reads it: what a_row needs to gather a voxel's window.
struct Int8Conv3d {
  const int8_t* input;
  int64_t ID, IH, IW, IC, OD, OH, OW, KD, KH, KW;
  ConvAttr attrs;
};

// Row r of A: output voxel r's window, [kd][ky][kx][ic], taps in the padding at the zero point.
const int8_t* gather_window(const void* ctx, int64_t r, int8_t* row) {
  const Int8Conv3d& c = *static_cast<const Int8Conv3d*>(ctx);
  const ConvAttr& a = c.attrs;
  const int64_t ox = r % c.OW, oy = r / c.OW % c.OH, od = r / (c.OW * c.OH) % c.OD, n = r / (c.OW * c.OH * c.OD);
  int8_t* to = row;
  for (int64_t kd = 0; kd < c.KD; ++kd) {
    const int64_t z = od * a.stride[0] - a.pad[0] + kd * a.dilation[0];
    for (int64_t ky = 0; ky < c.KH; ++ky) {
      const int64_t y = oy * a.stride[1] - a.pad[2] + ky * a.dilation[1];
      for (int64_t kx = 0; kx < c.KW; ++kx, to += c.IC) {
        const int64_t x = ox * a.stride[2] - a.pad[4] + kx * a.dilation[2];
        if (z < 0 || z >= c.ID || y < 0 || y >= c.IH || x < 0 || x >= c.IW)
          std::memset(to, int8_t(a.input_zp), size_t(c.IC));
        else
          std::memcpy(to, c.input + (((n * c.ID + z) * c.IH + y) * c.IW + x) * c.IC, size_t(c.IC));
      }
    }
  }
  return row;
}

// The int8 GEMM for the convolution (its A through gather_window over `conv`), its int32 sums
// into `output`, the bias per channel (`bias32`: a broadcast bias as OC copies).
compute::GemmS8 int8_gemm(const TensorRef& weight, const TensorRef& output, const ConvAttr& a,
                          const Int8Conv3d* conv, const int32_t* bias32) {
  const int64_t OC = weight.dim(0), k = weight.dim(1) * weight.dim(2) * weight.dim(3) * weight.dim(4);
  compute::GemmS8 g;
  g.m = output.dim(0) * output.dim(1) * output.dim(2) * output.dim(3), g.n = int32_t(OC), g.k = int32_t(k);
  g.a_row = gather_window, g.a_ctx = conv;
  g.b = weight.as<const int8_t>(), g.b_stride = k;
  g.bias = bias32;
  g.a_offset = -a.input_zp, g.b_offset = -a.weight_zp;
  g.c32 = output.as<int32_t>(), g.c_stride = OC;
  return g;
}

// Whether the GEMM takes it: int8, its depth KD·KH·KW·IC and OC within int32.
bool gemm_applies(const TensorRef& input, const TensorRef& weight) {
  return input.dtype == DType::Int8 && weight.dim(0) <= INT32_MAX &&
         weight.dim(1) * weight.dim(2) * weight.dim(3) * weight.dim(4) <= INT32_MAX;
}

size_t broadcast_bias_bytes(const TensorRef& weight, const TensorRef& bias) {
  return bias.dim(0) == weight.dim(0) ? 0 : compute::align_up(size_t(weight.dim(0)) * 4);
}

// The depth-stacked CONV2D (int16, fp32): its operands for a band of `pairs` (n, od) pairs, and
// the scratch it takes: the reordered weights, their packing for conv2d, a band of stacked
// slices, then conv2d's own.
struct StackedConv {
  DType dtype, weight_dtype, out_dtype;
  std::array<int64_t, 4> slices_shape, weight_shape, output_shape;
  ConvAttr attrs;  // the 3D attributes' H and W axes
  int64_t pairs;   // (n, od) pairs a band (the last may have fewer)
  size_t element, weights_bytes, packed_bytes, slices_bytes;

  // The CONV2D's operands over a band of `count` pairs.
  TensorRef slices(int64_t count, void* data) {
    slices_shape[0] = count;
    return TensorRef{dtype, slices_shape, data};
  }
  TensorRef output(int64_t count, void* data) {
    output_shape[0] = count;
    return TensorRef{out_dtype, output_shape, data};
  }
  TensorRef weight(void* data) const { return TensorRef{weight_dtype, weight_shape, data}; }
};

// Stacked slices per band: about this many bytes, and at least one pair.
constexpr size_t kStackedBandBytes = size_t(1) << 20;

bool stacked_applies(const TensorRef& input) { return input.dtype == DType::Int16 || input.dtype == DType::Fp32; }

StackedConv stacked_conv(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                         const TensorRef& output) {
  StackedConv c{};
  c.dtype = input.dtype, c.weight_dtype = weight.dtype, c.out_dtype = output.dtype;
  const int64_t stacked_channels = weight.dim(1) * weight.dim(4);
  c.slices_shape = {1, input.dim(2), input.dim(3), stacked_channels};
  c.weight_shape = {weight.dim(0), weight.dim(2), weight.dim(3), stacked_channels};
  c.output_shape = {1, output.dim(2), output.dim(3), output.dim(4)};
  c.attrs = a;
  c.attrs.pad = {a.pad[2], a.pad[3], a.pad[4], a.pad[5], 0, 0};
  c.attrs.stride = {a.stride[1], a.stride[2], 1};
  c.attrs.dilation = {a.dilation[1], a.dilation[2], 1};
  c.element = dtype_size(input.dtype);
  const size_t slice_bytes = size_t(input.dim(2) * input.dim(3) * stacked_channels) * c.element;
  c.pairs = std::clamp<int64_t>(int64_t(kStackedBandBytes / std::max<size_t>(slice_bytes, 1)), 1,
                                output.dim(0) * output.dim(1));
  c.weights_bytes = compute::align_up(size_t(weight.num_elements()) * dtype_size(weight.dtype));
  c.packed_bytes = compute::align_up(conv2d_packed_weights_bytes(c.weight(weight.data), bias, c.attrs));
  c.slices_bytes = compute::align_up(size_t(c.pairs) * slice_bytes);
  return c;
}

// The scratch the stacked form takes, 0 where conv2d would take none (it would run its
// reference loops: then so do these, without the reordering).
size_t stacked_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                             const ConvAttr& a, const TensorRef& output, int threads) {
  StackedConv c = stacked_conv(input, weight, bias, a, output);
  // conv2d's checks refuse null data (they never read it): the operands' own pointers stand in.
  const size_t inner = conv2d_scratch_bytes(c.slices(c.pairs, input.data), c.weight(weight.data), bias, c.attrs,
                                            c.output(c.pairs, output.data), threads);
  if (inner == 0) return 0;
  return c.weights_bytes + c.packed_bytes + c.slices_bytes + inner + 64;
}

// [OC][KD][KH][KW][IC] → [OC][KH][KW][KD][IC].
void stack_weights(const TensorRef& weight, size_t element, uint8_t* to) {
  const int64_t OC = weight.dim(0), KD = weight.dim(1), KH = weight.dim(2), KW = weight.dim(3);
  const size_t run = size_t(weight.dim(4)) * element;
  const auto* from = static_cast<const uint8_t*>(weight.data);
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t kd = 0; kd < KD; ++kd)
      for (int64_t t = 0; t < KH * KW; ++t)
        std::memcpy(to + ((oc * KH * KW + t) * KD + kd) * run, from + ((oc * KD + kd) * KH * KW + t) * run, run);
}

// The stacked image of pair p = n·OD + od: [y][x][kd][ic], the slices in the padding zero.
void stack_slices(const TensorRef& input, const ConvAttr& a, int64_t OD, int64_t KD, int64_t p, size_t element,
                  uint8_t* to) {
  const int64_t ID = input.dim(1), pixels = input.dim(2) * input.dim(3);
  const size_t run = size_t(input.dim(4)) * element;
  const int64_t n = p / OD, od = p % OD;
  const auto* in = static_cast<const uint8_t*>(input.data);
  for (int64_t kd = 0; kd < KD; ++kd) {
    const int64_t z = od * a.stride[0] - a.pad[0] + kd * a.dilation[0];
    uint8_t* dst = to + size_t(kd) * run;
    if (z < 0 || z >= ID) {
      for (int64_t px = 0; px < pixels; ++px) std::memset(dst + size_t(px * KD) * run, 0, run);
      continue;
    }
    const uint8_t* src = in + size_t((n * ID + z) * pixels) * run;
    for (int64_t px = 0; px < pixels; ++px) std::memcpy(dst + size_t(px * KD) * run, src + size_t(px) * run, run);
  }
}

Status stacked_conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                      const TensorRef& output, ParallelRunner* runner, std::span<uint8_t> scratch) {
  StackedConv c = stacked_conv(input, weight, bias, a, output);
  uint8_t* base = reinterpret_cast<uint8_t*>(compute::align_up(reinterpret_cast<uintptr_t>(scratch.data())));
  uint8_t* weights = base;
  stack_weights(weight, dtype_size(weight.dtype), weights);
  ConvResources resources;
  if (c.packed_bytes > 0)
    resources.packed_weights =
        conv2d_pack_weights(c.weight(weights), bias, c.attrs, std::span(base + c.weights_bytes, c.packed_bytes));
  uint8_t* slices = base + c.weights_bytes + c.packed_bytes;
  resources.scratch = scratch.subspan(size_t(slices - scratch.data()) + c.slices_bytes);
  const int64_t OD = output.dim(1), KD = weight.dim(1), pairs = output.dim(0) * OD;
  const size_t stacked_bytes = size_t(c.slices_shape[1] * c.slices_shape[2] * c.slices_shape[3]) * c.element;
  const size_t out_bytes = size_t(c.output_shape[1] * c.output_shape[2] * c.output_shape[3]) * dtype_size(output.dtype);
  for (int64_t p0 = 0; p0 < pairs; p0 += c.pairs) {
    const int64_t count = std::min(c.pairs, pairs - p0);
    for (int64_t p = p0; p < p0 + count; ++p)
      stack_slices(input, a, OD, KD, p, c.element, slices + size_t(p - p0) * stacked_bytes);
    VKRT_RETURN_IF_ERROR(conv2d(c.slices(count, slices), c.weight(weights), bias, c.attrs,
                                c.output(count, static_cast<uint8_t*>(output.data) + size_t(p0) * out_bytes), runner,
                                resources));
  }
  return Status::ok();
}

}  // namespace

Status check_conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& a,
                    const TensorRef& output) {
  for (int i = 0; i < 6; ++i)
    if (a.pad[i] < 0 || a.pad[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": pad[", i, "] = ", a.pad[i], " out of range");
  for (int i = 0; i < 3; ++i) {
    if (a.stride[i] < 1 || a.stride[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": stride[", i, "] = ", a.stride[i], " out of range");
    if (a.dilation[i] < 1 || a.dilation[i] > kMaxWindowParam)
      return make_error(Error::InvalidArgument, kOp, ": dilation[", i, "] = ", a.dilation[i], " out of range");
  }
  VKRT_RETURN_IF_ERROR(check_tensor(kOp, "weight", weight));
  VKRT_RETURN_IF_ERROR(expect_rank(kOp, "weight", weight, 5));
  VKRT_RETURN_IF_ERROR(check_conv_operands(kOp, input, weight, bias, output, a.acc_type, a.input_zp, a.weight_zp,
                                           weight.dim(0), 5));
  if (weight.dim(4) != input.dim(4))
    return make_error(Error::InvalidArgument, kOp, ": weight ", shape_string(weight.shape), " has ", weight.dim(4),
                      " input channels, input ", shape_string(input.shape), " has ", input.dim(4));
  int64_t expected[5] = {input.dim(0), 0, 0, 0, weight.dim(0)};
  for (int i = 0; i < 3; ++i) {
    const int64_t k = weight.dim(1 + i);
    if (k > kMaxWindowParam) return make_error(Error::InvalidArgument, kOp, ": kernel dim ", i, " too large");
    expected[1 + i] = window_output_size(input.dim(1 + i), a.pad[2 * i], a.pad[2 * i + 1], k, a.dilation[i], a.stride[i]);
    if (expected[1 + i] < 1)
      return make_error(Error::InvalidArgument, kOp, ": input ", shape_string(input.shape), " with kernel ",
                        shape_string(weight.shape), " and the given pad/stride/dilation has no exact output size (axis ",
                        i, ")");
  }
  return expect_shape(kOp, "output", output, expected);
}

size_t conv3d_scratch_bytes(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                            const ConvAttr& attrs, const TensorRef& output, int threads) {
  if (!check_conv3d(input, weight, bias, attrs, output).is_ok()) return 0;
  if (stacked_applies(input)) return stacked_scratch_bytes(input, weight, bias, attrs, output, threads);
  if (!gemm_applies(input, weight)) return 0;
  return broadcast_bias_bytes(weight, bias) +
         std::max<size_t>(1, compute::gemm_s8_scratch_bytes(int8_gemm(weight, output, attrs, nullptr, nullptr), threads)) +
         64;
}

Status conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
              const TensorRef& output, ParallelRunner* runner, std::span<uint8_t> scratch) {
  VKRT_RETURN_IF_ERROR(check_conv3d(input, weight, bias, attrs, output));
  const size_t need = conv3d_scratch_bytes(input, weight, bias, attrs, output, threads_of(runner));
  if (need > 0 && scratch.size() >= need && stacked_applies(input))
    return stacked_conv3d(input, weight, bias, attrs, output, runner, scratch);
  if (need > 0 && scratch.size() >= need) {
    const Int8Conv3d conv{input.as<const int8_t>(), input.dim(1),  input.dim(2),  input.dim(3),  input.dim(4),
                          output.dim(1),             output.dim(2), output.dim(3), weight.dim(1), weight.dim(2),
                          weight.dim(3),             attrs};
    uint8_t* base = reinterpret_cast<uint8_t*>(compute::align_up(reinterpret_cast<uintptr_t>(scratch.data())));
    const int32_t* bias32 = bias.as<const int32_t>();
    if (const size_t copies = broadcast_bias_bytes(weight, bias); copies > 0) {
      auto* b = reinterpret_cast<int32_t*>(base);
      std::fill_n(b, weight.dim(0), bias32[0]);
      bias32 = b, base += copies;
    }
    const size_t used = size_t(base - scratch.data());
    compute::gemm_s8(int8_gemm(weight, output, attrs, &conv, bias32), compute::Exec{scratch.subspan(used), runner});
    return Status::ok();
  }
  conv3d_reference(input, weight, bias, attrs, output);
  return Status::ok();
}

void detail::conv3d_reference(const TensorRef& input, const TensorRef& weight, const TensorRef& bias,
                              const ConvAttr& attrs, const TensorRef& output) {
  switch (input.dtype) {
    case DType::Int8: conv3d_impl<int8_t>(input, weight, bias, attrs, output); break;
    case DType::Int16: conv3d_impl<int16_t>(input, weight, bias, attrs, output); break;
    default: conv3d_impl<float>(input, weight, bias, attrs, output); break;
  }
}

}  // namespace vkrt::tosa
