// aten::convolution.out (1-D and 2-D, plain and transposed) and aten::convolution_backward.out
// (2-D, not transposed, as ExecuTorch's portable kernel).
//
// Schemas:
//   convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, *, Tensor(a!) out)                                 -> 11 args
//   convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight,
//     SymInt[]? bias_sizes, int[] stride, int[] padding, int[] dilation, bool transposed,
//     int[] output_padding, int groups, bool[3] output_mask, *, Tensor(a!) out0,
//     Tensor(b!) out1, Tensor(c!) out2)                                 -> 15 args
// input [N, C, (H,) W]; weight [Cout, C/groups, (kH,) kW], or [C, Cout/groups, (kH,) kW]
// when transposed; bias [Cout] or None; out [N, Cout, (Ho,) Wo] with
// Ho = (H + 2*pad - dilation*(kH-1) - 1) / stride + 1, or, transposed,
// Ho = (H - 1)*stride - 2*pad + dilation*(kH-1) + output_padding + 1 (PyTorch).
// A one-element stride/padding/dilation/output_padding list applies to every spatial dim.
// convolution: input, weight and out share one real dtype (every dtype but bool, as
// upstream's REALHBF16 switch); bias may be any real dtype. Floating sums accumulate in
// double, integral ones in int64 and wrap. convolution_backward: floating only; the outs
// whose output_mask entry is false are not touched. Any dim order works: every tensor is
// read through its strides. Quantized convolutions run as cortex_m kernels.
#include <algorithm>

#include "norm_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {
using namespace norm;

struct ConvGeometry {
  int spatial = 2;  // 1 or 2
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
};

// Reads a per-spatial-dim list (one entry broadcasts). `minimum` bounds every entry.
Status spatial_list(const KernelArgs& a, size_t i, std::string_view name, int spatial, int64_t minimum,
                    int64_t (&values)[2]) {
  std::array<int64_t, kMaxRank> items{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(i, name, items));
  if (count != 1 && int(count) != spatial) {
    return a.error(i, name, "expected 1 or " + std::to_string(spatial) + " entries, got " + std::to_string(count));
  }
  for (int d = 0; d < spatial; ++d) {
    values[d] = items[count == 1 ? 0 : d];
    if (values[d] < minimum || values[d] > INT32_MAX) {
      return a.error(i, name, "entry " + std::to_string(values[d]) + " is out of range");
    }
  }
  return Status::ok();
}

// Geometry checked against the tensors: channels, kernel and output sizes as 2-D (a 1-D
// convolution is a 2-D one with height 1); `[0]` is height, `[1]` width.
struct Conv2d {
  int64_t batch = 0, channels = 0, out_channels = 0, groups = 1, group_in = 0, group_out = 0;
  int64_t in_size[2] = {1, 1}, kernel[2] = {1, 1}, out_size[2] = {1, 1};
  int64_t stride[2] = {1, 1}, pad[2] = {0, 0}, dil[2] = {1, 1}, out_pad[2] = {0, 0};
  int h_dim = -1, w_dim = 2;  // dims of H (-1: none) and W in every tensor
  bool transposed = false;

  // Offset of (i0, i1, y, x) in tensor `t` of this convolution's rank.
  int64_t at(const Tensor& t, int64_t i0, int64_t i1, int64_t y, int64_t x) const {
    const auto s = t.strides();
    return i0 * s[0] + i1 * s[1] + (h_dim >= 0 ? y * s[h_dim] : 0) + x * s[w_dim];
  }
};

