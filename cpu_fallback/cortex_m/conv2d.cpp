// cortex_m::quantized_conv2d.out
//
// acc[b,oy,ox,oc] = bias[oc] + Σ_{ky,kx in bounds} Σ_{c<KC} (in[b,iy,ix,g·KC+c] + in_off)·w[oc,ky,kx,c]
// iy = oy·sh − ph + ky·dh, ix = ox·sw − pw + kx·dw, g = oc / (OC/groups)
// out = clamp(requantize(acc, mult[oc], shift[oc]) + out_off, act_min, act_max)   (§4.3)
//
// The fast path is one GEMM per group (gemm_s8.h) whose A rows are the output pixels' input
// patches: read in place for 1x1 convolutions without padding, else gathered (im2col) with
// padding taps set to −in_off so that they contribute exactly 0, as CMSIS-NN does.
#include "cortex_m/conv2d.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "arith/fixed_point.h"
#include "cortex_m/compute_core.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

using arith::wrap_add;
using arith::wrap_mul;

Status check_conv2d(const Conv2dParams& p, bool int16_activations) {
  auto bad = [](const std::string& what) { return Status(Error::InvalidArgument, what); };
  if (p.batches < 0 || p.in_h < 0 || p.in_w < 0 || p.in_ch < 0 || p.out_h < 0 || p.out_w < 0 || p.out_ch < 0)
    return bad("negative size");
  if (p.kernel_h < 1 || p.kernel_w < 1) return bad("kernel size must be >= 1");
  if (p.stride_h < 1 || p.stride_w < 1) return bad("stride must be >= 1");
  if (p.dilation_h < 1 || p.dilation_w < 1) return bad("dilation must be >= 1");
  if (p.pad_h < 0 || p.pad_w < 0) return bad("padding must be >= 0");
  if (p.groups < 1 || p.in_ch % p.groups != 0 || p.out_ch % p.groups != 0)
    return bad("groups " + std::to_string(p.groups) + " must divide input channels " + std::to_string(p.in_ch) +
               " and output channels " + std::to_string(p.out_ch));
  const int32_t lo = int16_activations ? -32768 : -128, hi = int16_activations ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return bad("activation range [" + std::to_string(p.activation_min) + ", " + std::to_string(p.activation_max) +
               "] invalid");
  // Products of dims stay far from int64 overflow (sizes are int32; checked for 2^62).
  const int64_t taps = int64_t(p.kernel_h) * p.kernel_w * (p.in_ch / std::max(p.groups, 1));
  if (taps > (int64_t(1) << 31) - 1) return bad("kernel too large");
  return Status::ok();
}

namespace {

struct Im2col {
  const Conv2dParams* p;
  const int8_t* input;
  int32_t channel0;  // first input channel of the group
  int32_t kc;        // channels per group
  int8_t pad_value;
  bool direct;       // 1x1, no padding, in bounds: rows are read in place
};

const int8_t* im2col_row(const void* ctx, int64_t r, int8_t* tmp) {
  const Im2col& c = *static_cast<const Im2col*>(ctx);
  const Conv2dParams& p = *c.p;
  const int64_t ox = r % p.out_w;
  const int64_t oy = (r / p.out_w) % p.out_h;
  const int64_t b = r / (int64_t(p.out_w) * p.out_h);
  const int8_t* image = c.input + b * int64_t(p.in_h) * p.in_w * p.in_ch;
  if (c.direct) {
    return image + ((oy * p.stride_h) * p.in_w + ox * p.stride_w) * p.in_ch + c.channel0;
  }
  int8_t* dst = tmp;
  for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
    const int64_t iy = oy * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
    for (int32_t kx = 0; kx < p.kernel_w; ++kx, dst += c.kc) {
      const int64_t ix = ox * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
      if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) {
        std::memset(dst, c.pad_value, size_t(c.kc));
      } else {
        std::memcpy(dst, image + (iy * p.in_w + ix) * p.in_ch + c.channel0, size_t(c.kc));
      }
    }
  }
  return tmp;
}

