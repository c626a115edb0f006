// CONV3D (tosa.md §6): CONV2D with a depth axis. Input [N,ID,IH,IW,IC], weight [OC,KD,KH,KW,IC].
//
// int8 runs on the compute core's int8 GEMM given conv3d_scratch_bytes of scratch: a row of A per
// output voxel, its window gathered as the GEMM asks for the row (im2col), the taps in the
// padding set to the input zero point so that they add nothing, as the definition skips them;
// the zero points are the GEMM's offsets, its int32 sums wrap as the definition's. Otherwise, and
// for int16 and fp32, the reference loops.
#include <algorithm>
#include <cstring>

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
  if (!check_conv3d(input, weight, bias, attrs, output).is_ok() || !gemm_applies(input, weight)) return 0;
  return broadcast_bias_bytes(weight, bias) +
         std::max<size_t>(1, compute::gemm_s8_scratch_bytes(int8_gemm(weight, output, attrs, nullptr, nullptr), threads)) +
         64;
}

Status conv3d(const TensorRef& input, const TensorRef& weight, const TensorRef& bias, const ConvAttr& attrs,
              const TensorRef& output, ParallelRunner* runner, std::span<uint8_t> scratch) {
  VKRT_RETURN_IF_ERROR(check_conv3d(input, weight, bias, attrs, output));
  const size_t need = conv3d_scratch_bytes(input, weight, bias, attrs, output, threads_of(runner));
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
