// cortex_m::softmax.out — see softmax.h. The fixed-point helpers follow gemmlowp fixedpoint.h
// (exp_on_negative_values, one_over_one_plus_x_for_x_in_0_1) as CMSIS-NN's
// arm_nn_softmax_common_s8 uses them; int32 additions wrap as on the device.
#include "cortex_m/softmax.h"

#include "arith/fixed_point.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

using arith::rounding_divide_by_pot;
using arith::saturating_mul_by_pot;
using arith::wrap_add;
using arith::wrap_sub;
constexpr auto srdhm = arith::saturating_rounding_doubling_high_mul;

constexpr int kAccumBits = 12;

// exp(a) for a <= 0 in Q5.26, result in Q0.31.
int32_t exp_on_negative_values(int32_t a) {
  const int32_t mask = (1 << 24) - 1;
  const int32_t a_mod = wrap_sub(a & mask, 1 << 24);
  const int32_t remainder = wrap_sub(a_mod, a);
  const int32_t x = wrap_add(arith::wrap_shl(a_mod, 5), 1 << 28);
  const int32_t x2 = srdhm(x, x);
  const int32_t x3 = srdhm(x2, x);
  const int32_t x4 = srdhm(x2, x2);
  const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const int32_t poly = rounding_divide_by_pot(wrap_add(srdhm(wrap_add(x4_over_4, x3), 715827883), x2), 1);
  int32_t result = wrap_add(1895147668, srdhm(1895147668, wrap_add(x, poly)));
  static constexpr int32_t kFactors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k)
    if (remainder & (1 << (24 + k))) result = srdhm(result, kFactors[k]);
  return a == 0 ? arith::kInt32Max : result;
}

// 1 / (1 + x) for x in [0, 1) in Q0.31, Newton-Raphson (3 steps).
int32_t one_over_one_plus_x(int32_t v) {
  const int64_t s = int64_t(v) + arith::kInt32Max;
  const int32_t half_denominator = int32_t((s + (s >= 0 ? 1 : -1)) / 2);
  int32_t x = wrap_add(1515870810, srdhm(half_denominator, -1010580540));
  for (int i = 0; i < 3; ++i) {
    const int32_t correction = wrap_sub(1 << 29, srdhm(half_denominator, x));
    x = wrap_add(x, saturating_mul_by_pot(srdhm(x, correction), 2));
  }
  return saturating_mul_by_pot(x, 1);
}

template <typename Out>
void softmax_rows(const SoftmaxParams& p, const int8_t* input, Out* output, int32_t bits_base, int32_t out_min,
                  int32_t out_max) {
  for (int64_t r = 0; r < p.rows; ++r) {
    const int8_t* in = input + r * p.row_size;
    Out* out = output + r * p.row_size;
    if (p.row_size <= 0) continue;
    int32_t max = in[0];
    for (int32_t i = 1; i < p.row_size; ++i) max = in[i] > max ? in[i] : max;
    auto scaled_exp = [&](int32_t diff) {
      return exp_on_negative_values(srdhm(arith::wrap_shl(diff, p.input_left_shift), p.input_multiplier));
    };
    int64_t sum = 0;
    for (int32_t i = 0; i < p.row_size; ++i) {
      const int32_t diff = int32_t(in[i]) - max;
      if (diff >= p.diff_min) sum += rounding_divide_by_pot(scaled_exp(diff), kAccumBits);
    }
    // sum >= 2^19 (the maximum alone contributes that). The C code keeps it in int32 and shifts by
    // bits_over_unit; both overflow for long rows. Here (softmax.h): the sum is unsigned, sums
    // of 2^32 and more drop their low bits (and add them to the shift), and a shift past 31
    // divides a value below 2^31 by at least 2^32, which rounds to 0: the output minimum.
    uint64_t wide = uint64_t(sum);
    int32_t dropped = 0;
    while (wide >> 32) {
      wide >>= 1;
      ++dropped;
    }
    if (wide == 0) {  // only when diff_min > 0 excludes even the maximum (not a valid parameter)
      for (int32_t i = 0; i < p.row_size; ++i) out[i] = Out(out_min);
      continue;
    }
    const int32_t headroom = __builtin_clz(uint32_t(wide));
    const int32_t bits = bits_base - headroom + dropped;
    if (bits > 31) {
      for (int32_t i = 0; i < p.row_size; ++i) out[i] = Out(out_min);
      continue;
    }
    const int32_t normalized = int32_t(uint32_t(wide) << headroom);
    const int32_t scale = one_over_one_plus_x(int32_t(uint32_t(normalized) - 0x80000000u));
    for (int32_t i = 0; i < p.row_size; ++i) {
      const int32_t diff = int32_t(in[i]) - max;
      if (diff >= p.diff_min) {
        const int32_t v = rounding_divide_by_pot(srdhm(scale, scaled_exp(diff)), bits) + out_min;
        out[i] = Out(v < out_min ? out_min : (v > out_max ? out_max : v));
      } else {
        out[i] = Out(out_min);
      }
    }
  }
}

}  // namespace