bool is_direct_1x1(const Conv2dParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.pad_h == 0 && p.pad_w == 0 &&
         (p.out_h == 0 || int64_t(p.out_h - 1) * p.stride_h < p.in_h) &&
         (p.out_w == 0 || int64_t(p.out_w - 1) * p.stride_w < p.in_w);
}

GemmS8 group_gemm(const Conv2dParams& p, const Im2col& ctx, int32_t g, const int8_t* weight,
                  const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  const int32_t oc_per_group = p.out_ch / p.groups;
  const int32_t k = p.kernel_h * p.kernel_w * ctx.kc;
  GemmS8 gm;
  gm.m = int64_t(p.batches) * p.out_h * p.out_w;
  gm.n = oc_per_group;
  gm.k = k;
  if (ctx.direct && p.stride_h == 1 && p.stride_w == 1 && p.out_h == p.in_h && p.out_w == p.in_w) {
    // A pointwise layer's patches are its input's pixels, one after another: A itself, read in
    // place without a call per row (2.8% of MobileNetV2's 56x56 24→144 layer at avx2).
    gm.a = ctx.input ? ctx.input + ctx.channel0 : nullptr;
    gm.a_stride = p.in_ch;
  } else {
    gm.a_row = im2col_row;
    gm.a_ctx = &ctx;
  }
  gm.b = weight + int64_t(g) * oc_per_group * k;
  gm.b_stride = k;
  gm.bias = bias ? bias + g * oc_per_group : nullptr;
  gm.a_offset = p.input_offset;
  gm.b_offset = 0;
  gm.out.multiplier = multiplier + g * oc_per_group;
  gm.out.shift = shift + g * oc_per_group;
  gm.out.per_channel = true;
  gm.out.output_offset = p.output_offset;
  gm.out.activation_min = p.activation_min;
  gm.out.activation_max = p.activation_max;
  gm.c = output + g * oc_per_group;
  gm.c_stride = p.out_ch;
  return gm;
}

bool gemm_usable(const Conv2dParams& p) {
  // Padding taps are gathered as the byte −in_off; it must be an int8 value.
  return is_direct_1x1(p) || (p.input_offset >= -127 && p.input_offset <= 128);
}

}  // namespace