// Reads stride..groups (args first..first+5) and checks them against input and weight.
// `index` names the argument positions: input, weight, stride, padding, dilation, transposed,
// output_padding, groups.
Status read_conv(const KernelArgs& a, const std::array<size_t, 8>& index, const Tensor& input, const Tensor& weight,
                 Conv2d& c) {
  VKRT_ASSIGN_OR_RETURN(c.transposed, a.bool_value(index[5], "transposed"));
  VKRT_ASSIGN_OR_RETURN(c.groups, a.int_value(index[7], "groups"));
  if (input.rank() != 3 && input.rank() != 4) {
    return a.error(index[0], "input", "expected a 3-D or 4-D tensor, got shape " + shape_string(input.sizes()));
  }
  if (weight.rank() != input.rank()) {
    return a.error(index[1], "weight", "rank " + std::to_string(weight.rank()) + " differs from input rank " +
                                           std::to_string(input.rank()));
  }
  ConvGeometry g;
  g.spatial = input.rank() - 2;
  int64_t out_pad[2] = {0, 0};
  VKRT_RETURN_IF_ERROR(spatial_list(a, index[2], "stride", g.spatial, 1, g.stride));
  VKRT_RETURN_IF_ERROR(spatial_list(a, index[3], "padding", g.spatial, 0, g.padding));
  VKRT_RETURN_IF_ERROR(spatial_list(a, index[4], "dilation", g.spatial, 1, g.dilation));
  if (c.transposed) VKRT_RETURN_IF_ERROR(spatial_list(a, index[6], "output_padding", g.spatial, 0, out_pad));
  c.batch = input.size(0);
  c.channels = input.size(1);
  if (c.groups < 1 || c.groups > INT32_MAX || weight.size(0) % c.groups != 0) {
    return a.error(index[7], "groups", std::to_string(c.groups) + " does not divide weight size(0) " +
                                           std::to_string(weight.size(0)));
  }
  if (!c.transposed) {
    c.out_channels = weight.size(0);
    if (c.channels != c.groups * weight.size(1)) {
      return a.error(index[1], "weight", "shape " + shape_string(weight.sizes()) + " with groups " +
                                             std::to_string(c.groups) + " needs " +
                                             std::to_string(c.groups * weight.size(1)) + " input channels (input channels per group " +
                                             std::to_string(weight.size(1)) + "), got " +
                                             std::to_string(c.channels));
    }
  } else {
    c.out_channels = c.groups * weight.size(1);
    if (c.channels != weight.size(0)) {
      return a.error(index[1], "weight", "transposed weight " + shape_string(weight.sizes()) + " needs size(0) == " +
                                             "input channels " + std::to_string(c.channels));
    }
  }
  if (c.channels == 0) c.out_channels = 0;  // as upstream's output size
  c.group_in = c.channels / c.groups;
  c.group_out = c.out_channels / c.groups;
  c.h_dim = g.spatial == 2 ? 2 : -1;
  c.w_dim = g.spatial == 2 ? 3 : 2;
  c.in_size[0] = c.h_dim >= 0 ? input.size(c.h_dim) : 1;
  c.in_size[1] = input.size(c.w_dim);
  c.kernel[0] = c.h_dim >= 0 ? weight.size(c.h_dim) : 1;
  c.kernel[1] = weight.size(c.w_dim);
  const int last = g.spatial - 1;
  const int64_t stride[2] = {g.spatial == 2 ? g.stride[0] : 1, g.stride[last]};
  const int64_t pad[2] = {g.spatial == 2 ? g.padding[0] : 0, g.padding[last]};
  const int64_t dil[2] = {g.spatial == 2 ? g.dilation[0] : 1, g.dilation[last]};
  const int64_t opad[2] = {g.spatial == 2 ? out_pad[0] : 0, out_pad[last]};
  for (int d = 0; d < 2; ++d) {
    c.stride[d] = stride[d];
    c.pad[d] = pad[d];
    c.dil[d] = dil[d];
    c.out_pad[d] = opad[d];
    if (c.transposed && opad[d] >= stride[d] && opad[d] >= dil[d]) {
      return a.error(index[6], "output_padding", "must be smaller than either stride or dilation");
    }
    const int64_t size = c.transposed
                             ? (c.in_size[d] - 1) * stride[d] - 2 * pad[d] + dil[d] * (c.kernel[d] - 1) + opad[d] + 1
                             : (c.in_size[d] + 2 * pad[d] - dil[d] * (c.kernel[d] - 1) - 1) / stride[d] + 1;
    const bool empty_kernel = !c.transposed && c.in_size[d] + 2 * pad[d] - dil[d] * (c.kernel[d] - 1) - 1 < 0;
    if (empty_kernel || size <= 0 || size > INT32_MAX) {
      return a.error(index[1], "weight", "kernel " + shape_string(weight.sizes()) + " is larger than the padded input " +
                                             shape_string(input.sizes()));
    }
    c.out_size[d] = size;
  }
  return Status::ok();
}

Shape conv_output_shape(const Conv2d& c, int rank) {
  Shape s;
  s.rank = rank;
  s.dims[0] = int32_t(c.batch);
  s.dims[1] = int32_t(c.out_channels);
  if (c.h_dim >= 0) s.dims[c.h_dim] = int32_t(c.out_size[0]);
  s.dims[c.w_dim] = int32_t(c.out_size[1]);
  return s;
}

// The input row/column a transposed convolution reads for output `o` and kernel tap `k`;
// -1 when none.
inline int64_t transposed_source(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dil, int64_t size) {
  const int64_t t = o + pad - k * dil;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t i = t / stride;
  return i < size ? i : -1;
}