void softmax_s8(const SoftmaxParams& p, const int8_t* input, int8_t* output) {
  softmax_rows(p, input, output, kAccumBits + 23, -128, 127);
}

void softmax_s8_s16(const SoftmaxParams& p, const int8_t* input, int16_t* output) {
  softmax_rows(p, input, output, kAccumBits + 15, -32768, 32767);
}

namespace {

// softmax(input, dim, input_zero_point, output_zero_point, input_multiplier, input_shift,
//   diff_min, out) + return: 9 arguments. dim must be the last (innermost) dimension; the output
// zero point must be −128 (int8 out) or −32768 (int16 out); input_zero_point is validated and
// otherwise unused (the algorithm works on x − max).
constexpr char kSoftmaxOp[] = "cortex_m::softmax.out";

struct SoftmaxCall {
  SoftmaxParams p;
  Tensor* input = nullptr;
  Tensor* out = nullptr;
};

Result<SoftmaxCall> parse_softmax_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(9, 9));
  SoftmaxCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(7, "out"));
  Tensor* input = c.input;
  Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 7, "out", *out, {ScalarType::Char, ScalarType::Short}));
  const bool s16 = out->dtype() == ScalarType::Short;
  if (input->rank() < 1) return args.error(0, "input", "expected rank >= 1");
  VKRT_ASSIGN_OR_RETURN(int64_t dim, args.int_value(1, "dim"));
  if (dim < 0) dim += input->rank();
  if (dim != input->rank() - 1) return args.error(1, "dim", "must be the last dimension");
  if (input->dim_order()[input->rank() - 1] != input->rank() - 1)
    return args.error(0, "input", "the softmax dimension must be innermost in memory");
  VKRT_RETURN_IF_ERROR(int_arg(args, 2, "input_zero_point", -128, 127).status());
  VKRT_ASSIGN_OR_RETURN(int32_t out_zp, int_arg(args, 3, "output_zero_point"));
  if (out_zp != (s16 ? -32768 : -128)) return args.error(3, "output_zero_point", s16 ? "must be -32768" : "must be -128");
  SoftmaxParams& p = c.p;
  VKRT_ASSIGN_OR_RETURN(p.input_multiplier, int_arg(args, 4, "input_multiplier"));
  VKRT_ASSIGN_OR_RETURN(p.input_left_shift, int_arg(args, 5, "input_shift", 0, 31));
  VKRT_ASSIGN_OR_RETURN(p.diff_min, int_arg(args, 6, "diff_min", INT32_MIN, 0));
  VKRT_RETURN_IF_ERROR(output_sizes(args, 7, *out, input->sizes()));
  if (!out->same_layout(*input) && out->dim_order()[out->rank() - 1] != out->rank() - 1)
    return args.error(7, "out", "expected the input's memory order");
  p.row_size = input->size(input->rank() - 1);
  p.rows = p.row_size ? input->numel() / p.row_size : 0;
  return c;
}

Status softmax_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kSoftmaxOp, argv);
  VKRT_ASSIGN_OR_RETURN(SoftmaxCall c, prepared_or_parse(ctx, args, parse_softmax_call));
  VKRT_RETURN_IF_ERROR(output_memory(args, 7, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  if (c.out->dtype() == ScalarType::Short)
    softmax_s8_s16(c.p, c.input->data_as<int8_t>(), c.out->data_as<int16_t>());
  else
    softmax_s8(c.p, c.input->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kSoftmaxOp, softmax_out, (prepare_parsed<kSoftmaxOp, parse_softmax_call>));

}  // namespace vkrt::cortex_m