size_t conv2d_s8_scratch_bytes(const Conv2dParams& p, int threads, const GemmS8PackedB* packed) {
  if (!gemm_usable(p) || p.groups < 1) return 0;
  Im2col ctx{&p, nullptr, 0, p.in_ch / p.groups, 0, is_direct_1x1(p)};
  GemmS8 gm = group_gemm(p, ctx, 0, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (packed && p.groups == 1) {  // sized as if it matches; gemm_s8 re-checks with the real pointers
    gm.b = packed->b;
    gm.bias = packed->bias;
    gm.out.multiplier = packed->multiplier;
    gm.out.shift = packed->shift;
    gm.packed_b = packed;
  }
  return gemm_s8_scratch_bytes(gm, threads);
}

size_t conv2d_s8_packed_bytes(const Conv2dParams& p) {
  if (!gemm_usable(p) || p.groups != 1) return 0;
  static const int8_t kAnyWeights = 0;  // only the sizes matter here
  static const int32_t kAnyScale = 0;
  Im2col ctx{&p, nullptr, 0, p.in_ch, 0, is_direct_1x1(p)};
  return gemm_s8_packed_b_bytes(group_gemm(p, ctx, 0, &kAnyWeights, nullptr, &kAnyScale, &kAnyScale, nullptr));
}

const GemmS8PackedB* conv2d_s8_pack_weights(const Conv2dParams& p, const int8_t* weight, const int32_t* bias,
                                            const int32_t* multiplier, const int32_t* shift,
                                            std::span<uint8_t> memory) {
  if (!gemm_usable(p) || p.groups != 1) return nullptr;
  Im2col ctx{&p, nullptr, 0, p.in_ch, 0, is_direct_1x1(p)};
  return gemm_s8_pack_b(group_gemm(p, ctx, 0, weight, bias, multiplier, shift, nullptr), memory);
}

void conv2d_s8(const Conv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
               const int32_t* multiplier, const int32_t* shift, int8_t* output, const Exec& exec,
               const GemmS8PackedB* packed) {
  const int32_t kc = p.in_ch / p.groups;
  const bool direct = is_direct_1x1(p);
  Im2col probe{&p, input, 0, kc, int8_t(-p.input_offset), direct};
  if (!gemm_usable(p) ||
      exec.scratch.size() < gemm_s8_min_scratch_bytes(group_gemm(p, probe, 0, weight, bias, multiplier, shift, output))) {
    conv2d_s8_portable(p, input, weight, bias, multiplier, shift, output);
    return;
  }
  for (int32_t g = 0; g < p.groups; ++g) {
    const Im2col ctx{&p, input, g * kc, kc, int8_t(-p.input_offset), direct};
    GemmS8 gm = group_gemm(p, ctx, g, weight, bias, multiplier, shift, output);
    if (p.groups == 1) gm.packed_b = packed;
    gemm_s8(gm, exec);
  }
}

void conv2d_s8_portable(const Conv2dParams& p, const int8_t* input, const int8_t* weight,
                        const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
                        int8_t* output) {
  const int32_t kc = p.in_ch / p.groups;
  const int32_t oc_per_group = p.out_ch / p.groups;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.out_h; ++oy) {
      for (int32_t ox = 0; ox < p.out_w; ++ox) {
        int8_t* out = output + ((int64_t(b) * p.out_h + oy) * p.out_w + ox) * p.out_ch;
        for (int32_t oc = 0; oc < p.out_ch; ++oc) {
          const int32_t c0 = (oc / oc_per_group) * kc;
          int32_t acc = bias ? bias[oc] : 0;
          for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
            const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
              const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
              if (ix < 0 || ix >= p.in_w) continue;
              const int8_t* in = input + ((int64_t(b) * p.in_h + iy) * p.in_w + ix) * p.in_ch + c0;
              const int8_t* w = weight + ((int64_t(oc) * p.kernel_h + ky) * p.kernel_w + kx) * kc;
              for (int32_t c = 0; c < kc; ++c)
                acc = wrap_add(acc, wrap_mul(int32_t(in[c]) + p.input_offset, w[c]));
            }
          }
          const int32_t v = arith::requantize(acc, multiplier[oc], shift[oc]);
          out[oc] = int8_t(arith::clamp_activation(wrap_add(v, p.output_offset), p.activation_min,
                                                   p.activation_max));
        }
      }
    }
  }
}

namespace {

compute::ConvS16Shape s16_shape(const Conv2dParams& p) {
  compute::ConvS16Shape s;
  s.batches = p.batches, s.in_h = p.in_h, s.in_w = p.in_w, s.in_ch = p.in_ch;
  s.out_h = p.out_h, s.out_w = p.out_w, s.out_ch = p.out_ch;
  s.kernel_h = p.kernel_h, s.kernel_w = p.kernel_w, s.stride_h = p.stride_h, s.stride_w = p.stride_w;
  s.pad_top = p.pad_h, s.pad_left = p.pad_w, s.dilation_h = p.dilation_h, s.dilation_w = p.dilation_w;
  s.groups = p.groups;
  return s;
}

}  // namespace

size_t conv2d_s16_packed_bytes(const Conv2dParams& p) { return compute::conv_s16_packed_weights_bytes(s16_shape(p)); }

const compute::ConvS16PackedWeights* conv2d_s16_pack_weights(const Conv2dParams& p, const int8_t* weight,
                                                             std::span<uint8_t> memory) {
  compute::ConvS16 c;
  c.shape = s16_shape(p);
  c.weight = weight;
  return compute::conv_s16_pack_weights(c, memory);
}

