// aten::convolution.out for 1-D and 2-D floating convolutions (not transposed).
//
// Schema: convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)                                   -> 11 args
// input [N, C, (H,) W], weight [Cout, C/groups, (kH,) kW], bias [Cout] or None, out
// [N, Cout, (Ho,) Wo] with Ho = (H + 2*pad - dilation*(kH-1) - 1) / stride + 1 (PyTorch).
// A one-element stride/padding/dilation list applies to every spatial dim. All tensors share
// one floating dtype; sums accumulate in double. Any dim order (NCHW or channels-last) works:
// every tensor is read through its strides. Quantized convolutions run as cortex_m kernels.
#include "op_util.h"
#include "vkrt/kernel.h"

namespace vkrt::portable {
namespace {

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

Status convolution_out(KernelContext&, std::span<EValue* const> args) {
  KernelArgs a("aten::convolution.out", args);
  VKRT_RETURN_IF_ERROR(expect_args(a, 11));
  VKRT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(a, 0, "input"));
  VKRT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(a, 1, "weight"));
  Tensor* bias = nullptr;
  if (!a.is_none(2)) {
    VKRT_ASSIGN_OR_RETURN(bias, tensor_arg(a, 2, "bias"));
  }
  VKRT_ASSIGN_OR_RETURN(bool transposed, a.bool_value(6, "transposed"));
  VKRT_ASSIGN_OR_RETURN(int64_t groups, a.int_value(8, "groups"));
  VKRT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(a, 9, "out"));

  VKRT_RETURN_IF_ERROR(expect_float_dtype(a, 0, "input", *input));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 1, "weight", *weight, input->dtype()));
  if (bias) VKRT_RETURN_IF_ERROR(expect_dtype(a, 2, "bias", *bias, input->dtype()));
  VKRT_RETURN_IF_ERROR(expect_dtype(a, 9, "out", *out, input->dtype()));
  if (transposed) return a.error(6, "transposed", "transposed convolution is not supported by the portable kernel");
  if (input->rank() != 3 && input->rank() != 4) {
    return a.error(0, "input", "expected a 3-D or 4-D tensor, got shape " + shape_string(input->sizes()));
  }
  if (weight->rank() != input->rank()) {
    return a.error(1, "weight", "rank " + std::to_string(weight->rank()) + " differs from input rank " +
                                    std::to_string(input->rank()));
  }
  ConvGeometry g;
  g.spatial = input->rank() - 2;
  VKRT_RETURN_IF_ERROR(spatial_list(a, 3, "stride", g.spatial, 1, g.stride));
  VKRT_RETURN_IF_ERROR(spatial_list(a, 4, "padding", g.spatial, 0, g.padding));
  VKRT_RETURN_IF_ERROR(spatial_list(a, 5, "dilation", g.spatial, 1, g.dilation));

  const int64_t batch = input->size(0), channels = input->size(1), out_channels = weight->size(0);
  if (groups < 1 || channels % groups != 0 || out_channels % groups != 0) {
    return a.error(8, "groups", std::to_string(groups) + " does not divide input channels " +
                                    std::to_string(channels) + " and output channels " + std::to_string(out_channels));
  }
  const int64_t group_in = channels / groups, group_out = out_channels / groups;
  if (weight->size(1) != group_in) {
    return a.error(1, "weight", "shape " + shape_string(weight->sizes()) + " needs " + std::to_string(group_in) +
                                    " input channels per group");
  }
  if (bias && (bias->rank() != 1 || bias->size(0) != out_channels)) {
    return a.error(2, "bias", "expected shape [" + std::to_string(out_channels) + "], got " +
                                  shape_string(bias->sizes()));
  }
  // Spatial dims as 2-D (a 1-D convolution is a 2-D one with height 1).
  const int h_dim = g.spatial == 2 ? 2 : -1, w_dim = g.spatial == 2 ? 3 : 2;
  int64_t in_size[2] = {h_dim >= 0 ? input->size(h_dim) : 1, input->size(w_dim)};
  int64_t kernel[2] = {h_dim >= 0 ? weight->size(h_dim) : 1, weight->size(w_dim)};
  // (height, width) parameters; g.* hold one entry per spatial dim, width last.
  const int last = g.spatial - 1;
  const int64_t stride[2] = {g.spatial == 2 ? g.stride[0] : 1, g.stride[last]};
  const int64_t pad[2] = {g.spatial == 2 ? g.padding[0] : 0, g.padding[last]};
  const int64_t dil[2] = {g.spatial == 2 ? g.dilation[0] : 1, g.dilation[last]};
  Shape out_shape;
  out_shape.rank = input->rank();
  out_shape.dims[0] = int32_t(batch);
  out_shape.dims[1] = int32_t(out_channels);
  int64_t out_size[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t span = in_size[d] + 2 * pad[d] - dil[d] * (kernel[d] - 1) - 1;
    if (span < 0) {
      return a.error(1, "weight", "kernel " + shape_string(weight->sizes()) + " is larger than the padded input " +
                                      shape_string(input->sizes()));
    }
    out_size[d] = span / stride[d] + 1;
    if (out_size[d] > INT32_MAX) return a.error(4, "padding", "output size overflows");
  }
  if (h_dim >= 0) out_shape.dims[h_dim] = int32_t(out_size[0]);
  out_shape.dims[w_dim] = int32_t(out_size[1]);
  VKRT_RETURN_IF_ERROR(resize_output(a, 9, "out", *out, out_shape.view()));

  const auto is = input->strides(), ws = weight->strides(), os = out->strides();
  const int64_t is_h = h_dim >= 0 ? is[h_dim] : 0, ws_h = h_dim >= 0 ? ws[h_dim] : 0, os_h = h_dim >= 0 ? os[h_dim] : 0;
  const ScalarType t = input->dtype();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < out_channels; ++oc) {
      const int64_t group = oc / group_out;
      const double b = bias ? load_elem<double>(bias->data(), t, oc * bias->strides()[0]) : 0.0;
      for (int64_t oy = 0; oy < out_size[0]; ++oy) {
        for (int64_t ox = 0; ox < out_size[1]; ++ox) {
          double acc = b;
          for (int64_t ic = 0; ic < group_in; ++ic) {
            const int64_t c = group * group_in + ic;
            for (int64_t ky = 0; ky < kernel[0]; ++ky) {
              const int64_t iy = oy * stride[0] - pad[0] + ky * dil[0];
              if (iy < 0 || iy >= in_size[0]) continue;
              for (int64_t kx = 0; kx < kernel[1]; ++kx) {
                const int64_t ix = ox * stride[1] - pad[1] + kx * dil[1];
                if (ix < 0 || ix >= in_size[1]) continue;
                const double x = load_elem<double>(input->data(), t, n * is[0] + c * is[1] + iy * is_h + ix * is[w_dim]);
                const double w = load_elem<double>(weight->data(), t, oc * ws[0] + ic * ws[1] + ky * ws_h + kx * ws[w_dim]);
                acc += x * w;
              }
            }
          }
          store_elem<double>(out->data(), t, n * os[0] + oc * os[1] + oy * os_h + ox * os[w_dim], acc);
        }
      }
    }
  }
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL("aten::convolution.out", convolution_out);

}  // namespace vkrt::portable