template <typename Acc>
void convolve(const Conv2d& c, const Tensor& input, const Tensor& weight, const Tensor* bias, Tensor& out) {
  const ScalarType t = input.dtype();
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t oc = 0; oc < c.out_channels; ++oc) {
      const int64_t group = oc / c.group_out, ocg = oc % c.group_out;
      const Acc b = bias ? load_elem<Acc>(bias->data(), bias->dtype(), oc * bias->strides()[0]) : Acc(0);
      for (int64_t oy = 0; oy < c.out_size[0]; ++oy) {
        for (int64_t ox = 0; ox < c.out_size[1]; ++ox) {
          Acc acc = b;
          for (int64_t ic = 0; ic < c.group_in; ++ic) {
            const int64_t ch = group * c.group_in + ic;
            for (int64_t ky = 0; ky < c.kernel[0]; ++ky) {
              const int64_t iy = c.transposed ? transposed_source(oy, ky, c.stride[0], c.pad[0], c.dil[0], c.in_size[0])
                                              : oy * c.stride[0] - c.pad[0] + ky * c.dil[0];
              if (iy < 0 || iy >= c.in_size[0]) continue;
              for (int64_t kx = 0; kx < c.kernel[1]; ++kx) {
                const int64_t ix = c.transposed
                                       ? transposed_source(ox, kx, c.stride[1], c.pad[1], c.dil[1], c.in_size[1])
                                       : ox * c.stride[1] - c.pad[1] + kx * c.dil[1];
                if (ix < 0 || ix >= c.in_size[1]) continue;
                const Acc x = load_elem<Acc>(input.data(), t, c.at(input, n, ch, iy, ix));
                const int64_t w_off = c.transposed ? c.at(weight, ch, ocg, ky, kx) : c.at(weight, oc, ic, ky, kx);
                const Acc w = load_elem<Acc>(weight.data(), t, w_off);
                acc = wrapping_add(acc, wrapping_mul(x, w));
              }
            }
          }
          store_elem<Acc>(out.data(), t, c.at(out, n, oc, oy, ox), acc);
        }
      }
    }
  }
}