size_t conv2d_s16_scratch_bytes(const Conv2dParams& p, int threads, const compute::ConvS16PackedWeights* packed) {
  return compute::conv_s16_scratch_bytes(s16_shape(p), threads, packed);
}

void conv2d_s16(const Conv2dParams& p, const int16_t* input, const int8_t* weight, const int32_t* bias32,
                const int64_t* bias64, const int32_t* multiplier, const int32_t* shift, int16_t* output,
                const Exec& exec, const compute::ConvS16PackedWeights* packed) {
  compute::ConvS16 c;
  c.shape = s16_shape(p);
  c.input = input, c.weight = weight, c.packed = packed;
  c.out = s16_output(bias32, bias64, multiplier, shift, p.activation_min, p.activation_max, output);
  compute::conv_s16(c, exec);
}

// ---- kernel --------------------------------------------------------------------------------
namespace {

// quantized_conv2d(input, weight, bias?, stride[2], padding[2], dilation[2], input_offset,
//   output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max,
//   [scratch], out) + return slot: 15 arguments, 14 before scratch existed (§2).
constexpr const char* kConvOp = "cortex_m::quantized_conv2d.out";

struct ConvCall {
  Conv2dParams p;
  Tensor* input = nullptr;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  Tensor* out = nullptr;
  const int32_t* mult = nullptr;
  const int32_t* shift = nullptr;
  bool s16 = false;
};

// Every argument check that does not need the activations' data (shared by prepare and execute).
Result<ConvCall> parse_conv_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(14, 15));
  const size_t out_index = args.size() - 2;
  ConvCall c;
  Conv2dParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.weight, args.tensor(1, "weight"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(out_index, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *c.input, {ScalarType::Char, ScalarType::Short}));
  c.s16 = c.input->dtype() == ScalarType::Short;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "weight", *c.weight, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, out_index, "out", *c.out, {c.input->dtype()}));
  VKRT_ASSIGN_OR_RETURN(Nhwc in, nhwc_of(args, 0, "input", *c.input));
  if (c.weight->rank() != 4) return args.error(1, "weight", "expected 4-D OHWI weights");
  const auto wd = physical_dims4(*c.weight);  // [out_ch, kh, kw, in_ch/groups]

  int32_t stride[2], padding[2], dilation[2];
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 3, "stride", stride, 1, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 4, "padding", padding, 0, INT32_MAX));
  VKRT_RETURN_IF_ERROR(int_list_arg(args, 5, "dilation", dilation, 1, INT32_MAX));
  VKRT_ASSIGN_OR_RETURN(p.input_offset, int_arg(args, 6, "input_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.output_offset, int_arg(args, 7, "output_offset", -65536, 65536));
  VKRT_ASSIGN_OR_RETURN(p.activation_min, int_arg(args, 10, "activation_min"));
  VKRT_ASSIGN_OR_RETURN(p.activation_max, int_arg(args, 11, "activation_max"));
  if (wd[3] <= 0 || in.c % wd[3] != 0)
    return args.error(1, "weight", "input channels " + std::to_string(in.c) + " not a multiple of weight channels " +
                                       std::to_string(wd[3]));
  p.batches = in.n, p.in_h = in.h, p.in_w = in.w, p.in_ch = in.c;
  p.out_ch = wd[0], p.kernel_h = wd[1], p.kernel_w = wd[2];
  p.groups = in.c / wd[3];
  p.stride_h = stride[0], p.stride_w = stride[1];
  p.pad_h = padding[0], p.pad_w = padding[1];
  p.dilation_h = dilation[0], p.dilation_w = dilation[1];
  VKRT_ASSIGN_OR_RETURN(Nhwc o, nhwc_of(args, out_index, "out", *c.out));
  if (o.n != in.n || o.c != p.out_ch)
    return args.error(out_index, "out", "batch/channels do not match input and weight");
  p.out_h = o.h, p.out_w = o.w;
  if (Status s = check_conv2d(p, c.s16); !s.is_ok()) return args.op_error(s.code(), s.message());
  VKRT_ASSIGN_OR_RETURN(c.bias, optional_bias(args, 2, "bias", p.out_ch, c.s16));
  VKRT_ASSIGN_OR_RETURN(c.mult, channel_params(args, 8, "requantize_multipliers", p.out_ch));
  VKRT_ASSIGN_OR_RETURN(c.shift, channel_params(args, 9, "requantize_shifts", p.out_ch));
  for (int32_t ch = 0; ch < p.out_ch; ++ch)
    VKRT_RETURN_IF_ERROR(expect_range(args, 9, "requantize_shifts", c.shift[ch], -31, 30));
  return c;
}

// Load time: the call is parsed once (prepare_call); constant int8 weights (with constant bias
// and scales) are also packed once for the GEMM.
Status quantized_conv2d_prepare(KernelPrepareContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kConvOp, argv);
  VKRT_ASSIGN_OR_RETURN(PreparedCall<ConvCall> * prepared,
                        prepare_call(ctx, args, parse_conv_call, {1, 2, 8, 9}));
  if (prepared == nullptr) return Status::ok();
  const ConvCall& c = prepared->call;
  if (c.weight->data() == nullptr) return Status::ok();
  if (c.s16) {  // the A16W8 convolution's panels
    const size_t bytes = conv2d_s16_packed_bytes(c.p);
    if (bytes == 0) return Status::ok();
    VKRT_ASSIGN_OR_RETURN(std::span<uint8_t> memory, packing_memory(ctx, args, bytes));
    prepared->packed = conv2d_s16_pack_weights(c.p, c.weight->data_as<int8_t>(), memory);
    return Status::ok();
  }
  const size_t bytes = conv2d_s8_packed_bytes(c.p);
  if (bytes == 0) return Status::ok();
  VKRT_ASSIGN_OR_RETURN(std::span<uint8_t> memory, packing_memory(ctx, args, bytes));
  prepared->packed = conv2d_s8_pack_weights(c.p, c.weight->data_as<int8_t>(),
                                            c.bias ? c.bias->data_as<int32_t>() : nullptr, c.mult, c.shift, memory);
  return Status::ok();
}

