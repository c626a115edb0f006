// cortex_m::quantized_max_pool2d.out
#include "cortex_m/max_pool2d.h"

#include <algorithm>

#include "cortex_m/cpu_features.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

template <typename T>
VKRT_CLONES
void max_tap(T* acc, const T* in, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c) acc[c] = in[c] > acc[c] ? in[c] : acc[c];
}

template <typename T>
Status max_pool(const PoolParams& p, const T* input, T* output) {
  for (int64_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      int32_t ky0, ky1;
      pool_window(oy, p.stride_h, p.pad_h, p.kernel_h, p.in_h, &ky0, &ky1);
      const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        int32_t kx0, kx1;
        pool_window(ox, p.stride_w, p.pad_w, p.kernel_w, p.in_w, &kx0, &kx1);
        if ((ky0 >= ky1 || kx0 >= kx1) && p.channels > 0)
          return Status(Error::InvalidArgument, "an output window has no input taps");
        const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
        T* out = output + ((b * p.out_h + oy) * p.out_w + ox) * p.channels;
        // The first tap initialises the maximum (only in-bounds taps take part).
        std::copy_n(input + ((b * p.in_h + iy0 + ky0) * p.in_w + ix0 + kx0) * p.channels, p.channels, out);
        for (int32_t ky = ky0; ky < ky1; ++ky)
          for (int32_t kx = kx0; kx < kx1; ++kx)
            max_tap(out, input + ((b * p.in_h + iy0 + ky) * p.in_w + ix0 + kx) * p.channels, p.channels);
        for (int32_t c = 0; c < p.channels; ++c)
          out[c] = T(std::min<int32_t>(std::max<int32_t>(out[c], p.activation_min), p.activation_max));
      }
    }
  return Status::ok();
}

}  // namespace

Status max_pool2d_s8(const PoolParams& p, const int8_t* input, int8_t* output) { return max_pool(p, input, output); }
Status max_pool2d_s16(const PoolParams& p, const int16_t* input, int16_t* output) { return max_pool(p, input, output); }

namespace {

// quantized_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point,
//   output_zero_point, activation_min, activation_max, out) + return: 12 arguments.
// The AOT pass only emits it with dilation 1 and equal zero points (§2); anything else is rejected.
constexpr char kMaxPoolOp[] = "cortex_m::quantized_max_pool2d.out";

Result<PoolCall> parse_max_pool_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(12, 12));
  const size_t out_index = 10;
  PoolCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  const Tensor* input = c.input;
  const Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *out, {input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *input));
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *out));
  int32_t kernel[2], stride[2], padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 1, "kernel_size", kernel, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 2, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "dilation", dilation, 1, 1));
  VKRT_RETURN_IF_ERROR(args.bool_value(5, "ceil_mode").status());
  VKRT_ASSIGN_OR_RETURN(int64_t in_zp, args.int_value(6, "input_zero_point"));
  VKRT_ASSIGN_OR_RETURN(int64_t out_zp, args.int_value(7, "output_zero_point"));
  if (in_zp != out_zp) return args.error(7, "output_zero_point", "must equal input_zero_point");
  const bool s16 = input->dtype() == ScalarType::Short;
  PoolParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 8, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 9, "activation_max"));
  if (o.n != in.n || o.c != in.c) return args.error(out_index, "out", "batch/channels do not match input");
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.channels = in.c, p.out_h = o.h, p.out_w = o.w;
  p.kernel_h = kernel[0], p.kernel_w = kernel[1], p.stride_h = stride[0], p.stride_w = stride[1];
  p.pad_h = padding[0], p.pad_w = padding[1];
  if (Status s = check_pool(p, s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  return c;
}

Status quantized_max_pool2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kMaxPoolOp, argv);
  VKRT_ASSIGN_OR_RETURN(PoolCall c, prepared_or_parse(ctx, args, parse_max_pool_call));
  VKRT_RETURN_IF_ERROR(pool_data(args, c));
  const PoolParams& p = c.p;
  const Tensor* input = c.input;
  Tensor* out = c.out;
  const bool s16 = input->dtype() == ScalarType::Short;
  Status s = s16 ? max_pool2d_s16(p, input->data_as<int16_t>(), out->data_as<int16_t>())
                 : max_pool2d_s8(p, input->data_as<int8_t>(), out->data_as<int8_t>());
  if (!s.is_ok()) return args.op_error(s.code(), s.message());
  return s;
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kMaxPoolOp, quantized_max_pool2d_out, (prepare_parsed<kMaxPoolOp, parse_max_pool_call>));

}  // namespace vkrt::cortex_m