Status convolution_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::convolution.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 11));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 1, "weight"));
  Tensor* bias = nullptr;
  if (!a.is_none(2)) {
    VKRT_ASSIGN_OR_RETURN(bias, tensor_arg(a, 2, "bias"));
  }
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 9, "out"));
  if (input->dtype() == ScalarType::Bool) return a.error(0, "input", "bool tensors are not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "weight", *weight, input->dtype()));
  if (bias && bias->dtype() == ScalarType::Bool) return a.error(2, "bias", "bool tensors are not supported");
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 9, "out", *out, input->dtype()));
  Conv2d c;
  VKRT_RETURN_IF_ERROR(read_conv(a, {0, 1, 3, 4, 5, 6, 7, 8}, *input, *weight, c));
  if (bias && (bias->rank() != 1 || bias->size(0) != (c.transposed ? c.groups * weight->size(1) : weight->size(0)))) {
    return a.error(2, "bias", "expected one entry per output channel, got shape " + shape_string(bias->sizes()));
  }
  const Shape shape = conv_output_shape(c, input->rank());
  VKRT_RETURN_IF_ERROR(resize_output(a, 9, "out", *out, shape.view()));
  if (is_float_dtype(input->dtype())) {
    convolve<double>(c, *input, *weight, bias, *out);
  } else {
    convolve<int64_t>(c, *input, *weight, bias, *out);
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------
Status convolution_backward_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::convolution_backward.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 15));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_output, tensor_arg(a, 0, "grad_output"));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 1, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 2, "weight"));
  std::array<bool, 3> mask{};
  VKRT_RETURN_IF_ERROR(bool_array_arg<3>(a, 10, "output_mask", mask));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_input, tensor_arg(a, 11, "out0"));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_weight, tensor_arg(a, 12, "out1"));
  VKRT_ASSIGN_OR_RETURN(Tensor * grad_bias, tensor_arg(a, 13, "out2"));
  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 1, "input", *input));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 0, "grad_output", *grad_output, input->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "weight", *weight, input->dtype()));
  if (mask[0]) VKRT_RETURN_IF_ERROR(expect_dtype(a, 11, "out0", *grad_input, input->dtype()));
  if (mask[1]) VKRT_RETURN_IF_ERROR(expect_dtype(a, 12, "out1", *grad_weight, input->dtype()));
  if (mask[2]) VKRT_RETURN_IF_ERROR(expect_dtype(a, 13, "out2", *grad_bias, input->dtype()));
  if (weight->rank() != 4) return a.error(2, "weight", "only 2-D convolution backward is supported (4-D weight)");
  Conv2d c;
  VKRT_RETURN_IF_ERROR(read_conv(a, {1, 2, 4, 5, 6, 7, 8, 9}, *input, *weight, c));
  if (c.transposed) return a.error(7, "transposed", "transposed convolution backward is not supported");
  const Shape shape = conv_output_shape(c, 4);
  if (grad_output->rank() != 4 || !std::equal(shape.view().begin(), shape.view().end(), grad_output->sizes().begin())) {
    return a.error(0, "grad_output", "expected shape " + shape_string(shape.view()) + ", got " +
                                         shape_string(grad_output->sizes()));
  }
  const int32_t bias_shape[1] = {int32_t(c.out_channels)};
  if (!a.is_none(3)) {
    std::array<int64_t, kMaxRank> items{};
    VKRT_ASSIGN_OR_RETURN(size_t n, a.int_list(3, "bias_sizes", items));
    if (n != 1 || items[0] != c.out_channels) return a.error(3, "bias_sizes", "expected [" + std::to_string(c.out_channels) + "]");
  }
  if (mask[0]) VKRT_RETURN_IF_ERROR(resize_output(a, 11, "out0", *grad_input, input->sizes()));
  if (mask[1]) VKRT_RETURN_IF_ERROR(resize_output(a, 12, "out1", *grad_weight, weight->sizes()));
  if (mask[2]) VKRT_RETURN_IF_ERROR(resize_output(a, 13, "out2", *grad_bias, bias_shape));

  const ScalarType t = input->dtype();
  auto go = [&](int64_t n, int64_t oc, int64_t y, int64_t x) {
    return load_elem<double>(grad_output->data(), t, c.at(*grad_output, n, oc, y, x));
  };
  if (mask[2]) {
    for (int64_t oc = 0; oc < c.out_channels; ++oc) {
      double sum = 0.0;
      for (int64_t n = 0; n < c.batch; ++n)
        for (int64_t y = 0; y < c.out_size[0]; ++y)
          for (int64_t x = 0; x < c.out_size[1]; ++x) sum += go(n, oc, y, x);
      store_elem<double>(grad_bias->data(), t, oc * grad_bias->strides()[0], sum);
    }
  }
  if (mask[1]) {  // grad_weight[oc, ic, ky, kx] = sum grad_output * input
    for (int64_t oc = 0; oc < c.out_channels; ++oc) {
      const int64_t group = oc / c.group_out;
      for (int64_t ic = 0; ic < c.group_in; ++ic)
        for (int64_t ky = 0; ky < c.kernel[0]; ++ky)
          for (int64_t kx = 0; kx < c.kernel[1]; ++kx) {
            double sum = 0.0;
            for (int64_t n = 0; n < c.batch; ++n)
              for (int64_t y = 0; y < c.out_size[0]; ++y) {
                const int64_t iy = y * c.stride[0] - c.pad[0] + ky * c.dil[0];
                if (iy < 0 || iy >= c.in_size[0]) continue;
                for (int64_t x = 0; x < c.out_size[1]; ++x) {
                  const int64_t ix = x * c.stride[1] - c.pad[1] + kx * c.dil[1];
                  if (ix < 0 || ix >= c.in_size[1]) continue;
                  sum += go(n, oc, y, x) * load_elem<double>(input->data(), t,
                                                             c.at(*input, n, group * c.group_in + ic, iy, ix));
                }
              }
            store_elem<double>(grad_weight->data(), t, c.at(*grad_weight, oc, ic, ky, kx), sum);
          }
    }
  }
  if (mask[0]) {  // grad_input[n, ch, iy, ix] = sum over the outputs that read it
    for (int64_t n = 0; n < c.batch; ++n)
      for (int64_t ch = 0; ch < c.channels; ++ch) {
        const int64_t group = ch / c.group_in, ic = ch % c.group_in;
        for (int64_t iy = 0; iy < c.in_size[0]; ++iy)
          for (int64_t ix = 0; ix < c.in_size[1]; ++ix) {
            double sum = 0.0;
            for (int64_t ocg = 0; ocg < c.group_out; ++ocg) {
              const int64_t oc = group * c.group_out + ocg;
              for (int64_t ky = 0; ky < c.kernel[0]; ++ky) {
                const int64_t y = transposed_source(iy, ky, c.stride[0], c.pad[0], c.dil[0], c.out_size[0]);
                if (y < 0) continue;
                for (int64_t kx = 0; kx < c.kernel[1]; ++kx) {
                  const int64_t x = transposed_source(ix, kx, c.stride[1], c.pad[1], c.dil[1], c.out_size[1]);
                  if (x < 0) continue;
                  sum += go(n, oc, y, x) * load_elem<double>(weight->data(), t, c.at(*weight, oc, ic, ky, kx));
                }
              }
            }
            store_elem<double>(grad_input->data(), t, c.at(*grad_input, n, ch, iy, ix), sum);
          }
      }
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::convolution.out", convolution_out);
VKRT_REGISTER_KERNEL("aten::convolution_backward.out", convolution_backward_out);

}  // namespace vkrt::portable