Status quantized_conv2d_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kConvOp, argv);
  const void* packed_weights = nullptr;
  VKRT_ASSIGN_OR_RETURN(ConvCall c, prepared_or_parse<ConvCall>(ctx, args, parse_conv_call, &packed_weights));
  const Conv2dParams& p = c.p;
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "weight", *c.weight));
  VKRT_RETURN_IF_ERROR(expect_data(args, args.size() - 2, "out", *c.out));
  ContextRunner runner(ctx);
  if (c.s16) {
    const bool b64 = c.bias && c.bias->dtype() == ScalarType::Long;
    const auto* packed = static_cast<const compute::ConvS16PackedWeights*>(packed_weights);
    conv2d_s16(p, c.input->data_as<int16_t>(), c.weight->data_as<int8_t>(),
               (c.bias && !b64) ? c.bias->data_as<int32_t>() : nullptr, b64 ? c.bias->data_as<int64_t>() : nullptr,
               c.mult, c.shift, c.out->data_as<int16_t>(),
               make_exec(ctx, runner, conv2d_s16_scratch_bytes(p, runner.num_threads(), packed)), packed);
    return Status::ok();
  }
  const auto* packed = static_cast<const GemmS8PackedB*>(packed_weights);
  const Exec exec = make_exec(ctx, runner, conv2d_s8_scratch_bytes(p, runner.num_threads(), packed));
  conv2d_s8(p, c.input->data_as<int8_t>(), c.weight->data_as<int8_t>(), c.bias ? c.bias->data_as<int32_t>() : nullptr,
            c.mult, c.shift, c.out->data_as<int8_t>(), exec, packed);
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kConvOp, quantized_conv2d_out, quantized_conv2d_prepare);

}  // namespace vkrt::cortex_m
